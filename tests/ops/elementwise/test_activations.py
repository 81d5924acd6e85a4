"""relu, silu, gelu, softplus, elu, leaky_relu, hardtanh: forward against PyTorch (and relu
against NumPy at every size and layout), in-place forms, derivatives by gradcheck and against
PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradgradcheck
from tests._oracle import needs_torch, require_torch, torch
from tests.ops.elementwise._grad_helpers import away_from, compare_grads, leaf, nn_available, rand, unary_gradcheck
from tests.ops.elementwise._helpers import check_unary_inplace_method, opmath, unary_matches_torch

F = torch.nn.functional if torch is not None else None

test_unary_matches_torch = unary_matches_torch(
    ["relu"],
    {
        "gelu": (lambda x: ember.gelu(x), lambda x: opmath(F.gelu, x)),
        "gelu_tanh": (lambda x: ember.gelu(x, approximate="tanh"), lambda x: opmath(F.gelu, x, approximate="tanh")),
        "silu": (lambda x: ember.silu(x), lambda x: F.silu(x)),
        "softplus": (lambda x: ember.softplus(x), lambda x: F.softplus(x)),
        "softplus_beta": (lambda x: ember.softplus(x, beta=2, threshold=1), lambda x: F.softplus(x, beta=2, threshold=1)),
        "elu": (lambda x: ember.elu(x, 0.5), lambda x: F.elu(x, 0.5)),
        "leaky_relu": (lambda x: ember.leaky_relu(x, 0.2), lambda x: F.leaky_relu(x, 0.2)),
        "hardtanh": (lambda x: ember.hardtanh(x, -0.5, 2.0), lambda x: F.hardtanh(x, -0.5, 2.0)),
    },
)


@needs_torch
@pytest.mark.parametrize("name", ["relu"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


def test_gelu_both_forms():
    x = np.linspace(-5, 5, 41)
    exact = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x])
    np.testing.assert_allclose(ember.gelu(ember.from_numpy(x)).numpy(), exact, rtol=1e-14, atol=1e-300)
    tanh = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(ember.gelu(ember.from_numpy(x), approximate="tanh").numpy(), tanh, rtol=1e-14)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        ember.gelu(ember.from_numpy(x), approximate="fast")


def test_activations_inplace():
    t = ember.tensor([-2.0, 0.5, 3.0])
    for fn, expected in [
        (lambda x: ember.relu(x, inplace=True), [0.0, 0.5, 3.0]),
        (lambda x: ember.leaky_relu(x, 0.5, inplace=True), [-1.0, 0.5, 3.0]),
        (lambda x: ember.hardtanh(x, -1.0, 1.0, inplace=True), [-1.0, 0.5, 1.0]),
        (lambda x: ember.elu_(x, alpha=2.0), [2 * math.expm1(-2.0), 0.5, 3.0]),
    ]:
        x = t.clone()
        assert fn(x) is x
        np.testing.assert_allclose(x.tolist(), expected, rtol=1e-6)
    x = t.clone()
    y = ember.silu(x)
    assert y is not x and x.tolist() == t.tolist()
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        ember.hardtanh(t, 2.0, 1.0)


def test_error_messages():
    i = ember.ones(2, dtype=ember.int64)
    with pytest.raises(TypeError, match=r"gelu\(\): argument 'input' must have a real floating dtype, got ember.int64"):
        ember.gelu(i)


@pytest.mark.parametrize("n", [1, 65535, 65536, 65537, 200_003])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_relu_of_any_size_and_layout_equals_maximum_with_zero(n, dtype):
    # relu compares against rows of zeros, in slices for large contiguous arrays (NumPy's maximum
    # against a 0-d zero has no SIMD loop); every size, layout and NaN must come out as np.maximum's
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 10).astype(dtype)
    if dtype != "int32":
        a[:: max(1, n // 7)] = np.nan
    np.testing.assert_array_equal(ember.relu(ember.tensor(a)).numpy(), np.maximum(a, 0))
    if n > 1:
        m = a[: (n // 2) * 2].reshape(2, -1)
        t = ember.tensor(m).mT  # not contiguous
        np.testing.assert_array_equal(ember.relu(t).numpy(), np.maximum(m.T, 0))


# ---------------------------------------------------------------------------------------
# derivatives

_NN_CASES = ("gelu", "gelu_tanh", "silu", "softplus", "elu", "leaky_relu", "hardtanh")
test_unary_gradcheck = unary_gradcheck(
    {
        "relu": (lambda x: x.relu(), -2, 2, [0]),
        "gelu": (lambda x: ember.nn.functional.gelu(x), -3, 3, []),
        "gelu_tanh": (lambda x: ember.nn.functional.gelu(x, approximate="tanh"), -3, 3, []),
        "silu": (lambda x: ember.nn.functional.silu(x), -3, 3, []),
        "softplus": (lambda x: ember.nn.functional.softplus(x, beta=2.0, threshold=3.0), -3, 3, [1.5]),
        "elu": (lambda x: ember.nn.functional.elu(x, alpha=0.7), -2, 2, [0]),
        "leaky_relu": (lambda x: ember.nn.functional.leaky_relu(x, 0.1), -2, 2, [0]),
        "hardtanh": (lambda x: ember.nn.functional.hardtanh(x, -1.0, 0.5), -2, 2, [-1, 0.5]),
    },
    needs_nn=_NN_CASES,
)

REAL_TORCH = {
    "gelu": lambda x: ember.nn.functional.gelu(x),
    "gelu_tanh": lambda x: ember.nn.functional.gelu(x, approximate="tanh"),
    "softplus": lambda x: ember.nn.functional.softplus(x, beta=2.0, threshold=3.0),
    "elu": lambda x: ember.nn.functional.elu(x, alpha=0.7),
    "hardtanh": lambda x: ember.nn.functional.hardtanh(x, -1.0, 0.5),
}


@pytest.mark.parametrize("name", sorted(REAL_TORCH))
def test_unary_against_torch(name):
    torch = require_torch()
    tfns = {
        "gelu": lambda x: torch.nn.functional.gelu(x),
        "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
        "softplus": lambda x: torch.nn.functional.softplus(x, beta=2.0, threshold=3.0),
        "elu": lambda x: torch.nn.functional.elu(x, alpha=0.7),
        "hardtanh": lambda x: torch.nn.functional.hardtanh(x, -1.0, 0.5),
    }
    if not nn_available():
        pytest.skip("ember.nn.functional is not importable")
    x = away_from(rand((7,), -3, 3, seed=12), [0, -1, 0.5, 1.5])
    compare_grads(REAL_TORCH[name], tfns[name], [x])


def test_gradgradcheck_activations():
    if not nn_available():
        pytest.skip("ember.nn.functional is not importable")
    f = ember.nn.functional
    x = leaf(away_from(rand((5,), -2, 2, 19), [0]))
    for fn in (f.gelu, lambda t: f.gelu(t, approximate="tanh"), f.silu, lambda t: f.elu(t, alpha=0.7), f.softplus, lambda t: t.erf()):
        assert gradgradcheck(fn, (x,))
