"""CPU kernels of division: true division, rounded division (div_trunc, floor_divide),
remainder and fmod. Integer division by zero raises, as PyTorch does."""

from __future__ import annotations

import numpy as np

from .factories import map2, ufunc2

ufunc2("div", np.true_divide, "float")


def _int_checked(fn):
    """Integer division by zero: PyTorch raises ``RuntimeError: ZeroDivisionError``."""

    def checked(a, b, attrs):
        if a.dtype.kind in "iub" and a.size and not np.all(b):  # (an empty result divides nothing)
            raise RuntimeError("ZeroDivisionError")
        return fn(a, b)

    return checked


def _div_trunc(a, b):
    if a.dtype.kind in "iu":
        return (a - np.fmod(a, b)) // b
    return a / b  # truncated by _trunc_float_result once rounded to the result dtype


def _trunc_float_result(out: np.ndarray) -> None:
    # PyTorch rounds a float16/bfloat16 quotient to its dtype before truncating (9.99 -> 10 -> 10)
    if out.dtype.kind not in "iub":
        np.trunc(out, out=out)


map2("div_trunc", _int_checked(_div_trunc), finish=_trunc_float_result)
map2("floor_divide", _int_checked(np.floor_divide))


def _remainder(a, b):
    r = np.asarray(np.remainder(a, b))  # (0-d operands give a NumPy scalar)
    if r.dtype.kind in "fV":  # (bfloat16 is kind V)
        # a zero remainder keeps the dividend's sign in PyTorch (fmod's), NumPy gives it the divisor's
        np.copysign(r, a, out=r, where=r == 0)
    return r


map2("remainder", _int_checked(_remainder))
map2("fmod", _int_checked(np.fmod))
