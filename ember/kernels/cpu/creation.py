"""CPU kernels of the creation ops: fills and ranges written into the allocated output.

Ranges follow PyTorch's arithmetic: ``arange`` computes ``start + step * i`` in float64 (in
int64 for integer dtypes), ``linspace`` fills from both ends towards the middle so that the
last element is exactly ``end``.
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel


@register_kernel("fill")
def fill(outs, ins, attrs):
    outs[0].fill(attrs["value"])


_CHUNK = 1 << 20


@register_kernel("arange")
def arange(outs, ins, attrs):
    out = outs[0]
    n = out.shape[0]
    if n == 0:
        return
    if out.dtype.kind in "iu":
        ct, step, start = np.int64, attrs["step"], attrs["start"]
    else:
        ct, step, start = np.float64, float(attrs["step"]), float(attrs["start"])
    for lo in range(0, n, _CHUNK):  # the 64-bit values a block at a time: no temporary the size of a huge output
        hi = min(n, lo + _CHUNK)
        np.copyto(out[lo:hi], np.arange(lo, hi, dtype=ct) * step + start, casting="unsafe")


def _compute_dtype(out: np.ndarray) -> np.dtype:
    kind = out.dtype.kind
    if kind == "c":
        return out.dtype
    if kind == "f" and out.dtype.itemsize >= 4:
        return out.dtype
    if kind == "f" or out.dtype.name == "bfloat16":
        return np.dtype(np.float32)
    return np.dtype(np.float64)  # integers: a double step, as PyTorch


@register_kernel("linspace")
def linspace(outs, ins, attrs):
    out = outs[0]
    steps = out.shape[0]
    if steps == 0:
        return
    start, end = attrs["start"], attrs["end"]
    base = attrs["base"]
    ct = _compute_dtype(out) if base is None else np.dtype(np.complex128 if out.dtype.kind == "c" else np.float64)
    if out.dtype.kind in "iub":
        start, end = int(np.real(start)), int(np.real(end))  # PyTorch casts the ends to the dtype first
    elif ct.kind != "c":
        start, end = np.real(start), np.real(end)
    start, end = ct.type(start), ct.type(end)
    # endpoint=False is the first steps values of steps + 1 with the end, bit for bit (as the array API asks)
    points = steps if attrs["endpoint"] else steps + 1
    idx = np.arange(points, dtype=np.int64)
    if points == 1:
        values = np.full(1, start, dtype=ct)
    else:
        step = (end - start) / ct.type(points - 1)
        half = points // 2
        values = np.empty(points, dtype=ct)
        values[:half] = start + step * idx[:half].astype(ct)
        values[half:] = end - step * (points - idx[half:] - 1).astype(ct)
        values = values[:steps]
    if base is not None:
        values = np.power(ct.type(base), values)
    if values.dtype.kind == "c" and out.dtype.kind != "c":
        values = values.real
    np.copyto(out, values, casting="unsafe")


@register_kernel("eye")
def eye(outs, ins, attrs):
    out = outs[0]
    out.fill(0)
    n, m, k = attrs["n"], attrs["m"], attrs["k"]
    lo, hi = max(0, -k), min(n, m - k)
    if hi > lo:
        i = np.arange(lo, hi)
        out[i, i + k] = 1


@register_kernel("tri_indices")
def tri_indices(outs, ins, attrs):
    out = outs[0]
    if out.shape[1] == 0:
        return
    row, col, offset = attrs["row"], attrs["col"], attrs["offset"]
    # only the rows (upper) or columns (lower) that hold an entry are laid out: triu_indices(2**62, 3)
    # has six entries, and NumPy's mask of every row would not fit in memory
    if attrs["lower"]:
        r, c = np.tril_indices(row, offset, min(col, max(row + offset, 0)))
    else:
        r, c = np.triu_indices(min(row, max(col - offset, 0)), offset, col)
    out[0] = r
    out[1] = c
