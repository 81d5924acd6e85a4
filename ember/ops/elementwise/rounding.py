"""Rounding: floor, ceil, trunc, round (half to even, to ``decimals`` places) and frac.

Integers come back unchanged; complex input is refused. The rounding functions are constant
almost everywhere, so their derivative is zero (PyTorch returns zeros, not an error); ``frac``
passes the gradient through.

>>> ember.trunc(ember.tensor([-1.5, 1.5])).tolist(), ember.frac(ember.tensor([-1.5, 1.25])).tolist()
([-1.0, 1.0], [-0.5, 0.25])
"""

from __future__ import annotations

from .. import sbp_rules
from ..schema import schema_family
from .factories import unary, unary_grad, zero_unary_grad
from .kinds import FLOATING, REAL_NO_BOOL

declare = schema_family("elementwise")

declare(
    "floor",
    "Tensor (Tensor input) => Floor",
    method=True, inplace="floor_", out=True,
    doc="Round down to an integer value (integers are returned unchanged).",
    tf="Floor",
)
unary("floor", "Floor", kinds=REAL_NO_BOOL).tag(sbp=sbp_rules.monotone_unary).grad_rule(saves="none")(zero_unary_grad)

declare("ceil", "Tensor (Tensor input) => Ceil", method=True, inplace="ceil_", out=True, doc="Round up to an integer value.", tf="Ceil")
unary("ceil", "Ceil", kinds=REAL_NO_BOOL).tag(sbp=sbp_rules.monotone_unary).grad_rule(saves="none")(zero_unary_grad)

declare(
    "trunc",
    "Tensor (Tensor input) => Trunc",
    method=True, inplace="trunc_", out=True, aliases=("fix",),
    doc="Round toward zero.",
)
unary("trunc", "Trunc", kinds=REAL_NO_BOOL).tag(sbp=sbp_rules.monotone_unary).grad_rule(saves="none")(zero_unary_grad)


def _check_round(attrs, dtype):
    if attrs["decimals"] != 0 and not dtype.is_floating_point:
        raise TypeError(f"round(): decimals={attrs['decimals']} needs a floating-point input, got {dtype}")


declare(
    "round",
    "Tensor (Tensor input, *, Int decimals=0) => Round",
    namespaces="special",
    method=True, inplace="round_", out=True,
    doc="""
    Round half to even, to ``decimals`` decimal places.

    >>> ember.round(ember.tensor([0.5, 1.5, 2.567]), decimals=0).tolist()
    [0.0, 2.0, 3.0]
    """,
    tf="Round",
)
unary("round", "Round", kinds=REAL_NO_BOOL, attrs=("decimals",), check=_check_round).tag(sbp=sbp_rules.monotone_unary).grad_rule(saves="none")(zero_unary_grad)

declare(
    "frac",
    "Tensor (Tensor input) => Frac",
    method=True, inplace="frac_", out=True,
    doc="input - trunc(input) (floating point only).",
)
unary("frac", "Frac", kinds=FLOATING)


@unary_grad("frac", saves="none")
def _frac_grad(ctx, g):
    return g
