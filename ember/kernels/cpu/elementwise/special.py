"""CPU kernels of the special functions: erf and erfc by W. J. Cody's rational Chebyshev
approximations ("Rational Chebyshev approximations for the error function", Math. Comp. 23
(1969) 631-638; the constants of his SPECFUN routine CALERF), accurate to float64 rounding and
evaluated in float64; erfinv through the normal quantile of M. J. Wichura's algorithm AS241
("The percentage points of the normal distribution", Applied Statistics 37 (1988) 477-484),
polished by one Newton step on Cody's erf/erfc; and the logistic sigmoid, computed without
overflow.

The kernels: float32 (and float16/bfloat16, computed in float32) erf and erfc run ``erf_f32``'s
float32 evaluation; float64 erf and erfinv call SciPy when it is importable (``scipy_special``),
else the NumPy code here, which float64 erfc always runs.

>>> erf(np.array([0.0, 0.5, -30.0])).tolist()
[0.0, 0.5204998778130465, -1.0]
"""

from __future__ import annotations

import numpy as np

from . import erf_f32
from .factories import F32, F64, map1
from .scipy_special import scipy_special

__all__ = ["erf", "erfc", "erfinv", "sigmoid"]

_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERF_C = (
    5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
    8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
    2.15311535474403846e-8,
)  # fmt: skip
_ERF_D = (
    1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
    3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03,
)  # fmt: skip
_ERF_P = (
    3.05326634961232344e-1,
    3.60344899949804439e-1,
    1.25781726111229246e-1,
    1.60837851487422766e-2,
    6.58749161529837803e-4,
    1.63153871373020978e-2,
)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2, 2.33520497626869185e-3)
_SQRT_PI_INV = 0.56418958354775628695


