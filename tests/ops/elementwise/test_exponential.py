"""exp, exp2, expm1, log, log2, log10, log1p, logaddexp: forward against PyTorch and NumPy,
derivatives by gradcheck and against PyTorch's (real and complex)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import gradgradcheck
from tests._oracle import needs_torch, require_torch, torch
from tests.ops.elementwise._grad_helpers import (
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
    OUT_DTYPES,
    WIDE_UNSIGNED,
    binary_matches_torch,
    check_out,
    check_unary_inplace_method,
    check_wide_unsigned_float,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(["exp", "exp2", "expm1", "log", "log2", "log10", "log1p"])
test_binary_matches_torch = binary_matches_torch(["logaddexp"])


@needs_torch
@pytest.mark.parametrize("name", ["exp"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["exp"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


@pytest.mark.parametrize("name", ["exp"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    check_wide_unsigned_float(name, dtype, np.exp)


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "exp": (lambda x: x.exp(), -1, 1, []),
        "exp2": (lambda x: x.exp2(), -1, 1, []),
        "expm1": (lambda x: x.expm1(), -1, 1, []),
        "log": (lambda x: x.log(), 0.5, 2, []),
        "log2": (lambda x: x.log2(), 0.5, 2, []),
        "log10": (lambda x: x.log10(), 0.5, 2, []),
        "log1p": (lambda x: x.log1p(), -0.5, 2, []),
    }
)
BINARY = {"logaddexp": (lambda a, b: ember.logaddexp(a, b), (-2, 2), (-2, 2))}
test_binary_gradcheck = binary_gradcheck(BINARY)
test_binary_broadcast_gradcheck = binary_broadcast_gradcheck(BINARY, ["logaddexp"])
test_scalar_gradcheck = scalar_gradcheck({"logaddexp": (lambda x: ember.logaddexp(x, 0.7), -2, 2, [])})
test_complex_unary_against_torch = complex_unary_against_torch(["exp", "log", "log2", "log10", "log1p", "expm1", "exp2"])


def test_complex_binary_against_torch():
    require_torch()
    rng = np.random.default_rng(16)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    compare_grads(lambda x, y: ember.logaddexp(x, y), lambda x, y: torch.logaddexp(x, y), [a * 0.3, b * 0.3], "complex")


@pytest.mark.parametrize("fn", [lambda x, y: ember.logaddexp(x, y), lambda x, y: x.sin().exp() + y.log1p().sqrt()])
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))
