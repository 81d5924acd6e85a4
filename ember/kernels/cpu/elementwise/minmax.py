"""CPU kernels of the elementwise extremes: maximum, minimum, fmax, fmin, clamp."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from .factories import RULES, cast, common_and_compute, quiet, scalar_array, ufunc2

__all__ = ["clamp"]

ufunc2("maximum", np.maximum)
ufunc2("minimum", np.minimum)
ufunc2("fmax", np.fmax)
ufunc2("fmin", np.fmin)


@quiet
def clamp(outs, ins, attrs):
    """x between the scalar bounds ``min`` and ``max`` (either may be None), computed in the
    dtype promoted with them; NaN stays NaN."""
    x = ins[0]
    lo, hi = attrs["min"], attrs["max"]
    promoted, ct = common_and_compute(RULES["same"], True, x.dtype, *[v for v in (lo, hi) if v is not None])
    r = cast(cast(x, promoted), ct)
    if lo is not None:
        r = np.maximum(r, scalar_array(lo, promoted, ct))
    if hi is not None:
        r = np.minimum(r, scalar_array(hi, promoted, ct))
    np.copyto(outs[0], r, casting="unsafe")


register_kernel("clamp")(clamp)
