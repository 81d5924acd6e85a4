"""bitwise_not, and, or, xor and the shifts: forward against PyTorch and NumPy, shifts past the
width, dtype errors."""

from __future__ import annotations

import pytest

import ember
from tests._oracle import TORCH_DTYPES, needs_torch
from tests.ops.elementwise._helpers import (
    BINARY_INPLACE_DTYPES,
    INPLACE_DTYPES,
    WIDE_UNSIGNED,
    binary_matches_torch,
    binary_scalar_matches_torch,
    check_binary_inplace_method,
    check_inplace_operator,
    check_unary_inplace_method,
    check_unary_operator,
    check_wide_unsigned_exact,
    operators_with_scalars_match_torch,
    unary_matches_torch,
)

_BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
test_unary_matches_torch = unary_matches_torch(["bitwise_not"])
test_binary_matches_torch = binary_matches_torch(_BINARY)
test_binary_scalar_matches_torch = binary_scalar_matches_torch(_BINARY)
test_operators_with_scalars_match_torch = operators_with_scalars_match_torch(
    {"&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y}
)


@needs_torch
@pytest.mark.parametrize("op", ["~"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_unary_operators_match_torch(op, dtype):
    check_unary_operator(lambda x: ~x, op, dtype)


@needs_torch
@pytest.mark.parametrize("op", ["&=", "|=", "^=", "<<=", ">>="])
@pytest.mark.parametrize("dtype", INPLACE_DTYPES)
@pytest.mark.parametrize("other", [2, 1.5, "tensor"])
def test_inplace_operators_match_torch(op, dtype, other):
    check_inplace_operator(op, dtype, other)


@needs_torch
@pytest.mark.parametrize("name", ["bitwise_not"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["bitwise_and"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)


@pytest.mark.parametrize("name", ["bitwise_not"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    check_wide_unsigned_exact(name, dtype, lambda a: ~a)


def test_bitwise_shifts_past_the_width():
    t = ember.tensor([8, -8], dtype=ember.int8)
    assert (t << 10).tolist() == [0, 0]
    assert (t >> 10).tolist() == [0, -1]
    assert (ember.tensor([8]) >> -1).tolist() == [0]


def test_error_messages():
    f, i = ember.ones(2), ember.ones(2, dtype=ember.int64)
    with pytest.raises(
        TypeError, match=r"bitwise_and\(\): argument 'other' must have a bool or integral dtype, got ember.float32"
    ):
        i & f
    with pytest.raises(
        TypeError, match=r"bitwise_not\(\): argument 'input' must have a bool or integral dtype, got ember.float32"
    ):
        ~f
    with pytest.raises(TypeError, match=r"bitwise_left_shift\(\): argument 'input' must have an integral dtype"):
        f << 1
