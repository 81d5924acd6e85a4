"""The kernels of index_select, index_add, index_copy and index_fill (whole slices along a
dimension, picked by a vector of indices)."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ....ops.indexing._common import check_index_range
from ._common import as_intp, at_least_1d, copy_input, real_part_for


@register_kernel("index_select")
def index_select(outs, ins, attrs):
    x, index = ins
    out = outs[0]
    index = index.reshape(-1)
    if x.ndim == 0:
        check_index_range("index_select", index, 1, 0)
        np.copyto(out, x)
        return
    d = attrs["dim"] % x.ndim
    check_index_range("index_select", index, x.shape[d], d)
    if out.size:
        np.copyto(out, np.take(x, as_intp(index), axis=d))


def _dim_first(a: np.ndarray, dim: int) -> tuple[np.ndarray, int]:
    a = at_least_1d(a)
    d = dim % a.ndim
    return np.moveaxis(a, d, 0), d


@register_kernel("index_add")
def index_add(outs, ins, attrs):
    x, index, source = ins
    out = outs[0]
    copy_input(out, x)
    o, d = _dim_first(out, attrs["dim"])
    index = index.reshape(-1)
    check_index_range("index_add", index, o.shape[0], d)
    s, _ = _dim_first(source, attrs["dim"])
    alpha = attrs["alpha"]
    if alpha != 1:
        s = s * alpha
    np.add.at(o, as_intp(index), real_part_for(s, o.dtype).astype(o.dtype, copy=False))


@register_kernel("index_copy")
def index_copy(outs, ins, attrs):
    x, index, source = ins
    out = outs[0]
    copy_input(out, x)
    o, d = _dim_first(out, attrs["dim"])
    index = index.reshape(-1)
    check_index_range("index_copy", index, o.shape[0], d)
    o[as_intp(index)] = _dim_first(source, attrs["dim"])[0]


def _index_fill(outs, ins, attrs, value):
    x, index = ins[:2]
    out = outs[0]
    copy_input(out, x)
    o, d = _dim_first(out, attrs["dim"])
    index = index.reshape(-1)
    check_index_range("index_fill", index, o.shape[0], d)
    o[as_intp(index)] = value


@register_kernel("index_fill")
def index_fill(outs, ins, attrs):
    _index_fill(outs, ins, attrs, attrs["value"])


@register_kernel("index_fill_tensor")
def index_fill_tensor(outs, ins, attrs):
    _index_fill(outs, ins, attrs, real_part_for(ins[2], outs[0].dtype))
