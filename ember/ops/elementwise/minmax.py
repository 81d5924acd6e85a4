"""Elementwise extremes: maximum and minimum (NaN propagates), fmax and fmin (NaN ignored
where the other operand is a number), and clamp.

Real dtypes only. The gradient goes to the operand that was picked: half to each on a tie for
maximum/minimum (PyTorch's rule), all to ``input`` on a tie for fmax/fmin.

>>> ember.maximum(ember.tensor([1, 5]), ember.tensor([3, 2])).tolist()
[3, 5]
>>> ember.fmin(ember.tensor([float('nan')]), 1.0).tolist()
[1.0]
"""

from __future__ import annotations

from ..._core import dtype as _dt, literals
from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import functional as _F
from ..functor import FUNCTORS
from ..schema import schema_family
from .factories import binary, binary_grad, binary_scalar_grad, reduce_grad
from .kinds import REAL, check_kinds

declare = schema_family("elementwise")


def _split(g, a, b, greater: bool):
    """maximum/minimum: the gradient goes to the larger (smaller) input, half each on ties; a NaN
    pair (unordered) passes it to both, as PyTorch's formula has it."""
    F = _F()
    pick = ((a < b) if greater else (a > b)).logical_not()
    return F.where(a == b, g * 0.5, g * pick)


declare(
    "maximum",
    [
        "Tensor (Tensor input, Tensor other) => Maximum",
        "Tensor (Tensor input, Scalar other) => MaximumScalar",
    ],
    method=True, out=True, op=("maximum", "maximum_scalar"),
    doc="Elementwise maximum; NaN propagates.",
    tf="Maximum",
)
_maximum, _maximum_scalar = binary("maximum", "Maximum", kinds=REAL)
_maximum.tag(sbp=sbp_rules.maximum_like)
_maximum_scalar.tag(sbp=sbp_rules.monotone_unary)  # maximum_scalar nodes take the name too


@binary_grad("maximum")
def _maximum_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (_split(g, a, b, True) if want_a else None), (_split(g, b, a, True) if want_b else None)


@binary_scalar_grad("maximum")
def _maximum_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    return _split(g, x, ctx.attrs["other"], True)


declare(
    "minimum",
    [
        "Tensor (Tensor input, Tensor other) => Minimum",
        "Tensor (Tensor input, Scalar other) => MinimumScalar",
    ],
    method=True, out=True, op=("minimum", "minimum_scalar"),
    doc="Elementwise minimum; NaN propagates.",
    tf="Minimum",
)
_minimum, _minimum_scalar = binary("minimum", "Minimum", kinds=REAL)
_minimum.tag(sbp=sbp_rules.minimum_like)
_minimum_scalar.tag(sbp=sbp_rules.monotone_unary)


@binary_grad("minimum")
def _minimum_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (_split(g, a, b, False) if want_a else None), (_split(g, b, a, False) if want_b else None)


@binary_scalar_grad("minimum")
def _minimum_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    return _split(g, x, ctx.attrs["other"], False)


def _fpick(a, b, greater: bool):
    """fmax/fmin: where the result is ``a`` (ties go to ``a``, as in PyTorch; NaN ``b`` picks ``a``)."""
    return ((a >= b) if greater else (a <= b)).logical_or(_F().isnan(b))


declare(
    "fmax",
    [
        "Tensor (Tensor input, Tensor other) => Fmax",
        "Tensor (Tensor input, Scalar other) => FmaxScalar",
    ],
    method=True, out=True, op=("fmax", "fmax_scalar"),
    doc="Elementwise maximum, ignoring NaN where the other operand is a number.",
)
binary("fmax", "Fmax", kinds=REAL)


@binary_grad("fmax")
def _fmax_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    pick = _fpick(a, b, True)
    return (g * pick if want_a else None), (g * pick.logical_not() if want_b else None)


@binary_scalar_grad("fmax")
def _fmax_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    c = ctx.attrs["other"]
    return g if c != c else g * (x >= c)  # a NaN scalar: the result is x everywhere


declare(
    "fmin",
    [
        "Tensor (Tensor input, Tensor other) => Fmin",
        "Tensor (Tensor input, Scalar other) => FminScalar",
    ],
    method=True, out=True, op=("fmin", "fmin_scalar"),
    doc="Elementwise minimum, ignoring NaN where the other operand is a number.",
)
binary("fmin", "Fmin", kinds=REAL)


@binary_grad("fmin")
def _fmin_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    pick = _fpick(a, b, False)
    return (g * pick if want_a else None), (g * pick.logical_not() if want_b else None)


@binary_scalar_grad("fmin")
def _fmin_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    c = ctx.attrs["other"]
    return g if c != c else g * (x <= c)


# clamp: scalars are attributes (weak in promotion); tensor bounds go through maximum/minimum.
_clamp_op = OpExpr("clamp", ("x",), ("y",)).tag(sbp=sbp_rules.clamp_like, elementwise=True)


@_clamp_op.shape_rule
def _infer_clamp(attrs, x):
    bounds = [v for v in (attrs["min"], attrs["max"]) if v is not None]
    dtype = _dt.result_type(x._dtype, *bounds)
    check_kinds("clamp", "input", dtype, REAL)
    for v in bounds:
        if isinstance(v, complex):
            raise TypeError("clamp(): min and max must be real numbers, got a complex")
        if (type(v) is int and dtype.kind in "iu") or dtype.kind == "f":
            literals.check_fill_value(v, dtype, "clamp")  # a bound the result dtype cannot hold is refused, not wrapped
    return ((x._shape, dtype),)


def _clamp_scalar(input, min, max, out=None):
    if min is None and max is None:
        raise RuntimeError("clamp(): At least one of 'min' or 'max' must not be None")
    return dispatch(_clamp_op, (input,), {"min": min, "max": max}, None if out is None else (out,))[0]


def _clamp_tensor(input, min, max, out=None):
    if min is None and max is None:
        raise RuntimeError("clamp(): At least one of 'min' or 'max' must not be None")
    if max is None:
        return FUNCTORS["Maximum"](input, min, out)
    if min is None:
        return FUNCTORS["Minimum"](input, max, out)
    # promote all three first, so that the result dtype does not depend on the order
    dtype = _dt.result_type_of((input, min, max), op="clamp")
    check_kinds("clamp", "input", dtype, REAL)
    low = FUNCTORS["Maximum"](input, min, None)
    return FUNCTORS["Minimum"](low, max, out)


declare(
    "clamp",
    [
        "Tensor (Tensor input, Scalar? min=None, Scalar? max=None) => ClampScalar",
        "Tensor (Tensor input, Tensor? min=None, Tensor? max=None) => ClampTensor",
    ],
    method=True, inplace="clamp_", out=True, op=("clamp", "maximum", "minimum"), aliases=("clip",),
    doc="""
    min(max(input, min), max) elementwise; the bounds take part in type promotion.

    >>> ember.clamp(ember.tensor([-2, 0, 5]), min=-1, max=3).tolist()
    [-1, 0, 3]
    """,
)
FUNCTORS["ClampScalar"] = _clamp_scalar
FUNCTORS["ClampTensor"] = _clamp_tensor


@_clamp_op.grad_rule()
def _clamp_grad(ctx, g):
    (x,) = ctx.inputs
    lo, hi = ctx.attrs["min"], ctx.attrs["max"]
    if lo is None:
        keep = x <= hi
    elif hi is None:
        keep = x >= lo
    else:
        keep = (x >= lo).logical_and(x <= hi)
    return (reduce_grad(g * keep, ctx, 0),)
