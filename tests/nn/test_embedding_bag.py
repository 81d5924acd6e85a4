"""embedding_bag / EmbeddingBag: closed forms (bags summed by hand) always, PyTorch's values and gradients
where torch is installed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from tests._oracle import needs_torch, torch

INDICES = [1, 2, 4, 5, 4, 3, 2, 9, 0, 0]
OFFSETS = [0, 4, 4, 7]  # bags [1 2 4 5], [], [4 3 2], [9 0 0]


def _weight(seed=0):
    return np.random.default_rng(seed).standard_normal((10, 3)).astype(np.float32)


def _by_hand(w, reduce, padding_idx=None):
    bounds = [*OFFSETS, len(INDICES)]
    out = []
    for start, end in itertools.pairwise(bounds):
        rows = [w[i] for i in INDICES[start:end] if i != padding_idx]
        out.append(reduce(np.stack(rows)) if rows else np.zeros(3, dtype=np.float32))
    return np.stack(out)


@pytest.mark.parametrize("mode,reduce", [("sum", lambda r: r.sum(0)), ("mean", lambda r: r.mean(0)), ("max", lambda r: r.max(0))])
def test_modes_by_hand(mode, reduce):
    w = _weight()
    out = F.embedding_bag(ember.tensor(INDICES), ember.tensor(w), ember.tensor(OFFSETS), mode=mode)
    np.testing.assert_allclose(out.numpy(), _by_hand(w, reduce), rtol=1e-6)
    padded = F.embedding_bag(ember.tensor(INDICES), ember.tensor(w), ember.tensor(OFFSETS), mode=mode, padding_idx=0)
    np.testing.assert_allclose(padded.numpy(), _by_hand(w, reduce, padding_idx=0), rtol=1e-6)


def test_2d_input_last_offset_and_weights():
    w = _weight()
    bags = ember.tensor([[1, 2], [3, 3]])
    np.testing.assert_allclose(F.embedding_bag(bags, ember.tensor(w), mode="sum").numpy(), [w[1] + w[2], 2 * w[3]], rtol=1e-6)
    out = F.embedding_bag(ember.tensor([1, 2, 3]), ember.tensor(w), ember.tensor([0, 1, 2]), mode="sum", include_last_offset=True)
    np.testing.assert_allclose(out.numpy(), [w[1], w[2]], rtol=1e-6)
    psw = ember.tensor([2.0, -1.0, 0.5])
    out = F.embedding_bag(ember.tensor([1, 2, 3]), ember.tensor(w), ember.tensor([0, 2]), mode="sum", per_sample_weights=psw)
    np.testing.assert_allclose(out.numpy(), [2 * w[1] - w[2], 0.5 * w[3]], rtol=1e-6)


def test_gradients():
    w = ember.tensor(_weight(), requires_grad=True)
    F.embedding_bag(ember.tensor(INDICES), w, ember.tensor(OFFSETS), mode="mean", padding_idx=0).sum().backward()
    expected = np.zeros((10, 3), dtype=np.float32)
    for i in [1, 2, 4, 5]:
        expected[i] += 0.25
    for i in [4, 3, 2]:
        expected[i] += 1 / 3
    expected[9] += 1.0
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-6)
    w.grad = None
    F.embedding_bag(ember.tensor([[3, 7]]), w, mode="max").sum().backward()
    winners = np.where(_weight()[3] >= _weight()[7], 3, 7)
    expected = np.zeros((10, 3), dtype=np.float32)
    expected[winners, np.arange(3)] = 1.0
    np.testing.assert_array_equal(w.grad.numpy(), expected)
    psw = ember.tensor([2.0, 3.0], requires_grad=True)
    F.embedding_bag(ember.tensor([1, 2]), w, ember.tensor([0]), mode="sum", per_sample_weights=psw).sum().backward()
    np.testing.assert_allclose(psw.grad.numpy(), [_weight()[1].sum(), _weight()[2].sum()], rtol=1e-6)


def test_errors():
    w = ember.tensor(_weight())
    idx = ember.tensor([1, 2])
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(idx, w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(idx.reshape(1, 2), w, ember.tensor([0]))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(idx, w, ember.tensor([0]), mode="min")
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(idx, w, ember.tensor([0]), per_sample_weights=ember.ones(2))
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(idx, w, ember.tensor([1]))
    with pytest.raises(RuntimeError, match="not in the valid range \\[0, 10\\)"):
        F.embedding_bag(ember.tensor([1, 12]), w, ember.tensor([0]))
    with pytest.raises(RuntimeError, match="int32 or int64"):
        F.embedding_bag(ember.tensor([1.0]), w, ember.tensor([0]))


def test_module_padding_row_and_repr():
    bag = nn.EmbeddingBag(10, 3, mode="sum", padding_idx=-1)
    assert bag.padding_idx == 9 and bag.weight[9].eq(0).all().item()
    assert repr(bag) == "EmbeddingBag(10, 3, mode='sum', padding_idx=9)"
    frozen = nn.EmbeddingBag.from_pretrained(ember.tensor(_weight()))
    assert not frozen.weight.requires_grad and frozen(ember.tensor([[1, 2]])).shape == (1, 3)


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_matches_torch(mode, padding_idx, include_last_offset):
    w = _weight()
    we, wt = ember.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    kwargs = {"mode": mode, "padding_idx": padding_idx, "include_last_offset": include_last_offset}
    if mode == "sum":
        psw = np.linspace(-1, 2, len(INDICES)).astype(np.float32)
        kwargs_e = {**kwargs, "per_sample_weights": ember.tensor(psw)}
        kwargs_t = {**kwargs, "per_sample_weights": torch.tensor(psw)}
    else:
        kwargs_e = kwargs_t = kwargs
    # with include_last_offset the last offset is the input's length, as documented (torch's modes
    # disagree with each other when it is not: pytorch/pytorch#191965)
    offsets = [*OFFSETS, len(INDICES)] if include_last_offset else OFFSETS
    ours = F.embedding_bag(ember.tensor(INDICES), we, ember.tensor(offsets), **kwargs_e)
    theirs = torch.nn.functional.embedding_bag(torch.tensor(INDICES), wt, torch.tensor(offsets), **kwargs_t)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-7)
    g = np.random.default_rng(1).standard_normal(tuple(theirs.shape)).astype(np.float32)
    (ours * ember.tensor(g)).sum().backward()
    (theirs * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(we.grad.numpy(), wt.grad.numpy(), rtol=1e-5, atol=1e-6)


@needs_torch
def test_max_norm_matches_torch():
    w = _weight() * 3
    we, wt = ember.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ours = F.embedding_bag(ember.tensor(INDICES), we, ember.tensor(OFFSETS), max_norm=1.5, mode="sum")
    theirs = torch.nn.functional.embedding_bag(torch.tensor(INDICES), wt, torch.tensor(OFFSETS), max_norm=1.5, mode="sum")
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(we.detach().numpy(), wt.detach().numpy(), rtol=1e-5, atol=1e-6)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(we.grad.numpy(), wt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_scale_grad_by_freq_divides_by_the_count_in_the_batch():
    w = ember.ones(4, 2, requires_grad=True)
    F.embedding_bag(ember.tensor([1, 2, 1, 1]), w, ember.tensor([0, 2]), mode="sum", scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w.grad.numpy()[:3, 0], [0.0, 1.0, 1.0])
