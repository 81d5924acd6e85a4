"""Parts of complex numbers: real, imag (views), conj, conj_physical, angle.

The real (imaginary) parts of a complex tensor are every other element of its memory
reinterpreted as the real dtype, so ``real`` and ``imag`` are views that write through. Real
input: ``real`` and ``conj`` return it as it is, ``imag`` is refused.

>>> z = ember.tensor([1 + 2j])
>>> z.imag.mul_(10)
tensor([20.])
>>> z.tolist(), ember.conj(z).tolist()
([(1+20j)], [(1-20j)])
"""

from __future__ import annotations

from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import functional as _F
from ..functor import FUNCTORS
from ..schema import schema_family
from .factories import UNARY_OPS, cj, unary, unary_grad, zeros_grad
from .kinds import ALL, to_real_float

declare = schema_family("elementwise")

_real_op = OpExpr("real", ("x",), ("y",)).tag(sbp=sbp_rules.linear_unary)
_imag_op = OpExpr("imag", ("x",), ("y",)).tag(sbp=sbp_rules.linear_unary)


def _part_view(x, part: int):
    return x._view(x._shape, tuple(2 * s for s in x._stride), 2 * x._offset + part, x._dtype.to_real())


@_real_op.view_rule
def _real_view(attrs, x):
    return (_part_view(x, 0),)


def _real(input):
    if not input._dtype.is_complex:
        return input
    return dispatch(_real_op, (input,))[0]


declare(
    "real",
    "Tensor (Tensor input) => Real",
    method="property",
    doc="""
    The real part, a view (real input is returned as is).

    >>> ember.tensor([1 + 2j]).real.tolist()
    [1.0]
    """,
    tf="Real",
)
FUNCTORS["Real"] = _real


@_real_op.grad_rule(saves="none")
def _real_grad(ctx, g):
    return (g.to(ctx.input_meta[0][1]),)


@_imag_op.view_rule
def _imag_view(attrs, x):
    return (_part_view(x, 1),)


def _imag(input):
    if not input._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return dispatch(_imag_op, (input,))[0]


declare("imag", "Tensor (Tensor input) => Imag", method="property", doc="The imaginary part of a complex tensor, a view.", tf="Imag")
FUNCTORS["Imag"] = _imag


@_imag_op.grad_rule(saves="none")
def _imag_grad(ctx, g):
    return ((g * 1j).to(ctx.input_meta[0][1]),)


declare(
    "conj_physical",
    "Tensor (Tensor input) => ConjPhysical",
    method=True, inplace="conj_physical_", out=True,
    doc="The complex conjugate, computed into new memory (real input: a copy).",
)
unary("conj_physical", "ConjPhysical", kinds=ALL).tag(sbp=sbp_rules.linear_unary)


@unary_grad("conj_physical", saves="none")
def _conj_physical_grad(ctx, g):
    return cj(g)


def _conj(input):
    if not input._dtype.is_complex:
        return input
    return dispatch(UNARY_OPS["conj_physical"], (input,))[0]


declare(
    "conj",
    "Tensor (Tensor input) => Conj",
    method=True, op="conj_physical",
    doc="The complex conjugate; real input is returned as is.",
    tf="Conj",
)
FUNCTORS["Conj"] = _conj

declare(
    "angle",
    "Tensor (Tensor input) => Angle",
    method=True, out=True,
    doc="The argument of a complex number; for real input 0 or pi (NaN stays NaN).",
    tf="Angle",
)
unary("angle", "Angle", kinds=ALL, result=to_real_float)


@unary_grad("angle")
def _angle_grad(ctx, g):
    (x,) = ctx.inputs
    if not x._dtype.is_complex:
        return zeros_grad(ctx, 0)
    F = _F()
    a2 = (x * x.conj()).real
    return F.where(x == 0, 0.0, g * x / a2 * 1j)
