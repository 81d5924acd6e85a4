"""NaN and infinities through the softmax family, the probability losses and the activations
give PyTorch's results, forward and backward (NaN where PyTorch gives NaN).

Each case is checked against a NumPy/math reference (so the suite without torch still checks
it) and, where torch is installed, against torch itself.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from tests._oracle import needs_torch, torch

INF, NAN = math.inf, math.nan
# rows holding +inf, -inf, nan, all -inf and mixes, next to an ordinary row
ROWS = [[1.0, INF], [1.0, -INF], [1.0, NAN], [-INF, -INF], [INF, INF], [INF, -INF], [-INF, NAN], [1.0, 2.0]]


def _ref_log_softmax(row: np.ndarray) -> np.ndarray:
    """PyTorch's formula without masking: x - max - log(sum(exp(x - max)))."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        shifted = row - row.max()
        return shifted - np.log(np.exp(shifted).sum())


def _module(lib):
    return (ember, F) if lib == "ember" else (torch, torch.nn.functional)


SOFTMAX_FAMILY = {
    "softmax": lambda m, f, x: f.softmax(x, 1),
    "log_softmax": lambda m, f, x: f.log_softmax(x, 1),
    "softmin": lambda m, f, x: f.softmin(x, 1),
    "logsumexp": lambda m, f, x: m.logsumexp(x, 1),
    "cross_entropy": lambda m, f, x: f.cross_entropy(x, m.tensor([0, 1])),
    "cross_entropy_none": lambda m, f, x: f.cross_entropy(x, m.tensor([1, 0]), reduction="none"),
    "cross_entropy_smoothing": lambda m, f, x: f.cross_entropy(x, m.tensor([0, 1]), label_smoothing=0.1),
    "cross_entropy_probs": lambda m, f, x: f.cross_entropy(x, m.tensor([[0.3, 0.7], [1.0, 0.0]])),
    "nll_loss": lambda m, f, x: f.nll_loss(x, m.tensor([0, 1])),
    "kl_div": lambda m, f, x: f.kl_div(x, m.tensor([[0.0, 1.0], [0.5, 0.5]]), reduction="sum"),
    "kl_div_log_target": lambda m, f, x: f.kl_div(x, m.tensor([[-INF, 0.0], [0.0, 0.0]]), reduction="sum", log_target=True),
    "bce_with_logits": lambda m, f, x: f.binary_cross_entropy_with_logits(x, m.tensor([[0.0, 1.0], [1.0, 0.0]])),
    "bce_with_logits_pos_weight": lambda m, f, x: f.binary_cross_entropy_with_logits(
        x, m.tensor([[0.0, 1.0], [1.0, 0.0]]), pos_weight=m.tensor([2.0, 3.0])
    ),
    "gumbel_deterministic_part": lambda m, f, x: f.softmax(x / 0.5, 1),  # softmax((logits + 0) / tau)
}


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_log_softmax_of_a_row_with_infinities_is_nan_as_pytorch(row):
    x = ember.tensor([row, [0.0, 1.0]], dtype=ember.float64)
    got = F.log_softmax(x, 1).numpy()
    expected = np.stack([_ref_log_softmax(np.array(r)) for r in ([row, [0.0, 1.0]])])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_cross_entropy_fast_paths_agree_with_the_general_formula(row):
    """The fused mean kernel, the training loop's kernel (grad on) and the general path (label
    smoothing 0 through a weight of ones) give one answer, NaN included."""
    x = ember.tensor([row, [0.0, 1.0]], dtype=ember.float32)
    target = ember.tensor([0, 1])
    fused = F.cross_entropy(x, target).item()
    xg = x.clone().requires_grad_()
    trained = F.cross_entropy(xg, target)
    (grad,) = ember.autograd.grad(trained, [xg])
    general = F.cross_entropy(x, target, weight=ember.ones(2)).item()
    per_row = -np.array([_ref_log_softmax(np.array(r, np.float64))[t] for r, t in zip([row, [0.0, 1.0]], [0, 1], strict=True)])
    expected = per_row.mean()
    for value in (fused, trained.item(), general):
        assert math.isnan(value) == math.isnan(expected)
        if not math.isnan(expected):
            assert value == pytest.approx(expected, rel=1e-6)
    xc = x.clone().requires_grad_()  # create_graph: the composite derivative
    (grad_composite,) = ember.autograd.grad(F.cross_entropy(xc, target), [xc], create_graph=True)
    np.testing.assert_allclose(grad.numpy(), grad_composite.detach().numpy(), rtol=1e-6, equal_nan=True)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("row", ROWS, ids=str)
