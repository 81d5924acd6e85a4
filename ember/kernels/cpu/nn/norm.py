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
    out, mean_out, var_out = outs
    x = ins[0]
    if x.size == 0:  # nothing to normalize (any dtype): the statistics of no values
        mean_out[...] = var_out[...] = np.nan if mean_out.dtype.kind == "f" else 0
        return
    ct = compute_dtype(out.dtype)
    rest = list(ins[1:])
    c = x.shape[1]
    axes = (0, *range(2, x.ndim))
    xf = x.astype(ct, copy=False)
    if attrs["training"]:
        mean = xf.mean(axis=axes, dtype=ct) if xf.size else np.full(c, np.nan, ct)
        var = xf.var(axis=axes, dtype=ct) if xf.size else np.full(c, np.nan, ct)
    else:
        mean, var = rest.pop(0).astype(ct).reshape(c), rest.pop(0).astype(ct).reshape(c)
    weight = rest.pop(0).astype(ct, copy=False).reshape(c) if attrs["has_weight"] else None
    bias = rest.pop(0).astype(ct, copy=False).reshape(c) if attrs["has_bias"] else None
    scale = 1 / np.sqrt(var + ct.type(attrs["eps"]))
    if weight is not None:
        scale = scale * weight
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias
    bshape = (c,) + (1,) * (x.ndim - 2)
    work = _work(out, ct)
    np.multiply(xf, scale.reshape(bshape), out=work)
    work += shift.reshape(bshape)
    store(out, work)
    store(mean_out, mean)
    store(var_out, var)


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
