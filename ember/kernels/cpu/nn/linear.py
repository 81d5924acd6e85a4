"""linear, its one-kernel backward, and bilinear: BLAS matmuls straight into the
output where the dtypes and layout allow.
"""

from __future__ import annotations

import math

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store

_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@register_kernel("linear")
def _linear(outs, ins, attrs):
    out = outs[0]
    x, w = ins[0], ins[1]
    dtype = out.dtype
    if x.ndim == 2 and w.ndim == 2 and x.dtype is dtype and w.dtype is dtype and dtype in _BLAS_FLOATS and out.flags.c_contiguous:
        np.matmul(x, w.T, out=out)  # a layer's common case: straight into the output, no casts
        if len(ins) > 2:
            np.add(out, ins[2], out=out)
        return
    ct = compute_dtype(out.dtype)
    rows, k = math.prod(x.shape[:-1]), x.shape[-1]  # explicit sizes: reshape(-1, 0) is ambiguous when empty
    x2 = x.reshape(rows, k).astype(ct, copy=False)
    w = w.astype(ct, copy=False)
    direct = w.ndim == 2 and out.dtype == ct and out.flags.c_contiguous
    if w.ndim == 1:
        res = x2 @ w
    elif direct:  # the matmul writes straight into the output buffer
        res = np.matmul(x2, w.T, out=out.reshape(rows, w.shape[0]))
    else:
        res = np.matmul(x2, w.T)
    if len(ins) > 2:
        res += ins[2].astype(ct, copy=False)
    if not direct:
        store(out, res.reshape(out.shape))


@register_kernel("linear_backward")
def _linear_backward(outs, ins, attrs):
    """linear's gradients, those ``output_mask`` asks for, in this order: grad_output @ weight,
    grad_output^T @ input, grad_output summed over the rows (one dtype, float32 or float64)."""
    g, x, w = ins
    n_out, k = w.shape
    rows = math.prod(x.shape[:-1])
    g2 = g.reshape(rows, n_out)
    results = iter(outs)
    need_x, need_w, need_b = attrs["output_mask"]
    if need_x:
        _matmul_into(next(results), g2, w, (rows, k))
    if need_w:
        _matmul_into(next(results), g2.T, x.reshape(rows, k), (n_out, k))
    if need_b:
        out = next(results)
        if out.flags.c_contiguous:
            np.add.reduce(g2, axis=0, out=out)
        else:
            store(out, g2.sum(0))


def _matmul_into(out: np.ndarray, a: np.ndarray, b: np.ndarray, shape: tuple) -> None:
    """``a @ b`` written into ``out`` (straight into its buffer when it is contiguous)."""
    if out.flags.c_contiguous:
        np.matmul(a, b, out=out.reshape(shape))
    else:
        store(out, np.matmul(a, b).reshape(out.shape))


@register_kernel("bilinear")
def _bilinear(outs, ins, attrs):
    out = outs[0]
    ct = compute_dtype(out.dtype)
    x1, x2, w = (a.astype(ct, copy=False) for a in ins[:3])
    o, i1, i2 = w.shape
    rows = math.prod(x1.shape[:-1])
    a = x1.reshape(rows, i1)
    b = x2.reshape(rows, i2)
    tmp = (a @ w.transpose(1, 0, 2).reshape(i1, o * i2)).reshape(rows, o, i2)
    res = np.matmul(tmp, b[:, :, None])[..., 0]
    if len(ins) > 3:
        res += ins[3].astype(ct, copy=False)
    store(out, res.reshape(out.shape))
