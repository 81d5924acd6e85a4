"""The kernels of gather/scatter along a dimension and of take/put over the flattened tensor."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ....ops.indexing._common import check_index_range
from ._common import as_intp, at_least_1d, copy_input


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
    x, index = at_least_1d(ins[0]), at_least_1d(ins[1])
    if index.size == 0:
        return
    d = attrs["dim"] % x.ndim
    check_index_range("gather", index, x.shape[d], d)
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
    o, index = at_least_1d(out), at_least_1d(index)
    if index.size == 0:
        return
    d = attrs["dim"] % o.ndim
    check_index_range(attrs.get("op", "scatter"), index, o.shape[d], d)
    key = _along_key(index, d)
    if isinstance(src, np.ndarray):
        src = at_least_1d(src)[tuple(slice(0, n) for n in index.shape)]
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
    copy_input(outs[0], x)
    _scatter_into(outs[0], index, src, attrs)


@register_kernel("scatter_value")
def scatter_value(outs, ins, attrs):
    x, index = ins
    copy_input(outs[0], x)
    _scatter_into(outs[0], index, attrs["value"], attrs)


@register_kernel("take")
def take(outs, ins, attrs):
    x, index = ins
    if index.size == 0:
        return
    flat = x.reshape(-1)
    check_index_range("take", index, flat.size)
    np.copyto(outs[0], flat[as_intp(index)])


@register_kernel("put")
def put(outs, ins, attrs):
    x, index, source = ins
    out = outs[0]
    copy_input(out, x)
    o = at_least_1d(out)
    n = o.size
    index = as_intp(index.reshape(-1))
    check_index_range("put_", index, n)
    if index.size == 0:
        return
    key = np.unravel_index(np.where(index < 0, index + n, index), o.shape)
    src = source.reshape(-1)
    if attrs["accumulate"]:
        np.add.at(o, key, src)
    else:
        o[key] = src
