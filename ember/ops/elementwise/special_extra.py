"""The rest of PyTorch's special functions: logit, xlogy and xlog1py, entr, sinc, ndtr and ndtri.

All but ndtri are composites of ember's ops (so their derivatives come from those ops), with the
edge values PyTorch gives: xlogy(0, y) = 0 unless y is nan, entr(0) = 0 and -inf below 0,
sinc(0) = 1. Integers and bool give the default float dtype; only sinc takes complex input.
ndtri, the normal quantile, is a primitive (AS241 in float64).

>>> ember.xlogy(ember.tensor([0.0, 2.0]), ember.tensor([0.0, 3.0])).tolist()
[0.0, 2.1972246170043945]
>>> ember.special.ndtri(ember.tensor([0.5, 0.975], dtype=ember.float64)).tolist()
[0.0, 1.9599639845400534]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core.tensor import Tensor, tensor
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from .factories import unary, unary_grad
from .kinds import ALL, REAL, check_kinds, to_float

declare = schema_family("elementwise")

_SQRT_HALF = 0.7071067811865476
_SQRT_TWO_PI = 2.5066282746310002


def _as_float(x: Tensor) -> Tensor:
    """x itself when floating or complex, else x in the default float dtype (PyTorch's rule)."""
    return x if x.dtype.is_floating_point or x.dtype.is_complex else x.to(_dt.get_default_dtype())


def _operands(op: str, input: object, other: object) -> tuple[Tensor, Tensor]:
    """Both arguments as tensors of their promoted dtype (a Python number promotes as PyTorch's
    wrapped numbers do), the default float where that is not floating; real dtypes only."""
    for name, value in (("input", input), ("other", other)):
        if isinstance(value, Tensor):
            check_kinds(op, name, value.dtype, REAL)
        elif isinstance(value, complex):
            raise TypeError(f"{op}(): argument '{name}' must be a real number, got complex")
    tensors = tuple(v for v in (input, other) if isinstance(v, Tensor))
    dtype = _dt.result_type_of(tensors, tuple(v for v in (input, other) if not isinstance(v, Tensor)), op=op)
    if not dtype.is_floating_point:
        dtype = _dt.get_default_dtype()
    return tuple(v.to(dtype) if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in (input, other))


declare(
    "logit",
    "Tensor (Tensor input, Float? eps=None) => Logit",
    method=True,
    out=True,
    composite=True,
    namespaces="special",
    doc="""
    log(p / (1 - p)); with ``eps``, p is first clamped to [eps, 1 - eps].

    >>> ember.logit(ember.tensor([0.5, 0.0]), eps=1e-6).tolist()
    [0.0, -13.815509796142578]
    """,
)


@functor("Logit")
def logit(input, eps=None, out=None):
    check_kinds("logit", "input", input.dtype, REAL)
    F = _F()
    x = _as_float(input)
    if eps is not None:
        x = F.clamp(x, eps, 1.0 - eps)
    return F.log(F.div(x, 1 - x), out=out)


def _xlog(log, op: str, input, other, out):
    F = _F()
    x, y = _operands(op, input, other)
    zero = F.eq(x, 0)
    # where x is 0 the log never sees y (a 0 * -inf there would make the gradient nan)
    value = F.where(zero, 0, F.mul(x, log(F.where(zero, 1, y))))
    return F.where(F.isnan(y), math.nan, value, out=out)


declare(
    "xlogy",
    [
        "Tensor (Tensor input, Tensor other) => Xlogy",
        "Tensor (Scalar input, Tensor other) => Xlogy",
        "Tensor (Tensor input, Scalar other) => Xlogy",
    ],
    method=True,
    out=True,
    composite=True,
    namespaces="special",
    doc="""
    input * log(other), 0 where input is 0 (even where other is 0), nan where other is nan.

    >>> ember.xlogy(0, ember.tensor([0.0, float("nan")])).tolist()
    [0.0, nan]
    """,
)


@functor("Xlogy")
def xlogy(input, other, out=None):
    return _xlog(_F().log, "xlogy", input, other, out)


declare(
    "special.xlog1py",
    [
        "Tensor (Tensor input, Tensor other) => SpecialXlog1py",
        "Tensor (Scalar input, Tensor other) => SpecialXlog1py",
        "Tensor (Tensor input, Scalar other) => SpecialXlog1py",
    ],
    out=True,
    composite=True,
    doc="input * log1p(other), 0 where input is 0, nan where other is nan.",
)


@functor("SpecialXlog1py")
def xlog1py(input, other, out=None):
    return _xlog(_F().log1p, "special_xlog1py", input, other, out)


declare(
    "special.entr",
    "Tensor (Tensor input) => SpecialEntr",
    out=True,
    composite=True,
    doc="""
    The elementwise entropy -x log(x): 0 at 0, -inf below 0.

    >>> ember.special.entr(ember.tensor([0.0, -1.0, 1.0])).tolist()
    [0.0, -inf, -0.0]
    """,
)


@functor("SpecialEntr")
def entr(input, out=None):
    check_kinds("special_entr", "input", input.dtype, REAL)
    F = _F()
    x = _as_float(input)
    positive = F.gt(x, 0)
    safe = F.where(positive, x, 1)
    value = F.where(positive, F.neg(F.mul(safe, F.log(safe))), F.where(F.eq(x, 0), 0, F.where(F.lt(x, 0), -math.inf, x)))
    return value if out is None else F.where(positive, value, value, out=out)


declare(
    "sinc",
    "Tensor (Tensor input) => Sinc",
    method=True,
    out=True,
    composite=True,
    namespaces="special",
    doc="""
    The normalized sinc, sin(pi x) / (pi x), 1 at 0.

    >>> ember.sinc(ember.tensor([0.0, 0.5], dtype=ember.float64)).tolist()
    [1.0, 0.6366197723675814]
    """,
)


@functor("Sinc")
def sinc(input, out=None):
    check_kinds("sinc", "input", input.dtype, ALL)
    F = _F()
    x = _as_float(input)
    zero = F.eq(x, 0)
    px = F.mul(F.where(zero, 1, x), math.pi)  # the 1 keeps sin(0) / 0 out of the value and the gradient
    return F.where(zero, 1, F.div(F.sin(px), px), out=out)


declare(
    "special.ndtr",
    "Tensor (Tensor input) => SpecialNdtr",
    out=True,
    composite=True,
    doc="""
    The standard normal distribution function, erfc(-x / sqrt(2)) / 2.

    >>> ember.special.ndtr(ember.tensor([0.0, -40.0], dtype=ember.float64)).tolist()
    [0.5, 0.0]
    """,
)


@functor("SpecialNdtr")
def ndtr(input, out=None):
    check_kinds("special_ndtr", "input", input.dtype, REAL)
    F = _F()
    return F.mul(F.erfc(F.mul(_as_float(input), -_SQRT_HALF)), 0.5, out=out)


declare(
    "special.ndtri",
    "Tensor (Tensor input) => SpecialNdtri",
    out=True,
    doc="The inverse of ndtr (the standard normal quantile): -inf at 0, inf at 1, nan outside [0, 1].",
)
unary("special.ndtri", "SpecialNdtri", kinds=REAL, result=to_float, public="special_ndtri")


@unary_grad("special.ndtri", saves="outputs")
def _ndtri_grad(ctx, g):
    (y,) = ctx.outputs  # 1 / ndtr'(y) = sqrt(2 pi) exp(y^2 / 2)
    return g * (_SQRT_TWO_PI * _F().exp(y * y * 0.5))
