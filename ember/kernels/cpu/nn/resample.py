"""interpolate: the nearest modes gather at source indices, the others multiply each
spatial axis by a resampling matrix (both built by ``ember.ops.nn.resample``).
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ....ops.nn.resample import linear_matrix, nearest_index
from ..common import compute_dtype, store
from ._common import _along_axes


@register_kernel("interpolate")
def _interpolate(outs, ins, attrs):
    out, x = outs[0], ins[0]
    mode = attrs["mode"]
    spatial, o_size = x.shape[2:], out.shape[2:]
    scales = attrs["scales"]
    if out.size == 0:
        return
    if mode in ("nearest", "nearest-exact"):
        res = x
        for i, (s, o, sc) in enumerate(zip(spatial, o_size, scales, strict=True)):
            res = np.take(res, nearest_index(s, o, sc, mode == "nearest-exact"), axis=2 + i)
        store(out, res)
        return
    ct = compute_dtype(out.dtype)
    cubic = mode == "bicubic"
    mats = [linear_matrix(s, o, sc, attrs["align_corners"], cubic, ct) for s, o, sc in zip(spatial, o_size, scales, strict=True)]
    store(out, _along_axes(x.astype(ct, copy=False), mats))
