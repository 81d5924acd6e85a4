"""Elementwise ops (unary, binary, where/lerp/isclose...) against PyTorch and NumPy.

PyTorch is the oracle for result dtypes, values and which inputs are refused; every op runs
on hypothesis-drawn shapes (0-d, empty, broadcast) and dtypes, contiguous or not. Tests that
need no oracle (errors, in-place, operators, erf's accuracy) run without torch as well.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

# dtypes that both ember and torch compute with (torch lacks most kernels for uint16/32/64)
TORCH_DTYPES = (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
ALL_DTYPES = (*TORCH_DTYPES, "uint16", "uint32", "uint64")
REFUSALS = (TypeError, RuntimeError, ValueError, NotImplementedError)


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _values(rng: np.random.Generator, shape: tuple, dtype: str, *, special: bool = True, positive: bool = False) -> np.ndarray:
    """Random values of ``dtype``: small integers; floats in [-3, 3] with some nan, inf, -0.0."""
    n = math.prod(shape)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.startswith("uint"):
        return rng.integers(0, 8, n).astype(dtype).reshape(shape)
    if dtype.startswith("int"):
        return rng.integers(1 if positive else -6, 7, n).astype(dtype).reshape(shape)
    real = rng.uniform(0.1 if positive else -3, 3, n)
    if special and not dtype.startswith("complex") and n:
        picks = rng.random(n)
        real = np.where(picks < 0.05, np.nan, real)
        real = np.where((picks >= 0.05) & (picks < 0.08), np.inf, real)
        real = np.where((picks >= 0.08) & (picks < 0.11), -np.inf, real)
        real = np.where((picks >= 0.11) & (picks < 0.14), -0.0, real)
        real = np.where((picks >= 0.14) & (picks < 0.2), np.round(real), real)
    if dtype.startswith("complex"):
        real = real + 1j * rng.uniform(-3, 3, n)
    return real.astype(_np_dtype(dtype)).reshape(shape)


@st.composite
def _shapes(draw, count: int = 1):
    """``count`` broadcast-compatible shapes (the later ones may drop leading dims or have 1s)."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    shapes = [shape]
    for _ in range(count - 1):
        s = shape
        if s and draw(st.booleans()):
            s = tuple(1 if draw(st.booleans()) else d for d in s)[draw(st.integers(0, len(s))) :]
        shapes.append(s)
    if count > 1 and draw(st.booleans()):
        shapes = shapes[::-1]
    return shapes


def _make(array: np.ndarray, layout: str):
    """An ember tensor and a torch tensor holding ``array``, in the same (maybe strided) layout."""
    if layout == "transposed" and array.ndim >= 2:
        base = np.ascontiguousarray(np.swapaxes(array, 0, 1))
        e = ember.from_numpy(base.copy()).transpose(0, 1)
        t = _to_torch(base).transpose(0, 1) if torch is not None else None
        return e, t
    if layout == "strided" and array.ndim >= 1:
        big = np.repeat(array, 2, axis=-1)
        e = ember.from_numpy(big.copy())[..., ::2]
        t = _to_torch(big)[..., ::2] if torch is not None else None
        return e, t
    return ember.from_numpy(array.copy()), (_to_torch(array) if torch is not None else None)


def _to_torch(array: np.ndarray):
    if array.dtype == np.dtype(ml_dtypes.bfloat16):
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(array.copy())


def _from_torch(t) -> np.ndarray:
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


TOL = {
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 1e-2),
    "float32": (3e-5, 1e-6),
    "float64": (1e-10, 1e-12),
    "complex64": (3e-5, 1e-5),
    "complex128": (1e-10, 1e-12),
}


