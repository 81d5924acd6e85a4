"""Statistical and utility functions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

import ember.array_api as xp

from ._reference import E, array_and_axis, check, check_against_strict, ember_of


def test_max_min_values_only():
    a = np.array([[1.0, 5.0, -2.0], [4.0, 0.0, 3.0]], dtype=np.float32)
    for kw in ({}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}, {"keepdims": True}, {"axis": ()}):
        check(xp.max(E(a), **kw), np.max(a, **kw))
        check(xp.min(E(a), **kw), np.min(a, **kw))
    check(xp.max(E(np.array([1.0, np.nan]))), np.max(np.array([1.0, np.nan])))
    check(xp.min(E(np.array(7, dtype=np.uint8))), np.min(np.array(7, dtype=np.uint8)))
    check(xp.max(E(np.zeros((3, 0))), axis=0), np.max(np.zeros((3, 0)), axis=0))


def test_sum_prod_dtypes():
    for dt in (np.bool_, np.int8, np.int32, np.uint8, np.uint32, np.float32, np.complex64):
        a = np.array([[1, 2, 0], [3, 1, 1]]).astype(dt)
        for kw in ({}, {"axis": 1}, {"axis": (0, 1), "keepdims": True}, {"axis": ()}):
            check(xp.sum(E(a), **kw), np.sum(a, **kw))
            check(xp.prod(E(a), **kw), np.prod(a, **kw))
    a = np.arange(4, dtype=np.int16)
    check(xp.sum(E(a), dtype=xp.float64), np.sum(a, dtype=np.float64))
    check(xp.prod(E(a), dtype=xp.int16), np.prod(a, dtype=np.int16))
    check(xp.sum(E(np.zeros((0,), dtype=np.uint16))), np.sum(np.zeros((0,), dtype=np.uint16)))
    check(xp.prod(E(np.zeros((2, 0), dtype=np.float32)), axis=1), np.prod(np.zeros((2, 0), dtype=np.float32), axis=1))


def test_mean_std_var_correction():
    a = np.array([[1.0, 2.0, 4.0], [3.0, 7.0, 0.5]], dtype=np.float64)
    for kw in ({}, {"axis": 0}, {"axis": (0, 1), "keepdims": True}, {"axis": -1, "keepdims": True}):
        check(xp.mean(E(a), **kw), np.mean(a, **kw), rtol=1e-12)
        for corr in (0, 1, 0.5):
            check(xp.std(E(a), correction=corr, **kw), np.std(a, correction=corr, **kw), rtol=1e-12)
            check(xp.var(E(a), correction=corr, **kw), np.var(a, correction=corr, **kw), rtol=1e-12)
    check(xp.mean(E(a), axis=()), a)
    check(xp.var(E(a), axis=()), np.zeros_like(a))
    check(xp.std(E(a), axis=(), correction=1), np.full_like(a, np.nan))  # 0 / (1 - 1), as NumPy (which warns)
    check(xp.std(E(np.array(2.0))), np.std(np.array(2.0)))
    c = np.array([1 + 1j, 2 - 1j], dtype=np.complex128)
    check(xp.var(E(c)), np.var(c), rtol=1e-12)


def test_all_any():
    a = np.array([[True, False], [True, True]])
    for kw in ({}, {"axis": 0}, {"axis": (0, 1), "keepdims": True}, {"axis": -1, "keepdims": True}, {"axis": ()}):
        check(xp.all(E(a), **kw), np.all(a, **kw))
        check(xp.any(E(a), **kw), np.any(a, **kw))
    check(xp.all(E(np.zeros((0,)))), np.all(np.zeros((0,))))
    check(xp.any(E(np.array([0.0, 2.5]))), np.any(np.array([0.0, 2.5])))


def test_cumulative_sum_prod():
    v = np.array([1, 2, 3], dtype=np.uint8)
    check(xp.cumulative_sum(E(v)), np.cumulative_sum(v))
    check(xp.cumulative_sum(E(v), include_initial=True), np.cumulative_sum(v, include_initial=True))
    check(xp.cumulative_prod(E(v), include_initial=True), np.cumulative_prod(v, include_initial=True))
    m = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
    for axis in (0, 1, -1):
        check(xp.cumulative_sum(E(m), axis=axis), np.cumulative_sum(m, axis=axis))
        check(xp.cumulative_prod(E(m), axis=axis, include_initial=True), np.cumulative_prod(m, axis=axis, include_initial=True))
    i = np.array([[1, 2], [3, 4]], dtype=np.int8)
    check(xp.cumulative_sum(E(i), axis=0, dtype=xp.int16), np.cumulative_sum(i, axis=0, dtype=np.int16))
    check(xp.cumulative_sum(E(i), axis=1), np.cumulative_sum(i, axis=1))
    check(xp.cumulative_sum(E(np.zeros((0,))), include_initial=True), np.cumulative_sum(np.zeros((0,)), include_initial=True))
    with pytest.raises(ValueError, match="axis must be given"):
        xp.cumulative_sum(E(m))


def test_diff():
    a = np.array([[1, 4, 9, 16], [2, 2, 0, 5]], dtype=np.int32)
    check(xp.diff(E(a)), np.diff(a))
    check(xp.diff(E(a), axis=0), np.diff(a, axis=0))
    check(xp.diff(E(a), n=2), np.diff(a, n=2))
    check(xp.diff(E(a), n=0), np.diff(a, n=0))
    check(xp.diff(E(a), n=5), np.diff(a, n=5))
    p, q = np.zeros((2, 1), dtype=np.int32), np.full((2, 2), 3, dtype=np.int32)
    check(xp.diff(E(a), prepend=E(p), append=E(q)), np.diff(a, prepend=p, append=q))
    b = np.array([True, False, False, True])
    check(xp.diff(E(b)), np.diff(b))
    check(xp.diff(E(np.zeros((3, 0))), axis=0), np.diff(np.zeros((3, 0)), axis=0))
    with pytest.raises(IndexError):
        xp.diff(E(a), axis=2)


@settings(max_examples=40, deadline=None)
@given(array_and_axis())
def test_reductions_match_numpy(case):
    a, axis, keepdims, transpose = case
    x = ember_of(a, transpose)
    kw = {"axis": axis, "keepdims": keepdims}
    check(xp.sum(x, **kw), np.sum(a, **kw), rtol=1e-5)
    check(xp.prod(x, **kw), np.prod(a, **kw), rtol=1e-5)
    check(xp.all(x, **kw), np.all(a, **kw))
    check(xp.any(x, **kw), np.any(a, **kw))
    check(xp.count_nonzero(x, **kw), np.count_nonzero(a, **kw))
    reduced = a.size if axis is None else math.prod(a.shape[i] for i in (axis if isinstance(axis, tuple) else (axis,)))
    if reduced > 0:
        check(xp.max(x, **kw), np.max(a, **kw))
        check(xp.min(x, **kw), np.min(a, **kw))
    if a.dtype.kind == "f" and reduced > 1:
        check(xp.mean(x, **kw), np.mean(a, **kw), rtol=1e-5, atol=1e-5)
        check(xp.var(x, **kw), np.var(a, **kw), rtol=1e-4, atol=1e-3)
        check(xp.std(x, correction=1, **kw), np.std(a, correction=1, **kw), rtol=1e-4, atol=1e-3)


# Against array-api-strict, the reference implementation, when it is installed.
STRICT_CASES = [
    ("max", lambda m: ((m.asarray([[3.0, 1.0], [0.0, 5.0]]),), {"axis": 1, "keepdims": True})),
    ("min", lambda m: ((m.asarray([[3.0, 1.0], [0.0, 5.0]]),), {})),
    ("std", lambda m: ((m.asarray([[3.0, 1.0], [0.0, 5.0]]),), {"axis": 0, "correction": 1})),
    ("var", lambda m: ((m.asarray([[3.0, 1.0], [0.0, 5.0]]),), {})),
    ("sum", lambda m: ((m.asarray([1, 2], dtype=m.uint8),), {})),
    ("prod", lambda m: ((m.asarray([[1, 2], [3, 4]], dtype=m.int16),), {"axis": 1})),
    ("cumulative_sum", lambda m: ((m.asarray([[1, 2], [3, 4]], dtype=m.uint16),), {"axis": 1, "include_initial": True})),
    ("cumulative_prod", lambda m: ((m.asarray([1.0, 2.0, 3.0]),), {"include_initial": True})),
    ("diff", lambda m: ((m.asarray([1, 4, 9, 16]),), {"n": 2, "prepend": m.asarray([0])})),
]


@pytest.mark.parametrize(("name", "build"), STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_against_array_api_strict(xps, name, build):
    check_against_strict(xps, name, build)
