"""erf, erfc, sigmoid: forward against PyTorch and NumPy, erf's float64 accuracy, derivatives by
gradcheck and against PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradgradcheck
from tests._oracle import needs_torch
from tests.ops.elementwise._grad_helpers import (
    away_from,
    compare_grads,
    complex_unary_against_torch,
    leaf,
    rand,
    unary_gradcheck,
)
from tests.ops.elementwise._helpers import (
    WIDE_UNSIGNED,
    check_unary_inplace_method,
    check_wide_unsigned_float,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(["sigmoid", "erf", "erfc"])


@needs_torch
@pytest.mark.parametrize("name", ["sigmoid", "erf"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@pytest.mark.parametrize("name", ["sigmoid", "erf"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    fn64 = {"sigmoid": lambda a: 1 / (1 + np.exp(-a)), "erf": lambda a: np.array([math.erf(v) for v in a])}[name]
    check_wide_unsigned_float(name, dtype, fn64)


def test_erf_is_accurate_to_float64():
    xs = np.concatenate([np.linspace(-6, 6, 2001), np.array([0.0, -0.0, 1e-300, 0.46875, 4.0, 26.0, 26.5, 27.0, -27.0])])
    got = ember.erf(ember.from_numpy(xs)).numpy()
    want = np.array([math.erf(x) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-16)
    gotc = ember.erfc(ember.from_numpy(xs)).numpy()
    wantc = np.array([math.erfc(x) for x in xs])
    np.testing.assert_allclose(gotc, wantc, rtol=1e-13, atol=1e-320)  # relative, deep into the tail
    special = ember.erf(ember.tensor([math.inf, -math.inf, math.nan], dtype=ember.float64)).tolist()
    assert special[:2] == [1.0, -1.0] and math.isnan(special[2])
    assert ember.erfc(ember.tensor([math.inf, -math.inf], dtype=ember.float64)).tolist() == [0.0, 2.0]


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "sigmoid": (lambda x: x.sigmoid(), -3, 3, []),
        "erf": (lambda x: ember.erf(x), -2, 2, []),
        "erfc": (lambda x: ember.erfc(x), -2, 2, []),
    }
)


@pytest.mark.parametrize("name", ["erfc"])
def test_unary_against_torch(name):
    torch = pytest.importorskip("torch")
    x = away_from(rand((7,), -3, 3, seed=12), [0, -1, 0.5, 1.5])
    compare_grads(lambda x: ember.erfc(x), torch.erfc, [x])


test_complex_unary_against_torch = complex_unary_against_torch(["sigmoid"])


@pytest.mark.parametrize("fn", [lambda x, y: x.tanh() * y.sigmoid()])
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))
