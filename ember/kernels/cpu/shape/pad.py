"""The kernel of ``pad``: NumPy's ``np.pad`` for the reflect/replicate/circular modes, a fill and
a copy for the constant mode (negative pads crop the input first)."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ._common import copy_into

_NUMPY_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@register_kernel("pad")
def pad(outs, ins, attrs):
    x, out = ins[0], outs[0]
    pads, mode = attrs["pad"], attrs["mode"]
    ndim = x.ndim
    # (left, right) per dimension, first dimension first
    widths = [(0, 0)] * ndim
    for i in range(len(pads) // 2):
        widths[ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    # negative pads crop the input first
    crop = tuple(slice(max(-left, 0), x.shape[d] - max(-right, 0)) for d, (left, right) in enumerate(widths))
    x = x[crop]
    grow = [(max(left, 0), max(right, 0)) for left, right in widths]
    if out.size == 0:
        return
    if mode == "constant":
        out.fill(attrs["value"])
        inner = tuple(slice(left, left + n) for (left, _), n in zip(grow, x.shape, strict=True))
        copy_into(out[inner], x)
    else:
        copy_into(out, np.pad(x, grow, mode=_NUMPY_PAD_MODES[mode]))
