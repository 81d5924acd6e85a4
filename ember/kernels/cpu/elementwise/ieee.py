"""CPU kernels of the IEEE 754 predicates and value ops: isnan, isinf, isfinite, signbit,
nextafter, nan_to_num."""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from .factories import BOOL, EMBER, KIND, LOW, map1, ufunc2


def _float_test(ufunc, integral_value: bool):
    def fn(x, attrs):
        if KIND[x.dtype] in "iub":
            return np.full(x.shape, integral_value)
        return ufunc(x)

    return fn


map1("isnan", _float_test(np.isnan, False), lower=False)
map1("isinf", _float_test(np.isinf, False), lower=False)
map1("isfinite", _float_test(np.isfinite, True), lower=False)


def _signbit(x, attrs):
    if KIND[x.dtype] == "f":
        return np.signbit(x)
    if KIND[x.dtype] == "i":
        return x < 0
    return np.zeros(x.shape, BOOL)


map1("signbit", _signbit, lower=False)
ufunc2("nextafter", np.nextafter, lower=False)  # steps in the dtype's own grid


def _nan_to_num(x, attrs):
    kind = KIND[x.dtype]
    if kind == "c":
        parts = x.real, x.imag
        out = np.empty_like(x)
        out.real, out.imag = (_nan_to_num(p, attrs) for p in parts)
        return out
    if kind != "f":
        return x
    info = np.finfo(x.dtype) if x.dtype not in LOW else _dt.finfo(EMBER[x.dtype])
    nan, posinf, neginf = attrs["nan"], attrs["posinf"], attrs["neginf"]
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = np.where(np.isnan(x), x.dtype.type(nan if nan is not None else 0.0), x)
    out = np.where(out == np.inf, x.dtype.type(posinf), out)
    return np.where(out == -np.inf, x.dtype.type(neginf), out)


map1("nan_to_num", _nan_to_num, lower=False)