@pytest.mark.parametrize("name", sorted(SOFTMAX_FAMILY))
def test_softmax_family_matches_torch_forward_and_backward(name, row, dtype):
    fn = SOFTMAX_FAMILY[name]
    data = np.array([row, [0.0, 1.0]], dtype=dtype)
    results = []
    for lib in ("ember", "torch"):
        m, f = _module(lib)
        x = m.tensor(data, requires_grad=True)
        y = fn(m, f, x)
        y.sum().backward()
        results.append((np.asarray(y.detach().numpy(), np.float64), x.grad.numpy()))
    (ye, ge), (yt, gt) = results
    np.testing.assert_allclose(ye, yt, rtol=1e-5, atol=1e-6, equal_nan=True)
    np.testing.assert_allclose(ge, gt, rtol=1e-5, atol=1e-6, equal_nan=True)


@needs_torch
@pytest.mark.parametrize("masked", ["float", "bool"])
def test_attention_with_a_fully_masked_row_matches_torch(masked):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 2, 3, 4)).astype(np.float32) for _ in range(3))
    mask = np.zeros((3, 3), np.float32)
    mask[0, :] = -INF
    mask[1, 0] = -INF
    if masked == "bool":
        mask = mask == 0
    outs = []
    for lib in ("ember", "torch"):
        m, f = _module(lib)
        qs = [m.tensor(a, requires_grad=True) for a in (q, k, v)]
        y = f.scaled_dot_product_attention(*qs, attn_mask=m.tensor(mask))
        y.sum().backward()
        outs.append([y.detach().numpy()] + [a.grad.numpy() for a in qs])
    for a, b in zip(*outs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)


# --- binary cross entropy: NaN is outside [0, 1] -----------------------------------------------


@pytest.mark.parametrize(
    ("probs", "target", "argument"),
    [([NAN, 0.5], [1.0, 0.0], "input"), ([0.5, 0.5], [NAN, 0.0], "target"), ([0.5, 0.5], [1.5, 0.0], "target"),
     ([0.5, INF], [NAN, 0.0], "target"), ([NAN, 0.5], [NAN, 0.0], "input"), ([1.5, 0.5], [1.0, 0.0], "input")],
)  # fmt: skip
def test_binary_cross_entropy_refuses_nan_as_pytorch(probs, target, argument):
    with pytest.raises(RuntimeError, match=f"all elements of {argument} should be between 0 and 1"):
        F.binary_cross_entropy(ember.tensor(probs), ember.tensor(target))
    if torch is not None:
        with pytest.raises(RuntimeError, match=f"all elements of {argument} should be between 0 and 1"):
            torch.nn.functional.binary_cross_entropy(torch.tensor(probs), torch.tensor(target))


# --- activations: values and gradients at the special values ------------------------------------

VALUES = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e30, -1e30, 20.0, -20.0, 100.0, -100.0, -3.0, 3.0]

