"""Division: true division (integers give the default float dtype), rounded division
(``rounding_mode='trunc'`` or ``'floor'``, which keep integer dtypes), remainder and fmod.

``div`` picks one of three primitive pairs by its rounding mode: ``div``, ``div_trunc`` and
``floor_divide`` (each with its ``*_scalar`` twin). Rounded division refuses two bool operands;
integer division by zero raises in the kernel, as PyTorch's ``ZeroDivisionError``.

>>> (ember.tensor([7, -7]) // 2).tolist(), (ember.tensor([7, -7]) % 3).tolist()
([3, -4], [1, 2])
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import NO_ATTRS, dispatch
from .. import sbp_rules
from ..common import functional as _F, wants_grad
from ..functor import FUNCTORS
from ..schema import schema_family
from .factories import (
    binary,
    binary_grad,
    binary_scalar_grad,
    cj,
    cjs,
    reduce_grad,
    zero_binary_grad,
    zero_binary_scalar_grad,
)
from .kinds import REAL, to_float

declare = schema_family("elementwise")

_no_complex_div = ("bool", "integral", "real floating")


def _check_rounded(op):
    """Rounded division of bools is refused; integer division by zero raises in the kernel."""

    def check(attrs, a, b, promoted):
        if promoted is _dt.bool_:
            raise TypeError(f"{op}(): both operands are bool; cast one to an integer dtype")

    return check


_div_true = binary("div", "DivTrue", result=to_float, functors=False)
_div_true[0].tag(sbp=sbp_rules.div_like)
_div_true[1].tag(sbp=sbp_rules.linear_unary)
_div_true[1].tag(right_identity=1)


@_div_true[0].grad_rule()
def _div_grad(ctx, g):
    a, b = ctx.inputs
    ga = reduce_grad(g / cj(b), ctx, 0) if wants_grad(ctx, 0) else None
    gb = reduce_grad(-g * cj(a / (b * b)), ctx, 1) if wants_grad(ctx, 1) else None
    return ga, gb


@_div_true[1].grad_rule(saves="none")
def _div_scalar_grad(ctx, g):
    return (reduce_grad(g / cjs(ctx.attrs["other"]), ctx, 0),)


# rounded division: zero almost everywhere
_div_trunc = binary("div_trunc", "DivTrunc", kinds=_no_complex_div, check=_check_rounded("div"), public="div", functors=False)
_div_trunc[0].grad_rule(saves="none")(zero_binary_grad)
_div_trunc[1].grad_rule(saves="none")(zero_binary_scalar_grad)

declare(
    "floor_divide",
    [
        "Tensor (Tensor input, Tensor other) => FloorDivide",
        "Tensor (Tensor input, Scalar other) => FloorDivideScalar",
    ],
    method=True,
    inplace="floor_divide_",
    out=True,
    differentiable=False,
    op=("floor_divide", "floor_divide_scalar"),
    operators=("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
    doc="""
    input // other, rounded toward -inf (Python's rule); integer division by zero raises.

    >>> (ember.tensor([7, -7]) // 2).tolist()
    [3, -4]
    """,
    tf="FloorDiv:floordiv",
)
_div_floor = binary("floor_divide", "FloorDivide", kinds=_no_complex_div, check=_check_rounded("floor_divide"))
_div_floor[0].grad_rule(saves="none")(zero_binary_grad)
_div_floor[1].grad_rule(saves="none")(zero_binary_scalar_grad)

_DIV_MODES = {None: _div_true, "trunc": _div_trunc, "floor": _div_floor}


def _div_mode(rounding_mode):
    ops = _DIV_MODES.get(rounding_mode) if type(rounding_mode) in (str, type(None)) else None
    if ops is None:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {rounding_mode!r}")
    return ops


def _div(input, other, rounding_mode=None, out=None):
    op = _div_mode(rounding_mode)[0]
    return dispatch(op, (input, other), NO_ATTRS, None if out is None else (out,))[0]


def _div_scalar(input, other, rounding_mode=None, out=None):
    op = _div_mode(rounding_mode)[1]
    return dispatch(op, (input,), {"other": other}, None if out is None else (out,))[0]


declare(
    "div",
    [
        "Tensor (Tensor input, Tensor other, *, String? rounding_mode=None) => Div",
        "Tensor (Tensor input, Scalar other, *, String? rounding_mode=None) => DivScalar",
    ],
    method=True,
    inplace="div_",
    out=True,
    op=("div", "div_scalar", "div_trunc", "div_trunc_scalar", "floor_divide", "floor_divide_scalar"),
    aliases=("divide", "true_divide"),
    operators=("__truediv__", "__rtruediv__", "__itruediv__"),
    doc="""
    input / other: true division (integers give the default float dtype), or rounded with
    ``rounding_mode='trunc'`` (toward zero) or ``'floor'``, which keep integer dtypes.

    >>> ember.tensor([7, -7]) / 2
    tensor([ 3.5000, -3.5000])
    >>> ember.div(ember.tensor([7, -7]), 2, rounding_mode='trunc').tolist()
    [3, -3]
    """,
    tf={"div": "RealDiv:truediv", "div_scalar": "RealDiv:truediv", "div_trunc": "TruncateDiv", "div_trunc_scalar": "TruncateDiv"},
)
FUNCTORS["Div"] = _div
FUNCTORS["DivScalar"] = _div_scalar

declare(
    "remainder",
    [
        "Tensor (Tensor input, Tensor other) => Remainder",
        "Tensor (Tensor input, Scalar other) => RemainderScalar",
    ],
    method=True,
    inplace="remainder_",
    out=True,
    op=("remainder", "remainder_scalar"),
    operators=("__mod__", "__rmod__", "__imod__"),
    doc="""
    input % other with the sign of other (Python's rule).

    >>> (ember.tensor([-3, 3]) % 2).tolist()
    [1, 1]
    """,
    tf="FloorMod:mod",
)
binary("remainder", "Remainder", kinds=REAL, check=_check_rounded("remainder"))


@binary_grad("remainder")
def _remainder_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (g if want_a else None), (-g * _F().floor(a / b) if want_b else None)


@binary_scalar_grad("remainder", saves="none")
def _remainder_scalar_grad(ctx, g):
    return g


declare(
    "fmod",
    [
        "Tensor (Tensor input, Tensor other) => Fmod",
        "Tensor (Tensor input, Scalar other) => FmodScalar",
    ],
    method=True, inplace="fmod_", out=True, op=("fmod", "fmod_scalar"),
    doc="""
    The C remainder of input / other, with the sign of input.

    >>> ember.fmod(ember.tensor([-3, 3]), 2).tolist()
    [-1, 1]
    """,
    tf="Mod",
)
binary("fmod", "Fmod", kinds=REAL, check=_check_rounded("fmod"))


@binary_grad("fmod")
def _fmod_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (g if want_a else None), (-g * _F().trunc(a / b) if want_b else None)


@binary_scalar_grad("fmod", saves="none")
def _fmod_scalar_grad(ctx, g):
    return g
