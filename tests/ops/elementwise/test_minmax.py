"""maximum, minimum, fmax, fmin, clamp: forward against PyTorch, clamp's bounds and promotion,
derivatives by gradcheck and against PyTorch's (ties included)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import grad
from tests._oracle import needs_torch, require_torch, torch
from tests.ops.elementwise._grad_helpers import (
    F64,
    binary_broadcast_gradcheck,
    binary_gradcheck,
    compare_grads,
    leaf,
    scalar_gradcheck,
    unary_gradcheck,
)
from tests.ops.elementwise._helpers import (
    OUT_DTYPES,
    binary_matches_torch,
    check_out,
    check_unary_inplace_method,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(
    custom={
        "clamp": (lambda x: ember.clamp(x, -1, 2), lambda x: torch.clamp(x, -1, 2)),
        "clamp_float": (lambda x: ember.clamp(x, min=0.5), lambda x: torch.clamp(x, min=0.5)),
        "clamp_max": (lambda x: ember.clamp(x, max=1), lambda x: torch.clamp(x, max=1)),
    }
)
test_binary_matches_torch = binary_matches_torch(
    ["maximum", "minimum", "fmax", "fmin"],
    {"clamp_tensor": (lambda a, b: ember.clamp(a, b, b + 1), lambda a, b: torch.clamp(a, b, b + 1))},
)


@needs_torch
@pytest.mark.parametrize("name", ["clamp"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["maximum"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


def test_clamp():
    t = ember.tensor([-3, 0, 4])
    assert ember.clamp(t, -1, 2).tolist() == [-1, 0, 2]
    assert ember.clamp(t, 0.5).dtype is ember.float32
    assert ember.clip(t, max=1).tolist() == [-3, 0, 1]
    assert ember.clamp(t, 4, 2).tolist() == [2, 2, 2]  # min > max: max wins, as PyTorch
    assert ember.clamp(t, ember.tensor([0, 1, 2]), ember.tensor(3)).tolist() == [0, 1, 3]
    assert ember.clamp(ember.tensor([math.nan]), 0.0, 1.0).isnan().tolist() == [True]
    assert t.clamp_(min=0) is t and t.tolist() == [0, 0, 4]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ember.clamp(t)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        ember.clamp(t, ember.tensor(0), 1)


def test_error_messages():
    f = ember.ones(2)
    with pytest.raises(TypeError, match=r"maximum\(\): argument 'other' must have .* got ember.complex64"):
        ember.maximum(f, ember.tensor([1j, 2j]))


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "clamp": (lambda x: x.clamp(-0.5, 1.0), -2, 2, [-0.5, 1]),
        "clamp_min": (lambda x: x.clamp(min=-0.5), -2, 2, [-0.5]),
        "clamp_max": (lambda x: x.clamp(max=0.5), -2, 2, [0.5]),
    }
)
BINARY = {
    "maximum": (lambda a, b: ember.maximum(a, b), (-2, 2), (-2, 2)),
    "minimum": (lambda a, b: ember.minimum(a, b), (-2, 2), (-2, 2)),
    "fmax": (lambda a, b: ember.fmax(a, b), (-2, 2), (-2, 2)),
    "fmin": (lambda a, b: ember.fmin(a, b), (-2, 2), (-2, 2)),
}


def _off_the_ties(name, a, b):
    if a.shape == b.shape:
        b = np.where(np.abs(a - b) < 0.2, b + 0.5, b)
    return a, b


test_binary_gradcheck = binary_gradcheck(BINARY, _off_the_ties)
test_binary_broadcast_gradcheck = binary_broadcast_gradcheck(BINARY, ["maximum"], _off_the_ties)
test_scalar_gradcheck = scalar_gradcheck(
    {
        "maximum": (lambda x: ember.maximum(x, 0.25), -2, 2, [0.25]),
        "minimum": (lambda x: ember.minimum(x, 0.25), -2, 2, [0.25]),
        "fmax": (lambda x: ember.fmax(x, 0.25), -2, 2, [0.25]),
        "fmin": (lambda x: ember.fmin(x, 0.25), -2, 2, [0.25]),
    }
)


def test_clamp_keeps_gradient_at_the_bounds():
    x = leaf([-1.0, 0.0, 1.0, 2.0])
    (g,) = grad(x.clamp(-1.0, 1.0), x, ember.ones(4, dtype=F64))
    assert g.tolist() == [1.0, 1.0, 1.0, 0.0]


def test_ties_split_like_torch():
    torch = require_torch()
    a = np.array([1.0, 2.0, 3.0, -1.0])
    b = np.array([1.0, 0.0, 3.0, 5.0])
    for e, t in ((ember.maximum, torch.maximum), (ember.minimum, torch.minimum), (ember.fmax, torch.fmax), (ember.fmin, torch.fmin)):
        compare_grads(e, t, [a, b])
    compare_grads(lambda x, y: x.clamp(-1.0, 3.0) * y, lambda x, y: x.clamp(-1.0, 3.0) * y, [a, b])


# --- scalar bounds are checked against the result dtype (a float bound promotes integers to float32) --

_BOUND_CASES = [
    ("uint32", 1e308, 0.001),
    ("int32", None, 1e39),
    ("float32", 1e308, None),
    ("float16", 70000.0, None),
    ("float16", None, 2**40),
    ("bfloat16", -1e39, None),
]


@pytest.mark.parametrize("dtype, low, high", _BOUND_CASES)
def test_clamp_bound_past_the_result_dtype(dtype, low, high):
    x = ember.ones(3, dtype=getattr(ember, dtype))
    with pytest.raises(RuntimeError, match=r"clamp.*cannot be converted to type .* without overflow"):
        ember.clamp(x, low, high)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_other_scalars_past_a_narrow_float_dtype(dtype):
    x, big = ember.ones(3, dtype=getattr(ember, dtype)), 1e39 if dtype == "float32" else 70000.0
    for call, op in [
        (lambda: ember.nn.functional.hardtanh(x, -1.0, big), "hardtanh"),
        (lambda: ember.add(x, x, alpha=big), "add"),
        (lambda: ember.sub(x, x, alpha=big), "sub"),
        (lambda: ember.linspace(0, big, 3, dtype=x.dtype), "linspace"),
        (lambda: ember.full((2,), big, dtype=x.dtype), "full"),
    ]:
        with pytest.raises(RuntimeError, match=f"{op}.*without overflow"):
            call()
    assert ember.clamp(x, None, float("inf")).tolist() == [1, 1, 1]  # inf and nan pass
    if dtype == "float16":  # where writes a scalar into half precision unchecked, as PyTorch does
        assert ember.where(ember.ones(3, dtype=ember.bool), 70000.0, x).tolist() == [math.inf] * 3


@needs_torch
@pytest.mark.parametrize("dtype", ["uint32", "int32", "uint8", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("bound", [1e308, 1e39, 70000.0, 3e38, float("inf"), 2**40])
def test_clamp_bound_check_matches_torch(dtype, bound):
    def run(m):
        try:
            return str(m.clamp(m.ones(3, dtype=getattr(m, dtype)), None, bound).dtype).split(".")[-1]
        except RuntimeError as e:
            if isinstance(e, NotImplementedError):
                pytest.skip("PyTorch has no clamp kernel for this dtype")
            assert "without overflow" in str(e)
            return "overflow"

    assert run(ember) == run(torch)
