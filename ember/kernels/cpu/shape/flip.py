"""The kernels of ``flip`` and ``roll``."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel


@register_kernel("flip")
def flip(outs, ins, attrs):
    dims = attrs["dims"]
    x = ins[0]
    np.copyto(outs[0], np.flip(x, dims) if dims else x)


@register_kernel("roll")
def roll(outs, ins, attrs):
    x, out = ins[0], outs[0]
    dims = attrs["dims"]
    if x.size == 0:
        return
    if dims is None:
        np.copyto(out, np.roll(x, attrs["shifts"][0]))
    else:
        np.copyto(out, np.roll(x, attrs["shifts"], dims))
