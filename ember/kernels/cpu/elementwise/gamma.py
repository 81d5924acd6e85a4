"""CPU kernels of the gamma family: lgamma, digamma and polygamma, evaluated in float64.

- ``lgamma`` is the C library's ``lgamma`` (``math.lgamma``) element by element: exact, and the
  same function PyTorch calls, at the price of a Python call per element. NumPy has no lgamma,
  and the short rational approximations lose relative accuracy near the zeros at 1 and 2.
- ``digamma`` shifts x up past 10 with psi(x) = psi(x + 1) - 1/x, then sums the asymptotic
  series ln x - 1/(2x) - sum B_2k / (2k x^2k); negative x use the reflection
  psi(x) = psi(1 - x) - pi cot(pi x).
- ``polygamma(n, x)``, n >= 1, is (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta by
  Euler-Maclaurin summation after shifting x past 9 + n term by term (for negative x too, down to
  -4096, where the reflection below would cancel); further out, the n-th derivative of the
  reflection, psi_n(x) = (-1)^n psi_n(1 - x) - pi^(n+1) P_n(cot(pi x)) with P_0(c) = c and
  P_(k+1)(c) = -(1 + c^2) P_k'(c), so no element takes more than about 4100 + n steps.

>>> digamma(np.array([1.0, 0.5, -0.5])).tolist()
[-0.5772156649015323, -1.9635100260214227, 0.036489973978576645]
>>> polygamma(1, np.array([1.0])).round(14).tolist()  # pi^2 / 6
[1.64493406684823]
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.polynomial import polynomial as _poly

from .factories import F64, map1

__all__ = ["digamma", "hurwitz_zeta", "lgamma", "polygamma"]


def _bernoulli_even(count: int) -> list[Fraction]:
    """B_2, B_4, ..., B_2count, exactly (the Akiyama-Tanigawa algorithm)."""
    size = 2 * count + 1
    row = [Fraction(0)] * (size + 1)
    numbers = []
    for m in range(size + 1):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])
    return [numbers[2 * k] for k in range(1, count + 1)]


_B2K = _bernoulli_even(12)
# digamma's asymptotic series: B_2k / (2k), k = 1..7
_PSI_SERIES = [float(b / (2 * k)) for k, b in enumerate(_B2K[:7], start=1)]
# Euler-Maclaurin for zeta: B_2k / (2k)!, k = 1..12
_EM_SERIES = [float(b / math.factorial(2 * k)) for k, b in enumerate(_B2K, start=1)]


def _lgamma_scalar(x: float) -> float:
    if x <= 0.0 and (x == -math.inf or x == math.floor(x)):
        return math.inf  # the poles and -inf, where the C library also says inf (math.lgamma raises)
    return math.lgamma(x)


_LGAMMA = np.frompyfunc(_lgamma_scalar, 1, 1)


def lgamma(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| of a float64 array: the C library's lgamma, element by element."""
    return np.asarray(_LGAMMA(x), dtype=F64).reshape(x.shape)


def _cot_pi(x: np.ndarray) -> np.ndarray:
    """cot(pi x), reduced to [-1/2, 1/2] first so large |x| and x near an integer keep their digits."""
    r = x - np.rint(x)
    return np.cos(np.pi * r) / np.sin(np.pi * r)


def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) of a float64 array: -inf/+inf at +0/-0, nan at the negative integers and -inf."""
    neg = x < 0
    y = np.where(neg, 1.0 - x, x)
    y = np.where(y == 0, 1.0, y)
    shift = np.zeros_like(y)
    for _ in range(10):
        low = y < 10.0
        shift = shift - np.where(low, 1.0 / y, 0.0)
        y = np.where(low, y + 1.0, y)
    z = 1.0 / (y * y)
    series = np.zeros_like(z)
    for c in reversed(_PSI_SERIES):
        series = (series + c) * z
    with np.errstate(invalid="ignore", divide="ignore"):
        result = np.log(y) - 0.5 / y - series + shift
        result = np.where(neg, result - np.pi * _cot_pi(x), result)
    result = np.where(x == 0, np.copysign(np.inf, -x), result)
    return np.where(neg & (x == np.floor(x)), np.nan, result)


def hurwitz_zeta(s: float, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) = sum_k (q + k)^-s for s > 1 (float64; q negative and not an integer when s is
    an integer): the terms up to q + k >= 9 + s summed directly, the rest by Euler-Maclaurin."""
    limit = 9.0 + s  # the series' terms grow with s: start it further out for higher orders
    a = q.astype(F64).reshape(-1)
    total = np.zeros_like(a)
    active = np.flatnonzero(a < limit)
    while active.size:  # each element takes ceil(limit - q) steps; finished ones drop out
        total[active] += a[active] ** (-s)
        a[active] += 1.0
        active = active[a[active] < limit]
    tail = a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** (-s)
    factor = s * a ** (-s - 1.0)  # s (s+1) ... (s+2k-2) a^(-s-2k+1), built term by term
    for k, c in enumerate(_EM_SERIES, start=1):
        tail = tail + c * factor
        factor = factor * (s + 2 * k - 1) * (s + 2 * k) / (a * a)
    return (total + tail).reshape(q.shape)


_DIRECT_SUM = 4096.0  # negative x down to this are shifted up term by term


def _cot_derivative_poly(n: int) -> np.ndarray:
    """P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)): P_0(c) = c, P_(k+1) = -(1 + c^2) P_k'."""
    p = np.array([0.0, 1.0])
    for _ in range(n):
        p = -_poly.polymul([1.0, 0.0, 1.0], _poly.polyder(p))
    return p


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """psi^(n)(x) of a float64 array, n >= 0."""
    if n == 0:
        return digamma(x)
    pole = (x <= 0) & (x == np.floor(x))
    sign = -1.0 if n % 2 == 0 else 1.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        far = x < -_DIRECT_SUM  # reflected; nearer negative x are summed directly (the reflection cancels there)
        direct = sign * math.factorial(n) * hurwitz_zeta(float(n + 1), np.where(far | pole, 1.0, x))
        if far.any():
            mirrored = sign * math.factorial(n) * hurwitz_zeta(float(n + 1), np.where(far, 1.0 - x, 1.0))
            reflected = (-1.0) ** n * mirrored - np.pi ** (n + 1) * _poly.polyval(
                _cot_pi(np.where(far, x, 0.5)), _cot_derivative_poly(n)
            )
            direct = np.where(far, reflected, direct)
        result = direct
    # At a pole, PyTorch's value: (-1)^(n+1) inf (zeta(n + 1, pole) is taken as +inf)
    return np.where(pole, sign * np.inf, result)


def _in64(fn):
    def wrapped(x, attrs):
        return fn(x.astype(F64, copy=False)).astype(x.dtype, copy=False)

    return wrapped


map1("lgamma", _in64(lgamma), "float")
map1("digamma", _in64(digamma), "float")
map1("polygamma", lambda x, attrs: polygamma(attrs["n"], x.astype(F64, copy=False)).astype(x.dtype, copy=False), "float")
