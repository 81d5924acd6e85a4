"""Powers and roots: sqrt, rsqrt, square, reciprocal, pow.

``sqrt``, ``rsqrt`` and ``reciprocal`` of integers give the default float dtype; ``square``
of bool gives int64 (PyTorch's ``pow(bool, 2)``); ``pow`` promotes its operands, a Python
scalar base or exponent being weak, and refuses integers to negative integer powers.

>>> (ember.tensor([2, 3]) ** 2).tolist(), ember.rsqrt(ember.tensor([4.0])).tolist()
([4, 9], [0.5])
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.tensor import tensor
from ...dispatch import NO_ATTRS, dispatch
from ..common import functional as _F
from ..functor import FUNCTORS
from ..schema import schema_family
from .factories import binary, binary_grad, binary_scalar_grad, cj, unary, unary_grad, zeros_grad
from .kinds import ALL, bool_to_long, to_float

declare = schema_family("elementwise")

declare(
    "sqrt",
    "Tensor (Tensor input) => Sqrt",
    method=True, inplace="sqrt_", out=True,
    doc="""
    Square root; integers give the default float dtype.

    >>> ember.sqrt(ember.tensor([4, 9])).tolist()
    [2.0, 3.0]
    """,
    tf="Sqrt",
)
unary("sqrt", "Sqrt", kinds=ALL, result=to_float)


@unary_grad("sqrt", saves="outputs")
def _sqrt_grad(ctx, g):
    (y,) = ctx.outputs
    return g / cj(2 * y)


declare("rsqrt", "Tensor (Tensor input) => Rsqrt", method=True, inplace="rsqrt_", out=True, doc="1 / sqrt(input).", tf="Rsqrt")
unary("rsqrt", "Rsqrt", kinds=ALL, result=to_float)


@unary_grad("rsqrt", saves="outputs")
def _rsqrt_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(-0.5 * y * y * y)


declare(
    "square",
    "Tensor (Tensor input) => Square",
    method=True, inplace="square_", out=True,
    doc="input * input (bool gives int64, as PyTorch's ``pow(bool, 2)``).",
    tf="Square",
)
unary("square", "Square", kinds=ALL, result=bool_to_long)


@unary_grad("square")
def _square_grad(ctx, g):
    (x,) = ctx.inputs
    return g * cj(2 * x)


declare(
    "reciprocal",
    "Tensor (Tensor input) => Reciprocal",
    method=True, inplace="reciprocal_", out=True,
    doc="1 / input; integers give the default float dtype.",
    tf="Reciprocal",
)
unary("reciprocal", "Reciprocal", kinds=ALL, result=to_float)


@unary_grad("reciprocal", saves="outputs")
def _reciprocal_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(-(y * y))


def _check_pow(attrs, a, b, promoted):
    if type(b) is int and promoted.kind in "iu":
        if b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if b > _dt.iinfo(promoted).max:
            raise RuntimeError(f"pow(): exponent {b} cannot be converted to type {promoted.name} without overflow")


def _check_pow_tensor(attrs, a, b, promoted):
    if promoted is _dt.bool_ and type(b) is _dt.DType:  # bool ** True is allowed, as in PyTorch
        raise TypeError("pow(): a bool tensor to the power of a bool tensor is not supported; cast one to an integer dtype")
    _check_pow(attrs, a, b, promoted)


declare(
    "pow",
    [
        "Tensor (Tensor input, Tensor exponent) => Pow",
        "Tensor (Tensor input, Scalar exponent) => PowScalar",
        "Tensor (Scalar input, Tensor exponent) => PowScalarBase",
    ],
    method=True, inplace="pow_", out=True, op=("pow", "pow_scalar"), operators=("__pow__", "__rpow__", "__ipow__"),
    doc="""
    input ** exponent, broadcasting, with type promotion (a scalar base or exponent is weak).

    >>> (2 ** ember.tensor([1, 2, 3])).tolist(), (ember.tensor([1.5]) ** 2).tolist()
    ([2, 4, 8], [2.25])
    """,
    tf="Pow:pow",
)
_pow = binary("pow", "Pow", kinds=ALL, check=_check_pow_tensor)
_pow[1].tag(right_identity=1)  # x ** 1 is x


def _pow_scalar_base(input, exponent, out=None):
    """``pow(2, t)``: the scalar base is weak, as in ``2 ** t``."""
    base = tensor(input, dtype=_dt.result_type(exponent._dtype, input), device=exponent.device)
    return dispatch(_pow[0], (base, exponent), NO_ATTRS, None if out is None else (out,))[0]


FUNCTORS["PowScalarBase"] = _pow_scalar_base


def _pow_self(g, x, p):
    """g * conj(p x^(p-1)), zero where p == 0 (also at x == 0)."""
    F = _F()
    d = g * cj(p * F.pow(x, p - 1))
    return F.where(p == 0, 0.0, d) if not isinstance(p, (int, float, complex)) else d


@binary_grad("pow", saves="both")
def _pow_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    (y,) = ctx.outputs
    F = _F()
    ga = _pow_self(g, a, b) if want_a else None
    gb = None
    if want_b:
        d = g * cj(y * F.log(a))
        gb = F.where((a == 0).logical_and(b.real >= 0 if b._dtype.is_complex else b >= 0), 0.0, d)
    return ga, gb


@binary_scalar_grad("pow")
def _pow_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    p = ctx.attrs["other"]
    if p == 0:
        return zeros_grad(ctx, 0)
    return _pow_self(g, x, p)
