"""flip/fliplr/flipud, roll and rot90, against PyTorch and NumPy on hypothesis-drawn shapes and
every dtype, and their derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck
from tests._oracle import ALL_DTYPES, check, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, leaf, values


def _dims(data, ndim: int, label: str, max_size=None) -> tuple:
    if ndim == 0:
        return ()
    dims = data.draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=max_size or ndim), label=label)
    return tuple(d - ndim if data.draw(st.booleans()) else d for d in dims)


@needs_torch
@OPS
@given(data=st.data())
def test_flip_roll_rot90_match_torch(data):
    t, a = data.draw(arrays())
    ndim = a.ndim
    dims = _dims(data, ndim, "dims")
    if dims:
        assert_same(t.flip(*dims), torch.flip(to_torch(a), dims))
    assert_same(ember.flip(t, dims), torch.flip(to_torch(a), dims))  # empty dims reverse nothing, as in torch
    if ndim >= 2:
        assert_same(ember.fliplr(t), torch.fliplr(to_torch(a)))
    if ndim >= 1:
        assert_same(ember.flipud(t), torch.flipud(to_torch(a)))
    shifts = data.draw(st.lists(st.integers(-5, 5), min_size=len(dims) or 1, max_size=len(dims) or 1), label="shifts")
    if dims:
        assert_same(ember.roll(t, shifts, dims), torch.roll(to_torch(a), shifts, dims))
    assert_same(ember.roll(t, shifts[0]), torch.roll(to_torch(a), shifts[0]))
    if ndim >= 2:
        k = data.draw(st.integers(-5, 5), label="k")
        rdims = data.draw(st.sampled_from([(0, 1), (1, 0), (-1, 0), (0, ndim - 1)]))
        assert_same(t.rot90(k, rdims), torch.rot90(to_torch(a), k, rdims))


def test_array_api_spellings():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3)
    t = ember.from_numpy(x)
    assert ember.flip(t, axis=(1, 3)).tolist() == np.flip(x, (1, 3)).tolist()
    assert ember.array_api.flip(t).tolist() == np.flip(x).tolist()  # the standard's flip(x) reverses every axis
    assert ember.flip(t, axis=tuple(range(4))).tolist() == np.flip(x).tolist()
    # PyTorch's flip needs dims: flip(t) is refused and flip(t, ()) reverses nothing
    with pytest.raises(TypeError, match=r'flip\(\) missing 1 required positional arguments: "dims"'):
        ember.flip(t)
    assert ember.flip(t, ()).tolist() == x.tolist()
    assert ember.roll(t, 1, axis=3).tolist() == np.roll(x, 1, 3).tolist()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_flip_and_roll_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    assert_same(t.flip(0, 1), np.flip(v, (0, 1)))
    assert_same(ember.roll(t, (1, -1), (0, 1)), np.roll(v, (1, -1), (0, 1)))


def test_flip_roll_rot90_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        ember.roll(t, (1, 2), (0,))
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2"):
        t.rot90(1, (0,))
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        t.rot90(1, (0, -2))
    with pytest.raises(RuntimeError, match="dims has duplicates"):
        t.flip(0, -2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.flip(2)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d"):
        ember.fliplr(ember.zeros(3))


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    "flip": ((2, 3, 2), lambda x: x.flip((0, 2))),
    "roll": ((3, 4), lambda x: x.roll((1, -1), (0, 1))),
    "roll_flat": ((3, 4), lambda x: x.roll(5)),
    "rot90": ((2, 3), lambda x: ember.rot90(x, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))


@needs_torch
def test_gradients_match_torch():
    a = np.random.default_rng(3).standard_normal((3, 4, 5))
    windows = lambda t: t.unfold(2, 2, 1).flip(0).roll(1, 1)  # noqa: E731 - the same expression in both libraries
    check(windows, windows, a, grad=True, rtol=1e-12, atol=1e-12)