def _erf_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For float64 ``x``: (small, erf(x) where |x| <= 0.46875, erfc(|x|) elsewhere)."""
    y = np.abs(x)
    small = y <= 0.46875
    # |x| <= 0.46875: erf(x) = x * A(x^2) / B(x^2)
    z = np.where(small, y * y, 0.0)
    num = _ERF_A[4] * z
    den = z.copy()
    for i in range(3):
        num = (num + _ERF_A[i]) * z
        den = (den + _ERF_B[i]) * z
    erf_small = x * (num + _ERF_A[3]) / (den + _ERF_B[3])
    # 0.46875 < |x| <= 4: erfc(|x|) = exp(-x^2) C(|x|) / D(|x|)
    mid = np.where(small | (y > 4.0), 1.0, y)
    num = _ERF_C[8] * mid
    den = mid.copy()
    for i in range(7):
        num = (num + _ERF_C[i]) * mid
        den = (den + _ERF_D[i]) * mid
    erfc_mid = (num + _ERF_C[7]) / (den + _ERF_D[7])
    # |x| > 4: erfc(|x|) = exp(-x^2) (1/sqrt(pi) - P(1/x^2) / Q(1/x^2)) / |x|
    big = np.where(y > 4.0, y, 5.0)
    z = 1.0 / (big * big)
    num = _ERF_P[5] * z
    den = z.copy()
    for i in range(4):
        num = (num + _ERF_P[i]) * z
        den = (den + _ERF_Q[i]) * z
    erfc_big = (_SQRT_PI_INV - z * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / big
    scaled = np.where(y <= 4.0, erfc_mid, erfc_big)
    # exp(-y^2) split as exp(-t^2) exp(-(y-t)(y+t)), t = y rounded down to 1/16, to keep accuracy
    t = np.trunc(y * 16.0) / 16.0
    erfc_abs = np.exp(-t * t) * np.exp(-(y - t) * (y + t)) * scaled
    erfc_abs = np.where(y > 27.3, 0.0, erfc_abs)  # below the smallest subnormal (and inf - inf)
    erfc_abs = np.where(np.isnan(y), y, erfc_abs)
    return small, erf_small, erfc_abs


def erf(x: np.ndarray) -> np.ndarray:
    """erf of a float64 array (Cody): |error| ~ 1e-16."""
    small, erf_small, erfc_abs = _erf_parts(x)
    big = np.where(x < 0, erfc_abs - 1.0, 1.0 - erfc_abs)
    return np.where(small, erf_small, big)


def erfc(x: np.ndarray) -> np.ndarray:
    """erfc of a float64 array (Cody), accurate in relative terms far into the tail."""
    small, erf_small, erfc_abs = _erf_parts(x)
    big = np.where(x < 0, 2.0 - erfc_abs, erfc_abs)
    return np.where(small, 1.0 - erf_small, big)


def _erf_kernel(x, attrs):
    if x.dtype == F32:
        return erf_f32.erf(x)
    x = x.astype(F64, copy=False)
    special = scipy_special()
    return erf(x) if special is None else special.erf(x)


def _erfc_kernel(x, attrs):
    if x.dtype == F32:
        return erf_f32.erfc(x)
    return erfc(x.astype(F64, copy=False))


map1("erf", _erf_kernel, "float")
map1("erfc", _erfc_kernel, "float")

# AS241 (PPND16): the normal quantile as a ratio of degree-7 polynomials in three regions; the
# coefficients run from the constant term up.
_AS241_CENTRAL = (
    (3.3871328727963666080, 1.3314166789178437745e2, 1.9715909503065514427e3, 1.3731693765509461125e4,
     4.5921953931549871457e4, 6.7265770927008700853e4, 3.3430575583588128105e4, 2.5090809287301226727e3),
    (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
     2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4, 5.2264952788528545610e3),
)  # fmt: skip
_AS241_NEAR = (
    (1.42343711074968357734, 4.63033784615654529590, 5.76949722146069140550, 3.64784832476320460504,
     1.27045825245236838258, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4),
    (1.0, 2.05319162663775882187, 1.67638483018380384940, 6.89767334985100004550e-1,
     1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4, 1.05075007164441684324e-9),
)  # fmt: skip
_AS241_FAR = (
    (6.65790464350110377720, 5.46378491116411436990, 1.78482653991729133580, 2.96560571828504891230e-1,
     2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7),
    (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
     7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15),
)  # fmt: skip
_SQRT_HALF = 0.70710678118654752440
_SQRT_PI_OVER_TWO = 0.88622692545275801365


def _ratio(coefficients: tuple, t: np.ndarray) -> np.ndarray:
    num, den = coefficients
    p = np.full_like(t, num[-1])
    q = np.full_like(t, den[-1])
    for a, b in zip(num[-2::-1], den[-2::-1], strict=True):
        p = p * t + a
        q = q * t + b
    return p / q


def erfinv(y: np.ndarray) -> np.ndarray:
    """erfinv of a float64 array: erfinv(y) = ndtri((1 + y) / 2) / sqrt(2), by symmetry on |y|.

    The upper tail takes its probability as (1 - |y|) / 2, which is exact, so no precision is
    lost to 1 + y near -1; one Newton step on erf (erfc in the tail) brings AS241's ~1e-16 to
    float64 rounding.

    >>> erfinv(np.array([0.0, 0.5, -0.999, 1.0, 1.5])).tolist()
    [0.0, 0.4769362762044699, -2.3267537655135246, inf, nan]
    """
    a = np.abs(y)
    central = a <= 0.85  # |p - 0.5| <= 0.425, AS241's central region
    q = np.where(central, a * 0.5, 0.0)
    x_central = q * _ratio(_AS241_CENTRAL, 0.180625 - q * q)
    tail = np.where(central | (a >= 1.0) | np.isnan(a), 0.25, (1.0 - a) * 0.5)  # the upper tail's probability
    r = np.sqrt(-np.log(tail))
    x_tail = np.where(r <= 5.0, _ratio(_AS241_NEAR, r - 1.6), _ratio(_AS241_FAR, r - 5.0))
    x = np.where(central, x_central, x_tail) * _SQRT_HALF
    # Newton on f(x) = erf(x) - |y| (= (1 - |y|) - erfc(x) in the tail, without cancellation)
    slope = np.exp(-x * x) / _SQRT_PI_OVER_TWO
    residual = np.where(central, erf(x) - a, (1.0 - a) - erfc(x))
    x = x - residual / slope
    x = np.where(a == 1.0, np.inf, x)
    x = np.where((a > 1.0) | np.isnan(a), np.nan, x)
    return np.copysign(x, y)


def _erfinv_kernel(y, attrs):
    y64 = y.astype(F64, copy=False)
    special = scipy_special()
    x = erfinv(y64) if special is None else np.copysign(special.erfinv(y64), y64)  # SciPy drops -0.0's sign
    return x.astype(y.dtype, copy=False)


map1("erfinv", _erfinv_kernel, "float")


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow: exp of a non-positive number only (real x)."""
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


map1("sigmoid", lambda x, a: sigmoid(x), "float")
