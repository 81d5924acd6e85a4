"""CPU kernels of the powers and roots: sqrt, rsqrt, square, reciprocal, pow."""

from __future__ import annotations

import numpy as np

from .factories import BOOL, map1, map2, ufunc1

ufunc1("sqrt", np.sqrt, "float")
map1("rsqrt", lambda x, a: 1 / np.sqrt(x), "float")
ufunc1("square", np.square, "long")
ufunc1("reciprocal", np.reciprocal, "float")


def _pow(a, b, attrs):
    if a.dtype.kind == "b":  # x ** True is x, x ** False is True
        return a | ~b
    if a.dtype.kind == "i":
        negative = b < 0
        if np.any(negative):
            # integer ** negative integer, as C truncates 1 / a**|b|: 1 for 1, +-1 for -1, else 0
            a, b, negative = np.broadcast_arrays(a, b, negative)
            r = np.power(a, np.where(negative, 0, b))
            odd = (b & 1).astype(BOOL)
            special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(a.dtype)
            return np.where(negative, special, r)
    if a.dtype.kind == "c" and isinstance(b, np.ndarray) and b.ndim:
        # a tensor exponent: torch computes exp(b * log(a)), where NumPy's power gives nan+nanj for
        # a zero or infinite base (Python-scalar exponents keep torch's special cases, 0 ** 0 = 1)
        odd = (a == 0) | ~np.isfinite(a)
        if np.any(odd):
            a, b, odd = np.broadcast_arrays(a, b, odd)
            return np.where(odd, np.exp(b * np.log(np.where(odd, a, 1))), np.power(a, b))
    return np.power(a, b)


map2("pow", _pow)
