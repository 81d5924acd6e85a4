"""The result-dtype rules of ``ember/ops/elementwise/kinds.py``: float functions of integers give
the default float dtype, rounded division keeps integers, complex magnitudes are real."""

from __future__ import annotations

import math

import numpy as np

import ember


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
