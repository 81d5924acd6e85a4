"""eq, ne, lt, le, gt, ge, isclose, allclose, equal: forward against PyTorch, whole-tensor
answers, Python's rules for ``==`` with other objects."""

from __future__ import annotations

import math

import pytest

import ember
from tests._oracle import needs_torch, torch
from tests.ops.elementwise._helpers import (
    BINARY_INPLACE_DTYPES,
    OUT_DTYPES,
    binary_matches_torch,
    binary_scalar_matches_torch,
    check_binary_inplace_method,
    check_out,
    operators_with_scalars_match_torch,
)

_COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge"]
test_binary_matches_torch = binary_matches_torch(
    _COMPARISONS,
    {
        "isclose": (
            lambda a, b: ember.isclose(a, b, rtol=0.5, atol=0.1),
            lambda a, b: torch.isclose(a, b, rtol=0.5, atol=0.1),
        ),
    },
    same_dtype=("isclose",),
)
test_binary_scalar_matches_torch = binary_scalar_matches_torch(_COMPARISONS)
_OPERATORS = {
    "==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
}  # fmt: skip
test_operators_with_scalars_match_torch = operators_with_scalars_match_torch(_OPERATORS)


@needs_torch
@pytest.mark.parametrize("name", ["eq", "lt"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)


@needs_torch
@pytest.mark.parametrize("name", ["eq"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


def test_isclose_allclose_equal():
    a, b = ember.tensor([0.0, 10.0]), ember.tensor([10.0, 20.0])
    x = ember.tensor([1.0, math.nan, math.inf])
    assert ember.isclose(x, x).tolist() == [True, False, True]
    assert ember.isclose(x, x, equal_nan=True).tolist() == [True, True, True]
    assert ember.allclose(a + 1, a + 1 + 1e-6) is True
    assert ember.allclose(a, a + 1) is False
    assert a.allclose(a) is True
    assert ember.equal(a, a.clone()) is True
    assert ember.equal(a, b) is False
    assert ember.equal(a, ember.tensor([[0.0, 10.0]])) is False
    assert ember.equal(ember.tensor([1, 2]), ember.tensor([1.0, 2.0])) is True
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        ember.isclose(a, a, rtol=-1.0)


def test_eq_with_other_objects_follows_python():
    t = ember.tensor([1, 2])
    assert (t == None) is False  # noqa: E711 - Tensor.__eq__ returns NotImplemented for non-numbers
    assert (t != "a") is True
    assert t in {t}  # still hashable


def test_error_messages():
    with pytest.raises(
        TypeError, match=r"lt\(\): argument 'input' must have a bool or integral or real floating dtype, got ember.complex64"
    ):
        _ = ember.tensor([1j]) < 1


@pytest.mark.parametrize("arg", ["rtol", "atol"])
@pytest.mark.parametrize("value", [float("nan"), -1.0])
def test_isclose_tolerances_must_be_non_negative_numbers(arg, value):
    with pytest.raises(RuntimeError, match=rf"isclose\(\): {arg} must be greater than or equal to zero, but got {value}"):
        ember.isclose(ember.ones(2), ember.ones(2), **{arg: value})