def assert_matches(result, expected, what: str = "", *, half_atol: float = 0.0) -> None:
    """ember ``result`` equals torch ``expected``: shape, dtype, values (NaN where NaN);
    ``half_atol`` widens float16's and bfloat16's absolute tolerance (never narrows it)."""
    assert isinstance(result, ember.Tensor), what
    assert tuple(result.shape) == tuple(expected.shape), f"{what}: shape {tuple(result.shape)} vs {tuple(expected.shape)}"
    want_dtype = str(expected.dtype).removeprefix("torch.")
    assert result.dtype.name == want_dtype, f"{what}: dtype {result.dtype.name} vs torch {want_dtype}"
    got, want = result.numpy(), _from_torch(expected)
    if want_dtype in TOL:
        rtol, atol = TOL[want_dtype]
        if want_dtype in ("float16", "bfloat16"):
            atol = max(atol, half_atol)
        got64 = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
        want64 = want.astype(got64.dtype)
        np.testing.assert_allclose(got64, want64, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _no_zero_dim_priority(*tensors):
    """torch lets a 0-d tensor's dtype count for less than an n-d one's; ember promotes by dtype
    alone (the array API rule). A 0-d torch operand next to an n-d one becomes shape (1,),
    which broadcasts to the same result."""
    if any(t.ndim for t in tensors):
        return tuple(t.reshape(1) if t.ndim == 0 else t for t in tensors)
    return tensors


def _both(fe, ft, what, *, empty: bool = False, half_atol: float = 0.0):
    """Run torch and ember; both refuse, or both give the same result. (torch looks for a
    dtype's kernel only when there are elements: on ``empty`` inputs ember may refuse alone.)"""
    try:
        expected = ft()
    except REFUSALS:
        with pytest.raises(REFUSALS):
            fe()
        return
    if empty:
        try:
            result = fe()
        except TypeError:
            return
    else:
        result = fe()
    assert_matches(result, expected, what, half_atol=half_atol)


# ---------------------------------------------------------------------------------------
# unary ops against torch

F = torch.nn.functional if torch is not None else None
UNARY_SIMPLE = (
    "abs", "neg", "sign", "sgn", "sqrt", "rsqrt", "square", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin",
    "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc",
    "floor", "ceil", "round", "trunc", "frac", "reciprocal", "isnan", "isinf", "isfinite", "logical_not", "bitwise_not",
    "angle", "positive", "signbit", "nan_to_num", "conj_physical", "relu",
)  # fmt: skip


def _opmath(fn, x, **kwargs):
    """torch's float16/bfloat16 kernel of ``fn`` evaluated in float32 (its bfloat16 gelu turns
    inf into NaN; ember computes the low-precision floats in float32 and rounds once)."""
    if x.dtype in (torch.float16, torch.bfloat16):
        return fn(x.float(), **kwargs).to(x.dtype)
    return fn(x, **kwargs)


# name -> (ember call, torch call): ops with parameters or living in torch.nn.functional
UNARY_CUSTOM = {
    "gelu": (lambda x: ember.gelu(x), lambda x: _opmath(F.gelu, x)),
    "gelu_tanh": (lambda x: ember.gelu(x, approximate="tanh"), lambda x: _opmath(F.gelu, x, approximate="tanh")),
    "silu": (lambda x: ember.silu(x), lambda x: F.silu(x)),
    "softplus": (lambda x: ember.softplus(x), lambda x: F.softplus(x)),
    "softplus_beta": (lambda x: ember.softplus(x, beta=2, threshold=1), lambda x: F.softplus(x, beta=2, threshold=1)),
    "elu": (lambda x: ember.elu(x, 0.5), lambda x: F.elu(x, 0.5)),
    "leaky_relu": (lambda x: ember.leaky_relu(x, 0.2), lambda x: F.leaky_relu(x, 0.2)),
    "hardtanh": (lambda x: ember.hardtanh(x, -0.5, 2.0), lambda x: F.hardtanh(x, -0.5, 2.0)),
    "round_decimals": (lambda x: ember.round(x, decimals=1), lambda x: torch.round(x, decimals=1)),
    "nan_to_num_args": (lambda x: ember.nan_to_num(x, 1.0, 2.0, -2.0), lambda x: torch.nan_to_num(x, 1.0, 2.0, -2.0)),
    "clamp": (lambda x: ember.clamp(x, -1, 2), lambda x: torch.clamp(x, -1, 2)),
    "clamp_float": (lambda x: ember.clamp(x, min=0.5), lambda x: torch.clamp(x, min=0.5)),
    "clamp_max": (lambda x: ember.clamp(x, max=1), lambda x: torch.clamp(x, max=1)),
    "conj": (lambda x: ember.conj(x), lambda x: torch.conj(x).resolve_conj()),
    "real": (lambda x: ember.real(x), lambda x: torch.real(x)),
    "imag": (lambda x: ember.imag(x), lambda x: torch.imag(x)),
}


@needs_torch
@pytest.mark.parametrize("name", [*UNARY_SIMPLE, *UNARY_CUSTOM])
@settings(max_examples=15, deadline=None)
@given(
    dtype=st.sampled_from(TORCH_DTYPES),
    shapes=_shapes(),
    layout=st.sampled_from(["plain", "transposed", "strided"]),
    seed=st.integers(0, 2**16),
)
def test_unary_matches_torch(name, dtype, shapes, layout, seed):
    # torch's vectorized gelu turns +-inf into NaN (its scalar path does not): no infinities there
    array = _values(np.random.default_rng(seed), shapes[0], dtype, special=not name.startswith("gelu"))
    e, t = _make(array, layout)
    if name in UNARY_CUSTOM:
        fe, ft = UNARY_CUSTOM[name]
    else:
        fe, ft = getattr(ember, name), getattr(torch, name)
    _both(lambda: fe(e), lambda: ft(t), f"{name}({dtype}{list(array.shape)})", empty=array.size == 0)


@pytest.mark.parametrize(
    "name", ["sqrt", "exp", "sigmoid", "erf", "abs", "floor", "neg", "sign", "square", "isnan", "bitwise_not"]
)
@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_unary_wide_unsigned_against_numpy(name, dtype):
    array = np.array([0, 1, 5, 200], dtype=dtype)
    result = getattr(ember, name)(ember.from_numpy(array))
    float_fn = {
        "sqrt": np.sqrt,
        "exp": np.exp,
        "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
        "erf": lambda a: np.array([math.erf(v) for v in a]),
    }
    if name in float_fn:
        assert result.dtype is ember.float32
        with np.errstate(over="ignore"):
            expected = float_fn[name](array.astype(np.float64)).astype(np.float32)
        np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)
        return
    expected = {
        "abs": array, "floor": array, "neg": -array, "sign": np.sign(array), "square": array * array,
        "isnan": np.zeros(4, bool), "bitwise_not": ~array,
    }[name]  # fmt: skip
    assert result.dtype.name == expected.dtype.name
    np.testing.assert_array_equal(result.numpy(), expected)


