"""IEEE 754 values: the classification predicates isnan, isinf, isfinite and signbit, the
next representable value (nextafter), and nan_to_num.

The predicates give bool tensors and are not differentiable; integers are never NaN or
infinite. ``nextafter`` steps in the input dtype's own grid.

>>> ember.isfinite(ember.tensor([1.0, float('inf'), float('nan')])).tolist()
[True, False, False]
"""

from __future__ import annotations

from ..common import functional as _F
from ..schema import schema_family
from .factories import binary, unary, unary_grad
from .kinds import ALL, FLOATING, REAL, to_bool

declare = schema_family("elementwise")

declare("isnan", "Tensor (Tensor input) => Isnan", method=True, differentiable=False, doc="True where input is NaN.", tf="IsNan")
unary("isnan", "Isnan", kinds=ALL, result=to_bool)
declare("isinf", "Tensor (Tensor input) => Isinf", method=True, differentiable=False, doc="True where input is +-inf.", tf="IsInf")
unary("isinf", "Isinf", kinds=ALL, result=to_bool)
declare(
    "isfinite",
    "Tensor (Tensor input) => Isfinite",
    method=True, differentiable=False,
    doc="True where input is neither NaN nor infinite.",
    tf="IsFinite",
)
unary("isfinite", "Isfinite", kinds=ALL, result=to_bool)
declare(
    "signbit",
    "Tensor (Tensor input) => Signbit",
    method=True, out=True, differentiable=False,
    doc="True where the sign bit is set (including -0.0).",
)
unary("signbit", "Signbit", kinds=REAL, result=to_bool)

declare(
    "nextafter",
    [
        "Tensor (Tensor input, Tensor other) => Nextafter",
        "Tensor (Tensor input, Scalar other) => NextafterScalar",
    ],
    method=True, inplace="nextafter_", out=True, differentiable=False, op=("nextafter", "nextafter_scalar"),
    doc="The next floating-point value after input toward other, in input's dtype.",
)
binary("nextafter", "Nextafter", kinds=FLOATING)

declare(
    "nan_to_num",
    "Tensor (Tensor input, Float? nan=0.0, Float? posinf=None, Float? neginf=None) => NanToNum",
    method=True, inplace="nan_to_num_", out=True,
    doc="""
    Replace NaN, +inf and -inf (default: 0 and the dtype's largest and lowest finite values).

    >>> ember.nan_to_num(ember.tensor([float('nan'), float('inf')]), posinf=9.0).tolist()
    [0.0, 9.0]
    """,
)
unary("nan_to_num", "NanToNum", kinds=ALL, attrs=("nan", "posinf", "neginf"))


@unary_grad("nan_to_num")
def _nan_to_num_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _F().isfinite(x)
