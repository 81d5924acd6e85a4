"""The CNN kernels' fast paths against their general paths and against torch: max pooling's
input gradient for disjoint windows, the convolution's one-GEMM weight gradient and its
direct col2im, batch norm's one-pass statistics. Every case covers what the fast path skips
too (padding, overlap, dilation, groups, strides, non-contiguous, batch 1, empty, half types)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from ember.dispatch import dispatch
from ember.kernels.cpu.common import compute_dtype
from ember.kernels.cpu.nn import pooling
from ember.ops.nn.norm import _BATCH_NORM
from tests._oracle import from_torch, needs_torch, to_torch, torch

from ._helpers import TORCH_ADVICE, seeded

pytestmark = TORCH_ADVICE

BF16 = np.dtype(ml_dtypes.bfloat16)


def _pool_inputs(shape, o_size, mode, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    if mode == "ties":  # ReLU-like: many all-zero windows, first position must win
        x = np.round(x).clip(0, 1).astype(dtype)
    elif mode == "nan":
        x[rng.random(shape) < 0.3] = np.nan
    g = rng.standard_normal(shape[:2] + o_size).astype(dtype)
    if mode == "inf_grad":  # selected, never multiplied: no NaN leaks to the other taps
        g[rng.random(g.shape) < 0.3] = np.inf
        g[rng.random(g.shape) < 0.2] = np.nan
    return g, x


def _scan_backward(g, x, attrs):
    """The general path of max pooling's input gradient, whatever the windows."""
    out = np.empty(x.shape, g.dtype)
    kernel, stride, dilation = attrs["kernel_size"], attrs["stride"], attrs["dilation"]
    pads = pooling._pool_pads(x.shape[2:], kernel, stride, attrs["padding"], dilation, g.shape[2:])
    disjoint = all(st >= d * (k - 1) + 1 for st, d, k in zip(stride, dilation, kernel, strict=True))
    pooling._max_pool_backward_scan(out, g, x, attrs, pads, disjoint, compute_dtype(x.dtype), compute_dtype(g.dtype))
    return out


POOL_WINDOWS = [  # (input shape, kernel, stride, dilation)
    ((2, 3, 8, 8), (2, 2), (2, 2), (1, 1)),  # tiles the input
    ((2, 3, 9, 7), (2, 2), (2, 2), (1, 1)),  # a row and a column no window sees
    ((1, 2, 9, 9), (3, 3), (3, 3), (1, 1)),
    ((1, 2, 10, 10), (2, 3), (3, 4), (2, 1)),  # dilated, gaps between windows
    ((2, 2, 4, 6, 4), (2, 2, 2), (2, 2, 2), (1, 1, 1)),
    ((2, 2, 9), (3,), (3,), (1,)),
    ((0, 2, 4, 4), (2, 2), (2, 2), (1, 1)),  # empty batch
]


