"""Comparisons: eq, ne, lt, le, gt, ge (bool tensors), isclose, and the whole-tensor answers
allclose and equal (Python bools).

Comparisons are not differentiable. ``eq`` and ``ne`` also compare string tensors (with
string tensors; a Python ``str`` or ``bytes`` operand of ``==`` is a 0-d one), as TensorFlow's
``equal`` does; the ordering ones refuse strings and complex input; an int scalar
next to an integer tensor is first wrapped into its dtype, as PyTorch does (``uint8_t < -3``
compares with 253).

>>> (ember.tensor([1, 2, 3]) >= 2).tolist(), ember.equal(ember.tensor([1]), ember.tensor([1.0]))
([False, True, True], True)
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..common import broadcast_pair
from ..functor import FUNCTORS
from ..schema import schema_family
from .factories import binary
from .kinds import ALL, EQUALITY, REAL, check_kinds, to_bool

declare = schema_family("elementwise")

declare(
    "eq",
    [
        "Tensor (Tensor input, Tensor other) => Eq",
        "Tensor (Tensor input, Scalar other) => EqScalar",
    ],
    method=True,
    inplace="eq_",
    out=True,
    differentiable=False,
    op=("eq", "eq_scalar"),
    aliases=("equal_elementwise",),
    operators=("__eq__",),
    doc="""
    input == other, elementwise, as a bool tensor.

    >>> (ember.tensor([1, 2]) == 2).tolist()
    [False, True]
    """,
    tf="Equal",
)
_eq = binary("eq", "Eq", kinds=EQUALITY, result=to_bool)
declare(
    "ne",
    [
        "Tensor (Tensor input, Tensor other) => Ne",
        "Tensor (Tensor input, Scalar other) => NeScalar",
    ],
    method=True,
    inplace="ne_",
    out=True,
    differentiable=False,
    op=("ne", "ne_scalar"),
    aliases=("not_equal",),
    operators=("__ne__",),
    doc="input != other, elementwise, as a bool tensor.",
    tf="NotEqual",
)
binary("ne", "Ne", kinds=EQUALITY, result=to_bool)
declare(
    "lt",
    [
        "Tensor (Tensor input, Tensor other) => Lt",
        "Tensor (Tensor input, Scalar other) => LtScalar",
    ],
    method=True, inplace="lt_", out=True, differentiable=False, op=("lt", "lt_scalar"), aliases=("less",), operators=("__lt__",),
    doc="input < other, elementwise, as a bool tensor.",
    tf="Less",
)
binary("lt", "Lt", kinds=REAL, result=to_bool)
declare(
    "le",
    [
        "Tensor (Tensor input, Tensor other) => Le",
        "Tensor (Tensor input, Scalar other) => LeScalar",
    ],
    method=True,
    inplace="le_",
    out=True,
    differentiable=False,
    op=("le", "le_scalar"),
    aliases=("less_equal",),
    operators=("__le__",),
    doc="input <= other, elementwise, as a bool tensor.",
    tf="LessEqual",
)
binary("le", "Le", kinds=REAL, result=to_bool)
declare(
    "gt",
    [
        "Tensor (Tensor input, Tensor other) => Gt",
        "Tensor (Tensor input, Scalar other) => GtScalar",
    ],
    method=True,
    inplace="gt_",
    out=True,
    differentiable=False,
    op=("gt", "gt_scalar"),
    aliases=("greater",),
    operators=("__gt__",),
    doc="input > other, elementwise, as a bool tensor.",
    tf="Greater",
)
binary("gt", "Gt", kinds=REAL, result=to_bool)
declare(
    "ge",
    [
        "Tensor (Tensor input, Tensor other) => Ge",
        "Tensor (Tensor input, Scalar other) => GeScalar",
    ],
    method=True,
    inplace="ge_",
    out=True,
    differentiable=False,
    op=("ge", "ge_scalar"),
    aliases=("greater_equal",),
    operators=("__ge__",),
    doc="input >= other, elementwise, as a bool tensor.",
    tf="GreaterEqual",
)
binary("ge", "Ge", kinds=REAL, result=to_bool)

_isclose_op = OpExpr("isclose", ("input", "other"), ("out",))


@_isclose_op.shape_rule
def _infer_isclose(attrs, a, b):
    if a._dtype is not b._dtype:
        raise RuntimeError(f"isclose(): {a._dtype} did not match {b._dtype} (both tensors need the same dtype)")
    check_kinds("isclose", "input", a._dtype, ALL)
    if not attrs["rtol"] >= 0:  # nan included
        raise RuntimeError(f"isclose(): rtol must be greater than or equal to zero, but got {attrs['rtol']}")
    if not attrs["atol"] >= 0:
        raise RuntimeError(f"isclose(): atol must be greater than or equal to zero, but got {attrs['atol']}")
    return ((broadcast_pair(a._shape, b._shape), _dt.bool_),)


def _isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return dispatch(_isclose_op, (input, other), {"rtol": rtol, "atol": atol, "equal_nan": equal_nan})[0]


declare(
    "isclose",
    "Tensor (Tensor input, Tensor other, Float rtol=1e-05, Float atol=1e-08, Bool equal_nan=False) => Isclose",
    method=True, differentiable=False,
    doc="|input - other| <= atol + rtol * |other|, elementwise (equal infinities are close).",
)
FUNCTORS["Isclose"] = _isclose


def _all_true(t) -> bool:
    if t.is_meta:
        raise RuntimeError("cannot decide on meta tensors: they hold shape and dtype only, no values")
    return bool(t._host_array().all())


def _allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _all_true(_isclose(input, other, rtol, atol, equal_nan))


declare(
    "allclose",
    "Bool (Tensor input, Tensor other, Float rtol=1e-05, Float atol=1e-08, Bool equal_nan=False) => Allclose",
    method=True, differentiable=False, op="isclose",
    doc="""
    Whether ``isclose`` holds everywhere (a Python bool).

    >>> ember.allclose(ember.tensor([1.0]), ember.tensor([1.0 + 1e-9]))
    True
    """,
)
FUNCTORS["Allclose"] = _allclose


def _equal(input, other):
    if input._shape != other._shape:
        return False
    return _all_true(dispatch(_eq[0], (input, other))[0])


declare(
    "equal",
    "Bool (Tensor input, Tensor other) => Equal",
    method=True, differentiable=False, op="eq",
    doc="""
    PyTorch's ``equal``: True iff both have the same shape and the same values (a Python bool;
    the array API's elementwise ``equal`` is ``eq``).

    >>> ember.equal(ember.tensor([1, 2]), ember.tensor([1, 2]))
    True
    """,
)
FUNCTORS["Equal"] = _equal