ACTIVATIONS = {
    "gelu": lambda m, f, x: f.gelu(x),
    "gelu_tanh": lambda m, f, x: f.gelu(x, approximate="tanh"),
    "silu": lambda m, f, x: f.silu(x),
    "softplus": lambda m, f, x: f.softplus(x),
    "softplus_beta_threshold": lambda m, f, x: f.softplus(x, beta=2.0, threshold=5.0),
    "mish": lambda m, f, x: f.mish(x),
    "elu": lambda m, f, x: f.elu(x),
    "selu": lambda m, f, x: f.selu(x),
    "celu": lambda m, f, x: f.celu(x),  # alpha=0.5 at NaN: PyTorch's gradient is NaN there, 1 with alpha=1
    "logsigmoid": lambda m, f, x: f.logsigmoid(x),
    "relu": lambda m, f, x: f.relu(x),
    "relu6": lambda m, f, x: f.relu6(x),
    "hardtanh": lambda m, f, x: f.hardtanh(x),
    "leaky_relu": lambda m, f, x: f.leaky_relu(x),
    "maximum": lambda m, f, x: m.maximum(x, m.zeros_like(x)),
    "minimum": lambda m, f, x: m.minimum(x, m.zeros_like(x)),
    "erf": lambda m, f, x: m.erf(x),
    "erfc": lambda m, f, x: m.erfc(x),
    "log1p": lambda m, f, x: m.log1p(x),
    "expm1": lambda m, f, x: m.expm1(x),
    "logaddexp": lambda m, f, x: m.logaddexp(x, m.zeros_like(x)),
    "nan_to_num": lambda m, f, x: m.nan_to_num(x),
    "clamp": lambda m, f, x: m.clamp(x, -1.0, 1.0),
}


@pytest.mark.parametrize(
    ("name", "expected_grad"),
    [("relu", 1.0), ("maximum", 1.0), ("minimum", 1.0), ("relu6", 0.0), ("hardtanh", 0.0)],
)
@pytest.mark.parametrize("create_graph", [False, True])
def test_the_gradient_at_nan_is_pytorchs(name, expected_grad, create_graph):
    """relu's backward tests 'y <= 0' and maximum's 'x < other': NaN is on the pass side; the
    clamps' keep-inside test puts it outside (PyTorch's vectorized kernels, 16 elements here)."""
    x = ember.full((16,), NAN, dtype=ember.float64, requires_grad=True)
    (grad,) = ember.autograd.grad(ACTIVATIONS[name](ember, F, x).sum(), [x], create_graph=create_graph)
    assert grad.tolist() == [expected_grad] * 16