# ---------------------------------------------------------------------------------------
# binary ops against torch

BINARY = (
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "maximum", "minimum", "fmax",
    "fmin", "atan2", "hypot", "logaddexp", "copysign", "nextafter", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
)  # fmt: skip
BINARY_CUSTOM = {
    "add_alpha": (lambda a, b: ember.add(a, b, alpha=2), lambda a, b: torch.add(a, b, alpha=2)),
    "add_alpha_float": (lambda a, b: ember.add(a, b, alpha=0.5), lambda a, b: torch.add(a, b, alpha=0.5)),
    "sub_alpha": (lambda a, b: ember.sub(a, b, alpha=3), lambda a, b: torch.sub(a, b, alpha=3)),
    "div_trunc": (lambda a, b: ember.div(a, b, rounding_mode="trunc"), lambda a, b: torch.div(a, b, rounding_mode="trunc")),
    "div_floor": (lambda a, b: ember.div(a, b, rounding_mode="floor"), lambda a, b: torch.div(a, b, rounding_mode="floor")),
    "where": (lambda a, b: ember.where(a > b, a, b), lambda a, b: torch.where(a > b, a, b)),
    "lerp": (lambda a, b: ember.lerp(a, b, 0.3), lambda a, b: torch.lerp(a, b, 0.3)),
    "lerp_tensor": (lambda a, b: ember.lerp(a, a, b), lambda a, b: torch.lerp(a, a, b)),
    "isclose": (lambda a, b: ember.isclose(a, b, rtol=0.5, atol=0.1), lambda a, b: torch.isclose(a, b, rtol=0.5, atol=0.1)),
    "clamp_tensor": (lambda a, b: ember.clamp(a, b, b + 1), lambda a, b: torch.clamp(a, b, b + 1)),
}


@needs_torch
@pytest.mark.parametrize("name", [*BINARY, *BINARY_CUSTOM])
@settings(max_examples=20, deadline=None)
@given(
    dtypes=st.tuples(st.sampled_from(TORCH_DTYPES), st.sampled_from(TORCH_DTYPES)),
    shapes=_shapes(2),
    layout=st.sampled_from(["plain", "transposed", "strided"]),
    seed=st.integers(0, 2**16),
)
def test_binary_matches_torch(name, dtypes, shapes, layout, seed):
    rng = np.random.default_rng(seed)
    if name in ("isclose", "lerp", "lerp_tensor"):
        dtypes = (dtypes[0], dtypes[0])
    special = not any(d.startswith("complex") for d in dtypes)  # complex +- inf: torch and NumPy differ on NaN parts
    a, b = (_values(rng, s, d, special=special) for s, d in zip(shapes, dtypes, strict=True))
    (ea, ta), (eb, tb) = _make(a, layout), _make(b, "plain")
    ta, tb = _no_zero_dim_priority(ta, tb)
    if name in BINARY_CUSTOM:
        fe, ft = BINARY_CUSTOM[name]
    else:
        fe, ft = getattr(ember, name), getattr(torch, name)
    _both(
        lambda: fe(ea, eb),
        lambda: ft(ta, tb),
        f"{name}({dtypes[0]}{list(a.shape)}, {dtypes[1]}{list(b.shape)})",
        empty=not (a.size and b.size),
        half_atol=_alpha_rounding(name, a, b),
    )


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


SCALARS = (True, False, 0, 2, -3, 1000, 2.5, -0.5, 1.5j)
# torch has no complex32, so float16 + 1j fails there; ember gives complex64
_F16_COMPLEX = {"float16", "bfloat16"}


