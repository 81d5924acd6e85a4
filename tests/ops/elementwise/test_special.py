"""erf, erfc, erfinv, sigmoid: forward against PyTorch and NumPy, erf's and erfinv's float64
accuracy, derivatives by gradcheck and against PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradgradcheck
from tests._oracle import needs_torch, require_torch
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

test_unary_matches_torch = unary_matches_torch(["sigmoid", "erf", "erfc", "erfinv"])


@needs_torch
@pytest.mark.parametrize("name", ["sigmoid", "erf", "erfinv"])
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


def test_erfinv_inverts_erf_to_float64_rounding():
    # |y| near 1 as 1 - 10**-k: the tail takes (1 - |y|) / 2 without cancellation
    near_one = 1 - np.logspace(-16, -1, 200)
    ys = np.concatenate([np.linspace(-1, 1, 4001)[1:-1], near_one, -near_one, np.logspace(-300, -1, 50), [0.0, -0.0]])
    xs = ember.erfinv(ember.from_numpy(ys)).numpy()
    assert np.all(np.isfinite(xs))
    back = np.array([math.erf(x) for x in xs])
    np.testing.assert_allclose(back, ys, rtol=0, atol=3e-16)
    tail = np.abs(ys) > 0.85  # there erfc carries the information erf rounds away
    np.testing.assert_allclose([math.erfc(x) for x in np.abs(xs[tail])], 1 - np.abs(ys[tail]), rtol=2e-14)
    assert np.array_equal(np.signbit(xs), np.signbit(ys))  # odd, -0.0 included


def test_erfinv_edges_and_dtypes():
    got = ember.erfinv(ember.tensor([1.0, -1.0, 1.5, -2.0, math.nan, math.inf], dtype=ember.float64)).tolist()
    assert got[:2] == [math.inf, -math.inf] and all(math.isnan(v) for v in got[2:])
    assert ember.erfinv(ember.tensor([0, 1])).dtype is ember.float32  # integers give the default float
    assert ember.erfinv(ember.tensor([0.5], dtype=ember.bfloat16)).dtype is ember.bfloat16
    with pytest.raises(TypeError, match="erfinv"):
        ember.erfinv(ember.tensor([0.5j]))


@needs_torch
def test_erfinv_matches_torch_across_its_domain():
    torch = require_torch()
    ys = np.concatenate([np.linspace(-1, 1, 20001), 1 - np.logspace(-16, -1, 100), [1.5, -3.0, np.nan]])
    got = ember.erfinv(ember.from_numpy(ys)).numpy()
    want = torch.erfinv(torch.from_numpy(ys)).numpy()
    np.testing.assert_allclose(got, want, rtol=4e-15, atol=0, equal_nan=True)


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "sigmoid": (lambda x: x.sigmoid(), -3, 3, []),
        "erf": (lambda x: ember.erf(x), -2, 2, []),
        "erfc": (lambda x: ember.erfc(x), -2, 2, []),
        "erfinv": (lambda x: ember.erfinv(x), -0.9, 0.9, []),
    }
)


@pytest.mark.parametrize(("name", "low", "high"), [("erfc", -3, 3), ("erfinv", -0.95, 0.95)])
def test_unary_against_torch(name, low, high):
    torch = require_torch()
    x = away_from(rand((7,), low, high, seed=12), [0, -1, 0.5, 1.5])
    compare_grads(getattr(ember, name), getattr(torch, name), [x])


test_complex_unary_against_torch = complex_unary_against_torch(["sigmoid"])


@pytest.mark.parametrize("fn", [lambda x, y: x.tanh() * y.sigmoid()])
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))
