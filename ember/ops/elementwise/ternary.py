"""Three inputs: where (select by a condition) and lerp (linear interpolation).

``where`` broadcasts all three and promotes the two values, Python scalars being weak; ``lerp``
takes ``input`` and ``end`` of one floating dtype, and a weight that is a tensor of that dtype
or a Python scalar (the ``lerp_scalar`` primitive, the weight an attribute).

>>> ember.where(ember.tensor([True, False]), 1.5, ember.tensor([7, 8])).tolist()
[1.5, 8.0]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.tensor import scalar_for, tensor
from ...dispatch import NO_ATTRS, OpExpr, dispatch
from .. import sbp_rules
from ..common import broadcast_all, broadcast_pair, functional as _F, wants_grad
from ..functor import FUNCTORS
from ..schema import schema_family
from .factories import cj, cjs, reduce_grad
from .kinds import INEXACT, check_kinds

declare = schema_family("elementwise")

_where_op = OpExpr("where", ("condition", "input", "other"), ("out",)).tag(sbp=sbp_rules.where, elementwise=True)


@_where_op.shape_rule
def _infer_where(attrs, c, a, b):
    if c._dtype is not _dt.bool_ and c._dtype is not _dt.uint8:  # uint8 masks: PyTorch's legacy, still accepted
        raise RuntimeError(f"where(): expected condition to be a boolean tensor, but got a tensor with dtype {c._dtype}")
    dtype = _dt.result_type_of((a, b), op="where")
    return ((broadcast_all(c._shape, a._shape, b._shape), dtype),)


def _where(condition, input, other, out=None):
    if not hasattr(input, "_dtype") or not hasattr(other, "_dtype"):
        dtype = _dt.result_type(*(x._dtype if hasattr(x, "_dtype") else x for x in (input, other)))
        device = condition.device
        # PyTorch checks a scalar against float32 but writes it into half precision unchecked (inf past its range)
        checked = _dt.float64 if dtype is _dt.float16 or dtype is _dt.bfloat16 else dtype
        if not hasattr(input, "_dtype"):
            input = tensor(scalar_for(input, checked, "where"), dtype=dtype, device=device)
        if not hasattr(other, "_dtype"):
            other = tensor(scalar_for(other, checked, "where"), dtype=dtype, device=device)
    return dispatch(_where_op, (condition, input, other), NO_ATTRS, None if out is None else (out,))[0]


declare(
    "where",
    [
        "Tensor (Tensor condition, Tensor input, Tensor other) => Where",
        "Tensor (Tensor condition, Tensor input, Scalar other) => Where",
        "Tensor (Tensor condition, Scalar input, Tensor other) => Where",
        "Tensor (Tensor condition, Scalar input, Scalar other) => Where",
    ],
    out=True,
    doc="""
    input where condition is true, other elsewhere, broadcasting; scalars are weak in promotion.

    >>> ember.where(ember.tensor([True, False]), ember.tensor([1, 2]), 0).tolist()
    [1, 0]
    """,
    tf="Select",
)
FUNCTORS["Where"] = _where


@_where_op.grad_rule(saves=("condition",))
def _where_grad(ctx, g):
    c = ctx.inputs[0]
    F = _F()
    ga = reduce_grad(F.where(c, g, 0.0), ctx, 1) if wants_grad(ctx, 1) else None
    gb = reduce_grad(F.where(c, 0.0, g), ctx, 2) if wants_grad(ctx, 2) else None
    return None, ga, gb


_lerp_op = OpExpr("lerp", ("input", "end", "weight"), ("out",)).tag(sbp=sbp_rules.lerp, elementwise=True)
_lerp_scalar_op = OpExpr("lerp_scalar", ("input", "end"), ("out",)).tag(sbp=sbp_rules.lerp, elementwise=True)


def _check_lerp(a, b, weight):
    if b is not a._dtype:
        raise RuntimeError(f"lerp(): expected dtype {a._dtype} for `end` but got dtype {b}")
    check_kinds("lerp", "input", a._dtype, INEXACT)


@_lerp_op.shape_rule
def _infer_lerp(attrs, a, b, w):
    _check_lerp(a, b._dtype, w)
    if w._dtype is not a._dtype and not _dt.is_zero_dim(w):  # a 0-d weight is weak, as a scalar one
        raise RuntimeError(f"lerp(): expected dtype {a._dtype} for `weight` but got dtype {w._dtype}")
    if w._dtype.is_complex and not a._dtype.is_complex:
        raise TypeError("lerp(): a complex weight needs complex input")
    return ((broadcast_all(a._shape, b._shape, w._shape), a._dtype),)


@_lerp_scalar_op.shape_rule
def _infer_lerp_scalar(attrs, a, b):
    _check_lerp(a, b._dtype, attrs["weight"])
    if isinstance(attrs["weight"], complex) and not a._dtype.is_complex:
        raise TypeError("lerp(): a complex weight needs complex input")
    return ((broadcast_pair(a._shape, b._shape), a._dtype),)


def _lerp(input, end, weight, out=None):
    return dispatch(_lerp_op, (input, end, weight), NO_ATTRS, None if out is None else (out,))[0]


def _lerp_scalar(input, end, weight, out=None):
    return dispatch(_lerp_scalar_op, (input, end), {"weight": weight}, None if out is None else (out,))[0]


declare(
    "lerp",
    [
        "Tensor (Tensor input, Tensor end, Tensor weight) => Lerp",
        "Tensor (Tensor input, Tensor end, Scalar weight) => LerpScalar",
    ],
    method=True, inplace="lerp_", out=True, op=("lerp", "lerp_scalar"),
    doc="""
    input + weight * (end - input) (floating point; input and end of one dtype).

    >>> ember.lerp(ember.tensor([0.0, 10.0]), ember.tensor([10.0, 20.0]), 0.25).tolist()
    [2.5, 12.5]
    """,
)
FUNCTORS["Lerp"] = _lerp
FUNCTORS["LerpScalar"] = _lerp_scalar


@_lerp_op.grad_rule()
def _lerp_grad(ctx, g):
    a, e, w = ctx.inputs
    ga = reduce_grad(g * cj(1 - w), ctx, 0) if wants_grad(ctx, 0) else None
    ge = reduce_grad(g * cj(w), ctx, 1) if wants_grad(ctx, 1) else None
    gw = reduce_grad(g * cj(e - a), ctx, 2) if wants_grad(ctx, 2) else None
    return ga, ge, gw


@_lerp_scalar_op.grad_rule(saves="none")
def _lerp_scalar_grad(ctx, g):
    w = cjs(ctx.attrs["weight"])
    ga = reduce_grad(g * (1 - w), ctx, 0) if wants_grad(ctx, 0) else None
    ge = reduce_grad(g * w, ctx, 1) if wants_grad(ctx, 1) else None
    return ga, ge
