"""CPU kernels of sign and magnitude: abs, sign, sgn, copysign."""

from __future__ import annotations

import numpy as np

from .factories import KIND, map1, ufunc2

map1("abs", lambda x, a: np.abs(x))


def _sign(x, attrs):
    if KIND[x.dtype] == "b":
        return x
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


map1("sign", _sign, lower=False)


def _sgn(x, attrs):
    if x.dtype.kind != "c":
        return _sign(x, attrs)
    r = np.abs(x)
    return np.where(r == 0, 0, x / np.where(r == 0, 1, r))


map1("sgn", _sgn)
ufunc2("copysign", np.copysign, "float")
