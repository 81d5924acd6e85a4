"""The kernels of ``tril``/``triu`` (also in place: ``tril_`` writes over its input), ``diag``
and ``diag_embed``."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ._common import copy_into, same_memory


def _triangle(outs, ins, attrs, lower: bool) -> None:
    x, out = ins[0], outs[0]
    k = attrs["diagonal"]
    if not same_memory(x, out):  # in place (tril_) writes over its input
        copy_into(out, x)
    rows, cols = out.shape[-2:]
    k = min(max(k, -rows - 1), cols + 1)  # diagonals past the matrix all mean the same; NumPy wants a C long
    # zero where the kept triangle is not
    drop = ~np.tri(rows, cols, k, dtype=bool) if lower else np.tri(rows, cols, k - 1, dtype=bool)
    np.copyto(out, np.zeros((), out.dtype), where=drop)


@register_kernel("tril")
def tril(outs, ins, attrs):
    _triangle(outs, ins, attrs, lower=True)


@register_kernel("triu")
def triu(outs, ins, attrs):
    _triangle(outs, ins, attrs, lower=False)


@register_kernel("diag")
def diag(outs, ins, attrs):
    x, out = ins[0], outs[0]
    k = attrs["diagonal"]
    if x.ndim == 1:
        out.fill(0)
        n = x.shape[0]
        rows = np.arange(n) + max(-k, 0)
        out[rows, rows + k] = x
    else:
        np.copyto(out, np.diagonal(x, k))


@register_kernel("diag_embed")
def diag_embed(outs, ins, attrs):
    x, out = ins[0], outs[0]
    offset = attrs["offset"]
    ndim = out.ndim
    a, b = attrs["dim1"] % ndim, attrs["dim2"] % ndim
    out.fill(0)
    n = x.shape[-1]
    if out.size == 0 or n == 0:
        return
    o = np.moveaxis(out, (a, b), (-2, -1))
    rows = np.arange(n) + max(-offset, 0)
    o[..., rows, rows + offset] = x
