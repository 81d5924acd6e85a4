"""CPU kernels of the bitwise ops: bitwise_not, and, or, xor, the shifts, gcd and lcm (NumPy's ufuncs)."""

from __future__ import annotations

import numpy as np

from .factories import map2, ufunc1, ufunc2

ufunc1("bitwise_not", np.invert)
ufunc2("bitwise_and", np.bitwise_and)
ufunc2("bitwise_or", np.bitwise_or)
ufunc2("bitwise_xor", np.bitwise_xor)
ufunc2("bitwise_left_shift", np.left_shift)
ufunc2("bitwise_right_shift", np.right_shift)


def _gcd(a, b, attrs=None):
    """torch's Euclid on |a|, |b| in the dtype, wrapping as C does (gcd with abs(INT_MIN) is negative)."""
    a, b = np.broadcast_arrays(np.abs(a), np.abs(b))
    a, b = a.copy(), b.copy()
    while True:
        live = a != 0
        if not live.any():
            return b
        safe = np.where(live, a, 1)
        rem = np.fmod(b, safe)  # C's remainder: the sign of the dividend
        b = np.where(live, a, b)
        a = np.where(live, rem, 0)


def _lcm(a, b, attrs=None):
    """torch's abs(a / gcd * b), in C's arithmetic: types narrower than int compute in int32."""
    dtype = np.result_type(a, b)
    work = np.int32 if dtype.itemsize < 4 else dtype
    g = _gcd(a, b).astype(work)
    a, b = a.astype(work), b.astype(work)
    return np.where(g == 0, 0, np.abs(a // np.where(g == 0, 1, g) * b)).astype(dtype)


map2("gcd", _gcd)
map2("lcm", _lcm)
