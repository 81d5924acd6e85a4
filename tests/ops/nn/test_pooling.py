"""Max, average and adaptive average pooling against torch.nn.functional: indices, ceil mode,
padding, dtypes, empty batches, errors and derivatives."""

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
    RNG,
    SETTINGS,
    TF,
    TOL,
    TORCH_ADVICE,
    both,
    check,
    check_exact,
    compare_grads,
    distinct,
    leaf,
    make,
    pair,
    seeded,
    shapes,
)

pytestmark = TORCH_ADVICE


@st.composite
def pool_case(draw, nd, dilation=True):
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dil = tuple(draw(st.integers(1, 2)) for _ in range(nd)) if dilation else (1,) * nd
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd)) if draw(st.booleans()) else None
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    spatial = tuple(draw(st.integers(max(d * (k - 1) + 1 - 2 * p, 1), 7)) for k, d, p in zip(kernel, dil, padding, strict=False))
    batched = draw(st.booleans())
    shape = ((2,) if batched else ()) + (draw(st.integers(1, 3)),) + spatial
    return shape, kernel, stride, padding, dil, draw(st.booleans())


@needs_torch
@SETTINGS
@given(case=pool_case(2), dtype=st.sampled_from(FLOATS), noncontig=st.booleans())
def test_max_pool2d(case, dtype, noncontig):
    shape, kernel, stride, padding, dil, ceil = case
    x = seeded(sum(shape)).permutation(np.prod(shape)).reshape(shape).astype(dtype)  # distinct values: unique argmax
    e, t = make(x, noncontig)
    check(ember.max_pool2d(e, kernel, stride, padding, dil, ceil), TF.max_pool2d(t, kernel, stride, padding, dil, ceil))
    ev, ei = ember.max_pool2d(e, kernel, stride, padding, dil, ceil, return_indices=True)
    tv, ti = TF.max_pool2d(t, kernel, stride, padding, dil, ceil, return_indices=True)
    check(ev, tv)
    check(ei, ti)


@needs_torch
@SETTINGS
@given(case=pool_case(1), dtype=st.sampled_from(FLOATS))
def test_max_pool1d(case, dtype):
    shape, kernel, stride, padding, dil, ceil = case
    x = seeded(sum(shape)).permutation(np.prod(shape)).reshape(shape).astype(dtype)
    e, t = make(x)
    ev, ei = ember.max_pool1d(e, kernel, stride, padding, dil, ceil, return_indices=True)
    tv, ti = TF.max_pool1d(t, kernel, stride, padding, dil, ceil, return_indices=True)
    check(ev, tv)
    check(ei, ti)


@needs_torch
@SETTINGS
@given(case=pool_case(2, dilation=False), dtype=st.sampled_from(FLOATS), include=st.booleans(), divisor=st.sampled_from([None, 3]),
       noncontig=st.booleans())
def test_avg_pool2d(case, dtype, include, divisor, noncontig):
    shape, kernel, stride, padding, _, ceil = case
    x = seeded(sum(shape)).normal(size=shape).astype(dtype)
    e, t = make(x, noncontig)
    check(ember.avg_pool2d(e, kernel, stride, padding, ceil, include, divisor), TF.avg_pool2d(t, kernel, stride, padding, ceil, include, divisor),
          **TOL[dtype])
    e1, t1 = make(x.reshape((*x.shape[:-2], -1)))
    check(ember.avg_pool1d(e1, kernel[:1], stride and stride[:1], padding[:1], ceil, include),
          TF.avg_pool1d(t1, kernel[:1], stride and stride[:1], padding[:1], ceil, include), **TOL[dtype])


@needs_torch
@SETTINGS
@given(shape=shapes(3, 4, 1, 9), out=st.tuples(st.sampled_from([None, 1, 2, 3, 5]), st.integers(1, 6)), dtype=st.sampled_from(FLOATS),
       noncontig=st.booleans())
def test_adaptive_avg_pool(shape, out, dtype, noncontig):
    x = seeded(sum(shape)).normal(size=shape).astype(dtype)
    e, t = make(x, noncontig)
    check(ember.adaptive_avg_pool2d(e, out), TF.adaptive_avg_pool2d(t, out), **TOL[dtype])
    e1, t1 = make(x.reshape((*x.shape[:-2], -1)))
    check(ember.adaptive_avg_pool1d(e1, out[1]), TF.adaptive_avg_pool1d(t1, out[1]), **TOL[dtype])


@needs_torch
def test_pool_other_dtypes_and_3d():
    x = seeded(6).normal(size=(2, 3, 6, 5, 4)).astype(np.float32)
    e, t = make(x)
    check(ember.max_pool3d(e, 2, 1, 1), TF.max_pool3d(t, 2, 1, 1), np.float32)
    check(ember.avg_pool3d(e, (2, 3, 2), ceil_mode=True), TF.avg_pool3d(t, (2, 3, 2), ceil_mode=True), np.float32)
    check(ember.adaptive_avg_pool3d(e, (3, None, 2)), TF.adaptive_avg_pool3d(t, (3, None, 2)), np.float32)
    xi = np.arange(2 * 16).reshape(2, 4, 4) - 10
    check(ember.max_pool2d(ember.tensor(xi), 2, padding=1), TF.max_pool2d(torch.from_numpy(xi), 2, padding=1))
    check(ember.avg_pool2d(ember.tensor(xi), 3, 1, 1), TF.avg_pool2d(torch.from_numpy(xi), 3, 1, 1))
    check(ember.max_pool2d(e[0].to(ember.bfloat16), 2), TF.max_pool2d(t[0].bfloat16(), 2))


