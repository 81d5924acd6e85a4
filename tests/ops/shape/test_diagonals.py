"""tril/triu (also in place and with out=), diag, diagflat and diag_embed, against PyTorch and
NumPy on hypothesis-drawn shapes and every dtype, and their derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck
from tests._oracle import ALL_DTYPES, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, leaf, values


@needs_torch
@OPS
@given(data=st.data())
def test_triangles_and_diagonals_match_torch(data):
    t, a = data.draw(arrays(min_dims=2, max_dims=4))
    k = data.draw(st.integers(-4, 4), label="diagonal")
    assert_same(t.tril(k), torch.tril(to_torch(a), k))
    assert_same(t.triu(k), torch.triu(to_torch(a), k))
    t1, a1 = data.draw(arrays(min_dims=1, max_dims=2))
    assert_same(ember.diag(t1, k), torch.diag(to_torch(a1), k))
    assert_same(ember.diagflat(t1, k), torch.diagflat(to_torch(a1), k))
    ndim = a1.ndim + 1
    d1 = data.draw(st.integers(-ndim, ndim - 1), label="dim1")
    d2 = data.draw(st.integers(-ndim, ndim - 1).filter(lambda d: d % ndim != d1 % ndim), label="dim2")
    assert_same(ember.diag_embed(t1, k, d1, d2), torch.diag_embed(to_torch(a1), k, d1, d2))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_triangles_and_diag_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    assert_same(t.tril(-1), np.tril(v, -1))
    assert_same(t.triu(1), np.triu(v, 1))
    assert_same(ember.diag(t), np.diag(v).copy())


def test_in_place_and_out_variants_bump_the_version():
    t = ember.ones(3, 3)
    v = t.T
    assert ember.tril_(v) is v
    assert t._version == 1
    assert t.tolist() == [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    assert t.triu_(1) is t and t._version == 2
    out = ember.empty(3, 3, dtype=ember.float64)
    ember.tril(t, out=out)
    assert out.dtype is ember.float64 and out.tolist() == [[0.0, 0.0, 0.0]] * 3 and out._version == 1
    e = ember.zeros(1, 3).expand(3, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.tril_()


def test_triangle_and_diag_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="input tensor must have at least 2 dimensions"):
        ember.zeros(3).tril()
    with pytest.raises(RuntimeError, match=r"Supports 1D or 2D tensors\. Got 3D"):
        ember.diag(ember.zeros(1, 1, 1))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        ember.diag_embed(t, 0, 0, -3)


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    "tril": ((3, 4), lambda x: x.tril(1)),
    "triu": ((2, 4, 3), lambda x: x.triu(-1)),
    "diag_1d": ((3,), lambda x: ember.diag(x, 1)),
    "diag_2d": ((3, 4), lambda x: ember.diag(x, -1)),
    "diagflat": ((2, 2), lambda x: ember.diagflat(x)),
    "diag_embed": ((2, 3), lambda x: ember.diag_embed(x, 1, 0, 2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))


@pytest.mark.parametrize("name", ["triu", "tril"])
@pytest.mark.parametrize("k", [-(2**63), 2**63 - 1, -4, -1, 0, 2, 4])
def test_triangles_take_any_int64_diagonal(name, k):
    # NumPy's tri wants a C long for k - 1: diagonals past the matrix are clamped, all meaning the same
    x = np.arange(6.0).reshape(2, 3)
    want = (np.tril if name == "tril" else np.triu)(x, min(max(k, -3), 4))
    np.testing.assert_array_equal(getattr(ember, name)(ember.tensor(x), k).numpy(), want)
