"""CPU kernel of ndtri, the standard normal quantile: M. J. Wichura's AS241 (the tables beside
erfinv's) on min(p, 1 - p), so the lower tail keeps its digits down to the smallest p, then one
Newton step on ndtr computed with Cody's erfc.

>>> ndtri(np.array([0.5, 0.975, 1e-300, 0.0, 1.0, 2.0])).tolist()
[0.0, 1.9599639845400534, -37.0470962993612, -inf, inf, nan]
"""

from __future__ import annotations

import numpy as np

from .factories import F64, map1
from .special import _AS241_CENTRAL, _AS241_FAR, _AS241_NEAR, _ratio, erfc

__all__ = ["ndtri"]

_SQRT_HALF = 0.70710678118654752440
_SQRT_TWO_PI = 2.50662827463100050242


def ndtri(p: np.ndarray) -> np.ndarray:
    """The x with ndtr(x) = p, for a float64 array: -inf at 0, inf at 1, nan outside [0, 1]."""
    q = p - 0.5
    central = np.abs(q) <= 0.425
    qc = np.where(central, q, 0.0)
    x_central = qc * _ratio(_AS241_CENTRAL, 0.180625 - qc * qc)
    tail = np.where(central | ~((p > 0) & (p < 1)), 0.25, np.minimum(p, 1.0 - p))
    r = np.sqrt(-np.log(tail))
    x_tail = np.where(r <= 5.0, _ratio(_AS241_NEAR, r - 1.6), _ratio(_AS241_FAR, r - 5.0))
    x = np.where(central, x_central, np.where(q < 0, -x_tail, x_tail))
    # one Newton step on ndtr(x) - p, the tail's probability taken where it is small (no cancellation)
    upper = x > 0
    residual = np.where(upper, (1.0 - p) - 0.5 * erfc(x * _SQRT_HALF), 0.5 * erfc(-x * _SQRT_HALF) - p)
    density = np.exp(-0.5 * x * x) / _SQRT_TWO_PI
    with np.errstate(invalid="ignore", divide="ignore"):
        step = np.where(density > 0, residual / density, 0.0)
    x = x + np.where(upper, step, -step)
    x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


map1("special.ndtri", lambda x, attrs: ndtri(x.astype(F64, copy=False)).astype(x.dtype, copy=False), "float")
