"""Special functions: the error function, its complement and its inverse, and the logistic sigmoid.

Integers and bool give the default float dtype; ``erf``, ``erfc`` and ``erfinv`` take real input
only. Their kernels compute in float64: W. J. Cody's rational approximations for erf and erfc,
Wichura's AS241 and a Newton step for erfinv.

>>> ember.sigmoid(ember.tensor([0.0])).tolist(), ember.erfc(ember.tensor([0.0])).tolist()
([0.5], [1.0])
"""

from __future__ import annotations

from .. import sbp_rules
from ..common import functional as _F
from ..schema import schema_family
from .factories import cj, unary, unary_grad
from .kinds import ALL, REAL, to_float

declare = schema_family("elementwise")

_TWO_OVER_SQRT_PI = 1.1283791670955126
_SQRT_PI_OVER_TWO = 0.8862269254527580

declare(
    "erf",
    "Tensor (Tensor input) => Erf",
    namespaces="special",
    method=True, inplace="erf_", out=True,
    doc="""
    The error function (W. J. Cody's rational approximations, float64-accurate).

    >>> ember.erf(ember.tensor([0.0, -30.0])).tolist()
    [0.0, -1.0]
    """,
    tf="Erf",
)
unary("erf", "Erf", kinds=REAL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("erf")
def _erf_grad(ctx, g):
    (x,) = ctx.inputs
    return g * (_TWO_OVER_SQRT_PI * _F().exp(-(x * x)))


declare(
    "erfc",
    "Tensor (Tensor input) => Erfc",
    namespaces="special",
    method=True, inplace="erfc_", out=True,
    doc="1 - erf(input), accurate in the tail.",
    tf="Erfc",
)
unary("erfc", "Erfc", kinds=REAL, result=to_float)


@unary_grad("erfc")
def _erfc_grad(ctx, g):
    (x,) = ctx.inputs
    return g * (-_TWO_OVER_SQRT_PI * _F().exp(-(x * x)))


declare(
    "erfinv",
    "Tensor (Tensor input) => Erfinv",
    namespaces="special",
    method=True, inplace="erfinv_", out=True,
    doc="""
    The inverse of erf on [-1, 1]: erf(erfinv(y)) = y; +-inf at +-1, nan outside.

    >>> ember.erfinv(ember.tensor([0.0, 0.5, -1.0])).tolist()
    [0.0, 0.4769362807273865, -inf]
    """,
)
unary("erfinv", "Erfinv", kinds=REAL, result=to_float)


@unary_grad("erfinv")
def _erfinv_grad(ctx, g):
    # d/dx erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x)^2), recomputed from the input as PyTorch does
    (x,) = ctx.inputs  # (so writing over the result in place stays allowed, and writing over x does not)
    F = _F()
    y = F.erfinv(x)
    return g * (_SQRT_PI_OVER_TWO * F.exp(y * y))


declare(
    "sigmoid",
    "Tensor (Tensor input) => Sigmoid",
    namespaces=("nn.functional", "special:expit"),
    method=True, inplace="sigmoid_", out=True,
    doc="1 / (1 + exp(-input)), computed without overflow.",
    tf="Sigmoid",
)
unary("sigmoid", "Sigmoid", kinds=ALL, result=to_float).tag(sbp=sbp_rules.monotone_unary)


@unary_grad("sigmoid", saves="outputs")
def _sigmoid_grad(ctx, g):
    (y,) = ctx.outputs
    return g * cj(y * (1 - y))