@needs_torch
@pytest.mark.parametrize(
    "name",
    [
        n
        for n in BINARY
        if n
        not in (
            "maximum",
            "minimum",
            "fmax",
            "fmin",
            "hypot",
            "logaddexp",
            "nextafter",
            "atan2",
            "logical_and",
            "logical_or",
            "logical_xor",
        )
    ],
)
@settings(max_examples=20, deadline=None)
@given(dtype=st.sampled_from(TORCH_DTYPES), scalar=st.sampled_from(SCALARS), shapes=_shapes(), seed=st.integers(0, 2**16))
def test_binary_scalar_matches_torch(name, dtype, scalar, shapes, seed):
    if isinstance(scalar, complex) and dtype in _F16_COMPLEX:
        return
    # torch computes t ** -0.5 as rsqrt(t) (so -0.0 ** -0.5 is -inf there); ember keeps IEEE pow's +inf
    a = _values(np.random.default_rng(seed), shapes[0], dtype, special=name != "pow")
    (ea, ta) = _make(a, "strided")
    fe, ft = getattr(ember, name), getattr(torch, name)
    _both(lambda: fe(ea, scalar), lambda: ft(ta, scalar), f"{name}({dtype}{list(a.shape)}, {scalar!r})", empty=a.size == 0)


OPERATORS = {
    "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "/": lambda x, y: x / y,
    "//": lambda x, y: x // y, "%": lambda x, y: x % y, "**": lambda x, y: x**y, "&": lambda x, y: x & y,
    "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y,
    "==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
}  # fmt: skip


@needs_torch
@pytest.mark.parametrize("op", list(OPERATORS))
@settings(max_examples=15, deadline=None)
@given(
    dtype=st.sampled_from(TORCH_DTYPES),
    scalar=st.sampled_from((True, 0, 2, -3, 2.5)),
    reflected=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_operators_with_scalars_match_torch(op, dtype, scalar, reflected, seed):
    """``t - 2`` and the reflected ``2 - t``, ``2 ** t``: the scalar stays weak in promotion."""
    a = _values(np.random.default_rng(seed), (3,), dtype)
    (ea, ta) = _make(a, "plain")
    fn = OPERATORS[op]
    if reflected and ((op == "-" and scalar is True) or (op == "/" and dtype.startswith("uint") and scalar == -3)):
        # deviations of the reflected operators, which first make the scalar a 0-d tensor of
        # result_type(t, scalar): ``True - t`` is not refused as torch's rsub is, and
        # ``-3 / uint8_t`` wraps -3 to 253 where torch divides by the float -3.0
        return
    if reflected:
        _both(lambda: fn(scalar, ea), lambda: fn(scalar, ta), f"{scalar!r} {op} {dtype}")
    else:
        _both(lambda: fn(ea, scalar), lambda: fn(ta, scalar), f"{dtype} {op} {scalar!r}")


@needs_torch
@pytest.mark.parametrize("op", ["-", "~", "abs", "+"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_unary_operators_match_torch(op, dtype):
    a = _values(np.random.default_rng(0), (2, 3), dtype)
    (ea, ta) = _make(a, "transposed")
    fn = {"-": lambda x: -x, "~": lambda x: ~x, "abs": abs, "+": lambda x: +x}[op]
    _both(lambda: fn(ea), lambda: fn(ta), f"{op}{dtype}")


@needs_torch
@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float16", "float32", "complex64"])
@pytest.mark.parametrize("other", [2, 1.5, "tensor"])
def test_inplace_operators_match_torch(op, dtype, other):
    """``t += 1`` writes into t (same object); a result t cannot hold (``int_t += 1.5``) raises."""
    a = _values(np.random.default_rng(1), (2, 3), dtype, special=False, positive=True)
    (ea, ta) = _make(a, "plain")
    if other == "tensor":
        b = _values(np.random.default_rng(2), (3,), dtype, special=False, positive=True)
        eo, to = _make(b, "plain")
    else:
        eo = to = other
    code = f"x {op} y"

    def run(x, y):
        scope = {"x": x, "y": y}
        exec(code, scope)
        return scope["x"]

    try:
        expected = run(ta, to)
    except REFUSALS:
        with pytest.raises(REFUSALS):
            run(ea, eo)
        return
    result = run(ea, eo)
    assert result is ea
    assert_matches(result, expected, f"{dtype} {op} {other}")


# ---------------------------------------------------------------------------------------
# in-place variants and out=


@needs_torch
@pytest.mark.parametrize(
    "name",
    [
        "abs",
        "neg",
        "sqrt",
        "exp",
        "sin",
        "floor",
        "round",
        "reciprocal",
        "sigmoid",
        "erf",
        "bitwise_not",
        "logical_not",
        "relu",
        "clamp",
    ],
)
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    a = _values(np.random.default_rng(3), (3, 4), dtype, special=False)
    ea, ta = _make(a, "transposed")  # a non-contiguous destination
    args = (-1, 1) if name == "clamp" else ()
    try:
        expected = getattr(ta, name + "_")(*args)
    except REFUSALS:
        with pytest.raises(REFUSALS):
            getattr(ea, name + "_")(*args)
        return
    result = getattr(ea, name + "_")(*args)
    assert result is ea
    assert_matches(ea, expected, name + "_")
    fresh = ember.from_numpy(a.copy())
    assert getattr(ember, name + "_")(fresh, *args) is fresh
    assert_matches(fresh, expected, name + "_ (function)")


@needs_torch
@pytest.mark.parametrize(
    "name", ["add", "sub", "mul", "div", "pow", "remainder", "atan2", "eq", "lt", "bitwise_and", "logical_or", "hypot", "lerp"]
)
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "int32"), ("float64", "int64"), ("bool", "bool")])
def test_binary_inplace_methods_match_torch(name, dtypes):
    rng = np.random.default_rng(4)
    a, b = (
        _values(rng, (2, 3), dtypes[0], special=False, positive=True),
        _values(rng, (3,), dtypes[1], special=False, positive=True),
    )
    (ea, ta), (eb, tb) = _make(a, "plain"), _make(b, "plain")
    args_e, args_t = ((eb, 0.5), (tb, 0.5)) if name == "lerp" else ((eb,), (tb,))
    try:
        expected = getattr(ta, name + "_")(*args_t)
    except REFUSALS:
        with pytest.raises(REFUSALS):
            getattr(ea, name + "_")(*args_e)
        return
    assert getattr(ea, name + "_")(*args_e) is ea
    assert_matches(ea, expected, name + "_")


