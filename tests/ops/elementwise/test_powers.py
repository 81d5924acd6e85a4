"""sqrt, rsqrt, square, reciprocal, pow: forward against PyTorch and NumPy, integer powers;
derivatives by gradcheck and against PyTorch's (real and complex)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import grad, gradgradcheck
from tests._oracle import needs_torch, require_torch
from tests.ops.elementwise._grad_helpers import (
    F64,
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
    INPLACE_DTYPES,
    OUT_DTYPES,
    WIDE_UNSIGNED,
    binary_matches_torch,
    binary_scalar_matches_torch,
    check_binary_inplace_method,
    check_inplace_operator,
    check_out,
    check_unary_inplace_method,
    check_wide_unsigned_exact,
    check_wide_unsigned_float,
    operators_with_scalars_match_torch,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(["sqrt", "rsqrt", "square", "reciprocal"])
test_binary_matches_torch = binary_matches_torch(["pow"])
test_binary_scalar_matches_torch = binary_scalar_matches_torch(["pow"])
test_operators_with_scalars_match_torch = operators_with_scalars_match_torch({"**": lambda x, y: x**y})


@needs_torch
@pytest.mark.parametrize("op", ["**="])
@pytest.mark.parametrize("dtype", INPLACE_DTYPES)
@pytest.mark.parametrize("other", [2, 1.5, "tensor"])
def test_inplace_operators_match_torch(op, dtype, other):
    check_inplace_operator(op, dtype, other)


@needs_torch
@pytest.mark.parametrize("name", ["sqrt", "reciprocal"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["pow"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)


@needs_torch
@pytest.mark.parametrize("name", ["sqrt"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


@pytest.mark.parametrize("name", ["sqrt", "square"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    if name == "sqrt":
        check_wide_unsigned_float(name, dtype, np.sqrt)
    else:
        check_wide_unsigned_exact(name, dtype, lambda a: a * a)


def test_integer_powers():
    t = ember.tensor([-2, -1, 0, 1, 2])
    assert (t**2).tolist() == [4, 1, 0, 1, 4]
    assert (t ** ember.tensor([-1, -1, 2, -3, -2])).tolist() == [0, -1, 0, 1, 0]
    assert (ember.tensor([-1]) ** ember.tensor([-2])).tolist() == [1]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        t**-1
    assert (t**0.5).dtype is ember.float32
    assert ember.pow(2, ember.tensor([3, 4])).tolist() == [8, 16]
    assert ember.pow(ember.tensor([3.0]), 2).tolist() == [9.0]


def test_error_messages():
    with pytest.raises(RuntimeError, match="cannot be converted to type uint8 without overflow"):
        ember.tensor([2], dtype=ember.uint8) ** 1000
    with pytest.raises(TypeError, match=r"sqrt\(\): argument 'input' must have a bool or numeric"):
        ember.sqrt(ember.tensor([b"x"]))


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "sqrt": (lambda x: x.sqrt(), 0.5, 2, []),
        "rsqrt": (lambda x: x.rsqrt(), 0.5, 2, []),
        "square": (lambda x: x.square(), -2, 2, []),
        "reciprocal": (lambda x: x.reciprocal(), 0.5, 2, []),
    }
)
BINARY = {"pow": (lambda a, b: a**b, (0.5, 2), (-2, 2))}
test_binary_gradcheck = binary_gradcheck(BINARY)
test_binary_broadcast_gradcheck = binary_broadcast_gradcheck(BINARY, ["pow"])
test_scalar_gradcheck = scalar_gradcheck(
    {
        "pow": (lambda x: x**2.5, 0.5, 2, []),
        "pow_int": (lambda x: x**3, -2, 2, []),
        "pow_zero": (lambda x: x**0, -2, 2, []),
        "pow_scalar_base": (lambda x: 2.0**x, -2, 2, []),
    }
)


def test_integer_input_gets_no_gradient():
    x = leaf([1.5, 2.0])
    n = ember.tensor([2, 3])
    y = x**n
    (g,) = grad(y, x, ember.ones(2, dtype=F64))
    assert np.allclose(g.numpy(), [3.0, 12.0])


def test_binary_against_torch():
    require_torch()
    a = rand((2, 3), 0.5, 2, 13)
    b = rand((3,), -2, 2, 14)
    compare_grads(lambda x, y: x**y, lambda x, y: x**y, [a, b])
    z = np.array([0.0, 0.0, 2.0])
    compare_grads(lambda x, y: x**y, lambda x, y: x**y, [z, np.array([2.0, 0.0, 0.5])])


test_complex_unary_against_torch = complex_unary_against_torch(["sqrt", "rsqrt", "reciprocal", "square"])


def test_complex_binary_against_torch():
    require_torch()
    rng = np.random.default_rng(16)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    compare_grads(lambda x, y: x**y, lambda x, y: x**y, [a, b], "complex")


@pytest.mark.parametrize("fn", [lambda x, y: x**y])
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))
