"""Arithmetic: add and sub (with ``alpha``), mul, neg, positive.

``add``/``sub`` without ``alpha`` are plain binary primitives (the hot path of every model);
``input + alpha * other`` is one more primitive, ``add_alpha``, which ``sub`` reaches with
``-alpha``. bool takes no part in subtraction or negation, as in PyTorch.

>>> ember.sub(ember.tensor([5, 5]), ember.tensor([1, 2]), alpha=2).tolist(), (-ember.tensor([1.5])).tolist()
([3, 1], [-1.5])
"""

from __future__ import annotations

from collections.abc import Callable

from ..._core import dtype as _dt, literals
from ...dispatch import NO_ATTRS, OpExpr, dispatch
from .. import sbp_rules
from ..common import broadcast_pair, wants_grad
from ..functor import FUNCTORS
from ..schema import schema_family
from .factories import binary, cj, cjs, reduce_grad, unary
from .kinds import ALL, check_pair

declare = schema_family("elementwise")

_ONE = 1  # ``alpha is _ONE``: CPython shares the small ints, so a default alpha costs one identity test


def _is_bool(x) -> bool:
    return x is _dt.bool_ or type(x) is bool


def _check_alpha(attrs, promoted):
    """PyTorch's rules for ``alpha`` in add/sub."""
    alpha = attrs.get("alpha", 1)
    if type(alpha) is bool and promoted is not _dt.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not (promoted.is_floating_point or promoted.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, complex) and not promoted.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _check_alpha_value(alpha, promoted, op: str) -> None:
    """``alpha`` must fit the result dtype: an integer an integral one, any number a float one
    (PyTorch converts it, checked)."""
    if type(alpha) is float and -65504.0 <= alpha <= 65504.0:
        return  # fits every float dtype, float16 too: an optimizer step's learning rate costs one comparison
    if (type(alpha) is int and promoted.kind in "iu") or (promoted.kind == "f" and not isinstance(alpha, complex)):
        literals.check_fill_value(alpha, promoted, op)


def _scaled_scalar(input, other, alpha, op: str):
    """``alpha * other`` for a scalar ``other``, as PyTorch computes it in the result dtype."""
    promoted = _dt.result_type(input._dtype, other)
    _check_alpha({"alpha": alpha}, promoted)
    _check_alpha_value(alpha, promoted, op)
    if promoted is _dt.bool_:
        return bool(other) and bool(alpha)
    return other * alpha


_add_alpha = OpExpr("add_alpha", ("input", "other"), ("out",)).tag(sbp=sbp_rules.add_alpha, elementwise=True)  # input + alpha * other


@_add_alpha.shape_rule
def _infer_add_alpha(attrs, a, b):
    dtype = _dt.result_type_of((a, b), op="add")
    check_pair("add", a._dtype, b._dtype, dtype, ALL)
    _check_alpha(attrs, dtype)
    return ((broadcast_pair(a._shape, b._shape), dtype),)


_add_alpha.attr_key = lambda attrs: type(attrs["alpha"])  # the rule reads alpha's type, never its value


@_add_alpha.grad_rule(saves="none")
def _add_alpha_grad(ctx, g):
    return reduce_grad(g, ctx, 0), reduce_grad(g * cjs(ctx.attrs["alpha"]), ctx, 1) if wants_grad(ctx, 1) else None


declare(
    "add",
    [
        "Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Add",
        "Tensor (Tensor input, Scalar other, *, Scalar alpha=1) => AddScalar",
    ],
    method=True, inplace="add_", out=True, op=("add", "add_scalar", "add_alpha"), operators=("__add__", "__radd__", "__iadd__"),
    doc="""
    input + alpha * other, broadcasting, with type promotion (Python scalars are weak).

    >>> (ember.tensor([1, 2]) + 1.5).tolist()
    [2.5, 3.5]
    >>> ember.add(ember.tensor([1, 2]), ember.tensor([10, 20]), alpha=2).tolist()
    [21, 42]
    """,
    tf={"add": "AddV2:add", "add_scalar": "AddV2:add"},
)
_add, _add_scalar = binary("add", "Add", functors=False)
_add.tag(sbp=sbp_rules.add_like)
_add_scalar.tag(right_identity=0, sbp=sbp_rules.shift_unary)  # x + 0 is x


def _add_functor(input, other, alpha=1, out=None):
    if alpha is _ONE:
        if out is None:
            return dispatch(_add, (input, other))[0]
        return dispatch(_add, (input, other), NO_ATTRS, (out,))[0]
    _check_alpha_value(alpha, _dt.promote_types(input._dtype, other._dtype), "add")
    return dispatch(_add_alpha, (input, other), {"alpha": alpha}, None if out is None else (out,))[0]


def _add_scalar_functor(input, other, alpha=1, out=None):
    if alpha is not _ONE:
        other = _scaled_scalar(input, other, alpha, "add")
    return dispatch(_add_scalar, (input,), {"other": other}, None if out is None else (out,))[0]


FUNCTORS["Add"] = _add_functor
FUNCTORS["AddScalar"] = _add_scalar_functor


