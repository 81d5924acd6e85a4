"""Sign and magnitude: abs, sign, sgn, copysign.

``abs`` of complex input is its magnitude (a real dtype); ``sign`` is -1, 0 or 1 (0 for NaN)
and refuses complex input, for which ``sgn`` gives ``input / |input|``; ``copysign`` gives
``|input|`` with the sign of ``other`` in a floating dtype.

>>> ember.copysign(ember.tensor([1, 2]), -1.0).tolist(), ember.sgn(ember.tensor([-3.0, 0.0])).tolist()
([-1.0, -2.0], [-1.0, 0.0])
"""

from __future__ import annotations

from .. import sbp_rules
from ..common import functional as _F
from ..schema import schema_family
from .factories import binary, binary_grad, binary_scalar_grad, unary, unary_grad, zero_unary_grad, zeros_grad
from .kinds import ALL, NUMERIC, REAL, to_float, to_real

declare = schema_family("elementwise")

declare(
    "abs",
    "Tensor (Tensor input) => Abs",
    method=True, inplace="abs_", out=True, aliases=("absolute",), operators=("__abs__",),
    doc="""
    |input|, elementwise; complex gives its magnitude (real dtype).

    >>> ember.abs(ember.tensor([-1.5, 2.0])).tolist()
    [1.5, 2.0]
    """,
    tf="Abs",
)
unary("abs", "Abs", kinds=NUMERIC, result=to_real)


@unary_grad("abs")
def _abs_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _F().sgn(x)  # sgn(x) = x/|x| (0 at 0) also for complex x


declare(
    "sign",
    "Tensor (Tensor input) => Sign",
    method=True, inplace="sign_", out=True,
    doc="""
    The sign of input: -1, 0 or 1 (0 for NaN, as PyTorch); not for complex (use ``sgn``).

    >>> ember.sign(ember.tensor([-2.5, 0.0, 3.0])).tolist()
    [-1.0, 0.0, 1.0]
    """,
    tf="Sign",
)
unary("sign", "Sign", kinds=REAL).tag(sbp=sbp_rules.monotone_unary).grad_rule(saves="none")(zero_unary_grad)  # zero almost everywhere

declare(
    "sgn",
    "Tensor (Tensor input) => Sgn",
    method=True, inplace="sgn_", out=True,
    doc="input / |input| for complex input (0 at 0); the sign otherwise.",
)
_sgn = unary("sgn", "Sgn", kinds=ALL)


@_sgn.grad_rule()
def _sgn_grad(ctx, g):
    (x,) = ctx.inputs
    if not x._dtype.is_complex:
        return (zeros_grad(ctx, 0),)
    # (g - sgn(x)^2 conj(g)) / (2|x|), zero at 0
    F = _F()
    a = F.abs(x)
    s = F.sgn(x)
    out = (g - s * s * g.conj()) / (2 * a)
    return (F.where(a == 0, 0.0, out),)


declare(
    "copysign",
    [
        "Tensor (Tensor input, Tensor other) => Copysign",
        "Tensor (Tensor input, Scalar other) => CopysignScalar",
    ],
    method=True, inplace="copysign_", out=True, op=("copysign", "copysign_scalar"),
    doc="|input| with the sign of other; integers give the default float dtype.",
)
binary("copysign", "Copysign", kinds=REAL, result=to_float)


def _copysign_self(g, x, y):
    """d copysign(x, s)/dx = y / x (+-1), zero at x == 0."""
    F = _F()
    return F.where(x == 0, 0.0, g * (y / x))


@binary_grad("copysign", saves=("input", "out"))
def _copysign_grad(ctx, g, want_a, want_b):
    a, _ = ctx.inputs
    (y,) = ctx.outputs
    return (_copysign_self(g, a, y) if want_a else None), (zeros_grad(ctx, 1) if want_b else None)


@binary_scalar_grad("copysign", saves="both")
def _copysign_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    (y,) = ctx.outputs
    return _copysign_self(g, x, y)
