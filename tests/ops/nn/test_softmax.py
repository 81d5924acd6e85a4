"""softmax, log_softmax and softmin against torch.nn.functional: values, dtypes, errors and derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops import functional as F
from tests._oracle import needs_torch, torch

from ._helpers import (
    FLOATS,
    SETTINGS,
    TF,
    TORCH_ADVICE,
    both,
    check,
    check_exact,
    compare_grads,
    leaf,
    make,
    pair,
    seeded,
    shapes,
)

pytestmark = TORCH_ADVICE


@needs_torch
@SETTINGS
@given(shape=shapes(), data=st.data(), dtype=st.sampled_from(FLOATS), noncontig=st.booleans(), fn=st.sampled_from(["softmax", "log_softmax", "softmin"]))
def test_softmax_family(shape, data, dtype, noncontig, fn):
    x = seeded(len(shape)).normal(size=shape).astype(dtype) * 3
    ndim = len(shape)
    dim = data.draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    e, t = make(x, noncontig)
    check(getattr(ember, fn)(e, dim), getattr(TF, fn)(t, dim), dtype)


@needs_torch
@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmax_implicit_dim(ndim):
    x = seeded(0).normal(size=(2,) * ndim)
    e, t = make(x)
    with pytest.warns(UserWarning):
        expected = TF.softmax(t, dim=None)
    check(ember.softmax(e), expected)
    check(ember.log_softmax(e), TF.log_softmax(t, dim=None, _stacklevel=5))


@needs_torch
def test_softmax_dtype_and_half():
    x = seeded(1).normal(size=(3, 5)).astype(np.float32)
    e, t = make(x)
    check(ember.softmax(e, 1, dtype=ember.float64), TF.softmax(t, 1, dtype=torch.float64))
    ei = ember.tensor([1, 2, 3])
    check(ember.log_softmax(ei, 0, dtype=ember.float64), TF.log_softmax(torch.tensor([1, 2, 3]), 0, dtype=torch.float64))
    for edt, tdt in ((ember.float16, torch.float16), (ember.bfloat16, torch.bfloat16)):
        check(ember.softmax(e.to(edt), 1), TF.softmax(t.to(tdt), 1), rtol=1e-2, atol=1e-2)
    # extreme values stay finite; a row of -inf gives nan like PyTorch
    big = np.array([[1000.0, 0.0], [-np.inf, -np.inf]])
    e, t = make(big)
    check(ember.softmax(e, 1), TF.softmax(t, 1), equal_nan=True)
    check(ember.log_softmax(e, 1), TF.log_softmax(t, 1), equal_nan=True)


def test_softmax_errors():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"):
        ember.softmax(ember.ones(3), 1)
    with pytest.raises(NotImplementedError, match="not implemented for 'int64'"):
        ember.softmax(ember.tensor([1, 2]), 0)


def test_meta_device_inference():
    x = ember.empty((2, 3, 8, 8), device="meta")
    assert ember.softmax(x, 1).shape == x.shape


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


@needs_torch
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_softmax_family_empty_integer_input(fn, dtype, shape):
    # PyTorch checks the dtype in its kernel, so an empty integer tensor passes and keeps its dtype
    check_exact(*both(fn, np.zeros(shape, dtype), 0))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        getattr(ember, fn)(ember.ones((2, 3), dtype=ember.int32), 0)


@needs_torch
def test_softmin_negates_before_the_dtype_cast():
    x = np.arange(6, dtype=np.uint8).reshape(2, 3)  # -x wraps in uint8 first, as in PyTorch
    e = ember.softmin(ember.tensor(x), 1, dtype=ember.float64)
    t = TF.softmin(torch.from_numpy(x), 1, dtype=torch.float64)
    check_exact(e, t)
    check_exact(ember.softmin(ember.zeros((0, 3), dtype=ember.int32), 1, dtype=ember.float32),
                TF.softmin(torch.zeros((0, 3), dtype=torch.int32), 1, dtype=torch.float32))


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family_grad(fn, dim):
    x = leaf((3, 4, 2))
    gradcheck(lambda a: getattr(F, fn)(a, dim=dim), (x,))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_gradgrad(fn):
    gradgradcheck(lambda a: getattr(F, fn)(a, dim=1), (leaf((2, 3)),))


@needs_torch
def test_gradients_against_torch():
    cases = [
        (lambda x: F.softmax(x, dim=1), lambda x: TF.softmax(x, dim=1), [pair((3, 4))]),
        (lambda x: F.log_softmax(x, dim=0), lambda x: TF.log_softmax(x, dim=0), [pair((3, 4))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)
