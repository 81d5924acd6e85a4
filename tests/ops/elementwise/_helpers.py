"""What the elementwise test modules share for the forward ops: random values with IEEE
specials, hypothesis shapes and layouts, the both-refuse-or-both-agree comparison with PyTorch,
and the tests that sweep a module's ops against PyTorch (made here, bound in each module to
its own ops: ``test_unary_matches_torch = unary_matches_torch(["exp", "log"])``).

PyTorch comes from ``tests._oracle`` (None where it is not installed); every test that needs
it is marked ``needs_torch`` or calls ``pytest.importorskip``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from tests._oracle import TOLERANCE, TORCH_DTYPES, assert_close, from_torch, needs_torch, np_dtype, to_torch, torch

# What a refusal may be: torch and ember must both refuse, not necessarily alike.
REFUSALS = (TypeError, RuntimeError, ValueError, NotImplementedError)
WIDE_UNSIGNED = ("uint16", "uint32", "uint64")  # dtypes torch has almost no kernels for: NumPy is the oracle


def values(rng: np.random.Generator, shape: tuple, dtype: str, *, special: bool = True, positive: bool = False) -> np.ndarray:
    """Random values of ``dtype``: small integers; floats in [-3, 3] with some nan, inf, -0.0 and
    whole numbers (where rounding functions tie)."""
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
    return real.astype(np_dtype(dtype)).reshape(shape)


@st.composite
def shapes(draw, count: int = 1):
    """``count`` broadcast-compatible shapes (the later ones may drop leading dims or have 1s)."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    found = [shape]
    for _ in range(count - 1):
        s = shape
        if s and draw(st.booleans()):
            s = tuple(1 if draw(st.booleans()) else d for d in s)[draw(st.integers(0, len(s))) :]
        found.append(s)
    if count > 1 and draw(st.booleans()):
        found = found[::-1]
    return found


def make(array: np.ndarray, layout: str):
    """An ember tensor and a torch tensor holding ``array``, in the same (maybe strided) layout."""
    if layout == "transposed" and array.ndim >= 2:
        base = np.ascontiguousarray(np.swapaxes(array, 0, 1))
        e = ember.from_numpy(base.copy()).transpose(0, 1)
        t = to_torch(base).transpose(0, 1) if torch is not None else None
        return e, t
    if layout == "strided" and array.ndim >= 1:
        big = np.repeat(array, 2, axis=-1)
        e = ember.from_numpy(big.copy())[..., ::2]
        t = to_torch(big)[..., ::2] if torch is not None else None
        return e, t
    return ember.from_numpy(array.copy()), (to_torch(array) if torch is not None else None)


def assert_matches(result, expected, what: str = "", *, half_atol: float = 0.0) -> None:
    """ember ``result`` equals torch ``expected``: shape, dtype, values (NaN where NaN);
    ``half_atol`` widens float16's and bfloat16's absolute tolerance (never narrows it)."""
    assert isinstance(result, ember.Tensor), what
    dtype = str(expected.dtype).removeprefix("torch.")
    atol = max(TOLERANCE[dtype][1], half_atol) if dtype in ("float16", "bfloat16") else None
    assert_close(result, expected, what, atol=atol)


def both(fe, ft, what, *, empty: bool = False, half_atol: float = 0.0):
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


def opmath(fn, x, **kwargs):
    """torch's float16/bfloat16 kernel of ``fn`` evaluated in float32 (its bfloat16 gelu turns
    inf into NaN; ember computes the low-precision floats in float32 and rounds once)."""
    if x.dtype in (torch.float16, torch.bfloat16):
        return fn(x.float(), **kwargs).to(x.dtype)
    return fn(x, **kwargs)


# ---------------------------------------------------------------------------------------
# the sweeps against torch, made per module: ``test_x = sweep(the module's ops)``


def unary_matches_torch(names=(), custom=None):
    """The test of unary ops against torch on hypothesis-drawn dtypes, shapes and layouts:
    ``ember.name`` against ``torch.name`` for each of ``names``, and ``custom[name] =
    (ember call, torch call)`` for ops with parameters or living in torch.nn.functional."""
    custom = custom or {}

    @needs_torch
    @pytest.mark.parametrize("name", [*names, *custom])
    @settings(max_examples=15, deadline=None)
    @given(
        dtype=st.sampled_from(TORCH_DTYPES),
        shapes=shapes(),
        layout=st.sampled_from(["plain", "transposed", "strided"]),
        seed=st.integers(0, 2**16),
    )
    def test_unary_matches_torch(name, dtype, shapes, layout, seed):
        # torch's vectorized gelu turns +-inf into NaN (its scalar path does not): no infinities there
        array = values(np.random.default_rng(seed), shapes[0], dtype, special=not name.startswith("gelu"))
        e, t = make(array, layout)
        if name in custom:
            fe, ft = custom[name]
        else:
            fe, ft = getattr(ember, name), getattr(torch, name)
        both(lambda: fe(e), lambda: ft(t), f"{name}({dtype}{list(array.shape)})", empty=array.size == 0)

    return test_unary_matches_torch


