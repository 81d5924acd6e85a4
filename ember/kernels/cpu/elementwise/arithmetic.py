"""CPU kernels of the arithmetic: add, sub, mul (warnings off only on their slow paths: they
are every model's hot path), add_alpha (``input + alpha * other``), neg."""

from __future__ import annotations

import numpy as np

from .factories import map2, scalar_array, ufunc1, ufunc2

ufunc2("add", np.add, silent=False)
ufunc2("sub", np.subtract, silent=False)
ufunc2("mul", np.multiply, silent=False)


def _add_alpha(a, b, attrs):
    alpha = attrs["alpha"]
    if a.dtype.kind == "b":
        return a | (b & bool(alpha))
    return a + b * scalar_array(alpha, a.dtype, a.dtype)


def _add_alpha_same_float(outs, ins, attrs) -> bool:
    """An optimizer's ``p.add_(g, alpha=-lr)``: one float32/float64 dtype throughout and a real
    alpha, in two ufunc calls (``b * alpha`` is a fresh temporary, so any aliasing is safe)."""
    out = outs[0]
    a, b = ins
    dtype = out.dtype
    alpha = attrs["alpha"]
    if a.dtype != dtype or b.dtype != dtype or dtype.kind != "f" or dtype.itemsize < 4:
        return False
    if type(alpha) is not float and not (type(alpha) is int and -(2**31) < alpha < 2**31):
        return False
    np.add(a, np.multiply(b, alpha, dtype=dtype), out=out)
    return True


map2("add_alpha", _add_alpha, scalar=False, first=_add_alpha_same_float)
ufunc1("neg", np.negative)
