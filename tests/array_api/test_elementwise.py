"""Element-wise functions: the re-exports, Python scalars on either side, clip/round/sign."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.array_api as xp

from ._reference import E, check, check_against_strict

UNARY_SAME = {
    # name: values in its domain
    "abs": [-2.5, 0.0, 3.0], "acos": [-0.5, 0.0, 1.0], "acosh": [1.0, 2.0], "asin": [-0.5, 0.5],
    "asinh": [-1.0, 2.0], "atan": [-1.0, 3.0], "atanh": [-0.5, 0.5], "ceil": [-1.5, 1.2], "cos": [0.0, 2.0],
    "cosh": [-1.0, 1.0], "exp": [-1.0, 2.0], "floor": [-1.5, 1.2], "isfinite": [1.0, np.inf, np.nan],
    "isinf": [1.0, -np.inf, np.nan], "isnan": [1.0, np.nan], "log": [0.5, 2.0], "log1p": [1e-5, 2.0],
    "log2": [0.5, 8.0], "log10": [0.1, 100.0], "negative": [1.0, -2.0], "positive": [1.0, -2.0],
    "reciprocal": [0.5, -4.0], "signbit": [-0.0, 0.0, -1.0], "sin": [0.0, 1.0], "sinh": [-1.0, 1.0],
    "sqrt": [0.0, 4.0], "square": [-3.0, 2.0], "tan": [0.0, 1.0], "trunc": [-1.7, 1.7],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(UNARY_SAME))
def test_unary_reexports_match_numpy(name):
    a = np.array(UNARY_SAME[name], dtype=np.float32)
    check(getattr(xp, name)(E(a)), getattr(np, name)(a), rtol=1e-5)
    assert getattr(xp, name) is ember.ops.functional.FUNCTIONS[name]  # a re-export, not a copy


def test_unary_on_integers_and_complex():
    i = np.array([-3, 0, 4], dtype=np.int16)
    for name in ("abs", "negative", "ceil", "floor", "trunc", "square", "bitwise_invert", "positive"):
        check(getattr(xp, name)(E(i)), getattr(np, name)(i))
    c = np.array([1 + 2j, -3 - 0.5j], dtype=np.complex64)
    for name in ("conj", "real", "imag", "abs", "exp", "sqrt"):
        check(getattr(xp, name)(E(c)), getattr(np, name)(c), rtol=1e-5)
    check(xp.logical_not(E([True, False])), np.array([False, True]))


BINARY = {
    # name: (values, Python scalar)
    "add": ([1.5, -2.0, 0.0], 2), "atan2": ([1.0, -2.0], 0.5), "copysign": ([1.0, -2.0], -1.0),
    "divide": ([3.0, -2.0], 2), "equal": ([1.0, 2.0], 2), "floor_divide": ([7.0, -7.0], 2),
    "greater": ([1.0, 3.0], 2), "greater_equal": ([2.0, 1.0], 2), "hypot": ([3.0, 1.0], 4),
    "less": ([1.0, 3.0], 2), "less_equal": ([2.0, 3.0], 2), "logaddexp": ([0.0, 1.0], 1.0),
    "maximum": ([1.0, np.nan, 3.0], 2), "minimum": ([1.0, np.nan, 3.0], 2), "multiply": ([1.5, -2.0], 3),
    "nextafter": ([1.0, 2.0], 0.0), "not_equal": ([1.0, 2.0], 2), "pow": ([2.0, 3.0], 2),
    "remainder": ([7.0, -7.0, 5.5], 3), "subtract": ([1.0, 5.0], 2),
}  # fmt: skip
BINARY_INT = {"bitwise_and": 6, "bitwise_or": 6, "bitwise_xor": 6, "bitwise_left_shift": 2, "bitwise_right_shift": 1}
BINARY_BOOL = ("logical_and", "logical_or", "logical_xor")


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_scalar_on_either_side(name):
    values, s = BINARY[name]
    a = np.array(values, dtype=np.float32)
    b = np.array(values[::-1], dtype=np.float32)
    f, g = getattr(xp, name), getattr(np, name)
    check(f(E(a), E(b)), g(a, b), rtol=1e-6)
    check(f(E(a), s), g(a, s), rtol=1e-6)
    check(f(s, E(a)), g(s, a), rtol=1e-6)  # 2025.12: a Python scalar may come first
    with pytest.raises(TypeError, match=f"{name}\\(\\): expected at least one of x1 and x2 to be an array"):
        f(s, s)


@pytest.mark.parametrize("name", sorted(BINARY_INT))
def test_bitwise_with_scalars(name):
    a = np.array([1, 5, 12], dtype=np.int16)
    s = BINARY_INT[name]
    f, g = getattr(xp, name), getattr(np, name)
    check(f(E(a), s), g(a, s))
    check(f(s, E(a)), g(s, a))
    check(f(E(a), E(a[::-1])), g(a, a[::-1]))


@pytest.mark.parametrize("name", BINARY_BOOL)
def test_logical_with_scalars(name):
    a = np.array([True, False])
    check(getattr(xp, name)(True, E(a)), getattr(np, name)(True, a))
    check(getattr(xp, name)(E(a), E(a[::-1])), getattr(np, name)(a, a[::-1]))


def test_scalar_first_keeps_the_array_dtype():
    x = E(np.array([1, 2], dtype=np.int8))
    assert xp.add(1, x).dtype == xp.int8
    assert xp.multiply(2.5, E(np.array([1.0], dtype=np.float32))).dtype == xp.float32
    assert xp.subtract(1j, E(np.array([1.0], dtype=np.float32))).dtype == xp.complex64


def test_equal_is_elementwise_with_broadcasting():
    a = np.array([[1, 2, 3]], dtype=np.int32)
    b = np.array([[1], [3]], dtype=np.int32)
    check(xp.equal(E(a), E(b)), np.equal(a, b))
    assert ember.equal(E(a), E(a)) is True  # ember's own equal stays PyTorch's
    check(xp.equal(E(np.array(np.nan)), E(np.array(np.nan))), np.array(False))


def test_clip_keeps_dtype_and_takes_arrays():
    a = np.array([-3, 0, 5, 9], dtype=np.int16)
    check(xp.clip(E(a), 0, 6), np.clip(a, 0, 6))
    check(xp.clip(E(a), max=4), np.clip(a, None, 4))
    check(xp.clip(E(a)), a)
    f = np.array([1.0, np.nan, -2.0, 7.0], dtype=np.float32)
    lo = np.array([0.0, 0.0, np.nan, 0.0], dtype=np.float32)
    check(xp.clip(E(f), E(lo), 5.0), np.clip(f, lo, np.float32(5.0)))
    assert xp.clip(E(a), 0.5, 3.5).dtype == xp.int16


def test_round_and_sign_incl_complex():
    r = np.array([0.5, 1.5, 2.5, -0.5, -1.7, np.inf, np.nan], dtype=np.float64)
    check(xp.round(E(r)), np.round(r))
    c = np.array([1.5 + 2.5j, -0.5 - 1.5j, 2.7 + 0j], dtype=np.complex128)
    check(xp.round(E(c)), np.round(c))
    check(xp.round(E(np.array([3, -4], dtype=np.int32))), np.array([3, -4], dtype=np.int32))
    s = np.array([3 + 4j, 0j, -2j], dtype=np.complex64)
    check(xp.sign(E(s)), np.sign(s), rtol=1e-6)
    check(xp.sign(E(np.array([-2.0, 0.0, 3.0], dtype=np.float32))), np.array([-1.0, 0.0, 1.0], dtype=np.float32))
    check(xp.round(E(np.array(2.5))), np.round(np.array(2.5)))  # 0-d


# Against array-api-strict, the reference implementation, when it is installed.
STRICT_CASES = [
    ("equal", lambda m: ((m.asarray([1, 2, 3]), 2), {})),
    ("clip", lambda m: ((m.asarray([-3, 0, 5], dtype=m.int8),), {"min": -1, "max": 3})),
    ("round", lambda m: ((m.asarray([0.5 + 1.5j, 2.5 - 0.5j]),), {})),
    ("sign", lambda m: ((m.asarray([3.0 + 4.0j, 0j]),), {})),
]


@pytest.mark.parametrize(("name", "build"), STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_against_array_api_strict(xps, name, build):
    check_against_strict(xps, name, build)
