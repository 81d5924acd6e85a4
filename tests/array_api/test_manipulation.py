"""Manipulation and indexing functions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember.array_api as xp

from ._reference import E, array_and_axis, check, check_against_strict, ember_of


def test_concat_stack_unstack():
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    b = np.arange(3, dtype=np.uint8).reshape(1, 3)
    check(xp.concat([E(a), E(b)]), np.concat([a, b]))
    check(xp.concat((E(a), E(a)), axis=-1), np.concat((a, a), axis=-1))
    check(xp.concat([E(a), E(b)], axis=None), np.concat([a, b], axis=None))
    check(xp.concat([E(np.array(1.0)), E(np.zeros((2, 2)))], axis=None), np.concat([np.array(1.0), np.zeros((2, 2))], axis=None))
    check(xp.stack([E(a), E(a)], axis=1), np.stack([a, a], axis=1))
    check(xp.stack([E(np.array(1)), E(np.array(2))]), np.stack([np.array(1), np.array(2)]))
    got = xp.unstack(E(a), axis=1)
    assert isinstance(got, tuple) and len(got) == 3
    for g, w in zip(got, np.unstack(a, axis=1), strict=True):
        check(g, w)
    assert xp.unstack(E(np.zeros((0, 2)))) == ()


def test_broadcasting_functions():
    a, b = np.arange(3.0).reshape(3, 1), np.arange(4.0)
    got = xp.broadcast_arrays(E(a), E(b), E(np.array(5.0)))
    assert isinstance(got, tuple)
    for g, w in zip(got, np.broadcast_arrays(a, b, np.array(5.0)), strict=True):
        check(g, w)
    assert xp.broadcast_shapes((3, 1), (4,)) == (3, 4)
    assert xp.broadcast_shapes() == ()
    assert xp.broadcast_shapes((0, 1), (2,)) == (0, 2)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        xp.broadcast_shapes((2,), (3,))
    check(xp.broadcast_to(E(b), shape=(2, 4)), np.broadcast_to(b, (2, 4)))


def test_expand_dims_squeeze():
    a = np.zeros((2, 3))
    for axis in (0, -1, 2, (0, 1), (-1, 0), (0, 3)):
        check(xp.expand_dims(E(a), axis=axis), np.expand_dims(a, axis))
    check(xp.expand_dims(E(np.array(1.0)), axis=0), np.expand_dims(np.array(1.0), 0))
    with pytest.raises(IndexError):
        xp.expand_dims(E(a), axis=3)
    with pytest.raises((ValueError, RuntimeError), match="repeated axis"):
        xp.expand_dims(E(a), axis=(0, 0))
    b = np.zeros((1, 3, 1))
    check(xp.squeeze(E(b), 0), np.squeeze(b, 0))
    check(xp.squeeze(E(b), axis=(0, -1)), np.squeeze(b, (0, -1)))
    check(xp.squeeze(E(b), ()), b)
    with pytest.raises(ValueError, match=r"squeeze\(\): .*axis 1 has size 3"):
        xp.squeeze(E(b), 1)  # PyTorch would return x unchanged
    with pytest.raises(IndexError):
        xp.squeeze(E(b), 3)


def test_flip_roll_permute_tile_reshape_moveaxis():
    a = np.arange(24).reshape(2, 3, 4)
    check(xp.flip(E(a)), np.flip(a))
    check(xp.flip(E(a), axis=1), np.flip(a, axis=1))
    check(xp.flip(E(a), axis=(0, -1)), np.flip(a, axis=(0, -1)))
    check(xp.flip(E(np.array(3))), np.flip(np.array(3)))
    check(xp.roll(E(a), 5), np.roll(a, 5))
    check(xp.roll(E(a), shift=-1, axis=2), np.roll(a, -1, axis=2))
    check(xp.roll(E(a), shift=(1, 2), axis=(0, 2)), np.roll(a, (1, 2), axis=(0, 2)))
    check(xp.roll(E(a), 1, axis=(0, 1)), np.roll(a, 1, axis=(0, 1)))
    check(xp.roll(E(np.zeros((0, 3))), 2), np.zeros((0, 3)))
    check(xp.permute_dims(E(a), axes=(2, 0, 1)), np.permute_dims(a, (2, 0, 1)))
    check(xp.moveaxis(E(a), (0, 1), (2, 0)), np.moveaxis(a, (0, 1), (2, 0)))
    check(xp.tile(E(a[0]), (2, 1, 2)), np.tile(a[0], (2, 1, 2)))
    check(xp.reshape(E(a), (4, -1)), np.reshape(a, (4, -1)))
    check(xp.reshape(E(a), shape=(24,), copy=True), a.reshape(24))
    t = E(a[0]).mT  # not contiguous: no view can flatten it
    with pytest.raises(ValueError, match="copy=False"):
        xp.reshape(t, (12,), copy=False)
    x = E(a)
    v = xp.reshape(x, (6, 4), copy=False)
    v[0, 0] = 100
    assert x[0, 0, 0].item() == 100
    c = xp.reshape(x, (6, 4), copy=True)
    c[0, 0] = -1
    assert x[0, 0, 0].item() == 100


def test_repeat():
    a = np.arange(6).reshape(2, 3)
    check(xp.repeat(E(a), 2), np.repeat(a, 2))
    check(xp.repeat(E(a), 2, axis=1), np.repeat(a, 2, axis=1))
    check(xp.repeat(E(a), E(np.array([1, 0])), axis=0), np.repeat(a, np.array([1, 0]), axis=0))
    check(xp.repeat(E(a), E(np.array([3])), axis=-1), np.repeat(a, np.array([3]), axis=-1))
    check(xp.repeat(E(np.array(7)), 3), np.repeat(np.array(7), 3))
    check(xp.repeat(E(np.zeros((0,))), 2), np.repeat(np.zeros((0,)), 2))


def test_take_and_take_along_axis():
    a = np.arange(12.0).reshape(3, 4)
    idx = np.array([2, -1, 0])
    check(xp.take(E(a), E(idx), axis=1), np.take(a, idx, axis=1))
    check(xp.take(E(a), E(idx), axis=0), np.take(a, idx, axis=0))
    check(xp.take(E(a[0]), E(idx)), np.take(a[0], idx))
    check(xp.take(E(a), E(np.array([], dtype=np.int64)), axis=1), np.take(a, np.array([], dtype=np.int64), axis=1))
    ind = np.array([[0, 3], [-1, 1], [2, 2]])
    check(xp.take_along_axis(E(a), E(ind), axis=1), np.take_along_axis(a, ind, axis=1))
    ind0 = np.array([[2, 0, 1, -3]])
    check(xp.take_along_axis(E(a), E(ind0), axis=0), np.take_along_axis(a, ind0, axis=0))
    check(xp.take_along_axis(E(a), E(np.argsort(a, axis=-1))), np.take_along_axis(a, np.argsort(a, axis=-1), axis=-1))


@settings(max_examples=40, deadline=None)
@given(array_and_axis(dtypes=("int16", "float32", "bool")), st.integers(-3, 3))
def test_manipulation_matches_numpy(case, shift):
    a, axis, _, transpose = case
    x = ember_of(a, transpose)
    check(xp.flip(x, axis=axis), np.flip(a, axis=axis))
    if axis is None or isinstance(axis, int):
        check(xp.roll(x, shift, axis=axis), np.roll(a, shift, axis=axis))
    if a.ndim:
        ax = -1 if axis is None or axis == () else (axis if isinstance(axis, int) else axis[0])
        check(xp.cumulative_sum(x, axis=ax, include_initial=shift > 0), np.cumulative_sum(a, axis=ax, include_initial=shift > 0))
        check(xp.diff(x, axis=ax, n=abs(shift)), np.diff(a, axis=ax, n=abs(shift)))
        check(xp.concat([x, x], axis=ax), np.concat([a, a], axis=ax))
        check(xp.sort(x, axis=ax, descending=shift < 0), np.flip(np.sort(a, axis=ax), axis=ax) if shift < 0 else np.sort(a, axis=ax))
        got = xp.unstack(x, axis=ax)
        assert len(got) == a.shape[ax]
        for g, w in zip(got, np.unstack(a, axis=ax), strict=True):
            check(g, w)
        ones = tuple(i for i in range(a.ndim) if a.shape[i] == 1)
        check(xp.squeeze(x, ones), np.squeeze(a, ones))
    check(xp.concat([x, x], axis=None), np.concat([a, a], axis=None))
    check(xp.expand_dims(x, axis=(0, -1)), np.expand_dims(a, (0, -1)))
    check(xp.stack([x, x], axis=-1), np.stack([a, a], axis=-1))
    check(xp.repeat(x, 2), np.repeat(a, 2))
    for g, w in zip(xp.unique_all(x), np.unique_all(a), strict=True):
        check(g, w)


# Against array-api-strict, the reference implementation, when it is installed.
STRICT_CASES = [
    ("concat", lambda m: (([m.asarray([[1, 2]]), m.asarray([[3], [4]])],), {"axis": None})),
    ("squeeze", lambda m: ((m.asarray([[[1.0], [2.0]]]),), {"axis": (0, 2)})),
    ("expand_dims", lambda m: ((m.asarray([[1.0, 2.0]]),), {"axis": (-1, 0)})),
    ("roll", lambda m: ((m.asarray([[1, 2, 3], [4, 5, 6]]), 1), {"axis": (0, 1)})),
    ("flip", lambda m: ((m.asarray([[1, 2, 3], [4, 5, 6]]),), {"axis": 1})),
    ("repeat", lambda m: ((m.asarray([[1, 2], [3, 4]]), m.asarray([2, 1])), {"axis": 0})),
    ("take", lambda m: ((m.asarray([[1, 2, 3], [4, 5, 6]]), m.asarray([2, -1])), {"axis": 1})),
    ("take_along_axis", lambda m: ((m.asarray([[1, 2, 3]]), m.asarray([[2, 0]])), {"axis": 1})),
]


@pytest.mark.parametrize(("name", "build"), STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_against_array_api_strict(xps, name, build):
    check_against_strict(xps, name, build)