@needs_torch
@pytest.mark.parametrize("name", ["add", "mul", "div", "sqrt", "exp", "eq", "maximum", "floor_divide", "abs", "signbit", "where"])
@pytest.mark.parametrize("out_dtype", ["float64", "float32", "int64", "bool", "complex128"])
def test_out_matches_torch(name, out_dtype):
    """out= of a wider dtype receives the result computed in the promoted dtype; a narrower
    category is refused; the out tensor itself is returned."""
    rng = np.random.default_rng(5)
    a, b = _values(rng, (2, 3), "int32", special=False), _values(rng, (3,), "int32", special=False, positive=True)
    (ea, ta), (eb, tb) = _make(a, "plain"), _make(b, "plain")
    unary = name in ("sqrt", "exp", "abs", "signbit")
    if name == "where":
        args_e, args_t = (ea > 0, ea, eb), (ta > 0, ta, tb)
    else:
        args_e, args_t = ((ea,), (ta,)) if unary else ((ea, eb), (ta, tb))
    eo = ember.zeros((2, 3), dtype=getattr(ember, out_dtype))
    to = torch.zeros((2, 3), dtype=getattr(torch, out_dtype))
    try:
        expected = getattr(torch, name)(*args_t, out=to)
    except REFUSALS:
        expected = None  # torch refuses some casts ember allows (any widening within PyTorch's categories)
    result_dtype = getattr(ember, name)(*args_e).dtype
    if not ember.can_cast(result_dtype, eo.dtype) and _category(result_dtype) > _category(eo.dtype):
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            getattr(ember, name)(*args_e, out=eo)
        return
    assert getattr(ember, name)(*args_e, out=eo) is eo
    if expected is not None:
        # computed in the promoted dtype (float32 for sqrt of int), so float32 tolerance
        np.testing.assert_allclose(eo.numpy().astype(np.complex128), _from_torch(expected).astype(np.complex128), rtol=1e-6)


def _category(dtype) -> int:
    return 0 if dtype is ember.bool else 1 if dtype.kind in "iu" else 2 if dtype.is_floating_point else 3


def test_out_with_the_wrong_shape_is_refused():
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        ember.add(ember.ones(2, 3), ember.ones(3), out=ember.zeros(3))


def test_inplace_cannot_broadcast_self():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.ones(3).add_(ember.ones(2, 3))


# ---------------------------------------------------------------------------------------
# behaviour that needs no oracle


def test_scalars_are_weak_in_promotion():
    i8 = ember.tensor([1, 2], dtype=ember.int8)
    assert (i8 + 1).dtype is ember.int8
    assert (i8 + 1000).tolist() == [-23, -22]  # wraps, as PyTorch
    assert (i8 * 2.5).dtype is ember.get_default_dtype()
    assert (i8 / 2).dtype is ember.float32
    assert (ember.tensor([True]) + True).dtype is ember.bool
    assert (ember.tensor([True]) + 1).dtype is ember.int64
    assert (ember.tensor([1.0], dtype=ember.float16) * 2.5).dtype is ember.float16
    assert (ember.tensor([1.0]) + 1j).dtype is ember.complex64
    assert (2 - ember.tensor([1, 5], dtype=ember.uint8)).tolist() == [1, 253]
    assert (2 ** ember.tensor([1, 3], dtype=ember.int16)).dtype is ember.int16
    assert (2.5 ** ember.tensor([2])).dtype is ember.float32


def test_results_follow_a_changed_default_dtype():
    i8 = ember.tensor([1, 2], dtype=ember.int8)
    assert (i8 * 2.5).dtype is ember.float32 and ember.sqrt(i8).dtype is ember.float32
    with ember.default_dtype(ember.float64):
        assert ember.sqrt(i8).tolist() == [1.0, math.sqrt(2.0)]  # the kernel computes in float64
        assert (i8 * 2.5).dtype is ember.float64
        assert ember.sqrt(i8).dtype is ember.float64