def binary_matches_torch(names=(), custom=None, *, same_dtype=(), half_atol=None):
    """The test of binary ops against torch, tensor with tensor, on hypothesis-drawn dtypes,
    broadcast shapes and layouts. ``same_dtype``: ops whose operands share one dtype;
    ``half_atol(name, a, b)``: how far two right half-precision answers may be apart."""
    custom = custom or {}

    @needs_torch
    @pytest.mark.parametrize("name", [*names, *custom])
    @settings(max_examples=20, deadline=None)
    @given(
        dtypes=st.tuples(st.sampled_from(TORCH_DTYPES), st.sampled_from(TORCH_DTYPES)),
        shapes=shapes(2),
        layout=st.sampled_from(["plain", "transposed", "strided"]),
        seed=st.integers(0, 2**16),
    )
    def test_binary_matches_torch(name, dtypes, shapes, layout, seed):
        rng = np.random.default_rng(seed)
        if name in same_dtype:
            dtypes = (dtypes[0], dtypes[0])
        if () in shapes and any(d in _F16_COMPLEX for d in dtypes) and any(d.startswith("complex") for d in dtypes):
            return  # a half tensor beside a 0-d complex one is complex32 in torch (no kernels); ember has no complex32
        special = not any(d.startswith("complex") for d in dtypes)  # complex +- inf: torch and NumPy differ on NaN parts
        a, b = (values(rng, s, d, special=special) for s, d in zip(shapes, dtypes, strict=True))
        (ea, ta), (eb, tb) = make(a, layout), make(b, "plain")
        if name in custom:
            fe, ft = custom[name]
        else:
            fe, ft = getattr(ember, name), getattr(torch, name)
        both(
            lambda: fe(ea, eb),
            lambda: ft(ta, tb),
            f"{name}({dtypes[0]}{list(a.shape)}, {dtypes[1]}{list(b.shape)})",
            empty=not (a.size and b.size),
            half_atol=half_atol(name, a, b) if half_atol is not None else 0.0,
        )

    return test_binary_matches_torch


SCALARS = (True, False, 0, 2, -3, 1000, 2.5, -0.5, 1.5j)
_F16_COMPLEX = {"float16", "bfloat16"}  # torch has no complex32, so float16 + 1j fails there; ember gives complex64


def binary_scalar_matches_torch(names):
    """The test of binary ops against torch, tensor with a Python scalar (weak in promotion)."""

    @needs_torch
    @pytest.mark.parametrize("name", list(names))
    @settings(max_examples=20, deadline=None)
    @given(dtype=st.sampled_from(TORCH_DTYPES), scalar=st.sampled_from(SCALARS), shapes=shapes(), seed=st.integers(0, 2**16))
    def test_binary_scalar_matches_torch(name, dtype, scalar, shapes, seed):
        if isinstance(scalar, complex) and dtype in _F16_COMPLEX:
            return
        # torch computes t ** -0.5 as rsqrt(t) (so -0.0 ** -0.5 is -inf there); ember keeps IEEE pow's +inf
        a = values(np.random.default_rng(seed), shapes[0], dtype, special=name != "pow")
        (ea, ta) = make(a, "strided")
        fe, ft = getattr(ember, name), getattr(torch, name)
        both(lambda: fe(ea, scalar), lambda: ft(ta, scalar), f"{name}({dtype}{list(a.shape)}, {scalar!r})", empty=a.size == 0)

    return test_binary_scalar_matches_torch


def operators_with_scalars_match_torch(operators: dict):
    """The test of ``t - 2`` and the reflected ``2 - t``, ``2 ** t`` against torch: the scalar
    stays weak in promotion. ``operators``: symbol -> ``lambda x, y: x - y``."""

    @needs_torch
    @pytest.mark.parametrize("op", list(operators))
    @settings(max_examples=15, deadline=None)
    @given(
        dtype=st.sampled_from(TORCH_DTYPES),
        scalar=st.sampled_from((True, 0, 2, -3, 2.5)),
        reflected=st.booleans(),
        seed=st.integers(0, 2**16),
    )
    def test_operators_with_scalars_match_torch(op, dtype, scalar, reflected, seed):
        a = values(np.random.default_rng(seed), (3,), dtype)
        (ea, ta) = make(a, "plain")
        fn = operators[op]
        if reflected and ((op == "-" and scalar is True) or (op == "/" and dtype.startswith("uint") and scalar == -3)):
            # deviations of the reflected operators, which first make the scalar a 0-d tensor of
            # result_type(t, scalar): ``True - t`` is not refused as torch's rsub is, and
            # ``-3 / uint8_t`` wraps -3 to 253 where torch divides by the float -3.0
            return
        if reflected:
            both(lambda: fn(scalar, ea), lambda: fn(scalar, ta), f"{scalar!r} {op} {dtype}")
        else:
            both(lambda: fn(ea, scalar), lambda: fn(ta, scalar), f"{dtype} {op} {scalar!r}")

    return test_operators_with_scalars_match_torch


