"""Bitwise ops: bitwise_not (``~``), and, or, xor on integers and bool; shifts on integers;
and the other integer-only pair, ``gcd`` / ``lcm``.

Shifts past the dtype's width give 0 (or -1 for a right shift of a negative number); none of
these ops is differentiable.

>>> (ember.tensor([6]) & 3).tolist(), (ember.tensor([True]) ^ ember.tensor([True])).tolist()
([2], [False])
"""

from __future__ import annotations

from ..schema import schema_family
from .factories import binary, unary
from .kinds import BITS, INTEGER

declare = schema_family("elementwise")

declare(
    "bitwise_not",
    "Tensor (Tensor input) => BitwiseNot",
    method=True, inplace="bitwise_not_", out=True, differentiable=False, aliases=("bitwise_invert",), operators=("__invert__",),
    doc="""
    Bitwise NOT of an integer or bool tensor (``~``).

    >>> (~ember.tensor([True, False])).tolist(), ember.bitwise_not(ember.tensor([0, 5])).tolist()
    ([False, True], [-1, -6])
    """,
    tf="Invert",
)
unary("bitwise_not", "BitwiseNot", kinds=BITS)
declare(
    "bitwise_and",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseAnd",
        "Tensor (Tensor input, Scalar other) => BitwiseAndScalar",
    ],
    method=True,
    inplace="bitwise_and_",
    out=True,
    differentiable=False,
    op=("bitwise_and", "bitwise_and_scalar"),
    operators=("__and__", "__rand__", "__iand__"),
    doc="Bitwise AND of integer or bool tensors.",
    tf="BitwiseAnd",
)
binary("bitwise_and", "BitwiseAnd", kinds=BITS)
declare(
    "bitwise_or",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseOr",
        "Tensor (Tensor input, Scalar other) => BitwiseOrScalar",
    ],
    method=True,
    inplace="bitwise_or_",
    out=True,
    differentiable=False,
    op=("bitwise_or", "bitwise_or_scalar"),
    operators=("__or__", "__ror__", "__ior__"),
    doc="Bitwise OR of integer or bool tensors.",
    tf="BitwiseOr",
)
binary("bitwise_or", "BitwiseOr", kinds=BITS)
declare(
    "bitwise_xor",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseXor",
        "Tensor (Tensor input, Scalar other) => BitwiseXorScalar",
    ],
    method=True,
    inplace="bitwise_xor_",
    out=True,
    differentiable=False,
    op=("bitwise_xor", "bitwise_xor_scalar"),
    operators=("__xor__", "__rxor__", "__ixor__"),
    doc="Bitwise XOR of integer or bool tensors.",
    tf="BitwiseXor",
)
binary("bitwise_xor", "BitwiseXor", kinds=BITS)
declare(
    "bitwise_left_shift",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseLeftShift",
        "Tensor (Tensor input, Scalar other) => BitwiseLeftShiftScalar",
    ],
    method=True,
    inplace="bitwise_left_shift_",
    out=True,
    differentiable=False,
    op=("bitwise_left_shift", "bitwise_left_shift_scalar"),
    operators=("__lshift__", "__rlshift__", "__ilshift__"),
    doc="""
    input << other for integer tensors (shifts past the width give 0).

    >>> (ember.tensor([1, 3]) << 2).tolist()
    [4, 12]
    """,
)
binary("bitwise_left_shift", "BitwiseLeftShift", kinds=INTEGER)
declare(
    "bitwise_right_shift",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseRightShift",
        "Tensor (Tensor input, Scalar other) => BitwiseRightShiftScalar",
    ],
    method=True,
    inplace="bitwise_right_shift_",
    out=True,
    differentiable=False,
    op=("bitwise_right_shift", "bitwise_right_shift_scalar"),
    operators=("__rshift__", "__rrshift__", "__irshift__"),
    doc="input >> other for integer tensors (arithmetic shift for signed dtypes).",
)
binary("bitwise_right_shift", "BitwiseRightShift", kinds=INTEGER)


declare(
    "gcd",
    "Tensor (Tensor input, Tensor other) => Gcd",
    method=True, inplace="gcd_", out=True, differentiable=False, op=("gcd", "gcd_scalar"),
    doc="""
    The greatest common divisor of integers, elementwise (non-negative; gcd(0, 0) = 0).

    >>> ember.gcd(ember.tensor([12, -4, 0]), ember.tensor([18, 6, 0])).tolist()
    [6, 2, 0]
    """,
)
binary("gcd", "Gcd", kinds=INTEGER)
declare(
    "lcm",
    "Tensor (Tensor input, Tensor other) => Lcm",
    method=True, inplace="lcm_", out=True, differentiable=False, op=("lcm", "lcm_scalar"),
    doc="""
    The least common multiple of integers, elementwise (non-negative; 0 when either is 0).

    >>> ember.lcm(ember.tensor([4, -4, 0]), ember.tensor([6, 6, 5])).tolist()
    [12, 12, 0]
    """,
)
binary("lcm", "Lcm", kinds=INTEGER)
