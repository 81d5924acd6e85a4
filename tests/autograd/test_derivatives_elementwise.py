"""Derivatives of the elementwise, conversion and creation primitives: gradcheck against
finite differences (float64), PyTorch's gradients for a representative set (real and complex,
ties of maximum/minimum), and gradgradcheck for a few."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import grad, gradcheck, gradgradcheck

F64 = ember.float64


def leaf(a, dtype=F64):
    return ember.tensor(np.asarray(a), dtype=dtype, requires_grad=True)


def rand(shape, lo, hi, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def away_from(values, points, gap=0.15):
    """Push values off the kinks in ``points``."""
    values = np.array(values, dtype=np.float64)
    for p in points:
        near = np.abs(values - p) < gap
        values[near] = p + np.where(values[near] >= p, gap, -gap)
    return values


SHAPE = (2, 3)

# name -> (function, low, high, kinks to avoid)
UNARY = {
    "abs": (lambda x: x.abs(), -2, 2, [0]),
    "neg": (lambda x: -x, -2, 2, []),
    "sqrt": (lambda x: x.sqrt(), 0.5, 2, []),
    "rsqrt": (lambda x: x.rsqrt(), 0.5, 2, []),
    "square": (lambda x: x.square(), -2, 2, []),
    "exp": (lambda x: x.exp(), -1, 1, []),
    "exp2": (lambda x: x.exp2(), -1, 1, []),
    "expm1": (lambda x: x.expm1(), -1, 1, []),
    "log": (lambda x: x.log(), 0.5, 2, []),
    "log2": (lambda x: x.log2(), 0.5, 2, []),
    "log10": (lambda x: x.log10(), 0.5, 2, []),
    "log1p": (lambda x: x.log1p(), -0.5, 2, []),
    "sin": (lambda x: x.sin(), -2, 2, []),
    "cos": (lambda x: x.cos(), -2, 2, []),
    "tan": (lambda x: x.tan(), -1, 1, []),
    "asin": (lambda x: x.asin(), -0.8, 0.8, []),
    "acos": (lambda x: x.acos(), -0.8, 0.8, []),
    "atan": (lambda x: x.atan(), -2, 2, []),
    "sinh": (lambda x: x.sinh(), -2, 2, []),
    "cosh": (lambda x: x.cosh(), -2, 2, []),
    "tanh": (lambda x: x.tanh(), -2, 2, []),
    "asinh": (lambda x: x.asinh(), -2, 2, []),
    "acosh": (lambda x: x.acosh(), 1.5, 3, []),
    "atanh": (lambda x: x.atanh(), -0.8, 0.8, []),
    "sigmoid": (lambda x: x.sigmoid(), -3, 3, []),
    "erf": (lambda x: ember.erf(x), -2, 2, []),
    "erfc": (lambda x: ember.erfc(x), -2, 2, []),
    "reciprocal": (lambda x: x.reciprocal(), 0.5, 2, []),
    "frac": (lambda x: ember.frac(x), -2.4, 2.4, [-2, -1, 0, 1, 2]),
    "floor": (lambda x: x.floor(), -2.4, 2.4, [-2, -1, 0, 1, 2]),
    "ceil": (lambda x: x.ceil(), -2.4, 2.4, [-2, -1, 0, 1, 2]),
    "trunc": (lambda x: x.trunc(), -2.4, 2.4, [-2, -1, 0, 1, 2]),
    "round": (lambda x: x.round(), -2.4, 2.4, [-1.5, -0.5, 0.5, 1.5]),
    "round_decimals": (lambda x: ember.round(x, decimals=1), -2, 2, list(np.arange(-2, 2, 0.1) + 0.05)),
    "sign": (lambda x: x.sign(), -2, 2, [0]),
    "sgn": (lambda x: x.sgn(), -2, 2, [0]),
    "relu": (lambda x: x.relu(), -2, 2, [0]),
    "gelu": (lambda x: ember.nn.functional.gelu(x), -3, 3, []),
    "gelu_tanh": (lambda x: ember.nn.functional.gelu(x, approximate="tanh"), -3, 3, []),
    "silu": (lambda x: ember.nn.functional.silu(x), -3, 3, []),
    "softplus": (lambda x: ember.nn.functional.softplus(x, beta=2.0, threshold=3.0), -3, 3, [1.5]),
    "elu": (lambda x: ember.nn.functional.elu(x, alpha=0.7), -2, 2, [0]),
    "leaky_relu": (lambda x: ember.nn.functional.leaky_relu(x, 0.1), -2, 2, [0]),
    "hardtanh": (lambda x: ember.nn.functional.hardtanh(x, -1.0, 0.5), -2, 2, [-1, 0.5]),
    "clamp": (lambda x: x.clamp(-0.5, 1.0), -2, 2, [-0.5, 1]),
    "clamp_min": (lambda x: x.clamp(min=-0.5), -2, 2, [-0.5]),
    "clamp_max": (lambda x: x.clamp(max=0.5), -2, 2, [0.5]),
    "nan_to_num": (lambda x: ember.nan_to_num(x), -2, 2, []),
    "conj_physical": (lambda x: ember.conj_physical(x), -2, 2, []),
    "angle": (lambda x: ember.angle(x), -2, 2, [0]),
}


def _nn_available():
    try:
        import ember.nn.functional  # noqa: F401
    except Exception:
        return False
    return True


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck(name):
    fn, lo, hi, kinks = UNARY[name]
    if name in ("gelu", "gelu_tanh", "silu", "softplus", "elu", "leaky_relu", "hardtanh") and not _nn_available():
        pytest.skip("ember.nn.functional is not importable")
    x = leaf(away_from(rand(SHAPE, lo, hi, seed=len(name)), kinks))
    assert gradcheck(fn, (x,))


def test_rounding_gives_zeros():
    x = leaf([0.3, 1.7, -2.2])
    for fn in (ember.floor, ember.ceil, ember.trunc, ember.round, ember.sign, ember.sgn):
        (g,) = grad(fn(x), x, ember.ones(3, dtype=F64))
        assert g.tolist() == [0.0, 0.0, 0.0]


def test_clamp_keeps_gradient_at_the_bounds():
    x = leaf([-1.0, 0.0, 1.0, 2.0])
    (g,) = grad(x.clamp(-1.0, 1.0), x, ember.ones(4, dtype=F64))
    assert g.tolist() == [1.0, 1.0, 1.0, 0.0]


def test_nan_to_num_zero_where_replaced():
    x = leaf([1.0, float("nan"), float("inf"), -float("inf")])
    (g,) = grad(ember.nan_to_num(x), x, ember.ones(4, dtype=F64))
    assert g.tolist() == [1.0, 0.0, 0.0, 0.0]


# --- binary -----------------------------------------------------------------------------------

BINARY = {
    "add": (lambda a, b: a + b, (-2, 2), (-2, 2)),
    "add_alpha": (lambda a, b: ember.add(a, b, alpha=2.5), (-2, 2), (-2, 2)),
    "sub": (lambda a, b: a - b, (-2, 2), (-2, 2)),
    "sub_alpha": (lambda a, b: ember.sub(a, b, alpha=0.5), (-2, 2), (-2, 2)),
    "mul": (lambda a, b: a * b, (-2, 2), (-2, 2)),
    "div": (lambda a, b: a / b, (-2, 2), (0.5, 2)),
    "pow": (lambda a, b: a**b, (0.5, 2), (-2, 2)),
    "maximum": (lambda a, b: ember.maximum(a, b), (-2, 2), (-2, 2)),
    "minimum": (lambda a, b: ember.minimum(a, b), (-2, 2), (-2, 2)),
    "fmax": (lambda a, b: ember.fmax(a, b), (-2, 2), (-2, 2)),
    "fmin": (lambda a, b: ember.fmin(a, b), (-2, 2), (-2, 2)),
    "atan2": (lambda a, b: ember.atan2(a, b), (-2, 2), (0.5, 2)),
    "hypot": (lambda a, b: ember.hypot(a, b), (0.5, 2), (-2, 2)),
    "logaddexp": (lambda a, b: ember.logaddexp(a, b), (-2, 2), (-2, 2)),
    "copysign": (lambda a, b: ember.copysign(a, b), (0.3, 2), (-2, 2)),
    "remainder": (lambda a, b: ember.remainder(a, b), (-3, 3), (0.7, 1.3)),
    "fmod": (lambda a, b: ember.fmod(a, b), (-3, 3), (0.7, 1.3)),
    "div_trunc": (lambda a, b: ember.div(a, b, rounding_mode="trunc"), (-3, 3), (0.7, 1.3)),
    "floor_divide": (lambda a, b: ember.floor_divide(a, b), (-3, 3), (0.7, 1.3)),
}


def _pair(name, shape_a, shape_b):
    _, (alo, ahi), (blo, bhi) = BINARY[name]
    a = rand(shape_a, alo, ahi, seed=1)
    b = rand(shape_b, blo, bhi, seed=2)
    if name in ("remainder", "fmod", "div_trunc", "floor_divide"):
        # keep a / b off the integers, where the result jumps
        q = a / b
        a = np.where(np.abs(q - np.round(q)) < 0.1, a + 0.25 * b, a)
    if name in ("maximum", "minimum", "fmax", "fmin") and a.shape == b.shape:
        b = np.where(np.abs(a - b) < 0.2, b + 0.5, b)
    if name == "copysign":
        b = away_from(b, [0])
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck(name):
    fn = BINARY[name][0]
    a, b = _pair(name, SHAPE, SHAPE)
    assert gradcheck(fn, (leaf(a), leaf(b)))


@pytest.mark.parametrize("name", ["add", "sub_alpha", "mul", "div", "pow", "atan2", "hypot", "logaddexp", "maximum"])
def test_binary_broadcast_gradcheck(name):
    fn = BINARY[name][0]
    a, b = _pair(name, SHAPE, (3,))
    assert gradcheck(fn, (leaf(a), leaf(b)))
    assert gradcheck(fn, (leaf(a[:1]), leaf(b.reshape(1, 3) * np.ones((2, 1)))))  # the first input broadcast


SCALAR = {
    "add": (lambda x: x + 1.5, -2, 2),
    "sub": (lambda x: x - 1.5, -2, 2),
    "rsub": (lambda x: 1.5 - x, -2, 2),
    "mul": (lambda x: x * -1.5, -2, 2),
    "div": (lambda x: x / 1.5, -2, 2),
    "rdiv": (lambda x: 1.5 / x, 0.5, 2),
    "pow": (lambda x: x**2.5, 0.5, 2),
    "pow_int": (lambda x: x**3, -2, 2),
    "pow_zero": (lambda x: x**0, -2, 2),
    "pow_scalar_base": (lambda x: 2.0**x, -2, 2),
    "maximum": (lambda x: ember.maximum(x, 0.25), -2, 2),
    "minimum": (lambda x: ember.minimum(x, 0.25), -2, 2),
    "fmax": (lambda x: ember.fmax(x, 0.25), -2, 2),
    "fmin": (lambda x: ember.fmin(x, 0.25), -2, 2),
    "atan2": (lambda x: ember.atan2(x, 0.7), -2, 2),
    "hypot": (lambda x: ember.hypot(x, 0.7), -2, 2),
    "logaddexp": (lambda x: ember.logaddexp(x, 0.7), -2, 2),
    "copysign": (lambda x: ember.copysign(x, -1.0), 0.3, 2),
    "remainder": (lambda x: ember.remainder(x, 1.1), -2, 2),
    "fmod": (lambda x: ember.fmod(x, 1.1), -2, 2),
    "div_trunc": (lambda x: ember.div(x, 1.1, rounding_mode="trunc"), -2, 2),
    "floor_divide": (lambda x: ember.floor_divide(x, 1.1), -2, 2),
    "lerp_scalar": (lambda x: ember.lerp(x, x * x, 0.3), -2, 2),
}


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_scalar_gradcheck(name):
    fn, lo, hi = SCALAR[name]
    x = rand(SHAPE, lo, hi, seed=3)
    if name in ("maximum", "minimum", "fmax", "fmin"):
        x = away_from(x, [0.25])
    if name in ("remainder", "fmod", "div_trunc", "floor_divide"):
        x = away_from(x, [-2.2, -1.1, 0, 1.1, 2.2])
    assert gradcheck(fn, (leaf(x),))


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


def test_integer_input_gets_no_gradient():
    x = leaf([1.5, 2.0])
    n = ember.tensor([2, 3])
    y = x**n
    (g,) = grad(y, x, ember.ones(2, dtype=F64))
    assert np.allclose(g.numpy(), [3.0, 12.0])


def test_mixed_dtypes_cast_gradients_back():
    a = leaf([1.0, 2.0], dtype=ember.float32)
    b = leaf([3.0, 4.0])
    ga, gb = grad(a * b, (a, b), ember.ones(2, dtype=F64))
    assert ga.dtype is ember.float32 and gb.dtype is F64
    assert ga.tolist() == [3.0, 4.0]


# --- real / imag / complex ----------------------------------------------------------------------


def test_real_imag_views():
    z = leaf([1 + 2j, 3 - 1j], dtype=ember.complex128)
    (g,) = grad(ember.real(z), z, ember.tensor([1.0, 2.0], dtype=F64))
    assert g.dtype is ember.complex128 and g.tolist() == [1 + 0j, 2 + 0j]
    (g,) = grad(ember.imag(z), z, ember.tensor([1.0, 2.0], dtype=F64))
    assert g.tolist() == [1j, 2j]


# --- conversion and creation ---------------------------------------------------------------------


def test_to_copy_converts_back():
    x = leaf([1.0, 2.0])
    y = x.to(ember.float32)
    assert y.grad_fn is not None
    (g,) = grad(y * 3, x, ember.ones(2, dtype=ember.float32))
    assert g.dtype is F64 and g.tolist() == [3.0, 3.0]
    z = leaf([1.0, -2.0])
    c = z.to(ember.complex128)
    (g,) = grad(c, z, ember.tensor([1 + 5j, 2 - 1j], dtype=ember.complex128))
    assert g.dtype is F64 and g.tolist() == [1.0, 2.0]
    assert gradcheck(lambda t: t.clone() * t, (leaf([0.5, 1.5]),))


def test_copy_grad_to_src():
    src = leaf(rand((3,), -1, 1, 8))
    assert gradcheck(lambda s: ember.zeros(SHAPE, dtype=F64).copy_(s), (src,))
    src32 = leaf([1.0, 2.0, 3.0], dtype=ember.float32)
    a = leaf(rand(SHAPE, -1, 1, 9))
    dst = a * 2
    dst.copy_(src32)
    ga, gs = grad(dst, (a, src32), ember.ones(SHAPE, dtype=F64))
    assert ga.tolist() == [[0.0] * 3] * 2
    assert gs.dtype is ember.float32 and gs.tolist() == [2.0, 2.0, 2.0]


def test_detach_is_cut():
    x = leaf([1.0])
    assert not x.detach().requires_grad


def test_permuted_clone_goes_through_copy():
    # a transposed leaf: clone keeps its layout, so it allocates that layout and copy_s into it
    x = ember.tensor(rand((3, 2), -1, 1, 10), dtype=F64).t().detach().requires_grad_()
    assert not x.is_contiguous()
    y = x.clone()
    assert y.grad_fn.name() == "CopyBackward0"
    assert gradcheck(lambda t: t.clone() * t, (x,))


# --- against PyTorch ------------------------------------------------------------------------------


def _torch_grads(tfn, arrays, gout):
    torch = pytest.importorskip("torch")
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = tfn(*ts)
    gs = torch.autograd.grad(out, ts, torch.tensor(gout), allow_unused=True)
    return [None if g is None else g.numpy() for g in gs]


def _ember_grads(efn, arrays, gout):
    ts = [ember.tensor(a, requires_grad=True) for a in arrays]
    out = efn(*ts)
    gs = grad(out, ts, ember.tensor(gout), allow_unused=True)
    return [None if g is None else g.numpy() for g in gs]


def _compare(efn, tfn, arrays, out_dtype=None, seed=11):
    pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    complex_out = out_dtype == "complex"
    gout = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if complex_out else 0)
    for e, t in zip(_ember_grads(efn, arrays, gout), _torch_grads(tfn, arrays, gout), strict=True):
        assert e is not None and t is not None
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


REAL_TORCH = {
    "gelu": (lambda x: ember.nn.functional.gelu(x), "gelu"),
    "gelu_tanh": (lambda x: ember.nn.functional.gelu(x, approximate="tanh"), "gelu_tanh"),
    "softplus": (lambda x: ember.nn.functional.softplus(x, beta=2.0, threshold=3.0), "softplus"),
    "elu": (lambda x: ember.nn.functional.elu(x, alpha=0.7), "elu"),
    "hardtanh": (lambda x: ember.nn.functional.hardtanh(x, -1.0, 0.5), "hardtanh"),
    "erfc": (lambda x: ember.erfc(x), "erfc"),
    "acosh": (lambda x: (x.abs() + 1.2).acosh(), "acosh"),
}


@pytest.mark.parametrize("name", sorted(REAL_TORCH))
def test_unary_against_torch(name):
    torch = pytest.importorskip("torch")
    tfns = {
        "gelu": lambda x: torch.nn.functional.gelu(x),
        "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
        "softplus": lambda x: torch.nn.functional.softplus(x, beta=2.0, threshold=3.0),
        "elu": lambda x: torch.nn.functional.elu(x, alpha=0.7),
        "hardtanh": lambda x: torch.nn.functional.hardtanh(x, -1.0, 0.5),
        "erfc": torch.erfc,
        "acosh": lambda x: (x.abs() + 1.2).acosh(),
    }
    if not _nn_available():
        pytest.skip("ember.nn.functional is not importable")
    x = away_from(rand((7,), -3, 3, seed=12), [0, -1, 0.5, 1.5])
    _compare(REAL_TORCH[name][0], tfns[name], [x])


def test_ties_split_like_torch():
    torch = pytest.importorskip("torch")
    a = np.array([1.0, 2.0, 3.0, -1.0])
    b = np.array([1.0, 0.0, 3.0, 5.0])
    for e, t in ((ember.maximum, torch.maximum), (ember.minimum, torch.minimum), (ember.fmax, torch.fmax), (ember.fmin, torch.fmin)):
        _compare(e, t, [a, b])
    _compare(lambda x, y: x.clamp(-1.0, 3.0) * y, lambda x, y: x.clamp(-1.0, 3.0) * y, [a, b])


def test_binary_against_torch():
    pytest.importorskip("torch")
    a = rand((2, 3), 0.5, 2, 13)
    b = rand((3,), -2, 2, 14)
    _compare(lambda x, y: x**y, lambda x, y: x**y, [a, b])
    _compare(lambda x, y: ember.remainder(x, y), lambda x, y: x.remainder(y), [a * 3, b])
    _compare(lambda x, y: ember.fmod(x, y), lambda x, y: x.fmod(y), [a * 3, b])
    _compare(lambda x, y: ember.copysign(x, y), lambda x, y: x.copysign(y), [a, b])
    _compare(lambda x, y: ember.atan2(x, y), lambda x, y: x.atan2(y), [a, b])
    z = np.array([0.0, 0.0, 2.0])
    _compare(lambda x, y: x**y, lambda x, y: x**y, [z, np.array([2.0, 0.0, 0.5])])


COMPLEX = {
    "exp": lambda m: m.exp, "log": lambda m: m.log, "sqrt": lambda m: m.sqrt, "rsqrt": lambda m: m.rsqrt,
    "sin": lambda m: m.sin, "cos": lambda m: m.cos, "tan": lambda m: m.tan, "tanh": lambda m: m.tanh,
    "sigmoid": lambda m: m.sigmoid, "reciprocal": lambda m: m.reciprocal, "asin": lambda m: m.asin,
    "acos": lambda m: m.acos, "atan": lambda m: m.atan, "asinh": lambda m: m.asinh, "acosh": lambda m: m.acosh,
    "atanh": lambda m: m.atanh, "sinh": lambda m: m.sinh, "cosh": lambda m: m.cosh, "log2": lambda m: m.log2,
    "log10": lambda m: m.log10, "log1p": lambda m: m.log1p, "expm1": lambda m: m.expm1, "exp2": lambda m: m.exp2,
    "square": lambda m: m.square, "sgn": lambda m: m.sgn, "conj_physical": lambda m: m.conj_physical,
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_unary_against_torch(name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(15)
    z = rng.uniform(-0.8, 0.8, 5) + 1j * rng.uniform(-0.8, 0.8, 5)
    _compare(COMPLEX[name](ember), COMPLEX[name](torch), [z], "complex")


def test_complex_to_real_against_torch():
    torch = pytest.importorskip("torch")
    z = np.array([1 + 2j, -3 + 0.5j, 0.2 - 1j])
    for name in ("abs", "angle", "real", "imag"):
        _compare(getattr(ember, name), getattr(torch, name), [z])


def test_complex_binary_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(16)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    _compare(lambda x, y: x * y, lambda x, y: x * y, [a, b], "complex")
    _compare(lambda x, y: x / y, lambda x, y: x / y, [a, b], "complex")
    _compare(lambda x, y: x**y, lambda x, y: x**y, [a, b], "complex")
    _compare(lambda x, y: ember.add(x, y, alpha=2 - 1j), lambda x, y: torch.add(x, y, alpha=2 - 1j), [a, b], "complex")
    _compare(lambda x: x * (1 + 2j), lambda x: x * (1 + 2j), [a], "complex")
    _compare(lambda x: x / (1 + 2j), lambda x: x / (1 + 2j), [a], "complex")
    _compare(lambda x, y: ember.lerp(x, y, 0.3 + 0.2j), lambda x, y: torch.lerp(x, y, 0.3 + 0.2j), [a, b], "complex")
    _compare(lambda x, y: ember.logaddexp(x, y), lambda x, y: torch.logaddexp(x, y), [a * 0.3, b * 0.3], "complex")


# --- second order -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: x * y,
        lambda x, y: x / y,
        lambda x, y: x**y,
        lambda x, y: ember.atan2(x, y),
        lambda x, y: ember.hypot(x, y),
        lambda x, y: ember.logaddexp(x, y),
        lambda x, y: ember.lerp(x, y, 0.3) * x,
        lambda x, y: x.tanh() * y.sigmoid(),
        lambda x, y: x.sin().exp() + y.log1p().sqrt(),
        lambda x, y: ember.where(x > 1.2, x.square(), y.reciprocal()),
    ],
)
def test_gradgradcheck(fn):
    a = leaf(rand((4,), 0.5, 2, 17))
    b = leaf(rand((4,), 0.5, 2, 18))
    assert gradgradcheck(fn, (a, b))


def test_gradgradcheck_activations():
    if not _nn_available():
        pytest.skip("ember.nn.functional is not importable")
    f = ember.nn.functional
    x = leaf(away_from(rand((5,), -2, 2, 19), [0]))
    for fn in (f.gelu, lambda t: f.gelu(t, approximate="tanh"), f.silu, lambda t: f.elu(t, alpha=0.7), f.softplus, lambda t: t.erf()):
        assert gradgradcheck(fn, (x,))
