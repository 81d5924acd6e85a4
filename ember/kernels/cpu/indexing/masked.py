"""The kernels of masked_fill, masked_select, masked_scatter and nonzero."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ._common import copy_input, real_part_for


def _masked_fill(outs, ins, value):
    x, mask = ins[:2]
    out = outs[0]
    copy_input(out, x) if x.shape == out.shape else np.copyto(out, x, casting="unsafe")
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
    copy_input(out, x) if x.shape == out.shape else np.copyto(out, x)
    mask = np.broadcast_to(mask, out.shape)
    count = int(np.count_nonzero(mask))
    src = source.reshape(-1)
    if src.size < count:
        raise RuntimeError(f"masked_scatter(): Number of elements of source ({src.size}) < number of ones in mask ({count})")
    out[mask] = src[:count]


@register_kernel("nonzero")
def nonzero(outs, ins, attrs):
    x = ins[0]
    if x.dtype.kind == "f" and x.dtype.itemsize == 2:
        x = x.astype(np.float32)
    result = np.argwhere(x)
    if result.shape != outs[0].shape:
        raise RuntimeError("nonzero(): the input changed between the count and the kernel")
    np.copyto(outs[0], result)
