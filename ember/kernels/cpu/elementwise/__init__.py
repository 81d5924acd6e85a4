"""CPU kernels of the elementwise ops, one module per module of ``ember/ops/elementwise/``
(``factories`` holds the compute-dtype rules, NumPy's error state and the kernel factories;
``special`` also holds Cody's erf/erfc).
Importing this package registers every kernel."""

from . import (  # noqa: F401 - importing a module registers its kernels
    activations,
    arithmetic,
    bessel,
    bitwise,
    comparison,
    complex_parts,
    division,
    exponential,
    gamma,
    ieee,
    logical,
    minmax,
    powers,
    rounding,
    signs,
    special,
    special_extra,
    ternary,
    trigonometric,
)
from .activations import relu
from .comparison import isclose
from .factories import RULES, map1, map2, quiet, ufunc1, ufunc2
from .minmax import clamp
from .special import erf, erfc
from .ternary import lerp, lerp_scalar, where

__all__ = ["RULES", "clamp", "erf", "erfc", "isclose", "lerp", "lerp_scalar", "map1", "map2", "quiet", "relu", "ufunc1", "ufunc2", "where"]
