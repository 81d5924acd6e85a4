"""Data type functions: ``astype`` and ember's own ``can_cast``, ``finfo``, ``iinfo``, ``isdtype``, ``result_type``."""

from __future__ import annotations

import numpy as np
import pytest

import ember.array_api as xp

from ._reference import E, check


def test_astype_copy_and_dtype_functions():
    a = np.array([1.7, -2.2, 0.0], dtype=np.float32)
    x = E(a)
    check(xp.astype(x, xp.int32), a.astype(np.int32))
    assert xp.astype(x, xp.float32, copy=False) is x
    y = xp.astype(x, xp.float32)
    assert y is not x
    y[0] = 9.0
    assert x[0].item() == pytest.approx(1.7)
    check(xp.astype(x, xp.bool, device="cpu"), a.astype(bool))
    assert xp.result_type(xp.int8, xp.uint8) == xp.int16
    assert xp.result_type(x, 1.0) == xp.float32
    assert xp.can_cast(xp.int8, xp.int16) and not xp.can_cast(xp.float64, xp.int32)
    assert xp.finfo(xp.float32).eps == np.finfo(np.float32).eps and xp.finfo(xp.complex64).dtype == xp.float32
    assert xp.iinfo(xp.uint8).max == 255 and xp.iinfo(xp.int16).min == -(2**15)
    assert xp.isdtype(xp.float64, "real floating") and xp.isdtype(xp.uint8, ("bool", "integral"))
