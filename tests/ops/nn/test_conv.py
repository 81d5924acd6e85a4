"""Convolutions (conv1d/2d/3d, conv_transpose1d/2d/3d) against torch.nn.functional: strides, padding,
dilation, groups, zero-size inputs, errors and derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops import functional as F
from tests._oracle import needs_torch, torch

from ._helpers import FLOATS, SETTINGS, TF, TOL, TORCH_ADVICE, both, check, check_exact, compare_grads, leaf, make, pair, seeded

pytestmark = TORCH_ADVICE


@st.composite
def conv_case(draw, nd):
    groups = draw(st.integers(1, 3))
    cig = draw(st.integers(1, 2))
    cog = draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(nd))
    spatial = tuple(draw(st.integers(max(d * (k - 1) + 1 - 2 * p, 1), 7)) for k, d, p in zip(kernel, dilation, padding, strict=False))
    n = draw(st.integers(0, 2))
    batched = draw(st.booleans()) or n != 1
    return groups, cig, cog, kernel, dilation, stride, padding, spatial, n, batched


@needs_torch
@SETTINGS
@given(case=conv_case(2), dtype=st.sampled_from(FLOATS), bias=st.booleans(), noncontig=st.booleans(), string_pad=st.sampled_from([None, "same", "valid"]))
def test_conv2d(case, dtype, bias, noncontig, string_pad):
    _conv_check(2, case, dtype, bias, noncontig, string_pad)


@needs_torch
@SETTINGS
@given(case=conv_case(1), dtype=st.sampled_from(FLOATS), bias=st.booleans(), noncontig=st.booleans(), string_pad=st.sampled_from([None, "same", "valid"]))
def test_conv1d(case, dtype, bias, noncontig, string_pad):
    _conv_check(1, case, dtype, bias, noncontig, string_pad)


def _conv_check(nd, case, dtype, bias, noncontig, string_pad):
    groups, cig, cog, kernel, dilation, stride, padding, spatial, n, batched = case
    rng = seeded(sum(spatial) + groups)
    shape = ((n,) if batched else ()) + (groups * cig,) + spatial
    x = rng.normal(size=shape).astype(dtype)
    w = rng.normal(size=(groups * cog, cig, *kernel)).astype(dtype)
    b = rng.normal(size=groups * cog).astype(dtype) if bias else None
    (e, t), (ew, tw) = make(x, noncontig), make(w, noncontig)
    eb, tb = make(b) if bias else (None, None)
    pad = padding
    if string_pad == "valid":
        pad = "valid"
    elif string_pad == "same":
        pad, stride = "same", (1,) * nd
    if pad != "same" and any(s + 2 * p < d * (k - 1) + 1 for s, p, d, k in zip(spatial, padding if pad != "valid" else (0,) * nd, dilation, kernel, strict=False)):
        pad = padding  # "valid" would leave the kernel larger than the input; keep the padding
    fn = f"conv{nd}d"
    check(getattr(ember, fn)(e, ew, eb, stride, pad, dilation, groups), getattr(TF, fn)(t, tw, tb, stride, pad, dilation, groups),
          **TOL[dtype])
    # the transposed convolution with the same parameters (output_padding below stride or dilation)
    wt = rng.normal(size=(groups * cig, cog, *kernel)).astype(dtype)
    (ewt, twt) = make(wt)
    opad = tuple(min(s, d) - 1 for s, d in zip(stride, dilation, strict=False))
    out_size = [(s - 1) * st_ - 2 * p + d * (k - 1) + op + 1 for s, st_, p, d, k, op in zip(spatial, stride, padding, dilation, kernel, opad, strict=False)]
    if all(o > 0 for o in out_size):
        fn = f"conv_transpose{nd}d"
        check(getattr(ember, fn)(e, ewt, eb if cog * groups == (len(b) if b is not None else 0) else None, stride, padding, opad, groups, dilation),
              getattr(TF, fn)(t, twt, tb if cog * groups == (len(b) if b is not None else 0) else None, stride, padding, opad, groups, dilation),
              **TOL[dtype])


@needs_torch
def test_conv3d_and_special_cases():
    rng = seeded(5)
    x = rng.normal(size=(2, 4, 5, 6, 4))
    w = rng.normal(size=(6, 2, 3, 2, 3))
    (e, t), (ew, tw) = make(x), make(w)
    check(ember.conv3d(e, ew, None, (1, 2, 1), (1, 0, 1), (1, 1, 2), 2), TF.conv3d(t, tw, None, (1, 2, 1), (1, 0, 1), (1, 1, 2), 2))
    wt = rng.normal(size=(4, 3, 2, 2, 2))
    check(ember.conv_transpose3d(e, ember.tensor(wt), stride=2), TF.conv_transpose3d(t, torch.from_numpy(wt), stride=2))
    # depthwise, 1x1, even kernel with 'same' (asymmetric padding), integer dtype, half dtype
    x = rng.normal(size=(2, 6, 7, 8)).astype(np.float32)
    (e, t) = make(x)
    for w_shape, kwargs in [((6, 1, 3, 3), {"groups": 6, "padding": 1}), ((5, 6, 1, 1), {}), ((4, 6, 2, 4), {"padding": "same", "dilation": (2, 1)})]:
        w = rng.normal(size=w_shape).astype(np.float32)
        check(ember.conv2d(e, ember.tensor(w), **kwargs), TF.conv2d(t, torch.from_numpy(w), **kwargs), np.float32)
    xi, wi = np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4), np.ones((2, 3, 2, 2), np.int64)
    check(ember.conv2d(ember.tensor(xi), ember.tensor(wi)), TF.conv2d(torch.from_numpy(xi), torch.from_numpy(wi)))
    w = rng.normal(size=(4, 6, 3, 3)).astype(np.float32)
    check(ember.conv2d(e.to(ember.float16), ember.tensor(w).to(ember.float16)), TF.conv2d(t.half(), torch.from_numpy(w).half()),
          rtol=2e-2, atol=5e-2)
    # channels-last input (a permuted view)
    xl = rng.normal(size=(2, 7, 8, 6)).astype(np.float32)
    el = ember.tensor(xl).permute(0, 3, 1, 2)
    check(ember.conv2d(el, ember.tensor(w), padding=1), TF.conv2d(torch.from_numpy(xl).permute(0, 3, 1, 2), torch.from_numpy(w), padding=1), np.float32)


def test_conv_errors():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[2, 3\]"):
        ember.conv2d(ember.zeros((2, 3)), ember.zeros((4, 3, 3, 3)))
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[8, 3, 3, 3\], expected input\[2, 4, 5, 5\] to have 3 channels, but got 4 channels instead"):
        ember.conv2d(ember.zeros((2, 4, 5, 5)), ember.zeros((8, 3, 3, 3)))
    with pytest.raises(RuntimeError, match="Given groups=2, expected weight to be divisible by 2 at dimension 0"):
        ember.conv2d(ember.zeros((2, 4, 5, 5)), ember.zeros((3, 2, 3, 3)), groups=2)
    with pytest.raises(RuntimeError, match=r"expected bias to be 1-dimensional with 8 elements, but got bias of size \[4\] instead"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), ember.zeros(4))
    with pytest.raises(RuntimeError, match=r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\)"):
        ember.conv2d(ember.zeros((2, 3, 2, 2)), ember.zeros((8, 3, 3, 3)))
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), stride=0)
    with pytest.raises(RuntimeError, match="negative padding is not supported"):
        ember.conv1d(ember.zeros((2, 3, 5)), ember.zeros((8, 3, 3)), padding=-1)
    with pytest.raises(RuntimeError, match="non-positive groups is not supported"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), groups=0)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="Invalid padding string: 'foo'"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), padding="foo")
    with pytest.raises(RuntimeError, match=r"Input type \(float32\) and weight type \(float64\) should be the same"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3), dtype=ember.float64))
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a list of 2 values"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), stride=(1, 2, 3))
    with pytest.raises(RuntimeError, match="Given transposed=1, weight of size"):
        ember.conv_transpose2d(ember.zeros((2, 4, 5, 5)), ember.zeros((3, 2, 3, 3)))
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        ember.conv_transpose2d(ember.zeros((2, 3, 5, 5)), ember.zeros((3, 2, 3, 3)), stride=2, output_padding=2)


def test_meta_device_inference():
    x = ember.empty((2, 3, 8, 8), device="meta")
    w = ember.empty((4, 3, 3, 3), device="meta")
    assert ember.conv2d(x, w, stride=2, padding=1).shape == (2, 4, 4, 4)


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


@needs_torch
@pytest.mark.parametrize("fn, x_shape, w_shape, kwargs", [
    ("conv1d", (1, 0, 4), (1, 0, 4), {}),
    ("conv1d", (2, 0, 4), (3, 0, 2), {"stride": 2, "padding": 1}),
    ("conv1d", (1, 0, 7), (2, 0, 2), {"padding": "same"}),
    ("conv1d", (1, 0, 4), (2, 0, 2), {"groups": 2}),
    ("conv1d", (0, 4), (3, 0, 2), {}),
    ("conv1d", (1, 0, 0), (3, 0, 0), {}),  # no channels: a zero-size kernel is allowed
    ("conv1d", (0, 2, 4), (3, 2, 2), {}),
    ("conv2d", (2, 0, 4, 5), (3, 0, 2, 3), {}),
    ("conv3d", (2, 0, 4, 4, 4), (3, 0, 2, 2, 2), {}),
    ("conv_transpose1d", (0, 1, 4), (1, 2, 2), {}),
])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_conv_zero_channel_and_zero_batch_inputs(fn, x_shape, w_shape, kwargs, dtype):
    # PyTorch: an input with no channels gives an output with no channels (and ignores the bias)
    x, w = np.zeros(x_shape, dtype), np.ones(w_shape, dtype)
    check_exact(*both(fn, x, w, **kwargs))
    c_out = w_shape[1] * kwargs.get("groups", 1) if "transpose" in fn else w_shape[0]
    check_exact(*both(fn, x, w, np.ones(c_out, dtype), **kwargs))


def test_conv_zero_size_weight_errors():
    with pytest.raises(RuntimeError, match=r"Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size \[0, 2, 2\]"):
        ember.conv1d(ember.zeros((1, 2, 4)), ember.zeros((0, 2, 2)))
    with pytest.raises(RuntimeError, match="expected weight to be at least 4 at dimension 0"):
        ember.conv1d(ember.zeros((1, 4, 4)), ember.zeros((2, 1, 2)), groups=4)
    with pytest.raises(RuntimeError, match=r"conv1d\(\): kernel size should be greater than zero, but got weight of size \[1, 2, 0\]"):
        ember.conv1d(ember.zeros((1, 2, 3)), ember.zeros((1, 2, 0)))
    with pytest.raises(RuntimeError, match=r"kernel size should be greater than zero"):
        ember.conv_transpose1d(ember.zeros((1, 2, 3)), ember.zeros((2, 1, 0)))
    with pytest.raises(RuntimeError, match=r"conv_transpose1d\(\): non-empty weight tensor expected"):
        ember.conv_transpose1d(ember.zeros((1, 1, 4)), ember.zeros((1, 0, 2)))


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


CONV_CASES = [
    # (nd, x shape, w shape, kwargs)
    (1, (2, 4, 7), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    (1, (2, 3, 8), (4, 3, 2), {"dilation": 2, "padding": "same"}),
    (2, (2, 2, 5, 6), (3, 2, 3, 2), {"stride": (2, 1), "padding": (1, 0)}),
    (2, (1, 4, 5, 5), (4, 1, 3, 3), {"groups": 4, "padding": 1}),
    (2, (2, 3, 6, 5), (2, 3, 2, 2), {"dilation": (2, 1), "stride": 2}),
]


@pytest.mark.parametrize("nd,xs,ws,kw", CONV_CASES)
def test_convolution_grad(nd, xs, ws, kw):
    conv = getattr(F, f"conv{nd}d")
    gradcheck(lambda x, w, b: conv(x, w, b, **kw), (leaf(xs), leaf(ws), leaf((ws[0],))))


TRANSPOSED_CASES = [
    (1, (2, 4, 5), (4, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    (1, (1, 4, 4), (4, 1, 2), {"groups": 2, "dilation": 2}),
    (2, (2, 2, 3, 4), (2, 3, 3, 2), {"stride": (2, 1), "padding": (1, 0)}),
    (2, (1, 2, 3, 3), (2, 2, 2, 2), {"stride": 2, "dilation": 3, "output_padding": 2}),
]


@pytest.mark.parametrize("nd,xs,ws,kw", TRANSPOSED_CASES)
def test_conv_transpose_grad(nd, xs, ws, kw):
    conv = getattr(F, f"conv_transpose{nd}d")
    groups = kw.get("groups", 1)
    gradcheck(lambda x, w, b: conv(x, w, b, **kw), (leaf(xs), leaf(ws), leaf((ws[1] * groups,))))


def test_convolution_unbatched_and_gradgrad():
    gradcheck(lambda x, w: F.conv1d(x, w, padding=1), (leaf((2, 5)), leaf((3, 2, 3))))
    gradgradcheck(lambda x, w: F.conv2d(x, w, stride=2, padding=1), (leaf((1, 2, 4, 4)), leaf((2, 2, 2, 2))))


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"groups": 2, "dilation": 2, "padding": 2}])
def test_conv_weight_grad_gradgrad(kw):
    gradgradcheck(lambda x, w: F.conv2d(x, w, **kw), (leaf((2, 4, 5, 5)), leaf((4, 4 // kw.get("groups", 1), 3, 3))))
    gradgradcheck(lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), (leaf((1, 2, 3, 3)), leaf((2, 3, 2, 2))))


@needs_torch
def test_gradients_against_torch():
    cases = [
        (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2, dilation=(1, 2)),
         lambda x, w, b: TF.conv2d(x, w, b, stride=2, padding=1, groups=2, dilation=(1, 2)), [pair((2, 4, 7, 8)), pair((6, 2, 3, 3)), pair((6,))]),
        (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
         lambda x, w, b: TF.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
         [pair((2, 4, 3, 4)), pair((4, 3, 3, 3)), pair((6,))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)
