"""CPU kernels of the rounding functions: floor, ceil, trunc, round, frac (integers pass
through unchanged)."""

from __future__ import annotations

import numpy as np

from .factories import map1


def _integral_identity(ufunc):
    def fn(x, attrs):
        return x if x.dtype.kind in "iub" else ufunc(x)

    return fn


map1("floor", _integral_identity(np.floor))
map1("ceil", _integral_identity(np.ceil))
map1("trunc", _integral_identity(np.trunc))


def _round(x, attrs):
    if x.dtype.kind in "iub":
        return x
    decimals = attrs["decimals"]
    if decimals == 0:
        return np.rint(x)
    # PyTorch's formula: scale by 10**decimals, round half to even, unscale
    if decimals > 0:
        ten = x.dtype.type(10.0**decimals)
        return np.rint(x * ten) / ten
    ten = x.dtype.type(10.0**-decimals)
    return np.rint(x / ten) * ten


map1("round", _round)
map1("frac", lambda x, a: x - np.trunc(x))
