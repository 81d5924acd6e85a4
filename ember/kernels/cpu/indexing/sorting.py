"""The kernels of sort/topk (a stable argsort), unique and unique_consecutive (with the count
that sizes their outputs: ``unique_count``) and searchsorted."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ....ops.indexing._common import check_index_range
from ._common import as_intp


def _sort_key(x: np.ndarray) -> np.ndarray:
    """An array NumPy sorts in the same order (bfloat16 and float16 via float32)."""
    if x.dtype.itemsize == 2 and (x.dtype.kind == "f" or x.dtype.name == "bfloat16"):  # bfloat16's kind is "V"
        return x.astype(np.float32)
    return x


def sort_order(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable argsort along dim; descending keeps equal elements in their original order and puts NaN first."""
    key = _sort_key(x)
    if not descending:
        return np.argsort(key, axis=dim, kind="stable")
    order = np.argsort(np.flip(key, dim), axis=dim, kind="stable")
    return np.flip(x.shape[dim] - 1 - order, dim)


def _sort(outs, ins, attrs):
    x = ins[0]
    values, indices = outs
    if x.ndim == 0:
        np.copyto(values, x)
        indices.fill(0)
        return
    d = attrs["dim"] % x.ndim
    order = sort_order(x, d, attrs["descending"])
    k = attrs["k"]
    if k is not None:
        order = order[(slice(None),) * d + (slice(0, k),)]
    np.copyto(indices, order)
    np.copyto(values, np.take_along_axis(x, order, d))


@register_kernel("sort")
def sort(outs, ins, attrs):
    _sort(outs, ins, attrs)


@register_kernel("topk")
def topk(outs, ins, attrs):
    _sort(outs, ins, attrs)


def unique_arrays(x: np.ndarray, dim: int | None, consecutive: bool, count_only: bool = False):
    """(values, inverse, counts) of ``x`` (or along ``dim``), sorted or consecutive; or the count."""
    work = _sort_key(x)
    if dim is None:
        rows = work.reshape(-1, 1)
        moved_shape = None
    else:
        moved = np.moveaxis(work, dim, 0)
        moved_shape = moved.shape
        rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    n = rows.shape[0]
    if consecutive:
        change = np.ones(n, dtype=bool)
        if n > 1:
            change[1:] = np.any(rows[1:] != rows[:-1], axis=1) if rows.shape[1] else False
        starts = np.flatnonzero(change)
        if count_only:
            return len(starts)
        inverse = np.cumsum(change) - 1
        counts = np.diff(np.append(starts, n))
        unique_rows = rows[starts]
    elif dim is None:
        flat = rows.reshape(-1)
        # each NaN is its own value, as in PyTorch (NumPy merges them by default)
        if count_only:
            return len(np.unique(flat, equal_nan=False))
        unique_rows, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        unique_rows = unique_rows.reshape(-1, 1)
    else:
        if n == 0 or rows.shape[1] == 0:
            unique_rows = rows[: min(n, 1)]
            inverse = np.zeros(n, dtype=np.int64)
            counts = np.array([n] if n else [], dtype=np.int64)
        else:
            unique_rows, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
        if count_only:
            return len(unique_rows)
    inverse = inverse.reshape(-1)
    if dim is None:
        return unique_rows.reshape(-1).astype(x.dtype, copy=False), inverse.reshape(x.shape), counts
    values = unique_rows.reshape((len(unique_rows), *moved_shape[1:])).astype(x.dtype, copy=False)
    return np.moveaxis(values, 0, dim), inverse, counts


@register_kernel("unique_count")
def unique_count(outs, ins, attrs):
    outs[0][...] = unique_arrays(ins[0], attrs["dim"], attrs["consecutive"], count_only=True)


def _write_unique(outs, ins, attrs, consecutive: bool) -> None:
    values, inverse, counts = unique_arrays(ins[0], attrs["dim"], consecutive)
    if values.shape != outs[0].shape:
        raise RuntimeError("unique(): the input changed between the count and the kernel")
    np.copyto(outs[0], values)
    np.copyto(outs[1], inverse)
    np.copyto(outs[2], counts)


@register_kernel("unique")
def unique(outs, ins, attrs):
    _write_unique(outs, ins, attrs, consecutive=False)


@register_kernel("unique_consecutive")
def unique_consecutive(outs, ins, attrs):
    _write_unique(outs, ins, attrs, consecutive=True)


def _comparable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if a.dtype == b.dtype and not (a.dtype.kind == "f" and a.dtype.itemsize == 2):
        return a, b
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return a.astype(np.float64), b.astype(np.float64)
    ct = np.result_type(a.dtype, b.dtype)
    if ct.kind == "f":  # int64 with uint64: compare exactly as Python ints would need; float64 is close enough here
        ct = np.float64
    return a.astype(ct), b.astype(ct)


@register_kernel("searchsorted")
def searchsorted(outs, ins, attrs):
    seq, x = ins[:2]
    out = outs[0]
    if len(ins) == 3:
        sorter = ins[2]
        check_index_range("searchsorted", sorter, seq.shape[-1], seq.ndim - 1)
        seq = np.take_along_axis(seq, as_intp(sorter), -1)
    seq, x = _comparable(seq, x)
    side = "right" if attrs["right"] else "left"
    if seq.ndim == 1:
        np.copyto(out, np.searchsorted(seq, x, side=side), casting="unsafe")
        return
    n = int(np.prod(seq.shape[:-1]))
    rows = seq.reshape(n, seq.shape[-1])
    values = x.reshape(n, x.shape[-1])
    result = np.empty(values.shape, dtype=np.int64)
    for i in range(rows.shape[0]):  # one search per row of boundaries
        result[i] = np.searchsorted(rows[i], values[i], side=side)
    np.copyto(out, result.reshape(out.shape), casting="unsafe")
