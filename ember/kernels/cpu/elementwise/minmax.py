"""CPU kernels of the elementwise extremes: maximum, minimum, fmax, fmin, clamp."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from .factories import RULES, cast, common_and_compute, quiet, scalar_array, ufunc2

__all__ = ["clamp"]


def _first_on_ties(ufunc: np.ufunc):
    """``ufunc`` with its operands swapped: NumPy's maximum/minimum return the second operand
    when both are equal, PyTorch's the first, which shows in the sign of maximum(0.0, -0.0)."""

    def swapped(a, b, **kwargs):
        return ufunc(b, a, **kwargs)

    swapped.__name__ = ufunc.__name__
    return swapped


ufunc2("maximum", _first_on_ties(np.maximum))
ufunc2("minimum", _first_on_ties(np.minimum))


def _nan_ignoring(extremum: np.ufunc, nan_ignoring: np.ufunc):
    """fmax/fmin as PyTorch: the first operand on a tie of zeros. NumPy's fmax loops disagree
    with each other on ties (by dtype and length), so maximum (which is consistent) computes the
    answer and fmax only fills in where one side was NaN."""
    first_on_ties = _first_on_ties(extremum)

    def kernel(a, b, *, out, **kwargs):
        first_on_ties(a, b, out=out, **kwargs)
        if out.dtype.kind in "fcV":  # (bfloat16 is kind V)
            nan = np.isnan(out)
            if nan.any():
                nan_ignoring(a, b, out=out, where=nan, **kwargs)
        return out

    kernel.__name__ = nan_ignoring.__name__
    return kernel


ufunc2("fmax", _nan_ignoring(np.maximum, np.fmax))
ufunc2("fmin", _nan_ignoring(np.minimum, np.fmin))


@quiet
def clamp(outs, ins, attrs):
    """x between the scalar bounds ``min`` and ``max`` (either may be None), computed in the
    dtype promoted with them; NaN stays NaN."""
    x = ins[0]
    lo, hi = attrs["min"], attrs["max"]
    promoted, ct = common_and_compute(RULES["same"], True, x.dtype, *[v for v in (lo, hi) if v is not None])
    r = cast(cast(x, promoted), ct)
    # x second: on a tie (-0.0 against 0.0) NumPy returns the second operand and PyTorch keeps x
    if lo is not None:
        r = np.maximum(scalar_array(lo, promoted, ct), r)
    if hi is not None:
        r = np.minimum(scalar_array(hi, promoted, ct), r)
    np.copyto(outs[0], r, casting="unsafe")


register_kernel("clamp")(clamp)
