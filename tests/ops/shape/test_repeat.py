"""repeat, tile and repeat_interleave, against PyTorch and NumPy on hypothesis-drawn shapes and
every dtype, and their derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import ALL_DTYPES, check, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, leaf, values


@needs_torch
@OPS
@given(data=st.data())
def test_repeat_tile_repeat_interleave_match_torch(data):
    t, a = data.draw(arrays(max_dims=2))
    ndim = a.ndim
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim + 2), label="repeats"))
    assert_same(t.repeat(*reps) if reps else t.repeat(()), to_torch(a).repeat(reps) if reps else to_torch(a).repeat(()))
    tile = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3), label="tile"))
    assert_same(ember.tile(t, tile), torch.tile(to_torch(a), tile))
    r = data.draw(st.integers(0, 3))
    assert_same(t.repeat_interleave(r), torch.repeat_interleave(to_torch(a), r))
    if ndim:
        d = data.draw(st.integers(-ndim, ndim - 1), label="dim")
        counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=a.shape[d], max_size=a.shape[d])), dtype=np.int64)
        assert_same(
            ember.repeat_interleave(t, ember.from_numpy(counts), dim=d),
            torch.repeat_interleave(to_torch(a), torch.from_numpy(counts), dim=d),
        )
        assert_same(t.repeat_interleave(r, d, output_size=a.shape[d] * r), torch.repeat_interleave(to_torch(a), r, d))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_repeat_and_repeat_interleave_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    assert_same(t.repeat(2, 1, 2), np.tile(v, (2, 1, 2)))
    assert_same(t.repeat_interleave(2, 0), np.repeat(v, 2, 0))


def test_repeat_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(
        RuntimeError, match="Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
    ):
        t.repeat(2)
    with pytest.raises(RuntimeError, match="repeats must have the same size as input along dim"):
        t.repeat_interleave(ember.tensor([1, 2]), 1)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        t.repeat_interleave(-1)


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    "repeat": ((2, 3), lambda x: x.repeat(2, 1, 3)),
    "tile": ((3,), lambda x: x.tile((2, 2))),
    "repeat_interleave_int": ((2, 3), lambda x: x.repeat_interleave(2, dim=1)),
    "repeat_interleave_flat": ((2, 2), lambda x: x.repeat_interleave(3)),
    "repeat_interleave_tensor": ((3, 2), lambda x: x.repeat_interleave(ember.tensor([2, 0, 3]), dim=0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))


def test_gradgradcheck():
    shape, fn = CASES["repeat"]
    assert gradgradcheck(lambda x: fn(x) * fn(x), (leaf(shape),))


@needs_torch
def test_gradients_match_torch():
    a = np.random.default_rng(3).standard_normal((3, 4, 5))
    tiled = lambda t: t.repeat(1, 2, 1, 2).tril()  # noqa: E731 - the same expression in both libraries
    check(tiled, tiled, a, grad=True, rtol=1e-12, atol=1e-12)
