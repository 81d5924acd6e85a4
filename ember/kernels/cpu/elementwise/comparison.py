"""CPU kernels of the comparisons: eq, ne, lt, le, gt, ge (bool results, computed in the
promoted dtype) and isclose."""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ....dispatch.opexpr import register_kernel
from .factories import KIND, cast, compute_dtype, quiet, ufunc2

__all__ = ["isclose"]

ufunc2("eq", np.equal, lower=False, bool_out=True)
ufunc2("ne", np.not_equal, lower=False, bool_out=True)
ufunc2("lt", np.less, lower=False, bool_out=True)
ufunc2("le", np.less_equal, lower=False, bool_out=True)
ufunc2("gt", np.greater, lower=False, bool_out=True)
ufunc2("ge", np.greater_equal, lower=False, bool_out=True)


@quiet
def isclose(outs, ins, attrs):
    """PyTorch's formula: a == b, or |a - b| finite and <= atol + |rtol * b|, each step rounded to
    the dtype (integers compute in the default float dtype)."""
    a, b = ins
    dt = a.dtype if KIND[a.dtype] in "fc" else _dt.get_default_dtype().numpy_dtype
    ct = compute_dtype(dt, True)
    rnd = (lambda x: x.astype(dt).astype(ct)) if ct is not dt else (lambda x: x)
    rtol, atol = attrs["rtol"], attrs["atol"]
    close = a == b
    af, bf = cast(a, ct), cast(b, ct)
    if attrs["equal_nan"]:
        close |= np.isnan(af) & np.isnan(bf)
    if rtol or atol:
        allowed = rnd(atol + rnd(np.abs(rnd(rtol * bf))))
        actual = rnd(np.abs(rnd(af - bf)))
        close |= np.isfinite(actual) & (actual <= allowed)
    np.copyto(outs[0], close)


register_kernel("isclose")(isclose)
