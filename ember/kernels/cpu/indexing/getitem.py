"""The kernels of advanced indexing: ``index`` (a gather, ``t[i0, :, i2]`` over a view) and the
writes ``index_put``/``index_put_scalar`` (``t[key] = value``, ``index_put_``)."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ._common import index_key, real_part_for


@register_kernel("index")
def index(outs, ins, attrs):
    x = ins[0]
    np.copyto(outs[0], x[index_key(x, attrs["dims"], ins[1:])], casting="unsafe")


def _strip_leading_ones(values: np.ndarray, ndim: int) -> np.ndarray:
    if values.ndim > ndim:
        values = values.reshape(values.shape[values.ndim - ndim :])
    return values


@register_kernel("index_put")
def index_put(outs, ins, attrs):
    out = outs[0]
    values = real_part_for(ins[1], out.dtype)
    dims = attrs["dims"]
    if not dims:
        np.copyto(out, _strip_leading_ones(values, out.ndim), casting="unsafe")
        return
    key = index_key(out, dims, ins[2:])
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
    key = index_key(out, dims, ins[1:])
    if attrs["accumulate"]:
        np.add.at(out, key, np.asarray(value).astype(out.dtype))
    else:
        out[key] = value