def test_pool_errors():
    x = ember.zeros((1, 3, 5, 5))
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"):
        ember.max_pool2d(x, 3, padding=2)
    with pytest.raises(RuntimeError, match=r"Given input size: \(3x2x2\). Calculated output size: \(3x0x0\). Output size is too small"):
        ember.max_pool2d(ember.zeros((1, 3, 2, 2)), 3)
    with pytest.raises(RuntimeError, match=r"non-empty 3D or 4D \(batch mode\) tensor expected for input"):
        ember.avg_pool2d(ember.zeros((5, 5)), 3)
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        ember.max_pool2d(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        ember.avg_pool2d(x, 3, divisor_override=0)
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[5, 5\]"):
        ember.adaptive_avg_pool2d(ember.zeros((5, 5)), 3)
    with pytest.raises(NotImplementedError, match="adaptive_avg_pool2d"):
        ember.adaptive_avg_pool2d(ember.zeros((1, 4, 4), dtype=ember.int64), 2)


def test_meta_device_inference():
    x = ember.empty((2, 3, 8, 8), device="meta")
    assert ember.max_pool2d(x, 2, ceil_mode=True).shape == (2, 3, 4, 4)


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


@needs_torch
@pytest.mark.parametrize("fn, shape, out", [("adaptive_avg_pool1d", (2, 0, 4), 2), ("adaptive_avg_pool1d", (0, 4), 2),
                                            ("adaptive_avg_pool1d", (0, 2, 4), 3), ("adaptive_avg_pool2d", (2, 0, 4, 4), 2),
                                            ("adaptive_avg_pool2d", (0, 4, 4), (2, None)), ("adaptive_avg_pool3d", (0, 4, 4, 4), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_adaptive_avg_pool_empty_batch_and_channels(fn, shape, out, dtype):
    if fn.endswith("3d") and dtype is np.int32:
        with pytest.raises(NotImplementedError, match="not implemented for 'int32'"):  # PyTorch's 3-D pool checks the dtype first
            getattr(ember, fn)(ember.zeros(shape, dtype=ember.int32), out)
        return
    check_exact(*both(fn, np.zeros(shape, dtype), out))
    check_exact(*both("adaptive_avg_pool1d", np.ones((1, 4), np.int32), 0))  # an empty output: no dtype check
    with pytest.raises(RuntimeError, match="with dimension 1 being empty"):
        ember.adaptive_avg_pool3d(ember.zeros((2, 0, 4, 4, 4)), 2)


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "dilation": 2, "ceil_mode": True, "stride": 2}])
def test_max_pool_grad(kw):
    x = distinct((2, 2, 5, 6))
    gradcheck(lambda a: F.max_pool2d(a, **kw), (x,))
    gradcheck(lambda a: F.max_pool2d(a, return_indices=True, **kw)[0], (x,))
    gradcheck(lambda a: F.max_pool1d(a, **kw), (distinct((2, 7)),))


def test_max_pool_gradgrad():
    # max_pool's gradient is constant in its input: square first so the first derivative depends on it
    gradgradcheck(lambda a: F.max_pool2d(a * a, 2), (distinct((1, 2, 4, 4)),))


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True},
                                {"kernel_size": 2, "divisor_override": 3}])
def test_avg_pool_grad(kw):
    gradcheck(lambda a: F.avg_pool2d(a, **kw), (leaf((2, 2, 5, 6)),))
    gradcheck(lambda a: F.avg_pool1d(a, **{k: v for k, v in kw.items() if k != "divisor_override"}), (leaf((2, 3, 7)),))


def test_adaptive_avg_pool_grad():
    gradcheck(lambda a: F.adaptive_avg_pool2d(a, (3, 2)), (leaf((2, 2, 5, 6)),))
    gradcheck(lambda a: F.adaptive_avg_pool1d(a, 4), (leaf((2, 7)),))


@needs_torch
def test_gradients_against_torch():
    cases = [
        (lambda x: F.max_pool2d(x, 3, stride=2, padding=1), lambda x: TF.max_pool2d(x, 3, stride=2, padding=1), [pair((2, 3, 7, 6))]),
        (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
         lambda x: TF.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), [pair((2, 3, 7, 6))]),
        (lambda x: F.adaptive_avg_pool2d(x, (3, 4)), lambda x: TF.adaptive_avg_pool2d(x, (3, 4)), [pair((2, 3, 7, 6))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "padding": 1},
                                {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2}])
def test_max_pool_backward_matches_indices(kw):
    # ties, NaN and -inf windows: the backward primitive picks the positions the indices forward picks
    a = RNG.integers(0, 3, (2, 3, 7, 6)).astype(np.float64)
    a[0, 0, 0, :] = np.nan
    a[1, 1, :3, :3] = -np.inf
    x = ember.tensor(a, requires_grad=True)
    y = F.max_pool2d(x, **kw)
    g = ember.tensor(RNG.standard_normal(y.shape))
    (gx,) = ember.autograd.grad(y, x, g)
    _, ind = F.max_pool2d(x.detach(), return_indices=True, **kw)
    expect = np.zeros((2, 3, 42))
    np.add.at(expect, (np.arange(2)[:, None, None], np.arange(3)[None, :, None], ind.numpy().reshape(2, 3, -1)), g.numpy().reshape(2, 3, -1))
    np.testing.assert_allclose(gx.numpy().reshape(2, 3, -1), expect)
    gradgradcheck(lambda b: F.max_pool2d(b * b, **kw), (distinct((1, 2, 5, 5)),))
