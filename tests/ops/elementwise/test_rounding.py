"""floor, ceil, trunc, round, frac: forward against PyTorch and NumPy, rounding half to even,
zero derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import grad
from tests._oracle import needs_torch, torch
from tests.ops.elementwise._grad_helpers import F64, leaf, unary_gradcheck
from tests.ops.elementwise._helpers import (
    WIDE_UNSIGNED,
    check_unary_inplace_method,
    check_wide_unsigned_exact,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(
    ["floor", "ceil", "round", "trunc", "frac"],
    {"round_decimals": (lambda x: ember.round(x, decimals=1), lambda x: torch.round(x, decimals=1))},
)


@needs_torch
@pytest.mark.parametrize("name", ["floor", "round"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@pytest.mark.parametrize("name", ["floor"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    check_wide_unsigned_exact(name, dtype, lambda a: a)


def test_round():
    assert ember.round(ember.tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]
    assert ember.round(ember.tensor([1234.5678], dtype=ember.float64), decimals=2).tolist() == [1234.57]
    assert ember.round(ember.tensor([1234.5678], dtype=ember.float64), decimals=-2).tolist() == [1200.0]
    assert ember.round(ember.tensor([7])).tolist() == [7]


def test_error_messages():
    with pytest.raises(
        TypeError, match=r"floor\(\): argument 'input' must have an integral or real floating dtype, got ember.complex64"
    ):
        ember.floor(ember.tensor([1j]))


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "frac": (lambda x: ember.frac(x), -2.4, 2.4, [-2, -1, 0, 1, 2]),
        "floor": (lambda x: x.floor(), -2.4, 2.4, [-2, -1, 0, 1, 2]),
        "ceil": (lambda x: x.ceil(), -2.4, 2.4, [-2, -1, 0, 1, 2]),
        "trunc": (lambda x: x.trunc(), -2.4, 2.4, [-2, -1, 0, 1, 2]),
        "round": (lambda x: x.round(), -2.4, 2.4, [-1.5, -0.5, 0.5, 1.5]),
        "round_decimals": (lambda x: ember.round(x, decimals=1), -2, 2, list(np.arange(-2, 2, 0.1) + 0.05)),
    }
)


def test_rounding_gives_zeros():
    x = leaf([0.3, 1.7, -2.2])
    for fn in (ember.floor, ember.ceil, ember.trunc, ember.round):
        (g,) = grad(fn(x), x, ember.ones(3, dtype=F64))
        assert g.tolist() == [0.0, 0.0, 0.0]
