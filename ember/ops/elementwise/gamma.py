"""The gamma family: lgamma, digamma, polygamma and the multivariate mvlgamma.

Integers and bool give the default float dtype; complex input is refused, as in PyTorch. Each
derivative is the next function of the family: lgamma' = digamma = polygamma(0, .),
polygamma(n, .)' = polygamma(n + 1, .). ``torch.special`` shows them as gammaln, digamma/psi,
polygamma and multigammaln.

>>> [round(v, 12) for v in ember.lgamma(ember.tensor([0.5, 3.0], dtype=ember.float64)).tolist()]
[0.572364942925, 0.69314718056]
>>> ember.digamma(ember.tensor([1.0], dtype=ember.float64)).item()
-0.5772156649015323
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..common import functional as _F
from ..functor import FUNCTORS, functor
from ..schema import schema_family
from .factories import unary, unary_grad
from .kinds import REAL, check_kinds, to_float

declare = schema_family("elementwise")

declare(
    "lgamma",
    "Tensor (Tensor input) => Lgamma",
    method=True,
    inplace="lgamma_",
    out=True,
    namespaces="special:gammaln",
    doc="""
    log|Gamma(input)|: inf at the poles (0 and the negative integers).

    >>> ember.lgamma(ember.tensor([1.0, 0.0])).tolist()
    [0.0, inf]
    """,
    tf="Lgamma",
)
unary("lgamma", "Lgamma", kinds=REAL, result=to_float)


@unary_grad("lgamma")
def _lgamma_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _F().digamma(x)


declare(
    "digamma",
    "Tensor (Tensor input) => Digamma",
    method=True,
    inplace="digamma_",
    out=True,
    namespaces=("special", "special:psi"),
    doc="""
    The logarithmic derivative of Gamma: -inf at +0, nan at the negative integers.

    >>> round(ember.digamma(ember.tensor([0.5], dtype=ember.float64)).item(), 12)  # -euler_gamma - 2 log 2
    -1.963510026021
    """,
    tf="Digamma",
)
unary("digamma", "Digamma", kinds=REAL, result=to_float)


@unary_grad("digamma")
def _digamma_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _F().polygamma(1, x)


_MAX_ORDER = 170  # the largest n whose n! is a finite float64


def _check_order(attrs: dict, dtype) -> None:
    n = attrs["n"]
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n > _MAX_ORDER:
        raise RuntimeError(f"polygamma(n, x): n = {n} is over {_MAX_ORDER}, where n! overflows float64 and every value would be inf or nan")


unary("polygamma", "PolygammaOfX", kinds=REAL, result=to_float, attrs=("n",), check=_check_order)


@unary_grad("polygamma")
def _polygamma_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _F().polygamma(ctx.attrs["n"] + 1, x)


declare(
    "polygamma",
    "Tensor (Int n, Tensor input) => Polygamma",
    out=True,
    namespaces="special",
    doc="""
    The n-th derivative of digamma (n >= 0); polygamma(0, x) is digamma(x).

    >>> round(ember.polygamma(1, ember.tensor([1.0], dtype=ember.float64)).item(), 12)  # pi^2 / 6
    1.644934066848
    """,
)


@functor("Polygamma")
def polygamma(n, input, out=None):
    return FUNCTORS["PolygammaOfX"](input, n, out)


declare(
    "Tensor.polygamma",
    "Tensor (Tensor input, Int n) => PolygammaMethod",
    method=True,
    op="polygamma",
    doc="``polygamma(n, self)``, as a method: ``x.polygamma(n)``.",
)


@functor("PolygammaMethod")
def polygamma_method(input, n):
    return FUNCTORS["PolygammaOfX"](input, n)


declare(
    "mvlgamma",
    "Tensor (Tensor input, Int p) => Mvlgamma",
    method=True,
    out=True,
    composite=True,
    namespaces="special:multigammaln",
    doc="""
    The log of the multivariate gamma function of dimension p:
    sum over i < p of lgamma(input - i/2), plus p (p - 1) / 4 log(pi).

    >>> round(ember.mvlgamma(ember.tensor([2.5], dtype=ember.float64), 2).item(), 12)
    0.857047813398
    """,
)


@functor("Mvlgamma")
def mvlgamma(input, p, out=None):
    check_kinds("mvlgamma", "input", input.dtype, REAL)
    if input.dtype is _dt.bool_:
        raise RuntimeError("mvlgamma(): The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    F = _F()
    x = F.unsqueeze(input, -1)
    steps = F.arange(0, -p / 2, -0.5, dtype=x.dtype if x.dtype.is_floating_point else None, device=input.device)
    total = F.sum(F.lgamma(F.add(x, steps)), -1)
    return F.add(total, p * (p - 1) / 4 * math.log(math.pi), out=out)
