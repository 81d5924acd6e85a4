"""Elementwise ops: each op's schema entry, primitive, inference rule and derivative, side by side.

One module per idea; in each, an op reads top to bottom as its ``declare(...)`` entry, the
registration of its primitive(s) and functors, and its derivative:

- ``kinds``: the dtype kinds an op accepts, ``check_kinds``, the result-dtype rules;
- ``factories``: ``unary`` and ``binary`` (a tensor-tensor and a tensor-scalar primitive, since
  a Python scalar is weak in promotion and travels as an attribute), the derivative helpers;
- ``arithmetic`` (add, sub, mul, neg, positive), ``division`` (div, floor_divide, remainder,
  fmod), ``powers`` (sqrt, rsqrt, square, reciprocal, pow), ``exponential`` (exp, log and kin,
  logaddexp), ``trigonometric`` (sin ... atanh, atan2, hypot), ``special`` (erf, erfc, sigmoid),
  ``special_extra`` (logit, xlogy, xlog1py, entr, sinc, ndtr, ndtri), ``gamma`` (lgamma, digamma,
  polygamma, mvlgamma), ``bessel`` (i0, i0e, i1, i1e),
  ``activations`` (relu, silu, gelu, softplus, elu, leaky_relu, hardtanh), ``rounding`` (floor,
  ceil, trunc, round, frac), ``signs`` (abs, sign, sgn, copysign), ``complex_parts`` (real, imag,
  conj, conj_physical, angle), ``ieee`` (isnan, isinf, isfinite, signbit, nextafter, nan_to_num),
  ``comparison`` (eq ... ge, isclose, allclose, equal), ``minmax`` (maximum, minimum, fmax, fmin,
  clamp), ``logical``, ``bitwise``, ``ternary`` (where, lerp), ``composites`` (addcmul, addcdiv, clamp_min,
  clamp_max, deg2rad, rad2deg).

The kernels mirror these modules in ``ember/kernels/cpu/elementwise/``; they compute in the
promoted dtype. Importing this package registers every op of the family.

>>> import ember
>>> ember.relu(ember.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
>>> (ember.tensor([1, 2], dtype=ember.int8) + 1).dtype
ember.int8
"""

from . import (  # noqa: F401 - importing a module registers its ops
    activations,
    arithmetic,
    bessel,
    bitwise,
    comparison,
    complex_parts,
    composites,
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
from .factories import BINARY_OPS, UNARY_OPS, binary, unary
from .kinds import ALL, BITS, FLOATING, INEXACT, INTEGER, NUMERIC, REAL, REAL_NO_BOOL, check_kinds, to_float

__all__ = [
    "ALL", "BINARY_OPS", "BITS", "FLOATING", "INEXACT", "INTEGER", "NUMERIC", "REAL", "REAL_NO_BOOL", "UNARY_OPS",
    "binary", "check_kinds", "to_float", "unary",
]  # fmt: skip
