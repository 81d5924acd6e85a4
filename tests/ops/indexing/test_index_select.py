"""index_select, index_add, index_copy and index_fill: against PyTorch and NumPy on
hypothesis-drawn shapes and every dtype, errors, and the derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import ALL_DTYPES, TORCH_DTYPES, check, from_torch, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, draw_index, idx, leaf, values

REAL_DTYPES = tuple(d for d in TORCH_DTYPES if not d.startswith("complex"))


@needs_torch
@OPS
@given(data=st.data())
def test_index_select_add_copy_fill_match_torch(data):
    t, a = data.draw(arrays(dtypes=REAL_DTYPES, min_dims=1))
    d = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    size = a.shape[d]
    n = data.draw(st.integers(0, 4), label="n")
    index = draw_index(data, size, (n,), negative=False)  # torch refuses negative ones here
    if index is None:
        return
    e_i, t_i = ember.from_numpy(index), to_torch(index)
    assert_same(t.index_select(d, e_i), torch.index_select(to_torch(a), d, t_i))
    sshape = tuple(n if k == d % a.ndim else s for k, s in enumerate(a.shape))
    dtype = "bfloat16" if a.dtype.name == "bfloat16" else str(a.dtype)
    src = values(sshape, dtype, 5)
    if a.dtype != np.bool_:
        alpha = data.draw(st.sampled_from([1, 2]))
        got = t.index_add(d, e_i, ember.from_numpy(src), alpha=alpha)
        want = torch.index_add(to_torch(a), d, t_i, to_torch(src), alpha=alpha)
        if a.dtype.kind == "f":
            np.testing.assert_allclose(got.numpy().astype(np.float64), from_torch(want).astype(np.float64), rtol=2e-2, atol=1e-2)
        else:
            assert_same(got, want)
    if len(np.unique(index % max(size, 1))) == index.size:  # repeated targets: torch picks any
        assert_same(t.index_copy(d, e_i, ember.from_numpy(src)), torch.index_copy(to_torch(a), d, t_i, to_torch(src)))
    assert_same(t.index_fill(d, e_i, 1), torch.index_fill(to_torch(a), d, t_i, 1))
    assert_same(t.index_fill(d, e_i, ember.tensor(0)), torch.index_fill(to_torch(a), d, t_i, torch.tensor(0)))


def test_out_of_bounds_indices_raise_index_error_never_wrap():
    t = ember.zeros(3, 4)
    with pytest.raises(IndexError, match=r"index out of range in self \(index 3 for dimension 0 with size 3\)"):
        t.index_select(0, ember.tensor([3]))
    with pytest.raises(IndexError, match=r"index out of range in self \(index 3 for dimension 0 with size 3\)"):
        t.index_add_(0, ember.tensor([3]), ember.ones(1, 4))
    assert t.tolist() == [[0.0] * 4] * 3  # nothing was written


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_select_takes_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    index = np.array([2, 0, 2])  # no negatives: index_select refuses them, as PyTorch
    assert_same(t.index_select(1, ember.from_numpy(index)), np.take(v, index, axis=1))


def test_index_select_add_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        t.index_select(0, ember.zeros(1, 1, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Source/destination tensor must have same slice shapes"):
        t.index_add(0, ember.tensor([0]), ember.ones(1, 2))
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        ember.zeros(2, dtype=ember.int64).index_add(0, ember.tensor([0]), ember.ones(1, dtype=ember.int64), alpha=0.5)


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    # name: (input shapes, fn)
    "index_select": (((4, 3),), lambda x: x.index_select(0, idx([3, 0, 3]))),
    "index_add": (((4, 3), (3, 3)), lambda x, s: x.index_add(0, idx([1, 1, 3]), s, alpha=2.0)),
    "index_copy": (((4, 3), (2, 3)), lambda x, s: x.index_copy(0, idx([3, 0]), s)),
    "index_fill": (((3, 4),), lambda x: x.index_fill(1, idx([1, 3]), -2.0)),
    "index_fill_tensor": (((3, 4), ()), lambda x, v: x.index_fill(1, idx([1, 3, 1]), v)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shapes, fn = CASES[name]
    assert gradcheck(fn, tuple(leaf(s, k) for k, s in enumerate(shapes)))


def test_gradgradcheck():
    shapes, fn = CASES["index_add"]
    assert gradgradcheck(lambda *a: fn(*a) * fn(*a), tuple(leaf(s, k) for k, s in enumerate(shapes)))


@needs_torch
def test_gradients_match_torch():
    rng = np.random.default_rng(5)
    a, s = rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
    rows = np.array([3, 0, 3])
    check(
        lambda x, s: x.index_add(0, ember.tensor(rows), s, alpha=3),
        lambda x, s: x.index_add(0, torch.tensor(rows), s, alpha=3),
        a, s, grad=True, rtol=1e-12, atol=1e-12,
    )  # fmt: skip
    check(
        lambda x, s: x.index_copy(0, ember.tensor([2, 0, 1]), s),
        lambda x, s: x.index_copy(0, torch.tensor([2, 0, 1]), s),
        a, s, grad=True, rtol=1e-12, atol=1e-12,
    )  # fmt: skip
