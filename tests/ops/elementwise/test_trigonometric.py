"""sin ... atanh, atan2, hypot: forward against PyTorch, derivatives by gradcheck and against
PyTorch's (real and complex)."""

from __future__ import annotations

import pytest

import ember
from ember.autograd import gradgradcheck
from tests._oracle import needs_torch, require_torch
from tests.ops.elementwise._grad_helpers import (
    away_from,
    binary_broadcast_gradcheck,
    binary_gradcheck,
    compare_grads,
    complex_unary_against_torch,
    leaf,
    rand,
    scalar_gradcheck,
    unary_gradcheck,
)
from tests.ops.elementwise._helpers import (
    BINARY_INPLACE_DTYPES,
    binary_matches_torch,
    check_binary_inplace_method,
    check_unary_inplace_method,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(
    ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"]
)
test_binary_matches_torch = binary_matches_torch(["atan2", "hypot"])


@needs_torch
@pytest.mark.parametrize("name", ["sin"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["atan2", "hypot"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "sin": (lambda x: x.sin(), -2, 2, []),
        "cos": (lambda x: x.cos(), -2, 2, []),
        "tan": (lambda x: x.tan(), -1, 1, []),
        "asin": (lambda x: x.asin(), -0.8, 0.8, []),
        "acos": (lambda x: x.acos(), -0.8, 0.8, []),
        "atan": (lambda x: x.atan(), -2, 2, []),
        "sinh": (lambda x: x.sinh(), -2, 2, []),
        "cosh": (lambda x: x.cosh(), -2, 2, []),
        "tanh": (lambda x: x.tanh(), -2, 2, []),
        "asinh": (lambda x: x.asinh(), -2, 2, []),
        "acosh": (lambda x: x.acosh(), 1.5, 3, []),
        "atanh": (lambda x: x.atanh(), -0.8, 0.8, []),
    }
)
BINARY = {
    "atan2": (lambda a, b: ember.atan2(a, b), (-2, 2), (0.5, 2)),
    "hypot": (lambda a, b: ember.hypot(a, b), (0.5, 2), (-2, 2)),
}
test_binary_gradcheck = binary_gradcheck(BINARY)
test_binary_broadcast_gradcheck = binary_broadcast_gradcheck(BINARY, ["atan2", "hypot"])
test_scalar_gradcheck = scalar_gradcheck(
    {
        "atan2": (lambda x: ember.atan2(x, 0.7), -2, 2, []),
        "hypot": (lambda x: ember.hypot(x, 0.7), -2, 2, []),
    }
)


@pytest.mark.parametrize("name", ["acosh"])
def test_unary_against_torch(name):
    require_torch()
    x = away_from(rand((7,), -3, 3, seed=12), [0, -1, 0.5, 1.5])
    compare_grads(lambda x: (x.abs() + 1.2).acosh(), lambda x: (x.abs() + 1.2).acosh(), [x])


def test_binary_against_torch():
    require_torch()
    a = rand((2, 3), 0.5, 2, 13)
    b = rand((3,), -2, 2, 14)
    compare_grads(lambda x, y: ember.atan2(x, y), lambda x, y: x.atan2(y), [a, b])


test_complex_unary_against_torch = complex_unary_against_torch(
    ["sin", "cos", "tan", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sinh", "cosh"]
)


@pytest.mark.parametrize("fn", [lambda x, y: ember.atan2(x, y), lambda x, y: ember.hypot(x, y)])
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))

