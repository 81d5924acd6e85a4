"""batch_norm, layer_norm, rms_norm and group_norm: statistics in the compute dtype,
then one scale and shift per channel or row.
"""

from __future__ import annotations

import math

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ._common import _work


@register_kernel("batch_norm")
def _batch_norm(outs, ins, attrs):
    """Training: the mean, then the centred input written once into the output, its variance a
    per-channel dot product of that (two passes over the data, as exact as a two-pass variance,
    without NumPy's var temporaries), then scale and shift in place. Evaluation: the running
    statistics fold into one scale and shift per channel."""
    out, mean_out, var_out = outs
    x = ins[0]
    if x.size == 0:  # nothing to normalize (any dtype): the statistics of no values
        mean_out[...] = var_out[...] = np.nan if mean_out.dtype.kind == "f" else 0
        return
    ct = compute_dtype(out.dtype)
    rest = list(ins[1:])
    n, c = x.shape[:2]
    x3 = x.astype(ct, copy=False).reshape(n, c, -1)
    work = out if out.dtype == ct and out.flags.c_contiguous else np.empty(out.shape, ct)
    w3 = work.reshape(n, c, -1)
    if attrs["training"]:
        count = ct.type(x3.size // c)
        mean = x3.sum(axis=(0, 2), dtype=ct) / count
        np.subtract(x3, mean[:, None], out=w3)
        var = _channel_dot(w3, w3) / count
        shift = np.zeros(c, ct)
    else:
        mean, var = rest.pop(0).astype(ct).reshape(c), rest.pop(0).astype(ct).reshape(c)
        np.copyto(w3, x3)
        shift = -mean
    weight = rest.pop(0).astype(ct, copy=False).reshape(c) if attrs["has_weight"] else None
    bias = rest.pop(0).astype(ct, copy=False).reshape(c) if attrs["has_bias"] else None
    scale = 1 / np.sqrt(var + ct.type(attrs["eps"]))
    if weight is not None:
        scale = scale * weight
    shift = shift * scale
    if bias is not None:
        shift = shift + bias
    w3 *= scale[:, None]
    if shift.any():
        w3 += shift[:, None]
    if work is not out:
        store(out, work)
    store(mean_out, mean)
    store(var_out, var)


def _channel_dot(a3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """sum over (N, M) of a3 * b3 for (N, C, M) arrays, per channel: one pass, no temporary."""
    return np.einsum("ncm,ncm->c", a3, b3)


@register_kernel("batch_norm_backward")
def _batch_norm_backward(outs, ins, attrs):
    """Training-mode batch norm's three gradients at once, from the saved batch statistics:
    with xc = x - mean and r = 1 / sqrt(var + eps), the bias gradient is sum(g), the weight's
    r * sum(g * xc), and the input's w * r * (g - sum(g) / m - xc * r^2 * sum(g * xc) / m)
    (plus the terms of the statistics' own gradients, when given), one multiply-add per
    element, per-channel constants folded first."""
    gx_out, gw_out, gb_out = outs
    g, x, mean, var, *rest = ins
    weight = rest.pop(0) if attrs["has_weight"] else None
    g_mean = rest.pop(0) if attrs["has_g_mean"] else None
    g_var = rest.pop(0) if attrs["has_g_var"] else None
    ct = compute_dtype(gx_out.dtype)
    n, c = x.shape[:2]
    if x.size == 0:
        gw_out[...] = 0
        gb_out[...] = 0
        return
    g3 = g.astype(ct, copy=False).reshape(n, c, -1)
    x3 = x.astype(ct, copy=False).reshape(n, c, -1)
    count = ct.type(x3.size // c)
    rstd = 1 / np.sqrt(var.astype(ct) + ct.type(attrs["eps"]))
    xc = np.subtract(x3, mean.astype(ct)[:, None])
    sum_g = g3.sum(axis=(0, 2), dtype=ct)
    dot = _channel_dot(g3, xc)
    k1 = rstd if weight is None else rstd * weight.astype(ct)
    k2 = -k1 * dot * rstd * rstd / count  # per channel, times xc
    k3 = -k1 * sum_g / count  # per channel, added
    if g_var is not None:  # d var / d x = 2 xc / m
        k2 = k2 + 2 * g_var.astype(ct) / count
    if g_mean is not None:  # d mean / d x = 1 / m
        k3 = k3 + g_mean.astype(ct) / count
    xc *= k2[:, None]
    work = gx_out if gx_out.dtype == ct and gx_out.flags.c_contiguous else np.empty(gx_out.shape, ct)
    w3 = work.reshape(n, c, -1)
    np.multiply(g3, k1[:, None], out=w3)
    w3 += xc
    w3 += k3[:, None]
    if work is not gx_out:
        store(gx_out, work)
    store(gw_out, dot * rstd)
    store(gb_out, sum_g)


@register_kernel("layer_norm")
def _layer_norm(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype)
    k = attrs["ndim"]
    if x.size == 0:
        return
    m = math.prod(x.shape[x.ndim - k:])
    work = _work(out, ct)
    y = work.reshape(-1, m)
    y *= _centered_rows(x.astype(ct, copy=False).reshape(-1, m), attrs["eps"], ct, y)
    rest = list(ins[1:])
    if attrs["has_weight"]:
        work *= rest.pop(0).astype(ct, copy=False)
    if attrs["has_bias"]:
        work += rest.pop(0).astype(ct, copy=False)
    store(out, work)


@register_kernel("layer_norm_backward")
def _layer_norm_backward(outs, ins, attrs):
    """The gradients ``output_mask`` asks for, in this order: input, weight, bias (weight among
    the inputs when the layer has one). With xhat = (x - mean) * rstd per row and gw = g * weight:
    dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), dweight = sum(g * xhat), dbias = sum(g)."""
    g, x = ins[0], ins[1]
    need_x, need_w, need_b = attrs["output_mask"]
    results = iter(outs)
    ct = compute_dtype(x.dtype)
    if x.size == 0:
        for out in outs:
            out[...] = 0
        return
    m = math.prod(x.shape[x.ndim - attrs["ndim"] :])
    rows = x.size // m
    g2 = g.astype(ct, copy=False).reshape(rows, m)
    xhat = np.empty((rows, m), ct)
    rstd = _centered_rows(x.astype(ct, copy=False).reshape(rows, m), attrs["eps"], ct, xhat)
    xhat *= rstd
    if need_x:
        gw = g2 * ins[2].astype(ct, copy=False).reshape(m) if len(ins) > 2 else g2
        mean_gw_xhat = np.einsum("ij,ij->i", gw, xhat)[:, None] / ct.type(m)
        dx = np.multiply(xhat, mean_gw_xhat)
        np.subtract(gw, dx, out=dx)
        dx -= gw.mean(axis=1, keepdims=True, dtype=ct)
        dx *= rstd
        store(next(results), dx.reshape(x.shape))
    if need_w:
        store(next(results), np.einsum("ij,ij->j", g2, xhat).reshape(outs[int(need_x)].shape))
    if need_b:
        out = next(results)
        store(out, g2.sum(axis=0, dtype=ct).reshape(out.shape))


def _centered_rows(x2: np.ndarray, eps: float, ct: np.dtype, out2: np.ndarray) -> np.ndarray:
    """Write ``x2 - mean`` (per row) into ``out2``; return 1 / sqrt(var + eps) per row, (rows, 1)."""
    m = x2.shape[1]
    np.subtract(x2, x2.mean(axis=1, keepdims=True, dtype=ct), out=out2)
    var = np.einsum("ij,ij->i", out2, out2)[:, None] / ct.type(m)
    return 1 / np.sqrt(var + ct.type(eps))


@register_kernel("rms_norm")
def _rms_norm(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype)
    k = attrs["ndim"]
    if x.size == 0:
        return
    xf = x.astype(ct, copy=False)
    ms = np.mean(np.square(xf), axis=tuple(range(x.ndim - k, x.ndim)), keepdims=True, dtype=ct)
    y = xf * (1 / np.sqrt(ms + ct.type(attrs["eps"])))
    if len(ins) > 1:
        y *= ins[1].astype(ct, copy=False)
    store(out, y)


@register_kernel("group_norm")
def _group_norm(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype)
    if x.size == 0:
        return
    n, c = x.shape[:2]
    g = attrs["num_groups"]
    work = _work(out, ct)
    y = work.reshape(n * g, -1)
    rstd = _centered_rows(x.astype(ct, copy=False).reshape(n * g, -1), attrs["eps"], ct, y)
    scale = np.broadcast_to(rstd.reshape(n, g, 1), (n, g, c // g)).reshape(n, c)
    rest = list(ins[1:])
    if attrs["has_weight"]:
        scale = scale * rest.pop(0).astype(ct, copy=False)
    y = work.reshape(n, c, -1)
    y *= scale[:, :, None]
    if attrs["has_bias"]:
        y += rest.pop(0).astype(ct, copy=False)[:, None]
    store(out, work)
