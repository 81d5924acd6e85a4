"""div (true and rounded), floor_divide, remainder, fmod: forward against PyTorch, Python's
conventions, division by zero; derivatives by gradcheck and against PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradgradcheck
from tests._oracle import needs_torch, require_torch, torch
from tests.ops.elementwise._grad_helpers import (
    binary_broadcast_gradcheck,
    binary_gradcheck,
    compare_grads,
    leaf,
    rand,
    scalar_gradcheck,
)
from tests.ops.elementwise._helpers import (
    BINARY_INPLACE_DTYPES,
    INPLACE_DTYPES,
    OUT_DTYPES,
    binary_matches_torch,
    binary_scalar_matches_torch,
    check_binary_inplace_method,
    check_inplace_operator,
    check_out,
    operators_with_scalars_match_torch,
)

test_binary_matches_torch = binary_matches_torch(
    ["div", "true_divide", "floor_divide", "remainder", "fmod"],
    {
        "div_trunc": (
            lambda a, b: ember.div(a, b, rounding_mode="trunc"),
            lambda a, b: torch.div(a, b, rounding_mode="trunc"),
        ),
        "div_floor": (
            lambda a, b: ember.div(a, b, rounding_mode="floor"),
            lambda a, b: torch.div(a, b, rounding_mode="floor"),
        ),
    },
)
test_binary_scalar_matches_torch = binary_scalar_matches_torch(["div", "true_divide", "floor_divide", "remainder", "fmod"])
test_operators_with_scalars_match_torch = operators_with_scalars_match_torch(
    {"/": lambda x, y: x / y, "//": lambda x, y: x // y, "%": lambda x, y: x % y}
)


@needs_torch
@pytest.mark.parametrize("op", ["/=", "//=", "%="])
@pytest.mark.parametrize("dtype", INPLACE_DTYPES)
@pytest.mark.parametrize("other", [2, 1.5, "tensor"])
def test_inplace_operators_match_torch(op, dtype, other):
    check_inplace_operator(op, dtype, other)


@needs_torch
@pytest.mark.parametrize("name", ["div", "remainder"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)


@needs_torch
@pytest.mark.parametrize("name", ["div", "floor_divide"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "int32"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a // b,
        lambda a, b: a % b,
        lambda a, b: ember.fmod(a, b),
        lambda a, b: ember.div(a, b, rounding_mode="trunc"),
        lambda a, b: ember.div(a, b, rounding_mode="floor"),
        lambda a, b: a // 0,
        lambda a, b: ember.remainder(a, 0),
    ],
)
def test_integer_division_by_zero_raises(dtype, fn):
    a = ember.tensor([4, 5], dtype=getattr(ember, dtype))
    b = ember.tensor([2, 0], dtype=getattr(ember, dtype))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, b)


def test_float_division_by_zero_is_silent_and_ieee(recwarn):
    t = ember.tensor([1.0, -1.0, 0.0])
    assert (t / 0).tolist()[:2] == [math.inf, -math.inf]
    assert math.isnan((t / 0).tolist()[2])
    assert (t // 0).tolist()[:2] == [math.inf, -math.inf]
    assert ember.log(ember.tensor([0.0, -1.0])).tolist()[0] == -math.inf
    assert ember.sqrt(ember.tensor([-1.0])).isnan().tolist() == [True]
    assert [w for w in recwarn if issubclass(w.category, RuntimeWarning)] == []


def test_python_division_conventions():
    a = ember.tensor([-7, 7, -7, 7])
    b = ember.tensor([2, -2, -2, 2])
    assert (a // b).tolist() == [-4, -4, 3, 3]
    assert (a % b).tolist() == [1, -1, -1, 1]
    assert ember.fmod(a, b).tolist() == [-1, 1, -1, 1]
    assert ember.div(a, b, rounding_mode="trunc").tolist() == [-3, -3, 3, 3]
    af = a.to(ember.float64)
    assert (af // b).tolist() == [-4.0, -4.0, 3.0, 3.0]
    assert (af % 2.5).tolist() == [0.5, 2.0, 0.5, 2.0]


def test_error_messages():
    f, i = ember.ones(2), ember.ones(2, dtype=ember.int64)
    with pytest.raises(RuntimeError, match=r"can't be cast to the desired output type int64"):
        i /= 2
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'up'"):
        ember.div(f, f, rounding_mode="up")


# ---------------------------------------------------------------------------------------
# derivatives

BINARY = {
    "div": (lambda a, b: a / b, (-2, 2), (0.5, 2)),
    "remainder": (lambda a, b: ember.remainder(a, b), (-3, 3), (0.7, 1.3)),
    "fmod": (lambda a, b: ember.fmod(a, b), (-3, 3), (0.7, 1.3)),
    "div_trunc": (lambda a, b: ember.div(a, b, rounding_mode="trunc"), (-3, 3), (0.7, 1.3)),
    "floor_divide": (lambda a, b: ember.floor_divide(a, b), (-3, 3), (0.7, 1.3)),
}


def _off_the_steps(name, a, b):
    if name in ("remainder", "fmod", "div_trunc", "floor_divide"):
        # keep a / b off the integers, where the result jumps
        q = a / b
        a = np.where(np.abs(q - np.round(q)) < 0.1, a + 0.25 * b, a)
    return a, b


test_binary_gradcheck = binary_gradcheck(BINARY, _off_the_steps)
test_binary_broadcast_gradcheck = binary_broadcast_gradcheck(BINARY, ["div"], _off_the_steps)
_STEPS = [-2.2, -1.1, 0, 1.1, 2.2]  # where x / 1.1 is an integer
test_scalar_gradcheck = scalar_gradcheck(
    {
        "div": (lambda x: x / 1.5, -2, 2, []),
        "rdiv": (lambda x: 1.5 / x, 0.5, 2, []),
        "remainder": (lambda x: ember.remainder(x, 1.1), -2, 2, _STEPS),
        "fmod": (lambda x: ember.fmod(x, 1.1), -2, 2, _STEPS),
        "div_trunc": (lambda x: ember.div(x, 1.1, rounding_mode="trunc"), -2, 2, _STEPS),
        "floor_divide": (lambda x: ember.floor_divide(x, 1.1), -2, 2, _STEPS),
    }
)


def test_binary_against_torch():
    require_torch()
    a = rand((2, 3), 0.5, 2, 13)
    b = rand((3,), -2, 2, 14)
    compare_grads(lambda x, y: ember.remainder(x, y), lambda x, y: x.remainder(y), [a * 3, b])
    compare_grads(lambda x, y: ember.fmod(x, y), lambda x, y: x.fmod(y), [a * 3, b])


def test_complex_binary_against_torch():
    require_torch()
    rng = np.random.default_rng(16)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    compare_grads(lambda x, y: x / y, lambda x, y: x / y, [a, b], "complex")
    compare_grads(lambda x: x / (1 + 2j), lambda x: x / (1 + 2j), [a], "complex")


@pytest.mark.parametrize("fn", [lambda x, y: x / y])
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))
