"""CPU kernels of the bitwise ops: bitwise_not, and, or, xor, the shifts, gcd and lcm (NumPy's ufuncs)."""

from __future__ import annotations

import numpy as np

from .factories import ufunc1, ufunc2

ufunc1("bitwise_not", np.invert)
ufunc2("bitwise_and", np.bitwise_and)
ufunc2("bitwise_or", np.bitwise_or)
ufunc2("bitwise_xor", np.bitwise_xor)
ufunc2("bitwise_left_shift", np.left_shift)
ufunc2("bitwise_right_shift", np.right_shift)
ufunc2("gcd", np.gcd)
ufunc2("lcm", np.lcm)
