"""Creation functions."""

from __future__ import annotations

import numpy as np
import pytest

import ember.array_api as xp

from ._reference import E, check, check_against_strict


def test_creation_functions():
    check(xp.arange(5), np.arange(5))
    check(xp.arange(1, stop=7, step=2), np.arange(1, 7, 2))
    check(xp.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25, dtype=np.float32))
    check(xp.arange(5, 0, -2, dtype=xp.int16), np.arange(5, 0, -2, dtype=np.int16))
    check(xp.arange(0), np.arange(0))
    check(xp.zeros((2, 0)), np.zeros((2, 0), dtype=np.float32))
    check(xp.ones(3, dtype=xp.int8), np.ones(3, dtype=np.int8))
    check(xp.zeros(shape=()), np.zeros((), dtype=np.float32))
    assert xp.empty((2, 3), dtype=xp.uint8).shape == (2, 3) and xp.empty(shape=4).dtype == xp.float32
    check(xp.full((2,), True), np.full((2,), True))
    check(xp.full((2,), 3), np.full((2,), 3))
    check(xp.full(shape=(1, 2), fill_value=1.5, dtype=xp.float64), np.full((1, 2), 1.5))
    assert xp.full((1,), 1j).dtype == xp.complex64
    x = E(np.zeros((2, 3), dtype=np.int32))
    check(xp.ones_like(x), np.ones((2, 3), dtype=np.int32))
    check(xp.zeros_like(x, dtype=xp.float64), np.zeros((2, 3)))
    check(xp.full_like(x, fill_value=7), np.full((2, 3), 7, dtype=np.int32))
    assert xp.empty_like(x, device="cpu").shape == (2, 3)
    check(xp.eye(3), np.eye(3, dtype=np.float32))
    check(xp.eye(2, 4, k=1, dtype=xp.int32), np.eye(2, 4, k=1, dtype=np.int32))
    check(xp.eye(3, k=-2), np.eye(3, k=-2, dtype=np.float32))
    check(xp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
    check(xp.linspace(0, 1, num=4, endpoint=False), np.linspace(0, 1, 4, endpoint=False, dtype=np.float32))
    check(xp.linspace(2.0, 3.0, 0, dtype=xp.float64), np.linspace(2.0, 3.0, 0))
    check(xp.asarray([1, 2]), np.asarray([1, 2]))
    check(xp.asarray(np.arange(3, dtype=np.uint16)), np.arange(3, dtype=np.uint16))
    assert xp.asarray([1.0]).dtype == xp.float32 and xp.asarray(True).dtype == xp.bool


def test_tril_triu_keyword_k():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for k in (-1, 0, 2):
        check(xp.tril(E(a), k=k), np.tril(a, k=k))
        check(xp.triu(E(a), k=k), np.triu(a, k=k))


def test_meshgrid_defaults_to_xy_and_returns_tuple():
    a, b = np.arange(3.0), np.arange(2.0)
    got = xp.meshgrid(E(a), E(b))
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, np.meshgrid(a, b), strict=True):
        check(g, w)
    for g, w in zip(xp.meshgrid(E(a), E(b), indexing="ij"), np.meshgrid(a, b, indexing="ij"), strict=True):
        check(g, w)
    assert xp.meshgrid() == ()
    with pytest.raises(ValueError, match="indexing must be 'xy' or 'ij'"):
        xp.meshgrid(E(a), indexing="yx")


# Against array-api-strict, the reference implementation, when it is installed.
STRICT_CASES = [
    ("tril", lambda m: ((m.asarray([[1, 2, 3], [4, 5, 6]]),), {"k": 1})),
    ("eye", lambda m: ((3, 4), {"k": -1, "dtype": m.float64})),
    ("linspace", lambda m: ((0.0, 1.0, 4), {"endpoint": False, "dtype": m.float64})),
]


@pytest.mark.parametrize(("name", "build"), STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_against_array_api_strict(xps, name, build):
    check_against_strict(xps, name, build)