@pytest.mark.parametrize("shape, kernel, stride, dilation", POOL_WINDOWS)
@pytest.mark.parametrize("mode", ["random", "ties", "nan", "inf_grad"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_backward_disjoint_equals_scan(shape, kernel, stride, dilation, mode, dtype):
    nd = len(kernel)
    o_size = tuple((s - d * (k - 1) - 1) // st + 1 for s, k, st, d in zip(shape[2:], kernel, stride, dilation, strict=True))
    g, x = _pool_inputs(shape, o_size, mode, dtype, seeded(sum(shape) + len(mode)))
    attrs = {"kernel_size": kernel, "stride": stride, "padding": (0,) * nd, "dilation": dilation}
    fast = np.full(x.shape, 7, g.dtype)  # garbage: every position must be written
    pooling._max_pool_backward([fast], [g, x], attrs)
    np.testing.assert_array_equal(fast, _scan_backward(g, x, attrs))


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, BF16])
@pytest.mark.parametrize("noncontig", [False, True])
@pytest.mark.parametrize("batch", [1, 3, 0])
def test_max_pool2d_grad_matches_torch(dtype, noncontig, batch):
    rng = seeded(batch + 11)
    x = np.maximum(rng.standard_normal((batch, 3, 6, 8)), 0).astype(dtype)  # ties at zero
    seed = rng.standard_normal((batch, 3, 3, 4)).astype(dtype)
    wide = np.zeros((*x.shape[:-1], 16), dtype)
    wide[..., ::2] = x
    ex = (ember.tensor(wide)[..., ::2] if noncontig else ember.tensor(x)).requires_grad_(True)
    tx = to_torch(x, requires_grad=True)
    ember.max_pool2d(ex, 2).backward(ember.tensor(seed))
    torch.nn.functional.max_pool2d(tx, 2).backward(to_torch(seed))
    assert ex.grad.dtype.name == str(tx.grad.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(ex.grad.numpy().astype(np.float64), from_torch(tx.grad).astype(np.float64))


def test_max_pool_gradcheck_float64():
    x = ember.tensor(seeded(3).permutation(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) * 0.1, dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda t: ember.max_pool2d(t, 2), (x,))
    assert gradcheck(lambda t: ember.max_pool2d(t, (2, 3), (2, 3), 0, (2, 1)), (x,))


CONVS = [  # (input shape, weight shape, stride, padding, dilation, groups)
    ((2, 3, 9, 9), (4, 3, 3, 3), 1, 1, 1, 1),  # the centre tap covers the whole input gradient
    ((2, 4, 9, 8), (6, 2, 3, 3), 2, 1, 1, 2),  # strided, grouped: no tap covers it
    ((1, 3, 10, 10), (2, 3, 3, 2), (2, 1), (0, 2), (2, 1), 1),  # dilated, padding wider than a tap reaches
    ((2, 2, 5, 5), (3, 2, 1, 1), 1, 0, 1, 1),  # 1x1
    ((2, 2, 7), (3, 2, 3), 3, 2, 1, 1),  # 1-D, stride past the kernel: positions no tap reaches
    ((1, 2, 4, 5, 5), (2, 2, 2, 3, 3), 1, 1, 1, 1),  # 3-D
    ((0, 3, 6, 6), (4, 3, 3, 3), 1, 1, 1, 1),  # empty batch
]


@needs_torch
@pytest.mark.parametrize("x_shape, w_shape, stride, padding, dilation, groups", CONVS)
@pytest.mark.parametrize("noncontig", [False, True])
def test_conv_grads_match_torch_float64(x_shape, w_shape, stride, padding, dilation, groups, noncontig):
    rng = seeded(sum(x_shape) + sum(w_shape))
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(w_shape[0])
    fn = {3: "conv1d", 4: "conv2d", 5: "conv3d"}[len(x_shape)]
    wide = np.zeros((*x.shape[:-1], x.shape[-1] * 2))
    wide[..., ::2] = x
    ex = (ember.tensor(wide)[..., ::2] if noncontig else ember.tensor(x)).requires_grad_(True)
    ew, eb = ember.tensor(w, requires_grad=True), ember.tensor(b, requires_grad=True)
    tx, tw, tb = (to_torch(a, requires_grad=True) for a in (x, w, b))
    ey = getattr(ember, fn)(ex, ew, eb, stride, padding, dilation, groups)
    ty = getattr(torch.nn.functional, fn)(tx, tw, tb, stride, padding, dilation, groups)
    seed = rng.standard_normal(tuple(ty.shape))
    ey.backward(ember.tensor(seed))
    ty.backward(to_torch(seed))
    np.testing.assert_allclose(ey.detach().numpy(), from_torch(ty), rtol=1e-10, atol=1e-10)
    for e, t in ((ex, tx), (ew, tw), (eb, tb)):
        np.testing.assert_allclose(e.grad.numpy(), from_torch(t.grad), rtol=1e-10, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-4), (np.float16, 2e-2), (BF16, 1e-1)])