def test_celu_of_a_large_input_is_the_input():
    x = ember.tensor([3e38, 1.0, -1.0])
    expected = [3e38, 1.0, 0.5 * math.expm1(-1.0 / 0.5)]
    np.testing.assert_allclose(F.celu(x, alpha=0.5).numpy(), np.float32(expected), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_hardswish_of_half_precision_computes_in_float32(dtype):
    """60000 * 6 overflows float16: PyTorch computes in float32 and gets 60000 back."""
    y = F.hardswish(ember.tensor([60000.0, -4.0, 1.0], dtype=getattr(ember, dtype)))
    assert y.dtype == getattr(ember, dtype)
    np.testing.assert_allclose(y.float().numpy(), [60000.0, 0.0, 1.0 * 4.0 / 6.0], rtol=1e-2)


def test_logsigmoid_of_inf_is_positive_zero():
    y = F.logsigmoid(ember.tensor([INF]))
    assert y.item() == 0.0 and not math.copysign(1.0, y.item()) < 0


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_matches_torch_at_special_values(name, dtype):
    fn = ACTIVATIONS[name]
    out = []
    for lib in ("ember", "torch"):
        m, f = _module(lib)
        x = m.tensor(VALUES, dtype=getattr(m, dtype), requires_grad=True)
        y = fn(m, f, x)
        assert str(y.dtype).rsplit(".", 1)[-1] == dtype
        y.sum().backward()
        out.append((y.detach().float().numpy().astype(np.float64), x.grad.float().numpy().astype(np.float64)))
    (ye, ge), (yt, gt) = out
    rtol = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-4, "float64": 1e-12}[dtype]  # PyTorch's float32 erf is approximate
    tiny = {"float16": 1e-7, "bfloat16": 1e-30, "float32": 1e-40, "float64": 1e-80}[dtype]  # denormal flush differences
    np.testing.assert_allclose(ye, yt, rtol=rtol, atol=tiny, equal_nan=True)
    if dtype == "float64":  # PyTorch's half-precision backward rounds differently; the rule is what matters
        np.testing.assert_allclose(ge, gt, rtol=rtol, atol=tiny, equal_nan=True)


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_graph_mode_cross_entropy_agrees_with_eager(row):
    """A Session runs the same kernels and differentiates the general formula: one answer."""
    from ember import graph as G  # graph mode sits above the ops this module tests

    data = np.array([row, [0.0, 1.0]], np.float32)
    target = np.array([0, 1])
    xe = ember.tensor(data, requires_grad=True)
    eager = F.cross_entropy(xe, ember.tensor(target))
    eager.backward()
    with G.Graph().as_default():
        x = G.placeholder(ember.float32, (2, 2))
        t = G.placeholder(ember.int64, (2,))
        loss = F.cross_entropy(x, t)
        (gx,) = G.gradients(loss, [x])
        with G.Session() as session:
            value, grad = session.run([loss, gx], {x: data, t: target})
    np.testing.assert_allclose(value, eager.item(), rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(grad, xe.grad.numpy(), rtol=1e-6, equal_nan=True)


# --- the sign of zero and the derivative at the infinities -----------------------------------

# (name, dtype, fn(module, functional, *tensors), inputs, expected): the expected bits by hand
SIGNED_ZEROS = [
    ("relu", "float32", lambda m, f, x: f.relu(x), [[-0.0, 0.0, -1.0, NAN]], [-0.0, 0.0, 0.0, NAN]),
    ("relu_f64", "float64", lambda m, f, x: f.relu(x), [[-0.0, -5.0]], [-0.0, 0.0]),
    ("relu6", "float32", lambda m, f, x: f.relu6(x), [[-0.0, 0.0, 7.0, -2.0]], [-0.0, 0.0, 6.0, 0.0]),
    ("hardtanh_zero_limits", "float64", lambda m, f, x: f.hardtanh(x, -0.0, 0.0), [[-0.0, 0.0, 3.0]], [-0.0, 0.0, 0.0]),
    ("clamp_min", "float32", lambda m, f, x: m.clamp(x, min=0.0), [[-0.0, 0.0, -1.0]], [-0.0, 0.0, 0.0]),
    ("clamp_max", "float64", lambda m, f, x: m.clamp(x, max=-0.0), [[-0.0, 0.0, 1.0]], [-0.0, 0.0, -0.0]),
    ("maximum", "float32", lambda m, f, a, b: m.maximum(a, b), [[0.0, -0.0, NAN, 1.0], [-0.0, 0.0, 1.0, NAN]], [0.0, -0.0, NAN, NAN]),
    ("minimum", "float64", lambda m, f, a, b: m.minimum(a, b), [[0.0, -0.0, NAN], [-0.0, 0.0, 1.0]], [0.0, -0.0, NAN]),
    ("fmax", "float64", lambda m, f, a, b: m.fmax(a, b), [[0.0, -0.0, NAN, 1.0, NAN], [-0.0, 0.0, 1.0, NAN, NAN]], [0.0, -0.0, 1.0, 1.0, NAN]),
    ("fmin", "float32", lambda m, f, a, b: m.fmin(a, b), [[0.0, -0.0, NAN, 1.0], [-0.0, 0.0, 1.0, NAN]], [0.0, -0.0, 1.0, 1.0]),
    ("fmax_bfloat16", "bfloat16", lambda m, f, a, b: m.fmax(a, b), [[1.0, NAN], [NAN, 2.0]], [1.0, 2.0]),
    ("remainder_inf", "float64", lambda m, f, a, b: m.remainder(a, b),
     [[-0.0, 0.0, 1.0, -1.0], [INF, -INF, INF, INF]], [-0.0, 0.0, 1.0, INF]),
    ("remainder_exact", "float32", lambda m, f, a, b: m.remainder(a, b), [[6.0, -6.0, -0.0], [-3.0, 3.0, 5.0]], [0.0, -0.0, -0.0]),
    ("remainder_scalar", "float32", lambda m, f, x: m.remainder(x, -INF), [[0.0, -0.0, 2.0]], [0.0, -0.0, -INF]),
    # PyTorch's float32 gelu cancels to +0.0 where the result is zero; float64 keeps -0.0
    ("gelu_float32", "float32", lambda m, f, x: f.gelu(x), [[-0.0, -20.0, -88.0, -INF, 0.0]], [0.0, 0.0, 0.0, NAN, 0.0]),
    ("gelu_float64", "float64", lambda m, f, x: f.gelu(x), [[-0.0, -100.0]], [-0.0, -0.0]),
    ("hardswish", "float32", lambda m, f, x: f.hardswish(x), [[INF, -INF, -3.0, -4.0, 3.0]], [INF, NAN, -0.0, -0.0, 3.0]),
]  # fmt: skip


def _bits(values: np.ndarray) -> tuple:
    """Values with the sign of each zero (NaN as NaN, its sign bit not compared)."""
    values = np.asarray(values, np.float64)
    return [("nan" if math.isnan(v) else (v, math.copysign(1.0, v))) for v in values.tolist()]


@pytest.mark.parametrize(("name", "dtype", "fn", "inputs", "expected"), SIGNED_ZEROS, ids=[c[0] for c in SIGNED_ZEROS])
def test_the_sign_of_zero_is_pytorchs(name, dtype, fn, inputs, expected):
    got = fn(ember, F, *[ember.tensor(v, dtype=getattr(ember, dtype)) for v in inputs]).float().numpy()
    assert _bits(got) == _bits(expected)
    if torch is not None:
        want = fn(torch, torch.nn.functional, *[torch.tensor(v, dtype=getattr(torch, dtype)) for v in inputs])
        assert _bits(got) == _bits(want.float().numpy())


@pytest.mark.parametrize("requires_grad", [False, True])
def test_hardswish_derivative_is_one_above_three_and_zero_below_minus_three(requires_grad):
    """The product x * relu6(x + 3) / 6 differentiates to inf * 0 = NaN at the infinities;
    PyTorch's derivative is 1 and 0 there (16 elements: NaN's derivative is NaN, PyTorch's
    vectorized kernel)."""
    values = [INF, -INF, 3.0, -3.0, 1e30, -1e30, 0.0, 1.5] + [NAN] * 8
    x = ember.tensor(values, requires_grad=True)
    y = F.hardswish(x)
    (grad,) = ember.autograd.grad(y.sum(), [x], create_graph=requires_grad)
    expected = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.5, 1.0] + [NAN] * 8  # x / 3 + 1/2 in between
    np.testing.assert_array_equal(grad.detach().numpy(), np.float32(expected))
    np.testing.assert_array_equal(y.detach().numpy(), F.hardswish(ember.tensor(values)).numpy())  # one forward
    if torch is not None:
        xt = torch.tensor(values, requires_grad=True)
        torch.nn.functional.hardswish(xt).sum().backward()
        np.testing.assert_array_equal(grad.detach().numpy(), xt.grad.numpy())


