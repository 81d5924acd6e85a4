"""isnan, isinf, isfinite, signbit, nextafter, nan_to_num: forward against PyTorch and NumPy,
derivatives."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import ember
from ember.autograd import grad
from tests._oracle import needs_torch, torch
from tests.ops.elementwise._grad_helpers import F64, leaf, unary_gradcheck
from tests.ops.elementwise._helpers import (
    OUT_DTYPES,
    WIDE_UNSIGNED,
    binary_matches_torch,
    check_out,
    check_wide_unsigned_exact,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(
    ["isnan", "isinf", "isfinite", "signbit", "nan_to_num"],
    {"nan_to_num_args": (lambda x: ember.nan_to_num(x, 1.0, 2.0, -2.0), lambda x: torch.nan_to_num(x, 1.0, 2.0, -2.0))},
)
test_binary_matches_torch = binary_matches_torch(["nextafter"])


@needs_torch
@pytest.mark.parametrize("name", ["signbit"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


@pytest.mark.parametrize("name", ["isnan"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    check_wide_unsigned_exact(name, dtype, lambda a: np.zeros(4, bool))


def test_nan_to_num():
    t = ember.tensor([math.nan, math.inf, -math.inf, 1.5], dtype=ember.float16)
    assert ember.nan_to_num(t).tolist() == [0.0, 65504.0, -65504.0, 1.5]
    b = ember.tensor([math.inf], dtype=ember.bfloat16)
    assert ember.nan_to_num(b).tolist() == [float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)]
    z = ember.tensor([complex(math.nan, math.inf)])
    assert ember.nan_to_num(z, posinf=7.0).tolist() == [complex(0, 7)]


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck({"nan_to_num": (lambda x: ember.nan_to_num(x), -2, 2, [])})


def test_nan_to_num_zero_where_replaced():
    x = leaf([1.0, float("nan"), float("inf"), -float("inf")])
    (g,) = grad(ember.nan_to_num(x), x, ember.ones(4, dtype=F64))
    assert g.tolist() == [1.0, 0.0, 0.0, 0.0]