def check_unary_operator(fn, op: str, dtype: str) -> None:
    """A unary operator (``-t``, ``~t``, ``abs(t)``, ``+t``) on a transposed tensor, against torch."""
    a = values(np.random.default_rng(0), (2, 3), dtype)
    (ea, ta) = make(a, "transposed")
    both(lambda: fn(ea), lambda: fn(ta), f"{op}{dtype}")


INPLACE_DTYPES = ("bool", "uint8", "int32", "float16", "float32", "complex64")


def check_inplace_operator(op: str, dtype: str, other) -> None:
    """``t += 1`` writes into t (same object); a result t cannot hold (``int_t += 1.5``) raises."""
    a = values(np.random.default_rng(1), (2, 3), dtype, special=False, positive=True)
    (ea, ta) = make(a, "plain")
    if other == "tensor":
        b = values(np.random.default_rng(2), (3,), dtype, special=False, positive=True)
        eo, to = make(b, "plain")
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


def check_unary_inplace_method(name: str, dtype: str) -> None:
    """``t.name_()`` on a non-contiguous tensor and ``ember.name_(t)``, against torch."""
    a = values(np.random.default_rng(3), (3, 4), dtype, special=False)
    ea, ta = make(a, "transposed")  # a non-contiguous destination
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


BINARY_INPLACE_DTYPES = [("float32", "float32"), ("int64", "int32"), ("float64", "int64"), ("bool", "bool")]


def check_binary_inplace_method(name: str, dtypes: tuple) -> None:
    """``a.name_(b)`` with ``b`` broadcast, against torch."""
    rng = np.random.default_rng(4)
    a, b = (
        values(rng, (2, 3), dtypes[0], special=False, positive=True),
        values(rng, (3,), dtypes[1], special=False, positive=True),
    )
    (ea, ta), (eb, tb) = make(a, "plain"), make(b, "plain")
    args_e, args_t = ((eb, 0.5), (tb, 0.5)) if name == "lerp" else ((eb,), (tb,))
    try:
        expected = getattr(ta, name + "_")(*args_t)
    except REFUSALS:
        with pytest.raises(REFUSALS):
            getattr(ea, name + "_")(*args_e)
        return
    assert getattr(ea, name + "_")(*args_e) is ea
    assert_matches(ea, expected, name + "_")


OUT_DTYPES = ["float64", "float32", "int64", "bool", "complex128"]


def _category(dtype) -> int:
    return 0 if dtype is ember.bool else 1 if dtype.kind in "iu" else 2 if dtype.is_floating_point else 3


def check_out(name: str, out_dtype: str) -> None:
    """out= of a wider dtype receives the result computed in the promoted dtype; a narrower
    category is refused; the out tensor itself is returned."""
    rng = np.random.default_rng(5)
    a, b = values(rng, (2, 3), "int32", special=False), values(rng, (3,), "int32", special=False, positive=True)
    (ea, ta), (eb, tb) = make(a, "plain"), make(b, "plain")
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
        np.testing.assert_allclose(eo.numpy().astype(np.complex128), from_torch(expected).astype(np.complex128), rtol=1e-6)


def check_wide_unsigned_float(name: str, dtype: str, fn64) -> None:
    """A float function of a uint16/32/64 tensor gives float32, ``fn64`` of float64 rounded."""
    array = np.array([0, 1, 5, 200], dtype=dtype)
    result = getattr(ember, name)(ember.from_numpy(array))
    assert result.dtype is ember.float32
    with np.errstate(over="ignore"):
        expected = fn64(array.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def check_wide_unsigned_exact(name: str, dtype: str, fn) -> None:
    """An exact op of a uint16/32/64 tensor equals NumPy's ``fn`` of the array, dtype included."""
    array = np.array([0, 1, 5, 200], dtype=dtype)
    result = getattr(ember, name)(ember.from_numpy(array))
    expected = fn(array)
    assert result.dtype.name == expected.dtype.name
    np.testing.assert_array_equal(result.numpy(), expected)
