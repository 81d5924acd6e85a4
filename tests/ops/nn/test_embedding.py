"""embedding and one_hot against torch.nn.functional: values, max_norm, errors and derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck
from ember.ops import functional as F
from tests._oracle import needs_torch, torch

from ._helpers import FLOATS, RNG, SETTINGS, TF, TORCH_ADVICE, check, compare_grads, idx, leaf, make, pair, seeded, shapes

pytestmark = TORCH_ADVICE


@needs_torch
@SETTINGS
@given(idx_shape=shapes(0, 3, 0, 4), v=st.integers(1, 6), d=st.integers(0, 4), dtype=st.sampled_from(FLOATS),
       idx_dtype=st.sampled_from([np.int64, np.int32]), noncontig=st.booleans())
def test_embedding(idx_shape, v, d, dtype, idx_dtype, noncontig):
    rng = seeded(v * 10 + d)
    idx = rng.integers(0, v, size=idx_shape).astype(idx_dtype)
    w = rng.normal(size=(v, d)).astype(dtype)
    (ei, ti), (ew, tw) = make(idx, noncontig), make(w, noncontig)
    check(ember.embedding(ei, ew), TF.embedding(ti, tw))
    check(ember.one_hot(ember.tensor(idx.astype(np.int64)), v), TF.one_hot(torch.from_numpy(idx.astype(np.int64)), v))
    if idx.size:
        check(ember.one_hot(ember.tensor(idx.astype(np.int64))), TF.one_hot(torch.from_numpy(idx.astype(np.int64))))


@needs_torch
def test_embedding_max_norm():
    w = seeded(8).normal(size=(6, 4)) * 3
    ew, tw = make(w)
    idx = np.array([[0, 2], [2, 5]])
    check(ember.embedding(ember.tensor(idx), ew, max_norm=1.5), TF.embedding(torch.from_numpy(idx), tw, max_norm=1.5))
    check(ew, tw)  # the used rows were renormalized in place, the others untouched


def test_embedding_and_one_hot_errors():
    w = ember.zeros((5, 3))
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.embedding(ember.tensor([5]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.embedding(ember.tensor([-1]), w)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of the following scalar types"):
        ember.embedding(ember.tensor([1.0]), w)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        ember.embedding(ember.tensor([1]), ember.zeros(5))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        ember.embedding(ember.tensor([1]), w, padding_idx=5)
    with pytest.raises(RuntimeError, match=r"Class values must be non-negative\."):
        ember.one_hot(ember.tensor([-1]))
    with pytest.raises(RuntimeError, match=r"Class values must be smaller than num_classes\."):
        ember.one_hot(ember.tensor([3]), 3)
    with pytest.raises(RuntimeError, match=r"Can not infer total number of classes from empty tensor\."):
        ember.one_hot(ember.zeros(0, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor"):
        ember.one_hot(ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor"):
        ember.one_hot(ember.tensor(1, dtype=ember.int32), 3)  # int64 only, as PyTorch
    assert ember.one_hot(ember.tensor(1), 3).dtype is ember.int64


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


def test_embedding_grad():
    w = leaf((5, 3))
    ids = idx([[0, 2, 4], [2, 2, 1]])
    gradcheck(lambda ww: F.embedding(ids, ww), (w,))
    out = F.embedding(ids, w, padding_idx=2)
    out.sum().backward()
    assert np.all(w.grad.numpy()[2] == 0)
    np.testing.assert_allclose(w.grad.numpy()[[0, 1, 4]], 1.0)
    np.testing.assert_allclose(w.grad.numpy()[3], 0.0)
    # scale_grad_by_freq divides each row's gradient by its index count (not the true gradient)
    w2 = leaf((5, 3))
    F.embedding(ids, w2, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w2.grad.numpy()[:, 0], [1.0, 1.0, 1.0, 0.0, 1.0])


@needs_torch
def test_gradients_against_torch():
    tgt = RNG.integers(0, 5, (6, 3))
    cases = [
        (lambda w: F.embedding(idx(tgt), w, scale_grad_by_freq=True), lambda w: TF.embedding(torch.tensor(tgt), w, scale_grad_by_freq=True),
         [pair((5, 4))]),
        (lambda w: F.embedding(idx(tgt), w, padding_idx=0), lambda w: TF.embedding(torch.tensor(tgt), w, padding_idx=0), [pair((5, 4))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)
