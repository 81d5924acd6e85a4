"""The eager interpreter's inference cache keys by what inference reads, never by a user's
object: a value written into a tensor, a fill value or a bound does not outlive its tensor,
and the cache stays bounded however many distinct values pass through it."""

from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import ember
from ember.dispatch.interpreter import _INFER_CACHE_LIMIT, EAGER, attr_tokens


class UserStr(str):
    """A str a weakref can follow (a plain str cannot be weakly referenced)."""


class UserFloat(float):
    """A float a weakref can follow."""


def _string_setitem(value):
    t = ember.tensor(["a", "b"])
    t[0] = value
    return t


def _setitem(value):
    t = ember.zeros(3)
    t[0] = value
    return t


USES = {
    "string tensor t[i] = value": (UserStr, _string_setitem),
    "string tensor == value": (UserStr, lambda v: ember.tensor(["a", "b"]) == v),
    "fill_": (UserFloat, lambda v: ember.zeros(3).fill_(v)),
    "full": (UserFloat, lambda v: ember.full((2,), v)),
    "t[i] = value": (UserFloat, _setitem),
    "masked_fill": (UserFloat, lambda v: ember.zeros(3).masked_fill(ember.tensor([True, False, True]), v)),
    "clamp bound": (UserFloat, lambda v: ember.zeros(3).clamp(min=v)),
    "pow exponent": (UserFloat, lambda v: ember.ones(2) ** v),
    "mul scalar": (UserFloat, lambda v: ember.ones(2) * v),
    "pad value": (UserFloat, lambda v: ember.nn.functional.pad(ember.zeros(3), (1, 1), value=v)),
    "nan_to_num": (UserFloat, lambda v: ember.nan_to_num(ember.ones(2), nan=v)),
}


@pytest.mark.parametrize("use", sorted(USES))
def test_an_attribute_value_does_not_outlive_its_tensor(use):
    kind, run = USES[use]
    value = kind("user-secret" if kind is UserStr else 2.5)
    ref = weakref.ref(value)
    result = run(value)
    del result, value
    gc.collect()
    assert ref() is None, [type(r).__name__ for r in gc.get_referrers(ref())]


def test_a_string_element_is_not_kept_in_the_cache_as_bytes():
    secret = "a string element no key may keep " + "x" * 40
    _string_setitem(secret)
    flat = repr(list(EAGER._cache))
    assert "no key may keep" not in flat


def test_a_numpy_array_scalar_is_not_kept():
    value = np.array(7.0)
    before = sys.getrefcount(value)
    result = _setitem(value)
    del result
    gc.collect()
    assert sys.getrefcount(value) == before


def test_the_cache_stays_bounded_over_many_distinct_values():
    for i in range(_INFER_CACHE_LIMIT + 100):
        ember.zeros(2).fill_(UserFloat(i + 0.5))
    assert len(EAGER._cache) <= _INFER_CACHE_LIMIT


def test_attr_tokens_copies_builtins_and_refuses_what_it_cannot_copy():
    assert attr_tokens((UserStr("x"), UserFloat(1.5), (1, 2), [3])) == ("x", 1.5, (1, 2), ("list", (3,)))
    assert type(attr_tokens((UserStr("x"),))[0]) is str
    assert attr_tokens((b"bytes",)) is None
    assert attr_tokens((np.array(1.0),)) is None
    assert attr_tokens((ember.ones(1),)) is None
    assert attr_tokens(([0.5] * 1000,)) is None  # too long to copy into a key


def test_a_subclass_and_its_builtin_infer_separately():
    """The key keeps the value's class: an int and a float of equal value promote differently."""
    assert (ember.ones(2, dtype=ember.int64) * 2).dtype == ember.int64
    assert (ember.ones(2, dtype=ember.int64) * 2.0).dtype == ember.float32
    assert ember.full((1,), UserFloat(2.0)).dtype == ember.float32
    assert ember.full((1,), 2).dtype == ember.int64