def test_conv2d_transpose_half_and_single_match_torch(dtype, tol):
    """The input gradient is a transposed convolution: its direct col2im in every dtype."""
    rng = seeded(5)
    x = rng.standard_normal((2, 4, 6, 6)).astype(dtype)
    w = (rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(dtype)
    for stride, padding, output_padding in ((1, 1, 0), (2, 1, 1), (2, 0, 0)):
        e = ember.conv_transpose2d(ember.tensor(x), ember.tensor(w), None, stride, padding, output_padding)
        t = torch.nn.functional.conv_transpose2d(to_torch(x), to_torch(w), None, stride, padding, output_padding)
        assert e.dtype.name == str(t.dtype).removeprefix("torch.")
        np.testing.assert_allclose(e.numpy().astype(np.float64), from_torch(t).astype(np.float64), rtol=tol, atol=tol)


def test_conv_gradcheck_float64():
    rng = seeded(9)
    x = ember.tensor(rng.standard_normal((2, 2, 5, 5)), requires_grad=True)
    w = ember.tensor(rng.standard_normal((4, 1, 3, 3)), requires_grad=True)
    assert gradcheck(lambda a, b: ember.conv2d(a, b, None, 1, 1, 1, 2), (x, w))
    assert gradcheck(lambda a, b: ember.conv2d(a, b, None, 2, 1, (1, 2), 2), (x, w))
    assert gradcheck(
        lambda a, b: ember.conv_transpose2d(a, b.transpose(0, 1).contiguous(), None, 2, 1, 1), (x, w.reshape(2, 2, 3, 3))
    )


def _bn_grads(x, w, b, seeds, create_graph):
    """Gradients of <seeds, (y, mean, var)> of training batch norm; ``create_graph`` takes the
    differentiable composite backward, without it the fused kernel."""
    ex, ew, eb = (ember.tensor(a, requires_grad=True) for a in (x, w, b))
    attrs = {"training": True, "eps": 1e-5, "has_weight": True, "has_bias": True}
    outs = dispatch(_BATCH_NORM, (ex, ew, eb), attrs)
    loss = sum((o * ember.tensor(s)).sum() for o, s in zip(outs, seeds, strict=True) if s is not None)
    return [g.detach().numpy() for g in ember.autograd.grad(loss, (ex, ew, eb), create_graph=create_graph)]


@pytest.mark.parametrize("with_stats", [False, True])
@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (1, 2, 3, 3), (5, 3), (2, 3, 2, 2, 2)])
def test_batch_norm_fused_backward_equals_composite(with_stats, shape):
    rng = seeded(sum(shape))
    x = rng.standard_normal(shape) * 3 + 10  # off-centre: the centred sums must not cancel
    w, b = rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    seeds = [rng.standard_normal(shape)] + (
        [rng.standard_normal(shape[1]), rng.standard_normal(shape[1])] if with_stats else [None, None]
    )
    for fused, composite in zip(_bn_grads(x, w, b, seeds, False), _bn_grads(x, w, b, seeds, True), strict=True):
        np.testing.assert_allclose(fused, composite, rtol=1e-9, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-10), (np.float32, 1e-4), (np.float16, 2e-2), (BF16, 1e-1)])
@pytest.mark.parametrize("noncontig", [False, True])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm2d_train_step_matches_torch(dtype, tol, noncontig, affine):
    rng = seeded(17)
    x = (rng.standard_normal((3, 4, 5, 6)) + 2).astype(dtype)
    seed = rng.standard_normal(x.shape).astype(dtype)
    param_dtype = np.float32 if dtype in (np.float16, BF16) else dtype  # half inputs take float32 parameters, as torch
    w, b = rng.standard_normal(4).astype(param_dtype), rng.standard_normal(4).astype(param_dtype)
    wide = np.zeros((*x.shape[:-1], 12), dtype)
    wide[..., ::2] = x
    ex = (ember.tensor(wide)[..., ::2] if noncontig else ember.tensor(x)).requires_grad_(True)
    ew, eb = ember.tensor(w, requires_grad=True), ember.tensor(b, requires_grad=True)
    tx, tw, tb = (to_torch(a, requires_grad=True) for a in (x, w, b))
    erm, erv = ember.zeros(4, dtype=ember.tensor(w).dtype), ember.ones(4, dtype=ember.tensor(w).dtype)
    trm, trv = torch.zeros(4, dtype=tw.dtype), torch.ones(4, dtype=tw.dtype)
    ey = ember.nn.functional.batch_norm(ex, erm, erv, ew if affine else None, eb if affine else None, training=True)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw if affine else None, tb if affine else None, training=True)
    ey.backward(ember.tensor(seed))
    ty.backward(to_torch(seed))
    pairs = [(ey, ty), (ex.grad, tx.grad), (erm, trm), (erv, trv)] + ([(ew.grad, tw.grad), (eb.grad, tb.grad)] if affine else [])
    for e, t in pairs:
        assert e.dtype.name == str(t.dtype).removeprefix("torch.")
        np.testing.assert_allclose(e.detach().numpy().astype(np.float64), from_torch(t).astype(np.float64), rtol=tol, atol=tol)


def test_batch_norm_empty_batch_and_gradcheck():
    x = ember.zeros((0, 3, 4, 4), requires_grad=True)
    w = ember.ones(3, requires_grad=True)
    ember.nn.functional.batch_norm(x, None, None, w, None, training=True).sum().backward()
    assert x.grad.shape == (0, 3, 4, 4)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros(3, np.float32))
    rng = seeded(4)
    args = tuple(
        ember.tensor(a, requires_grad=True)
        for a in (rng.standard_normal((3, 2, 2, 2)), rng.standard_normal(2), rng.standard_normal(2))
    )
    assert gradcheck(lambda a, ww, bb: ember.nn.functional.batch_norm(a, None, None, ww, bb, training=True), args)
