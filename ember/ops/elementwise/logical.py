"""Logic on truth values: logical_not, logical_and, logical_or, logical_xor.

Any dtype is read as a truth value (nonzero is true) and the result is a bool tensor; none
of them is differentiable.

>>> ember.logical_xor(ember.tensor([0, 2, 0]), ember.tensor([0.0, 0.0, 1.5])).tolist()
[False, True, True]
"""

from __future__ import annotations

from ..schema import schema_family
from .factories import binary, unary
from .kinds import ALL, to_bool

declare = schema_family("elementwise")

declare(
    "logical_not",
    "Tensor (Tensor input) => LogicalNot",
    method=True, inplace="logical_not_", out=True, differentiable=False,
    doc="``not input`` elementwise, as a bool tensor (nonzero is true).",
    tf="LogicalNot",
)
unary("logical_not", "LogicalNot", kinds=ALL, result=to_bool)
declare(
    "logical_and",
    [
        "Tensor (Tensor input, Tensor other) => LogicalAnd",
        "Tensor (Tensor input, Scalar other) => LogicalAndScalar",
    ],
    method=True, inplace="logical_and_", out=True, differentiable=False, op=("logical_and", "logical_and_scalar"),
    doc="Logical and of the truth values (nonzero is true), as a bool tensor.",
    tf="LogicalAnd",
)
binary("logical_and", "LogicalAnd", kinds=ALL, result=to_bool)
declare(
    "logical_or",
    [
        "Tensor (Tensor input, Tensor other) => LogicalOr",
        "Tensor (Tensor input, Scalar other) => LogicalOrScalar",
    ],
    method=True, inplace="logical_or_", out=True, differentiable=False, op=("logical_or", "logical_or_scalar"),
    doc="Logical or of the truth values (nonzero is true), as a bool tensor.",
    tf="LogicalOr",
)
binary("logical_or", "LogicalOr", kinds=ALL, result=to_bool)
declare(
    "logical_xor",
    [
        "Tensor (Tensor input, Tensor other) => LogicalXor",
        "Tensor (Tensor input, Scalar other) => LogicalXorScalar",
    ],
    method=True, inplace="logical_xor_", out=True, differentiable=False, op=("logical_xor", "logical_xor_scalar"),
    doc="Logical xor of the truth values (nonzero is true), as a bool tensor.",
    tf="LogicalXor",
)
binary("logical_xor", "LogicalXor", kinds=ALL, result=to_bool)
