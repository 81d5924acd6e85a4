"""CPU kernels of the exponentials and logarithms: exp, exp2, expm1, log, log2, log10, log1p
(NumPy's ufuncs, integers computed in the default float dtype) and logaddexp."""

from __future__ import annotations

import numpy as np

from .factories import map2, ufunc1

ufunc1("exp", np.exp, "float")
ufunc1("exp2", np.exp2, "float")
ufunc1("expm1", np.expm1, "float")
ufunc1("log", np.log, "float")
ufunc1("log2", np.log2, "float")
ufunc1("log10", np.log10, "float")
ufunc1("log1p", np.log1p, "float")


def _logaddexp(a, b, attrs):
    if a.dtype.kind != "c":
        return np.logaddexp(a, b)
    # complex: the operand with the larger real part factors out, as PyTorch's kernel does
    first = a.real >= b.real
    hi, lo = np.where(first, a, b), np.where(first, b, a)
    return hi + np.log1p(np.exp(lo - hi))


map2("logaddexp", _logaddexp)
