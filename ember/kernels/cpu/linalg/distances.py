"""The kernel of ``cdist``: p-norm distances between rows, a block of rows of ``x1`` at a time
(so the (rows, R, M) differences stay a few megabytes), or for p = 2 in the matrix-product form
when the functor asks for it (``attrs["mm"]``).
"""

from __future__ import annotations

import math

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import store

_BLOCK_ELEMENTS = 1 << 20  # differences held at once


def _norms(diff: np.ndarray, p: float) -> np.ndarray:
    """The p-norm over the last axis (p = 0 counts the nonzero entries)."""
    a = np.abs(diff)
    if p == 0:
        return np.count_nonzero(a, axis=-1).astype(diff.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt(np.square(a).sum(-1))
    if math.isinf(p):
        return a.max(-1, initial=0)
    return np.power(np.power(a, p).sum(-1), 1.0 / p)


def _euclidean_by_products(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """sqrt(max(||a||^2 + ||b||^2 - 2 a.b, 0)) as one matrix product of [-2a, ||a||^2, 1] and
    [b, 1, ||b||^2] (PyTorch's fast p = 2 form, so the rounding matches too)."""
    n1 = np.square(x1).sum(-1, keepdims=True)
    n2 = np.square(x2).sum(-1, keepdims=True)
    a = np.concatenate([-2 * x1, n1, np.ones_like(n1)], axis=-1)
    b = np.concatenate([x2, np.ones_like(n2), n2], axis=-1)
    return np.sqrt(np.maximum(a @ np.swapaxes(b, -1, -2), 0))


@register_kernel("cdist")
def _cdist(outs, ins, attrs):
    out = outs[0]
    x1, x2 = ins
    if out.size == 0:
        return
    if x1.shape[-1] == 0:
        out[...] = 0
        return
    p = attrs["p"]
    if attrs["mm"]:
        store(out, _euclidean_by_products(x1, x2))
        return
    rows, r, m = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    block = max(1, _BLOCK_ELEMENTS // max(1, r * m * math.prod(x1.shape[:-2])))
    for start in range(0, rows, block):
        part = x1[..., start : start + block, None, :] - x2[..., None, :, :]
        out[..., start : start + block, :] = _norms(part, p)
