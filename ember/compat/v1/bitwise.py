"""``tf.bitwise``: TensorFlow's bitwise ops on integer tensors (``bitwise_and``, ``invert``, shifts)."""

from __future__ import annotations

from ..._core import dtype as _dt
from ...ops import functional as F
from ._common import as_pair, check_dtype, tensor
from .framework import op_scope

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

_INTS = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)


def _binary(fn_name: str, op_type: str, compute):
    def fn(x, y, name=None):
        with op_scope(name, op_type, (x, y)) as scope:
            x, y = as_pair(x, y, op_type)
            check_dtype(x, _INTS)
            return scope.out(compute(x, y), op_type)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"``{fn_name}`` of two integer tensors, element-wise with broadcasting (node ``{op_type}``)."
    return fn


bitwise_and = _binary("bitwise_and", "BitwiseAnd", F.bitwise_and)
bitwise_or = _binary("bitwise_or", "BitwiseOr", F.bitwise_or)
bitwise_xor = _binary("bitwise_xor", "BitwiseXor", F.bitwise_xor)
left_shift = _binary("left_shift", "LeftShift", F.bitwise_left_shift)
right_shift = _binary("right_shift", "RightShift", F.bitwise_right_shift)


def invert(x, name=None):
    """Every bit of an integer tensor flipped (node ``Invert``)."""
    with op_scope(name, "Invert", (x,)) as scope:
        x = tensor(x, "x")
        check_dtype(x, _INTS)
        return scope.out(F.bitwise_not(x), "Invert")
