"""Exponentials and logarithms: exp, exp2, expm1, log, log2, log10, log1p, logaddexp.

Integers and bool give the default float dtype. Each derivative sits under its op; the
exponentials save their output (``d exp(x) = exp(x)``), the logarithms their input.

>>> ember.exp(ember.tensor([0, 1])).dtype, ember.log1p(ember.tensor([0.0])).tolist()
(ember.float32, [0.0])
"""

from __future__ import annotations

from .. import sbp_rules
from ..common import functional as _F
from ..schema import schema_family
from .factories import binary, binary_grad, binary_scalar_grad, cj, unary, unary_grad
from .kinds import ALL, INEXACT, to_float

declare = schema_family("elementwise")

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046

declare(
    "exp",
    "Tensor (Tensor input) => Exp",
    method=True, inplace="exp_", out=True,
    doc="e to the power of input; integers give the default float dtype.",
    tf="Exp",
)
unary("exp", "Exp", kinds=ALL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("exp", saves="outputs")
def _exp_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(y)


declare("exp2", "Tensor (Tensor input) => Exp2", namespaces="special", method=True, inplace="exp2_", out=True, doc="2 to the power of input.")
unary("exp2", "Exp2", kinds=ALL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("exp2", saves="outputs")
def _exp2_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(y * _LN2)


declare(
    "expm1",
    "Tensor (Tensor input) => Expm1",
    namespaces="special",
    method=True, inplace="expm1_", out=True,
    doc="exp(input) - 1, accurate near 0.",
    tf="Expm1",
)
unary("expm1", "Expm1", kinds=ALL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("expm1", saves="outputs")
def _expm1_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(y + 1)


declare("log", "Tensor (Tensor input) => Log", method=True, inplace="log_", out=True, doc="Natural logarithm.", tf="Log")
unary("log", "Log", kinds=ALL, result=to_float)


@unary_grad("log")
def _log_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(x)


declare("log2", "Tensor (Tensor input) => Log2", method=True, inplace="log2_", out=True, doc="Base-2 logarithm.")
unary("log2", "Log2", kinds=ALL, result=to_float)


@unary_grad("log2")
def _log2_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(x * _LN2)


declare("log10", "Tensor (Tensor input) => Log10", method=True, inplace="log10_", out=True, doc="Base-10 logarithm.")
unary("log10", "Log10", kinds=ALL, result=to_float)


@unary_grad("log10")
def _log10_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(x * _LN10)


declare(
    "log1p",
    "Tensor (Tensor input) => Log1p",
    namespaces="special",
    method=True, inplace="log1p_", out=True,
    doc="log(1 + input), accurate near 0.",
    tf="Log1p",
)
unary("log1p", "Log1p", kinds=ALL, result=to_float)


@unary_grad("log1p")
def _log1p_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(x + 1)


declare(
    "logaddexp",
    [
        "Tensor (Tensor input, Tensor other) => Logaddexp",
        "Tensor (Tensor input, Scalar other) => LogaddexpScalar",
    ],
    method=True, out=True, op=("logaddexp", "logaddexp_scalar"),
    doc="log(exp(input) + exp(other)) without overflow (floating point).",
)
binary("logaddexp", "Logaddexp", kinds=INEXACT)


@binary_grad("logaddexp")
def _logaddexp_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    F = _F()
    ga = g / cj(1 + F.exp(b - a)) if want_a else None
    gb = g / cj(1 + F.exp(a - b)) if want_b else None
    return ga, gb


@binary_scalar_grad("logaddexp")
def _logaddexp_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    return g / cj(1 + _F().exp(ctx.attrs["other"] - x))
