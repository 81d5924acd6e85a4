"""The modified Bessel functions of the first kind: i0 (also ``torch.special.i0``) and, in
``ember.special``, i0e, i1 and i1e (the scaled ones are exp(-|x|) I(x), finite for any x).

Integers and bool give the default float dtype; complex input is refused, as in PyTorch. The
kernels compute in float64 (a power series up to |x| = 20, the asymptotic series beyond).

>>> ember.i0(ember.tensor([0.0, 1.0], dtype=ember.float64)).tolist()
[1.0, 1.2660658777520082]
>>> round(ember.special.i1e(ember.tensor([1000.0], dtype=ember.float64)).item(), 15)
0.012610930256929
"""

from __future__ import annotations

from ..common import functional as _F
from ..schema import schema_family
from .factories import unary, unary_grad
from .kinds import REAL, to_float

declare = schema_family("elementwise")


def _special():
    return _F().NAMESPACES["special"]


declare(
    "i0",
    "Tensor (Tensor input) => I0",
    method=True,
    inplace="i0_",
    out=True,
    namespaces="special",
    doc="The modified Bessel function of the first kind of order 0.",
)
unary("i0", "I0", kinds=REAL, result=to_float)


@unary_grad("i0")
def _i0_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _special()["i1"](x)


declare("special.i0e", "Tensor (Tensor input) => SpecialI0e", out=True, doc="exp(-|input|) i0(input), finite for any input.")
unary("special.i0e", "SpecialI0e", kinds=REAL, result=to_float, public="special_i0e")


@unary_grad("special.i0e", saves="both")
def _i0e_grad(ctx, g):
    (x,), (y,) = ctx.inputs, ctx.outputs
    return g * (_special()["i1e"](x) - _F().sgn(x) * y)


declare(
    "special.i1", "Tensor (Tensor input) => SpecialI1", out=True, doc="The modified Bessel function of the first kind of order 1."
)
unary("special.i1", "SpecialI1", kinds=REAL, result=to_float, public="special_i1")


def _over_x(x, y):
    """y / x, with the limit 1/2 of I1(x) / x and I1e(x) / x at x = 0."""
    F = _F()
    zero = F.eq(x, 0)
    return F.where(zero, 0.5, y / F.where(zero, 1.0, x))


@unary_grad("special.i1", saves="both")
def _i1_grad(ctx, g):
    (x,), (y,) = ctx.inputs, ctx.outputs
    return g * (_F().i0(x) - _over_x(x, y))


declare("special.i1e", "Tensor (Tensor input) => SpecialI1e", out=True, doc="exp(-|input|) i1(input), finite for any input.")
unary("special.i1e", "SpecialI1e", kinds=REAL, result=to_float, public="special_i1e")


@unary_grad("special.i1e", saves="both")
def _i1e_grad(ctx, g):
    (x,), (y,) = ctx.inputs, ctx.outputs
    return g * (_special()["i0e"](x) - _F().sgn(x) * y - _over_x(x, y))
