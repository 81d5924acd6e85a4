"""CPU kernels of the indexing ops.

Every kernel checks its indices against the sizes they address before NumPy sees them:
out-of-bounds indices raise ``IndexError`` with PyTorch's message (never wrap around, never
read outside memory); negative ones count from the end.
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel
from .shape import named


def check_bounds(idx: np.ndarray, size: int, dim: int) -> None:
    """``index 5 is out of bounds for dimension 0 with size 3`` for any index outside [-size, size)."""
    if idx.size == 0:
        return
    lo, hi = idx.min(), idx.max()
    if lo < -size or hi >= size:
        bad = int(hi) if hi >= size else int(lo)
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def as_intp(idx: np.ndarray) -> np.ndarray:
    """Index arrays NumPy takes without a cast warning (uint64 is not safely intp)."""
    return idx if idx.dtype.kind == "i" else idx.astype(np.intp)


def real_part_for(src: np.ndarray, dst_dtype: np.dtype) -> np.ndarray:
    """PyTorch drops the imaginary part when a complex value goes into a real tensor."""
    if src.dtype.kind == "c" and dst_dtype.kind != "c":
        return src.real
    return src


def _key(x: np.ndarray, dims: tuple, indices: tuple) -> tuple:
    key = [slice(None)] * x.ndim
    for d, idx in zip(dims, indices, strict=True):
        check_bounds(idx, x.shape[d], d)
        key[d] = as_intp(idx)
    return tuple(key)


@register_kernel("index")
def index(outs, ins, attrs):
    x = ins[0]
    np.copyto(outs[0], x[_key(x, attrs["dims"], ins[1:])], casting="unsafe")


@register_kernel("index_put")
def index_put(outs, ins, attrs):
    out = outs[0]
    values = real_part_for(ins[1], out.dtype)
    dims = attrs["dims"]
    if not dims:
        np.copyto(out, _strip_leading_ones(values, out.ndim), casting="unsafe")
        return
    key = _key(out, dims, ins[2:])
    if attrs["accumulate"]:
        np.add.at(out, key, values.astype(out.dtype, copy=False))
    else:
        out[key] = values


@register_kernel("index_put_scalar")
def index_put_scalar(outs, ins, attrs):
    out = outs[0]
    dims = attrs["dims"]
    value = attrs["value"]
    if not dims:
        out.fill(value)
        return
    key = _key(out, dims, ins[1:])
    if attrs["accumulate"]:
        np.add.at(out, key, np.asarray(value).astype(out.dtype))
    else:
        out[key] = value


def _strip_leading_ones(values: np.ndarray, ndim: int) -> np.ndarray:
    if values.ndim > ndim:
        values = values.reshape(values.shape[values.ndim - ndim :])
    return values


def same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """The same elements at the same addresses (an in-place op's input and output)."""
    return a.ctypes.data == b.ctypes.data and a.strides == b.strides and a.shape == b.shape


def _copy_input(out: np.ndarray, x: np.ndarray) -> None:
    """The out-of-place result starts as a copy of the input (in place, it already is)."""
    if not same_memory(x, out):
        np.copyto(out, x, casting="unsafe")


def _at_least_1d(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


def _along_key(index: np.ndarray, dim: int) -> tuple:
    """The fancy-index key of gather/scatter: ``index`` along ``dim``, positions elsewhere."""
    ndim = index.ndim
    key = []
    for d in range(ndim):
        if d == dim:
            key.append(as_intp(index))
        else:
            key.append(np.arange(index.shape[d]).reshape([-1 if k == d else 1 for k in range(ndim)]))
    return tuple(key)


@register_kernel("gather")
def gather(outs, ins, attrs):
    x, index = _at_least_1d(ins[0]), _at_least_1d(ins[1])
    if index.size == 0:
        return
    d = attrs["dim"] % x.ndim
    check_bounds(index, x.shape[d], d)
    np.copyto(outs[0].reshape(index.shape), x[_along_key(index, d)])


def _identity(reduce: str, dtype: np.dtype):
    if reduce in ("sum", "mean", "add"):
        return 0
    if reduce in ("prod", "multiply"):
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if reduce == "amax" else info.max
    return -np.inf if reduce == "amax" else np.inf


_AT = {
    "add": np.add,
    "sum": np.add,
    "multiply": np.multiply,
    "prod": np.multiply,
    "mean": np.add,
    "amax": np.maximum,
    "amin": np.minimum,
}


def _scatter_into(out: np.ndarray, index: np.ndarray, src, attrs) -> None:
    o, index = _at_least_1d(out), _at_least_1d(index)
    if index.size == 0:
        return
    d = attrs["dim"] % o.ndim
    check_bounds(index, o.shape[d], d)
    key = _along_key(index, d)
    if isinstance(src, np.ndarray):
        src = _at_least_1d(src)[tuple(slice(0, n) for n in index.shape)]
    reduce = attrs["reduce"]
    if reduce is None:
        o[key] = src
        return
    if not attrs.get("include_self", True):
        o[key] = _identity(reduce, o.dtype)
    values = np.broadcast_to(np.asarray(src, dtype=o.dtype), index.shape)
    _AT[reduce].at(o, key, values)
    if reduce == "mean":
        counts = np.zeros(o.shape, dtype=np.int64)
        np.add.at(counts, key, 1)
        if attrs.get("include_self", True):
            counts += 1
        touched = counts > 0
        if o.dtype.kind in "iu":
            np.floor_divide(o, counts, out=o, where=touched, casting="unsafe")
        else:
            np.divide(o, counts, out=o, where=touched, casting="unsafe")


@register_kernel("scatter")
def scatter(outs, ins, attrs):
    x, index, src = ins
    _copy_input(outs[0], x)
    _scatter_into(outs[0], index, src, attrs)


@register_kernel("scatter_value")
def scatter_value(outs, ins, attrs):
    x, index = ins
    _copy_input(outs[0], x)
    _scatter_into(outs[0], index, attrs["value"], attrs)


@register_kernel("index_select")
def index_select(outs, ins, attrs):
    x, index = ins
    out = outs[0]
    index = index.reshape(-1)
    if x.ndim == 0:
        check_bounds(index, 1, 0)
        np.copyto(out, x)
        return
    d = attrs["dim"] % x.ndim
    check_bounds(index, x.shape[d], d)
    if out.size:
        np.copyto(out, np.take(x, as_intp(index), axis=d, mode="wrap"))


def _dim_first(a: np.ndarray, dim: int) -> tuple[np.ndarray, int]:
    a = _at_least_1d(a)
    d = dim % a.ndim
    return np.moveaxis(a, d, 0), d


@register_kernel("index_add")
def index_add(outs, ins, attrs):
    x, index, source = ins
    out = outs[0]
    _copy_input(out, x)
    o, d = _dim_first(out, attrs["dim"])
    index = index.reshape(-1)
    check_bounds(index, o.shape[0], d)
    s, _ = _dim_first(source, attrs["dim"])
    alpha = attrs["alpha"]
    if alpha != 1:
        s = s * alpha
    np.add.at(o, as_intp(index), real_part_for(s, o.dtype).astype(o.dtype, copy=False))


@register_kernel("index_copy")
def index_copy(outs, ins, attrs):
    x, index, source = ins
    out = outs[0]
    _copy_input(out, x)
    o, d = _dim_first(out, attrs["dim"])
    index = index.reshape(-1)
    check_bounds(index, o.shape[0], d)
    o[as_intp(index)] = _dim_first(source, attrs["dim"])[0]


def _index_fill(outs, ins, attrs, value):
    x, index = ins[:2]
    out = outs[0]
    _copy_input(out, x)
    o, d = _dim_first(out, attrs["dim"])
    index = index.reshape(-1)
    check_bounds(index, o.shape[0], d)
    o[as_intp(index)] = value


@register_kernel("index_fill")
def index_fill(outs, ins, attrs):
    _index_fill(outs, ins, attrs, attrs["value"])


@register_kernel("index_fill_tensor")
def index_fill_tensor(outs, ins, attrs):
    _index_fill(outs, ins, attrs, real_part_for(ins[2], outs[0].dtype))


def _masked_fill(outs, ins, value):
    x, mask = ins[:2]
    out = outs[0]
    _copy_input(out, x) if x.shape == out.shape else np.copyto(out, x, casting="unsafe")
    np.copyto(out, value, where=mask, casting="unsafe")


@register_kernel("masked_fill")
def masked_fill(outs, ins, attrs):
    _masked_fill(outs, ins, attrs["value"])


@register_kernel("masked_fill_tensor")
def masked_fill_tensor(outs, ins, attrs):
    _masked_fill(outs, ins, real_part_for(ins[2], outs[0].dtype))


@register_kernel("masked_select")
def masked_select(outs, ins, attrs):
    x, mask = np.broadcast_arrays(*ins)
    selected = x[mask]
    if selected.shape != outs[0].shape:
        raise RuntimeError("masked_select(): the mask changed between the count and the kernel")
    np.copyto(outs[0], selected)


@register_kernel("masked_scatter")
def masked_scatter(outs, ins, attrs):
    x, mask, source = ins
    out = outs[0]
    _copy_input(out, x) if x.shape == out.shape else np.copyto(out, x)
    mask = np.broadcast_to(mask, out.shape)
    count = int(np.count_nonzero(mask))
    src = source.reshape(-1)
    if src.size < count:
        raise RuntimeError(f"masked_scatter(): Number of elements of source ({src.size}) < number of ones in mask ({count})")
    out[mask] = src[:count]


def _check_flat_bounds(index: np.ndarray, n: int, op: str) -> None:
    if index.size == 0:
        return
    lo, hi = index.min(), index.max()
    if lo < -n or hi >= n:
        bad = int(hi) if hi >= n else int(lo)
        raise IndexError(f"{op}(): out of range: tried to access index {bad} on a tensor of {n} elements.")


@register_kernel("take")
def take(outs, ins, attrs):
    x, index = ins
    if index.size == 0:
        return
    flat = x.reshape(-1)
    _check_flat_bounds(index, flat.size, "take")
    if index.size:
        np.copyto(outs[0], flat[as_intp(index)])


@register_kernel("put")
def put(outs, ins, attrs):
    x, index, source = ins
    out = outs[0]
    _copy_input(out, x)
    o = _at_least_1d(out)
    n = o.size
    index = as_intp(index.reshape(-1))
    _check_flat_bounds(index, n, "put_")
    if index.size == 0:
        return
    key = np.unravel_index(np.where(index < 0, index + n, index), o.shape)
    src = source.reshape(-1)
    if attrs["accumulate"]:
        np.add.at(o, key, src)
    else:
        o[key] = src


@register_kernel("nonzero")
def nonzero(outs, ins, attrs):
    x = ins[0]
    if x.dtype.kind == "f" and x.dtype.itemsize == 2:
        x = x.astype(np.float32)
    result = np.argwhere(x)
    if result.shape != outs[0].shape:
        raise RuntimeError("nonzero(): the input changed between the count and the kernel")
    np.copyto(outs[0], result)


def _sort_key(x: np.ndarray) -> np.ndarray:
    """An array NumPy sorts in the same order (bfloat16 and float16 via float32)."""
    if x.dtype.kind == "f" and x.dtype.itemsize == 2:
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
        if count_only:
            return len(np.unique(flat))
        unique_rows, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
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


def _unique_kernel(consecutive: bool):
    def kernel(outs, ins, attrs):
        values, inverse, counts = unique_arrays(ins[0], attrs["dim"], consecutive)
        if values.shape != outs[0].shape:
            raise RuntimeError("unique(): the input changed between the count and the kernel")
        np.copyto(outs[0], values)
        np.copyto(outs[1], inverse)
        np.copyto(outs[2], counts)

    return kernel


register_kernel("unique")(named(_unique_kernel(False), "unique_cpu"))
register_kernel("unique_consecutive")(named(_unique_kernel(True), "unique_consecutive_cpu"))


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
        check_bounds(sorter, seq.shape[-1], seq.ndim - 1)
        seq = np.take_along_axis(seq, as_intp(sorter) % max(seq.shape[-1], 1), -1)
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
