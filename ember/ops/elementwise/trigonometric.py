"""Circular and hyperbolic functions and their inverses, atan2 and hypot.

Integers and bool give the default float dtype (``hypot`` takes floating point only). The
inverse functions keep their NumPy names as aliases (``arcsin``...).

>>> ember.atan2(ember.tensor([1.0]), ember.tensor([0.0])).tolist(), ember.cos(ember.tensor([0])).tolist()
([1.5707963705062866], [1.0])
"""

from __future__ import annotations

from .. import sbp_rules
from ..common import functional as _F
from ..schema import schema_family
from .factories import binary, binary_grad, binary_scalar_grad, cj, unary, unary_grad
from .kinds import ALL, FLOATING, REAL, to_float

declare = schema_family("elementwise")

declare("sin", "Tensor (Tensor input) => Sin", method=True, inplace="sin_", out=True, doc="Sine.", tf="Sin")
unary("sin", "Sin", kinds=ALL, result=to_float)


@unary_grad("sin")
def _sin_grad(ctx, g):
    (x,) = ctx.inputs
    return g * cj(_F().cos(x))


declare("cos", "Tensor (Tensor input) => Cos", method=True, inplace="cos_", out=True, doc="Cosine.", tf="Cos")
unary("cos", "Cos", kinds=ALL, result=to_float)


@unary_grad("cos")
def _cos_grad(ctx, g):
    (x,) = ctx.inputs
    return -g * cj(_F().sin(x))


declare("tan", "Tensor (Tensor input) => Tan", method=True, inplace="tan_", out=True, doc="Tangent.", tf="Tan")
unary("tan", "Tan", kinds=ALL, result=to_float)


@unary_grad("tan", saves="outputs")
def _tan_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(1 + y * y)


declare("asin", "Tensor (Tensor input) => Asin", method=True, inplace="asin_", out=True, aliases=("arcsin",), doc="Inverse sine.", tf="Asin")
unary("asin", "Asin", kinds=ALL, result=to_float)


@unary_grad("asin")
def _asin_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(_F().sqrt(1 - x * x))


declare(
    "acos",
    "Tensor (Tensor input) => Acos",
    method=True, inplace="acos_", out=True, aliases=("arccos",),
    doc="Inverse cosine.",
    tf="Acos",
)
unary("acos", "Acos", kinds=ALL, result=to_float)


@unary_grad("acos")
def _acos_grad(ctx, g):
    (x,) = ctx.inputs
    return -g / cj(_F().sqrt(1 - x * x))


declare(
    "atan",
    "Tensor (Tensor input) => Atan",
    method=True, inplace="atan_", out=True, aliases=("arctan",),
    doc="Inverse tangent.",
    tf="Atan",
)
unary("atan", "Atan", kinds=ALL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("atan")
def _atan_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(1 + x * x)


declare("sinh", "Tensor (Tensor input) => Sinh", method=True, inplace="sinh_", out=True, doc="Hyperbolic sine.", tf="Sinh")
unary("sinh", "Sinh", kinds=ALL, result=to_float)


@unary_grad("sinh")
def _sinh_grad(ctx, g):
    (x,) = ctx.inputs
    return g * cj(_F().cosh(x))


declare("cosh", "Tensor (Tensor input) => Cosh", method=True, inplace="cosh_", out=True, doc="Hyperbolic cosine.", tf="Cosh")
unary("cosh", "Cosh", kinds=ALL, result=to_float)


@unary_grad("cosh")
def _cosh_grad(ctx, g):
    (x,) = ctx.inputs
    return g * cj(_F().sinh(x))


declare("tanh", "Tensor (Tensor input) => Tanh", namespaces="nn.functional", method=True, inplace="tanh_", out=True, doc="Hyperbolic tangent.", tf="Tanh")
unary("tanh", "Tanh", kinds=ALL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("tanh", saves="outputs")
def _tanh_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(1 - y * y)


declare(
    "asinh",
    "Tensor (Tensor input) => Asinh",
    method=True, inplace="asinh_", out=True, aliases=("arcsinh",),
    doc="Inverse hyperbolic sine.",
    tf="Asinh",
)
unary("asinh", "Asinh", kinds=ALL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("asinh")
def _asinh_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(_F().sqrt(x * x + 1))


declare(
    "acosh",
    "Tensor (Tensor input) => Acosh",
    method=True, inplace="acosh_", out=True, aliases=("arccosh",),
    doc="Inverse hyperbolic cosine.",
    tf="Acosh",
)
unary("acosh", "Acosh", kinds=ALL, result=to_float)


@unary_grad("acosh")
def _acosh_grad(ctx, g):
    (x,) = ctx.inputs
    F = _F()
    return g / cj(F.sqrt(x - 1) * F.sqrt(x + 1))  # the product, not sqrt(x^2 - 1): right branch for complex x


declare(
    "atanh",
    "Tensor (Tensor input) => Atanh",
    method=True, inplace="atanh_", out=True, aliases=("arctanh",),
    doc="Inverse hyperbolic tangent.",
    tf="Atanh",
)
unary("atanh", "Atanh", kinds=ALL, result=to_float)


@unary_grad("atanh")
def _atanh_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(1 - x * x)


declare(
    "atan2",
    [
        "Tensor (Tensor input, Tensor other) => Atan2",
        "Tensor (Tensor input, Scalar other) => Atan2Scalar",
    ],
    method=True, inplace="atan2_", out=True, op=("atan2", "atan2_scalar"), aliases=("arctan2",),
    doc="The angle of the point (other, input): atan(input / other) in the right quadrant.",
    tf="Atan2",
)
binary("atan2", "Atan2", kinds=REAL, result=to_float)


@binary_grad("atan2")
def _atan2_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    r = g / (a * a + b * b)
    return (r * b if want_a else None), (-r * a if want_b else None)


@binary_scalar_grad("atan2")
def _atan2_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    b = ctx.attrs["other"]
    return g * b / (x * x + b * b)


declare(
    "hypot",
    [
        "Tensor (Tensor input, Tensor other) => Hypot",
        "Tensor (Tensor input, Scalar other) => HypotScalar",
    ],
    method=True, inplace="hypot_", out=True, op=("hypot", "hypot_scalar"),
    doc="sqrt(input**2 + other**2) without overflow (floating point).",
)
binary("hypot", "Hypot", kinds=FLOATING)


@binary_grad("hypot", saves="both")
def _hypot_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    (y,) = ctx.outputs
    r = g / y
    return (r * a if want_a else None), (r * b if want_b else None)


@binary_scalar_grad("hypot", saves="both")
def _hypot_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    (y,) = ctx.outputs
    return g * x / y
