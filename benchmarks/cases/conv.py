"""The small CNN's layers one at a time, forward and backward: ember against PyTorch's CPU path
(oneDNN for float32 convolution) and against the same algorithm written in plain NumPy
(im2col + one matmul per batch, col2im for the input gradient, strided windows for pooling,
per-channel sums for batch norm), the floor of a NumPy-kernel framework.

Shapes are those of the training case "(c) CNN 3x32x32 batch 32": conv 3->32 at 32x32, conv
32->64 at 16x16, max-pool 2x2 of the first conv's activations; batch norm as in the
"BatchNorm2d+ReLU" training case. Target: each at or under PyTorch's time.
"""

import numpy as np
from harness import Compare, case, torch
from numpy.lib.stride_tricks import sliding_window_view

import ember
import ember.nn.functional as EF

BATCH = 32


def _rng():
    return np.random.default_rng(0)


# ---------------------------------------------------------------------------------------
# plain NumPy references


def _np_conv3x3_fwd_bwd(x, w, b, g):
    """conv2d(x, w, b, padding=1) and its three gradients for upstream ``g``, as im2col + matmul."""
    n, c, h, wd = x.shape
    co = w.shape[0]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    col = sliding_window_view(xp, (3, 3), axis=(2, 3)).transpose(0, 1, 4, 5, 2, 3).reshape(n, c * 9, h * wd)
    wm = w.reshape(co, c * 9)
    y = np.matmul(wm, col) + b[:, None]
    gm = g.reshape(n, co, h * wd)
    gw = np.matmul(gm, col.transpose(0, 2, 1)).sum(0).reshape(w.shape)
    gb = gm.sum((0, 2))
    cols = np.matmul(wm.T, gm).reshape(n, c, 3, 3, h, wd)  # col2im
    gxp = np.zeros_like(xp)
    for i in range(3):
        for j in range(3):
            gxp[:, :, i : i + h, j : j + wd] += cols[:, :, i, j]
    return y.reshape(n, co, h, wd), gxp[:, :, 1:-1, 1:-1], gw, gb


def _np_max_pool2x2_fwd_bwd(x, g):
    n, c, h, w = x.shape
    win = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    arg = win.argmax(-1)
    y = np.take_along_axis(win, arg[..., None], -1)[..., 0]
    gx = np.zeros_like(win)
    np.put_along_axis(gx, arg[..., None], g[..., None], -1)
    return y, gx.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(x.shape)


def _np_batch_norm_fwd_bwd(x, weight, bias, g, eps=1e-5):
    axes = (0, 2, 3)
    mean = x.mean(axes, keepdims=True)
    xc = x - mean
    rstd = 1 / np.sqrt((xc * xc).mean(axes, keepdims=True) + eps)
    xhat = xc * rstd
    y = xhat * weight[:, None, None] + bias[:, None, None]
    gb = g.sum(axes)
    gw = (g * xhat).sum(axes)
    m = x.size // x.shape[1]
    gx = (weight * rstd.reshape(-1))[:, None, None] * (g - (gb[:, None, None] + xhat * gw[:, None, None]) / m)
    return y, gx, gw, gb


# ---------------------------------------------------------------------------------------
# cases


def _conv_impls(c_in, c_out, size):
    rng = _rng()
    x = rng.standard_normal((BATCH, c_in, size, size)).astype(np.float32)
    w = (rng.standard_normal((c_out, c_in, 3, 3)) * 0.1).astype(np.float32)
    b = np.zeros(c_out, np.float32)
    g = rng.standard_normal((BATCH, c_out, size, size)).astype(np.float32)
    ex, ew, eb = (ember.from_numpy(a).requires_grad_(True) for a in (x, w, b))
    eg = ember.from_numpy(g)
    impls = {
        "ember": lambda: EF.conv2d(ex, ew, eb, padding=1).backward(eg),
        "numpy": lambda: _np_conv3x3_fwd_bwd(x, w, b, g),
    }
    if torch is not None:
        tx, tw, tb = (torch.from_numpy(a).requires_grad_(True) for a in (x, w, b))
        tg = torch.from_numpy(g)
        impls["torch"] = lambda: torch.nn.functional.conv2d(tx, tw, tb, padding=1).backward(tg)
    return impls


_TARGET = (Compare("torch/ember", "torch", "ember", target=1.0),)


@case("conv/conv2d 3->32 3x3 pad 1, 32x3x32x32 f32 fwd+bwd", compare=_TARGET)
def _conv_first():
    return _conv_impls(3, 32, 32)


@case("conv/conv2d 32->64 3x3 pad 1, 32x32x16x16 f32 fwd+bwd", compare=_TARGET)
def _conv_second():
    return _conv_impls(32, 64, 16)


@case("conv/max_pool2d 2x2, 32x32x32x32 f32 fwd+bwd", compare=_TARGET)
def _max_pool():
    rng = _rng()
    x = np.maximum(rng.standard_normal((BATCH, 32, 32, 32)), 0).astype(np.float32)  # ReLU'd: ties at zero
    g = rng.standard_normal((BATCH, 32, 16, 16)).astype(np.float32)
    ex, eg = ember.from_numpy(x).requires_grad_(True), ember.from_numpy(g)
    impls = {
        "ember": lambda: EF.max_pool2d(ex, 2).backward(eg),
        "numpy": lambda: _np_max_pool2x2_fwd_bwd(x, g),
    }
    if torch is not None:
        tx, tg = torch.from_numpy(x).requires_grad_(True), torch.from_numpy(g)
        impls["torch"] = lambda: torch.nn.functional.max_pool2d(tx, 2).backward(tg)
    return impls


@case("conv/batch_norm2d training, 16x32x16x16 f32 fwd+bwd", compare=_TARGET)
def _batch_norm():
    rng = _rng()
    x = rng.standard_normal((16, 32, 16, 16)).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    weight, bias = np.ones(32, np.float32), np.zeros(32, np.float32)
    ex, ew, eb = (ember.from_numpy(a).requires_grad_(True) for a in (x, weight, bias))
    eg, erm, erv = ember.from_numpy(g), ember.zeros(32), ember.ones(32)
    impls = {
        "ember": lambda: EF.batch_norm(ex, erm, erv, ew, eb, training=True).backward(eg),
        "numpy": lambda: _np_batch_norm_fwd_bwd(x, weight, bias, g),
    }
    if torch is not None:
        tx, tw, tb = (torch.from_numpy(a).requires_grad_(True) for a in (x, weight, bias))
        tg, trm, trv = torch.from_numpy(g), torch.zeros(32), torch.ones(32)
        impls["torch"] = lambda: torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, training=True).backward(tg)
    return impls