def test_float_functions_of_integers_give_the_default_float():
    t = ember.tensor([1, 4, 9])
    for fn in (ember.sqrt, ember.exp, ember.log, ember.sigmoid, ember.erf, ember.reciprocal, ember.atan):
        assert fn(t).dtype is ember.float32, fn
    assert ember.sqrt(t).tolist() == [1.0, 2.0, 3.0]
    assert ember.atan2(t, t).dtype is ember.float32
    assert ember.div(t, t).dtype is ember.float32
    assert ember.div(t, t, rounding_mode="floor").dtype is ember.int64
    assert ember.angle(ember.tensor([-1, 1])).tolist() == [float(np.float32(math.pi)), 0.0]
    assert ember.abs(ember.tensor([3 + 4j])).dtype is ember.float32


def test_mixed_dtypes_compute_in_the_promoted_dtype():
    # int32 2049 next to a float16 is first cast to float16 (2048), as PyTorch does
    a = ember.tensor([2049], dtype=ember.int32)
    h = ember.tensor([0.0], dtype=ember.float16)
    assert (a + h).dtype is ember.float16
    assert (a + h).tolist() == [2048.0]
    assert (a == h + 2048).tolist() == [True]
    # int8 + int8 wraps even into a wider out=
    out = ember.zeros(1, dtype=ember.int64)
    ember.add(ember.tensor([100], dtype=ember.int8), ember.tensor([100], dtype=ember.int8), out=out)
    assert out.tolist() == [-56]


@pytest.mark.parametrize(
    "fn, dtype",
    [
        (lambda x: x + 1, "uint16"), (lambda x: x * x, "uint32"), (lambda x: x // 2, "uint64"), (lambda x: x % 3, "uint16"),
        (lambda x: x << 1, "uint32"), (lambda x: x & 6, "uint64"), (lambda x: x < 3, "uint16"), (lambda x: abs(x - 1), "uint32"),
        (lambda x: -x, "uint16"), (lambda x: x * (x > 2), "uint64"),
    ],
)  # fmt: skip
def test_wide_unsigned_dtypes_against_numpy(fn, dtype):
    a = np.array([0, 1, 5, 200], dtype=dtype)
    result = fn(ember.from_numpy(a))
    with np.errstate(all="ignore"):
        expected = np.asarray(fn(a))
    if expected.dtype == np.int64 and dtype != "uint64":  # NumPy's where promotes a Python 0 to int64
        expected = expected.astype(dtype)
    assert result.dtype.name == expected.dtype.name
    np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "int32"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a // b,
        lambda a, b: a % b,
        lambda a, b: ember.fmod(a, b),
        lambda a, b: ember.div(a, b, rounding_mode="trunc"),
        lambda a, b: ember.div(a, b, rounding_mode="floor"),
        lambda a, b: a // 0,
        lambda a, b: ember.remainder(a, 0),
    ],
)
def test_integer_division_by_zero_raises(dtype, fn):
    a = ember.tensor([4, 5], dtype=getattr(ember, dtype))
    b = ember.tensor([2, 0], dtype=getattr(ember, dtype))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, b)


