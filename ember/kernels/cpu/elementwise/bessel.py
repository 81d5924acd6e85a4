"""CPU kernels of the modified Bessel functions I0 and I1 and their scaled forms exp(-|x|) I(x).

Each is computed scaled, in float64: for |x| <= 20 by the power series
sum_k (x/2)^(2k+v) / (k! (k+v)!) (positive terms, 50 of them, no cancellation) times exp(-|x|);
beyond, by the asymptotic series exp(-x) I_v(x) ~ (2 pi x)^(-1/2) sum_k (-1)^k a_k(v) / x^k,
a_k(v) = prod_(j<=k) (4v^2 - (2j-1)^2) / (k! 8^k), whose terms still shrink at k = 40 for x >= 20
(the smallest term there is about exp(-2x) < 1e-17). The unscaled functions multiply back by
exp(|x|) (inf past about 713, as PyTorch).

>>> i0(np.array([0.0, 1.0])).tolist(), i1(np.array([1.0])).tolist()
([1.0, 1.2660658777520082], [0.565159103992485])
"""

from __future__ import annotations

import numpy as np

from .factories import F64, map1

__all__ = ["i0", "i0e", "i1", "i1e"]

_SERIES_TERMS = 50
_ASYMPTOTIC_TERMS = 40
_SWITCH = 20.0


def _scaled(order: int, x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I_order(|x|) for order 0 or 1."""
    y = np.abs(x)
    small = np.where(y <= _SWITCH, y, 0.0)
    q = 0.25 * small * small
    term = np.ones_like(y) if order == 0 else 0.5 * small
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + order))
        total = total + term
    series = total * np.exp(-small)
    big = np.where(y > _SWITCH, y, 2 * _SWITCH)
    mu = 4.0 * order * order
    term = np.ones_like(y)
    total = term.copy()
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = term * -(mu - (2 * k - 1) ** 2) / (8.0 * k * big)
        total = total + term
    asymptotic = total / np.sqrt(2.0 * np.pi * big)
    out = np.where(y <= _SWITCH, series, asymptotic)
    return np.where(np.isnan(x), x, np.where(np.isinf(y), 0.0, out))


def i0e(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I0(x) of a float64 array."""
    return _scaled(0, x)


def i1e(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I1(x) of a float64 array (odd in x)."""
    return np.copysign(_scaled(1, x), x)


def i0(x: np.ndarray) -> np.ndarray:
    """I0(x) of a float64 array."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(np.isinf(x), np.inf, _scaled(0, x) * np.exp(np.abs(x)))


def i1(x: np.ndarray) -> np.ndarray:
    """I1(x) of a float64 array (odd in x)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(np.isinf(x), x, np.copysign(_scaled(1, x) * np.exp(np.abs(x)), x))


def _in64(fn):
    def wrapped(x, attrs):
        return fn(x.astype(F64, copy=False)).astype(x.dtype, copy=False)

    return wrapped


map1("i0", _in64(i0), "float")
map1("special.i0e", _in64(i0e), "float")
map1("special.i1", _in64(i1), "float")
map1("special.i1e", _in64(i1e), "float")
