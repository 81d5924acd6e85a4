"""abs, sign, sgn, copysign: forward against PyTorch and NumPy, signs of NaN and zero,
derivatives by gradcheck and against PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import grad
from tests._oracle import TORCH_DTYPES, needs_torch, require_torch
from tests.ops.elementwise._grad_helpers import (
    F64,
    away_from,
    binary_gradcheck,
    compare_grads,
    complex_unary_against_torch,
    leaf,
    rand,
    scalar_gradcheck,
    unary_gradcheck,
)
from tests.ops.elementwise._helpers import (
    OUT_DTYPES,
    WIDE_UNSIGNED,
    binary_matches_torch,
    binary_scalar_matches_torch,
    check_out,
    check_unary_inplace_method,
    check_unary_operator,
    check_wide_unsigned_exact,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(["abs", "sign", "sgn"])
test_binary_matches_torch = binary_matches_torch(["copysign"])
test_binary_scalar_matches_torch = binary_scalar_matches_torch(["copysign"])


@needs_torch
@pytest.mark.parametrize("op", ["abs"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_unary_operators_match_torch(op, dtype):
    check_unary_operator(abs, op, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["abs"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["abs"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


@pytest.mark.parametrize("name", ["abs", "sign"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    check_wide_unsigned_exact(name, dtype, {"abs": lambda a: a, "sign": np.sign}[name])


def test_sign_of_nan_and_zero_follows_pytorch():
    t = ember.tensor([math.nan, -0.0, -2.0, 3.0])
    assert ember.sign(t).tolist()[:1] == [0.0]
    assert ember.sign(t).tolist()[1:] == [0.0, -1.0, 1.0]
    assert ember.signbit(t).tolist() == [False, True, True, False]
    assert ember.sgn(ember.tensor([3 + 4j, 0j], dtype=ember.complex128)).tolist() == pytest.approx([0.6 + 0.8j, 0j], rel=1e-15)


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "abs": (lambda x: x.abs(), -2, 2, [0]),
        "sign": (lambda x: x.sign(), -2, 2, [0]),
        "sgn": (lambda x: x.sgn(), -2, 2, [0]),
    }
)


def _off_zero(name, a, b):
    return a, away_from(b, [0])  # copysign jumps where the sign source crosses 0


test_binary_gradcheck = binary_gradcheck({"copysign": (lambda a, b: ember.copysign(a, b), (0.3, 2), (-2, 2))}, _off_zero)
test_scalar_gradcheck = scalar_gradcheck({"copysign": (lambda x: ember.copysign(x, -1.0), 0.3, 2, [])})


def test_signs_give_zeros():
    x = leaf([0.3, 1.7, -2.2])
    for fn in (ember.sign, ember.sgn):
        (g,) = grad(fn(x), x, ember.ones(3, dtype=F64))
        assert g.tolist() == [0.0, 0.0, 0.0]


def test_binary_against_torch():
    require_torch()
    a = rand((2, 3), 0.5, 2, 13)
    b = rand((3,), -2, 2, 14)
    compare_grads(lambda x, y: ember.copysign(x, y), lambda x, y: x.copysign(y), [a, b])


test_complex_unary_against_torch = complex_unary_against_torch(["sgn"])
