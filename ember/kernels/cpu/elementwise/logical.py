"""CPU kernels of logical_not, logical_and, logical_or, logical_xor (operands read as truth
values)."""

from __future__ import annotations

import numpy as np

from .factories import BOOL, map1, map2

map1("logical_not", lambda x, a: np.logical_not(x), lower=False)


def _logical(ufunc):
    def fn(a, b, attrs):
        return ufunc(a.astype(BOOL, copy=False), b.astype(BOOL, copy=False))

    return fn


map2("logical_and", _logical(np.logical_and), lower=False)
map2("logical_or", _logical(np.logical_or), lower=False)
map2("logical_xor", _logical(np.logical_xor), lower=False)
