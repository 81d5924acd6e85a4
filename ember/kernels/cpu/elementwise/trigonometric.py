"""CPU kernels of the circular and hyperbolic functions and their inverses, atan2 and hypot
(NumPy's ufuncs; integers compute in the default float dtype)."""

from __future__ import annotations

import numpy as np

from .factories import ufunc1, ufunc2

ufunc1("sin", np.sin, "float")
ufunc1("cos", np.cos, "float")
ufunc1("tan", np.tan, "float")
ufunc1("asin", np.arcsin, "float")
ufunc1("acos", np.arccos, "float")
ufunc1("atan", np.arctan, "float")
ufunc1("sinh", np.sinh, "float")
ufunc1("cosh", np.cosh, "float")
ufunc1("tanh", np.tanh, "float")
ufunc1("asinh", np.arcsinh, "float")
ufunc1("acosh", np.arccosh, "float")
ufunc1("atanh", np.arctanh, "float")
ufunc2("atan2", np.arctan2, "float")
ufunc2("hypot", np.hypot)