def test_float_division_by_zero_is_silent_and_ieee(recwarn):
    t = ember.tensor([1.0, -1.0, 0.0])
    assert (t / 0).tolist()[:2] == [math.inf, -math.inf]
    assert math.isnan((t / 0).tolist()[2])
    assert (t // 0).tolist()[:2] == [math.inf, -math.inf]
    assert ember.log(ember.tensor([0.0, -1.0])).tolist()[0] == -math.inf
    assert ember.sqrt(ember.tensor([-1.0])).isnan().tolist() == [True]
    assert [w for w in recwarn if issubclass(w.category, RuntimeWarning)] == []


def test_python_division_conventions():
    a = ember.tensor([-7, 7, -7, 7])
    b = ember.tensor([2, -2, -2, 2])
    assert (a // b).tolist() == [-4, -4, 3, 3]
    assert (a % b).tolist() == [1, -1, -1, 1]
    assert ember.fmod(a, b).tolist() == [-1, 1, -1, 1]
    assert ember.div(a, b, rounding_mode="trunc").tolist() == [-3, -3, 3, 3]
    af = a.to(ember.float64)
    assert (af // b).tolist() == [-4.0, -4.0, 3.0, 3.0]
    assert (af % 2.5).tolist() == [0.5, 2.0, 0.5, 2.0]


def test_integer_powers():
    t = ember.tensor([-2, -1, 0, 1, 2])
    assert (t**2).tolist() == [4, 1, 0, 1, 4]
    assert (t ** ember.tensor([-1, -1, 2, -3, -2])).tolist() == [0, -1, 0, 1, 0]
    assert (ember.tensor([-1]) ** ember.tensor([-2])).tolist() == [1]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        t**-1
    assert (t**0.5).dtype is ember.float32
    assert ember.pow(2, ember.tensor([3, 4])).tolist() == [8, 16]
    assert ember.pow(ember.tensor([3.0]), 2).tolist() == [9.0]


def test_sign_of_nan_and_zero_follows_pytorch():
    t = ember.tensor([math.nan, -0.0, -2.0, 3.0])
    assert ember.sign(t).tolist()[:1] == [0.0]
    assert ember.sign(t).tolist()[1:] == [0.0, -1.0, 1.0]
    assert ember.signbit(t).tolist() == [False, True, True, False]
    assert ember.sgn(ember.tensor([3 + 4j, 0j], dtype=ember.complex128)).tolist() == pytest.approx([0.6 + 0.8j, 0j], rel=1e-15)


def test_bitwise_shifts_past_the_width():
    t = ember.tensor([8, -8], dtype=ember.int8)
    assert (t << 10).tolist() == [0, 0]
    assert (t >> 10).tolist() == [0, -1]
    assert (ember.tensor([8]) >> -1).tolist() == [0]


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


def test_clamp():
    t = ember.tensor([-3, 0, 4])
    assert ember.clamp(t, -1, 2).tolist() == [-1, 0, 2]
    assert ember.clamp(t, 0.5).dtype is ember.float32
    assert ember.clip(t, max=1).tolist() == [-3, 0, 1]
    assert ember.clamp(t, 4, 2).tolist() == [2, 2, 2]  # min > max: max wins, as PyTorch
    assert ember.clamp(t, ember.tensor([0, 1, 2]), ember.tensor(3)).tolist() == [0, 1, 3]
    assert ember.clamp(ember.tensor([math.nan]), 0.0, 1.0).isnan().tolist() == [True]
    assert t.clamp_(min=0) is t and t.tolist() == [0, 0, 4]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ember.clamp(t)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        ember.clamp(t, ember.tensor(0), 1)


def test_nan_to_num_and_round():
    t = ember.tensor([math.nan, math.inf, -math.inf, 1.5], dtype=ember.float16)
    assert ember.nan_to_num(t).tolist() == [0.0, 65504.0, -65504.0, 1.5]
    b = ember.tensor([math.inf], dtype=ember.bfloat16)
    assert ember.nan_to_num(b).tolist() == [float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)]
    z = ember.tensor([complex(math.nan, math.inf)])
    assert ember.nan_to_num(z, posinf=7.0).tolist() == [complex(0, 7)]
    assert ember.round(ember.tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]
    assert ember.round(ember.tensor([1234.5678], dtype=ember.float64), decimals=2).tolist() == [1234.57]
    assert ember.round(ember.tensor([1234.5678], dtype=ember.float64), decimals=-2).tolist() == [1200.0]
    assert ember.round(ember.tensor([7])).tolist() == [7]


def test_real_imag_are_views_and_conj():
    z = ember.tensor([1 + 2j, 3 - 4j])
    assert z.real.tolist() == [1.0, 3.0] and z.imag.tolist() == [2.0, -4.0]
    assert z.real.dtype is ember.float32
    z.imag.mul_(10)  # writes through the view
    assert z.tolist() == [1 + 20j, 3 - 40j]
    assert ember.real(z[1:]).tolist() == [3.0]
    assert ember.imag(ember.tensor([[1j, 2j], [3j, 4j]]).t()).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    r = ember.tensor([1.0])
    assert ember.real(r) is r and ember.conj(r) is r
    assert ember.conj(z).tolist() == [1 - 20j, 3 + 40j]
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        r.imag


def test_lerp_isclose_allclose_equal():
    a, b = ember.tensor([0.0, 10.0]), ember.tensor([10.0, 20.0])
    assert ember.lerp(a, b, 0.5).tolist() == [5.0, 15.0]
    assert ember.lerp(a, b, ember.tensor([0.0, 1.0])).tolist() == [0.0, 20.0]
    with pytest.raises(RuntimeError, match=r"expected dtype ember\.float32 for `end` but got dtype ember\.float64"):
        ember.lerp(a, b.double(), 0.5)
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


def test_positive_returns_input_and_refuses_bool():
    t = ember.tensor([1, -2])
    assert +t is t and ember.positive(t) is t
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        +ember.tensor([True])


def test_meta_tensors_infer_shape_and_dtype():
    a = ember.empty(2, 1, 3, device="meta", dtype=ember.int32)
    b = ember.empty(4, 1, device="meta", dtype=ember.float16)
    r = a + b
    assert r.shape == (2, 4, 3) and r.dtype is ember.float16 and r.is_meta
    assert ember.sqrt(a).dtype is ember.float32
    assert (a < 2).dtype is ember.bool
    assert ember.where(a > 0, a, 1.5).dtype is ember.float32
    assert ember.real(ember.empty(3, device="meta", dtype=ember.complex128)).dtype is ember.float64


def test_aliases_and_methods():
    t = ember.tensor([0.5, -0.5])
    pairs = [
        ("absolute", "abs"), ("negative", "neg"), ("subtract", "sub"), ("multiply", "mul"), ("divide", "div"),
        ("true_divide", "div"), ("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"), ("greater", "gt"),
        ("greater_equal", "ge"), ("bitwise_invert", "bitwise_not"), ("arccos", "acos"), ("arcsin", "asin"),
        ("arctan", "atan"), ("arccosh", "acosh"), ("arcsinh", "asinh"), ("arctanh", "atanh"), ("arctan2", "atan2"),
        ("clip", "clamp"), ("fix", "trunc"),
    ]  # fmt: skip
    for alias, name in pairs:
        assert getattr(ember, alias) is getattr(ember, name), alias
        assert getattr(ember.Tensor, alias) is getattr(ember.Tensor, name), alias
    assert t.abs().tolist() == [0.5, 0.5]
    assert t.add(1, alpha=2).tolist() == [2.5, 1.5]
    assert t.sub_(1) is t and t.tolist() == [-0.5, -1.5]
    assert ember.tensor([1, 2]).equal(ember.tensor([1, 2])) is True


def test_eq_with_other_objects_follows_python():
    t = ember.tensor([1, 2])
    assert (t == None) is False  # noqa: E711 - Tensor.__eq__ returns NotImplemented for non-numbers
    assert (t != "a") is True
    assert t in {t}  # still hashable


# ---------------------------------------------------------------------------------------
# errors


def test_error_messages():
    f, i, b = ember.ones(2), ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.bool)
    with pytest.raises(
        TypeError,
        match=r"add\(\): argument 'other' \(position 2\) must be Tensor, not str|add\(\) received an invalid combination",
    ):
        ember.add(f, "a")
    with pytest.raises(
        RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1"
    ):
        ember.ones(2, 3) + ember.ones(2, 4)
    with pytest.raises(
        TypeError, match=r"bitwise_and\(\): argument 'other' must have a bool or integral dtype, got ember.float32"
    ):
        i & f
    with pytest.raises(
        TypeError, match=r"bitwise_not\(\): argument 'input' must have a bool or integral dtype, got ember.float32"
    ):
        ~f
    with pytest.raises(TypeError, match=r"bitwise_left_shift\(\): argument 'input' must have an integral dtype"):
        f << 1
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors is not supported"):
        b - b
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
        1 - b
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        -b
    with pytest.raises(RuntimeError, match=r"result type float32 can't be cast to the desired output type int64"):
        i += 1.5
    with pytest.raises(RuntimeError, match=r"can't be cast to the desired output type int64"):
        i /= 2
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'up'"):
        ember.div(f, f, rounding_mode="up")
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating point number"):
        ember.add(i, i, alpha=0.5)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        ember.sub(f, f, alpha=True)
    with pytest.raises(RuntimeError, match="cannot be converted to type uint8 without overflow"):
        ember.tensor([2], dtype=ember.uint8) ** 1000
    with pytest.raises(TypeError, match=r"sqrt\(\): argument 'input' must have a bool or numeric"):
        ember.sqrt(ember.tensor([b"x"]))
    with pytest.raises(TypeError, match=r"gelu\(\): argument 'input' must have a real floating dtype, got ember.int64"):
        ember.gelu(i)
    with pytest.raises(
        TypeError, match=r"lt\(\): argument 'input' must have a bool or integral or real floating dtype, got ember.complex64"
    ):
        _ = ember.tensor([1j]) < 1
    with pytest.raises(TypeError, match=r"maximum\(\): argument 'other' must have .* got ember.complex64"):
        ember.maximum(f, ember.tensor([1j, 2j]))
    with pytest.raises(
        TypeError, match=r"floor\(\): argument 'input' must have an integral or real floating dtype, got ember.complex64"
    ):
        ember.floor(ember.tensor([1j]))
    with pytest.raises(TypeError, match=r"type promotion between ember\.int64 and ember\.uint64 is not defined"):
        i + ember.ones(2, dtype=ember.uint64)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        f + ember.ones(2, device="meta")



def test_ieee_special_results_are_silent_like_pytorch():
    import subprocess
    import sys

    code = "import ember; x = ember.tensor([float('inf'), 0.0]); print((x * 0).tolist(), ember.log(x).tolist(), (x / 0).tolist())"
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[nan, 0.0] [inf, -inf] [inf, nan]"


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("alpha", [-0.01, 3, 2**40])
def test_add_alpha_in_place_with_aliasing(dtype, alpha):
    # an optimizer step's p.add_(g, alpha=-lr) has its own two-ufunc kernel for float32/float64;
    # writing into either operand (or both being one tensor) must give a + alpha * b
    rng = np.random.default_rng(3)
    a_np, b_np = rng.standard_normal((2, 5, 3)).astype(dtype)
    with np.errstate(over="ignore"):  # 2**40 is inf in float16, in ember as in NumPy
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