@_add.grad_rule(saves="none")
def _add_grad(ctx, g):
    return reduce_grad(g, ctx, 0), reduce_grad(g, ctx, 1)


@_add_scalar.grad_rule(saves="none")
def _add_scalar_grad(ctx, g):
    return (reduce_grad(g, ctx, 0),)


def _check_sub(attrs, a, b, promoted):
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


declare(
    "sub",
    [
        "Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Sub",
        "Tensor (Tensor input, Scalar other, *, Scalar alpha=1) => SubScalar",
    ],
    method=True,
    inplace="sub_",
    out=True,
    op=("sub", "sub_scalar", "add_alpha"),
    aliases=("subtract",),
    operators=("__sub__", "__rsub__", "__isub__"),
    doc="""
    input - alpha * other, broadcasting, with type promotion (not for bool).

    >>> (2 - ember.tensor([1, 5])).tolist()
    [1, -3]
    """,
    tf={"sub": "Sub:sub", "sub_scalar": "Sub:sub"},
)
_sub, _sub_scalar = binary("sub", "Sub", check=_check_sub, functors=False)
_sub.tag(sbp=sbp_rules.sub_like)
_sub_scalar.tag(right_identity=0, sbp=sbp_rules.shift_unary)  # x - c


def _sub_functor(input, other, alpha=1, out=None):
    if alpha is _ONE:
        if out is None:
            return dispatch(_sub, (input, other))[0]
        return dispatch(_sub, (input, other), NO_ATTRS, (out,))[0]
    _check_sub(NO_ATTRS, input._dtype, other._dtype, None)
    promoted = _dt.result_type_of((input, other), op="sub")
    _check_alpha({"alpha": alpha}, promoted)
    _check_alpha_value(alpha, promoted, "sub")
    return dispatch(_add_alpha, (input, other), {"alpha": -alpha}, None if out is None else (out,))[0]


def _sub_scalar_functor(input, other, alpha=1, out=None):
    if alpha is not _ONE:
        _check_sub(NO_ATTRS, input._dtype, other, None)
        other = _scaled_scalar(input, other, alpha, "sub")
    return dispatch(_sub_scalar, (input,), {"other": other}, None if out is None else (out,))[0]


FUNCTORS["Sub"] = _sub_functor
FUNCTORS["SubScalar"] = _sub_scalar_functor


@_sub.grad_rule(saves="none")
def _sub_grad(ctx, g):
    return reduce_grad(g, ctx, 0), reduce_grad(-g, ctx, 1) if wants_grad(ctx, 1) else None


@_sub_scalar.grad_rule(saves="none")
def _sub_scalar_grad(ctx, g):
    return (reduce_grad(g, ctx, 0),)


declare(
    "mul",
    [
        "Tensor (Tensor input, Tensor other) => Mul",
        "Tensor (Tensor input, Scalar other) => MulScalar",
    ],
    method=True,
    inplace="mul_",
    out=True,
    op=("mul", "mul_scalar"),
    aliases=("multiply",),
    operators=("__mul__", "__rmul__", "__imul__"),
    doc="input * other, broadcasting, with type promotion.",
    tf="Mul:mul",
)
_mul, _mul_scalar = binary("mul", "Mul")
_mul.tag(sbp=sbp_rules.mul_like)
_mul_scalar.tag(sbp=sbp_rules.linear_unary)
_mul_scalar.tag(right_identity=1)


@_mul.grad_rule()
def _mul_grad(ctx, g):
    a, b = ctx.inputs
    ga = reduce_grad(g * cj(b), ctx, 0) if wants_grad(ctx, 0) else None
    gb = reduce_grad(g * cj(a), ctx, 1) if wants_grad(ctx, 1) else None
    return ga, gb


@_mul_scalar.grad_rule(saves="none")
def _mul_scalar_grad(ctx, g):
    return (reduce_grad(g * cjs(ctx.attrs["other"]), ctx, 0),)


def _no_bool(message: str) -> Callable:
    def check(attrs, dtype):
        if dtype is _dt.bool_:
            raise RuntimeError(message)

    return check


declare(
    "neg",
    "Tensor (Tensor input) => Neg",
    method=True, inplace="neg_", out=True, aliases=("negative",), operators=("__neg__",),
    doc="""
    -input, elementwise (not for bool: use ``~`` or ``logical_not``).

    >>> ember.neg(ember.tensor([1, -2])).tolist()
    [-1, 2]
    """,
    tf="Neg",
)
_neg = unary(
    "neg",
    "Neg",
    kinds=ALL,
    check=_no_bool(
        "Negation, the `-` operator, on a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    ),
).tag(sbp=sbp_rules.negate)


@_neg.grad_rule(saves="none")
def _neg_grad(ctx, g):
    return (-g,)


def _positive(input):
    if input._dtype is _dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


declare(
    "positive",
    "Tensor (Tensor input) => Positive",
    method=True, composite=True, operators=("__pos__",),
    doc="+input: returns input itself (not for bool).",
)
FUNCTORS["Positive"] = _positive
