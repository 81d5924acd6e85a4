"""pad in its four modes (constant, reflect, replicate, circular), against PyTorch and NumPy,
its errors, and its derivative."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops.functional import pad as _pad
from tests._oracle import ALL_DTYPES, check, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, leaf, values


@needs_torch
@OPS
@given(data=st.data())
def test_pad_matches_torch(data):
    t, a = data.draw(arrays(dtypes=("float32", "float64", "int64", "bfloat16", "complex64", "bool"), min_dims=1))
    mode = data.draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]), label="mode")
    n = data.draw(st.integers(1, min(a.ndim, 3)), label="padded dims")
    pads = tuple(
        data.draw(st.lists(st.integers(-2 if mode == "constant" else 0, 3), min_size=2 * n, max_size=2 * n), label="pad")
    )
    value = data.draw(st.sampled_from([None, 2.0])) if mode == "constant" else None
    try:
        if value is None:
            expected = torch.nn.functional.pad(to_torch(a), pads, mode=mode)
        else:
            expected = torch.nn.functional.pad(to_torch(a), pads, mode=mode, value=value)
    except (RuntimeError, NotImplementedError, ValueError):
        return  # torch refuses (dims it does not pad in this mode, dtypes without a kernel); errors are tested below
    assert_same(ember.pad(t, pads, mode=mode, value=value), expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_pad_takes_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    assert_same(ember.pad(t, (1, 0, 0, 1), mode="replicate"), np.pad(v, ((0, 1), (1, 0)), mode="edge"))
    assert_same(ember.pad(t, (1, 1), mode="circular"), np.pad(v, ((0, 0), (1, 1)), mode="wrap"))


def test_pad_errors():
    t = ember.zeros(1, 2, 3)
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        ember.pad(t, (1, 2, 3))
    with pytest.raises(RuntimeError, match="Padding length should be less than or equal to two times the input dimension"):
        ember.pad(t, (1,) * 8)
    with pytest.raises(
        RuntimeError,
        match=r"Padding size should be less than the corresponding input dimension, but got: padding \(3, 0\) at dimension 2",
    ):
        ember.pad(t, (3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        ember.pad(t, (0, 4), mode="circular")
    with pytest.raises(RuntimeError, match="negative output size"):
        ember.pad(t, (-2, -2))
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode wrap"):
        ember.pad(t, (1, 1), mode="wrap")
    with pytest.raises(RuntimeError, match="doesn't take in value"):
        ember.pad(t, (1, 1), mode="reflect", value=1.0)


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    "pad_constant": ((2, 3), lambda x: _pad(x, (1, 2, 0, 1), value=1.5)),
    "pad_negative": ((3, 4), lambda x: _pad(x, (-1, 2, 1, -1))),
    "pad_reflect": ((1, 2, 4), lambda x: _pad(x, (2, 3), mode="reflect")),
    "pad_replicate": ((1, 3, 3), lambda x: _pad(x, (2, 1, 1, 2), mode="replicate")),
    "pad_circular": ((1, 2, 3), lambda x: _pad(x, (2, 3), mode="circular")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))


def test_gradgradcheck():
    shape, fn = CASES["pad_reflect"]
    assert gradgradcheck(lambda x: fn(x) * fn(x), (leaf(shape),))


@needs_torch
@pytest.mark.parametrize(("pads", "mode"), [((2, 1, 1, 2), "reflect"), ((3, 1), "circular")])
def test_gradients_match_torch(pads, mode):
    a = np.random.default_rng(3).standard_normal((3, 4, 5))
    check(
        lambda t: _pad(t, pads, mode=mode), lambda t: torch.nn.functional.pad(t, pads, mode=mode), a, grad=True, rtol=1e-12, atol=1e-12
    )
