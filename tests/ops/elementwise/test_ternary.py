"""where and lerp: forward against PyTorch, Python scalars in where, lerp's dtype rules,
derivatives by gradcheck and against PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import grad, gradcheck, gradgradcheck
from tests._oracle import needs_torch, require_torch, torch
from tests.ops.elementwise._grad_helpers import F64, SHAPE, compare_grads, leaf, rand, scalar_gradcheck
from tests.ops.elementwise._helpers import (
    BINARY_INPLACE_DTYPES,
    OUT_DTYPES,
    binary_matches_torch,
    check_binary_inplace_method,
    check_out,
)

test_binary_matches_torch = binary_matches_torch(
    custom={
        "where": (lambda a, b: ember.where(a > b, a, b), lambda a, b: torch.where(a > b, a, b)),
        "lerp": (lambda a, b: ember.lerp(a, b, 0.3), lambda a, b: torch.lerp(a, b, 0.3)),
        "lerp_tensor": (lambda a, b: ember.lerp(a, a, b), lambda a, b: torch.lerp(a, a, b)),
    },
    same_dtype=("lerp", "lerp_tensor"),
)


@needs_torch
@pytest.mark.parametrize("name", ["lerp"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)


@needs_torch
@pytest.mark.parametrize("name", ["where"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


def test_where_with_scalars():
    c = ember.tensor([True, False, True])
    assert ember.where(c, 1, 2.0).dtype is ember.float32
    assert ember.where(c, 1, 2).dtype is ember.int64
    assert ember.where(c, ember.tensor([1, 2, 3], dtype=ember.int8), 0).dtype is ember.int8
    assert ember.where(c, ember.tensor([1, 2, 3], dtype=ember.int8), 0).tolist() == [1, 0, 3]
    assert ember.where(c, 0.5, ember.tensor([[1], [2]])).tolist() == [[0.5, 1.0, 0.5], [0.5, 2.0, 0.5]]
    with pytest.raises(
        RuntimeError, match=r"expected condition to be a boolean tensor, but got a tensor with dtype ember\.int64"
    ):
        ember.where(ember.tensor([1]), ember.tensor([1.0]), 0.0)


def test_lerp():
    a, b = ember.tensor([0.0, 10.0]), ember.tensor([10.0, 20.0])
    assert ember.lerp(a, b, 0.5).tolist() == [5.0, 15.0]
    assert ember.lerp(a, b, ember.tensor([0.0, 1.0])).tolist() == [0.0, 20.0]
    with pytest.raises(RuntimeError, match=r"expected dtype ember\.float32 for `end` but got dtype ember\.float64"):
        ember.lerp(a, b.double(), 0.5)


# ---------------------------------------------------------------------------------------
# derivatives

test_scalar_gradcheck = scalar_gradcheck({"lerp_scalar": (lambda x: ember.lerp(x, x * x, 0.3), -2, 2, [])})


def test_where_and_lerp_gradcheck():
    c = ember.tensor(np.array([[True, False, True], [False, True, False]]))
    a, b = leaf(rand(SHAPE, -1, 1, 4)), leaf(rand((3,), -1, 1, 5))
    assert gradcheck(lambda x, y: ember.where(c, x, y), (a, b))
    w = leaf(rand(SHAPE, 0, 1, 6))
    assert gradcheck(lambda x, y, z: ember.lerp(x, y, z), (a, leaf(rand(SHAPE, -1, 1, 7)), w))
    assert gradcheck(lambda x, y: ember.lerp(x, y, 0.3), (a, b))


def test_where_condition_gets_none():
    c = ember.tensor([True, False])
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    out = ember.where(c, a, b)
    assert out.grad_fn.next_functions[0] == (None, 0)
    ga, gb = grad(out, (a, b), ember.ones(2, dtype=F64))
    assert ga.tolist() == [1.0, 0.0] and gb.tolist() == [0.0, 1.0]


def test_complex_binary_against_torch():
    torch = require_torch()
    rng = np.random.default_rng(16)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    compare_grads(lambda x, y: ember.lerp(x, y, 0.3 + 0.2j), lambda x, y: torch.lerp(x, y, 0.3 + 0.2j), [a, b], "complex")


@pytest.mark.parametrize(
    "fn", [lambda x, y: ember.lerp(x, y, 0.3) * x, lambda x, y: ember.where(x > 1.2, x.square(), y.reciprocal())]
)
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))
