"""add, sub (with alpha), mul, neg, positive: forward against PyTorch and NumPy, derivatives by
gradcheck and against PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import gradgradcheck
from tests._oracle import TORCH_DTYPES, needs_torch, require_torch, torch
from tests.ops.elementwise._grad_helpers import (
    binary_broadcast_gradcheck,
    binary_gradcheck,
    compare_grads,
    leaf,
    rand,
    scalar_gradcheck,
    unary_gradcheck,
)
from tests.ops.elementwise._helpers import (
    BINARY_INPLACE_DTYPES,
    INPLACE_DTYPES,
    OUT_DTYPES,
    WIDE_UNSIGNED,
    binary_matches_torch,
    binary_scalar_matches_torch,
    check_binary_inplace_method,
    check_inplace_operator,
    check_out,
    check_unary_inplace_method,
    check_unary_operator,
    check_wide_unsigned_exact,
    operators_with_scalars_match_torch,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(["neg", "positive"])

_ALPHAS = {"add_alpha": 2, "add_alpha_float": 0.5, "sub_alpha": -3}  # the alpha each case adds ``other`` with


def _alpha_rounding(name: str, a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two right answers of ``a + alpha * b`` may be in a half dtype: PyTorch rounds
    ``alpha * b`` to bfloat16 before it adds, ember adds in float32 and rounds once; when the sum
    cancels, they differ by up to an ulp of the product (2**-7 of it in bfloat16)."""
    if name not in _ALPHAS or not (a.size and b.size):
        return 0.0
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        return 0.0  # no half complex dtype
    terms = np.abs(np.concatenate([a.astype(np.float64).ravel(), (b.astype(np.float64) * _ALPHAS[name]).ravel()]))
    terms = terms[np.isfinite(terms)]
    return float(terms.max()) * 2.0**-7 if terms.size else 0.0


test_binary_matches_torch = binary_matches_torch(
    ["add", "sub", "mul"],
    {
        "add_alpha": (lambda a, b: ember.add(a, b, alpha=2), lambda a, b: torch.add(a, b, alpha=2)),
        "add_alpha_float": (lambda a, b: ember.add(a, b, alpha=0.5), lambda a, b: torch.add(a, b, alpha=0.5)),
        "sub_alpha": (lambda a, b: ember.sub(a, b, alpha=3), lambda a, b: torch.sub(a, b, alpha=3)),
    },
    half_atol=_alpha_rounding,
)
test_binary_scalar_matches_torch = binary_scalar_matches_torch(["add", "sub", "mul"])
test_operators_with_scalars_match_torch = operators_with_scalars_match_torch(
    {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}
)


@needs_torch
@pytest.mark.parametrize("op", ["-", "+"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_unary_operators_match_torch(op, dtype):
    check_unary_operator({"-": lambda x: -x, "+": lambda x: +x}[op], op, dtype)


@needs_torch
@pytest.mark.parametrize("op", ["+=", "-=", "*="])
@pytest.mark.parametrize("dtype", INPLACE_DTYPES)
@pytest.mark.parametrize("other", [2, 1.5, "tensor"])
def test_inplace_operators_match_torch(op, dtype, other):
    check_inplace_operator(op, dtype, other)


@needs_torch
@pytest.mark.parametrize("name", ["neg"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["add", "sub", "mul"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)


@needs_torch
@pytest.mark.parametrize("name", ["add", "mul"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_out_matches_torch(name, out_dtype):
    check_out(name, out_dtype)


@pytest.mark.parametrize("name", ["neg"])
@pytest.mark.parametrize("dtype", WIDE_UNSIGNED)
def test_unary_wide_unsigned_against_numpy(name, dtype):
    check_wide_unsigned_exact(name, dtype, lambda a: -a)


def test_positive_returns_input_and_refuses_bool():
    t = ember.tensor([1, -2])
    assert +t is t and ember.positive(t) is t
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        +ember.tensor([True])


def test_error_messages():
    f, i, b = ember.ones(2), ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.bool)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors is not supported"):
        b - b
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
        1 - b
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        -b
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating point number"):
        ember.add(i, i, alpha=0.5)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        ember.sub(f, f, alpha=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("alpha", [-0.01, 3, 2**40])
def test_add_alpha_in_place_with_aliasing(dtype, alpha):
    # an optimizer step's p.add_(g, alpha=-lr) has its own two-ufunc kernel for float32/float64;
    # writing into either operand (or both being one tensor) must give a + alpha * b
    rng = np.random.default_rng(3)
    a_np, b_np = rng.standard_normal((2, 5, 3)).astype(dtype)
    if dtype == "float16" and alpha == 2**40:  # past float16's range: refused, as in PyTorch
        with pytest.raises(RuntimeError, match=r"add.*cannot be converted to type ember.float16 without overflow"):
            ember.tensor(a_np).add_(ember.tensor(b_np), alpha=alpha)
        return
    scale = np.asarray(alpha).astype(dtype)
    expect = (a_np + b_np * scale).astype(dtype)
    a, b = ember.tensor(a_np), ember.tensor(b_np)
    a.add_(b, alpha=alpha)
    np.testing.assert_allclose(a.numpy(), expect, rtol=1e-3 if dtype == "float16" else 1e-6)
    a, b = ember.tensor(a_np), ember.tensor(b_np)
    ember.add(a, b, alpha=alpha, out=b)
    np.testing.assert_allclose(b.numpy(), expect, rtol=1e-3 if dtype == "float16" else 1e-6)
    a = ember.tensor(a_np)
    a.add_(a, alpha=alpha)
    np.testing.assert_allclose(a.numpy(), (a_np + a_np * scale).astype(dtype), rtol=1e-3 if dtype == "float16" else 1e-6)


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck({"neg": (lambda x: -x, -2, 2, [])})

BINARY = {
    "add": (lambda a, b: a + b, (-2, 2), (-2, 2)),
    "add_alpha": (lambda a, b: ember.add(a, b, alpha=2.5), (-2, 2), (-2, 2)),
    "sub": (lambda a, b: a - b, (-2, 2), (-2, 2)),
    "sub_alpha": (lambda a, b: ember.sub(a, b, alpha=0.5), (-2, 2), (-2, 2)),
    "mul": (lambda a, b: a * b, (-2, 2), (-2, 2)),
}
test_binary_gradcheck = binary_gradcheck(BINARY)
test_binary_broadcast_gradcheck = binary_broadcast_gradcheck(BINARY, ["add", "sub_alpha", "mul"])
test_scalar_gradcheck = scalar_gradcheck(
    {
        "add": (lambda x: x + 1.5, -2, 2, []),
        "sub": (lambda x: x - 1.5, -2, 2, []),
        "rsub": (lambda x: 1.5 - x, -2, 2, []),
        "mul": (lambda x: x * -1.5, -2, 2, []),
    }
)


def test_complex_binary_against_torch():
    torch = require_torch()
    rng = np.random.default_rng(16)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    compare_grads(lambda x, y: x * y, lambda x, y: x * y, [a, b], "complex")
    compare_grads(lambda x, y: ember.add(x, y, alpha=2 - 1j), lambda x, y: torch.add(x, y, alpha=2 - 1j), [a, b], "complex")
    compare_grads(lambda x: x * (1 + 2j), lambda x: x * (1 + 2j), [a], "complex")


@pytest.mark.parametrize("fn", [lambda x, y: x * y])
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))