# add/sub/mul's fast paths keep NumPy's error state as it is (they are every model's hot path), so
# x - x or x * 0.0 at inf may still warn there; every other kernel is quiet
WARNING_FREE = {
    "sum": lambda m, x: m.sum(x),
    "mean": lambda m, x: m.mean(x),
    "prod": lambda m, x: m.prod(x),
    "cumsum": lambda m, x: m.cumsum(x, 0),
    "cumprod": lambda m, x: m.cumprod(x, 0),
    "add": lambda m, x: x + x.flip(0),
    "mul_overflow": lambda m, x: x * m.full_like(x, 1e30) * 1e30,
    "einsum": lambda m, x: m.einsum("i,i->", x, x.flip(0)),
    "cross": lambda m, x: m.linalg.cross(x[:3], x[:3].flip(0)),
    "outer": lambda m, x: m.outer(x, x),
}


@pytest.mark.parametrize("name", sorted(WARNING_FREE))
def test_no_numpy_warning_escapes_a_kernel_at_the_infinities(name):
    """inf + -inf, inf * 0 and overflow are NaN and inf without a word, as in PyTorch."""
    x = ember.tensor([INF, -INF, 0.0, NAN])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = WARNING_FREE[name](ember, x).detach().numpy()
    if torch is not None:
        want = WARNING_FREE[name](torch, torch.tensor([INF, -INF, 0.0, NAN])).detach().numpy()
        np.testing.assert_array_equal(got, want)
    assert np.isnan(got).any()
