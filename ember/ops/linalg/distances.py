"""Pairwise distances between two sets of row vectors: ``cdist``.

``cdist(x1, x2, p)`` of (B..., P, M) and (B..., R, M) is the (B..., P, R) tensor of p-norm
distances between every row of ``x1`` and every row of ``x2`` (batch dims broadcast). For p = 2
the kernel may use the matrix-product form ||a||^2 + ||b||^2 - 2 a.b (PyTorch's
``compute_mode``: by default when either set has more than 25 rows), faster and slightly less
exact. The derivative is PyTorch's ``_cdist_backward``: a zero distance gives a zero gradient.
Kernel: ``ember/kernels/cpu/linalg/distances.py``.

>>> import ember
>>> a = ember.tensor([[0.0, 0.0], [1.0, 1.0]])
>>> ember.cdist(a, ember.tensor([[3.0, 4.0]])).tolist()
[[5.0], [3.605551242828369]]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..common import broadcast_pair, functional as _F
from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family

declare = schema_family("linalg")

__all__ = ["COMPUTE_MODES", "uses_mm"]

# PyTorch's compute_mode values, and whether each computes p = 2 by matrix products: always,
# never, or for more than 25 rows on either side
COMPUTE_MODES = {
    "use_mm_for_euclid_dist_if_necessary": None,
    "use_mm_for_euclid_dist": True,
    "donot_use_mm_for_euclid_dist": False,
}


def uses_mm(mode: str, p: float, rows1: int, rows2: int) -> bool:
    """Whether ``cdist`` computes these distances as matrix products (PyTorch's rule)."""
    mm = COMPUTE_MODES[mode]
    return p == 2 and (mm if mm is not None else rows1 > 25 or rows2 > 25)


declare(
    "cdist",
    "Tensor (Tensor x1, Tensor x2, Float p=2.0, String compute_mode='use_mm_for_euclid_dist_if_necessary') => Cdist",
    doc="""
    The p-norm distance between each row of ``x1`` (B..., P, M) and each row of ``x2``
    (B..., R, M): a (B..., P, R) tensor. ``p`` is any value >= 0 (0 counts the differing
    coordinates, inf takes the largest difference); ``compute_mode`` says when p = 2 uses matrix
    products.

    >>> ember.cdist(ember.tensor([[0.0, 0.0]]), ember.tensor([[1.0, 1.0]]), p=1).tolist()
    [[2.0]]
    """,
)


@functor("Cdist")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: {x2._shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {torch_name(x._dtype)}")
    if x1._dtype is not x2._dtype:
        raise RuntimeError(f"expected scalar type {torch_name(x1._dtype)} but found {torch_name(x2._dtype)}")
    if not p >= 0:  # NaN included
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1._dtype in (_dt.float16, _dt.bfloat16):
        raise NotImplementedError(f"\"cdist\" not implemented for '{torch_name(x1._dtype)}'")
    batch = broadcast_pair(x1._shape[:-2], x2._shape[:-2])
    x1 = x1.expand(*batch, *x1._shape[-2:])  # a view: its derivative sums back over broadcast dims
    x2 = x2.expand(*batch, *x2._shape[-2:])
    attrs = {"p": float(p), "mm": uses_mm(compute_mode, p, x1._shape[-2], x2._shape[-2])}
    return dispatch(_CDIST, (x1, x2), attrs)[0]


_CDIST = OpExpr("cdist", ("x1", "x2"), ("out",))


@_CDIST.shape_rule
def _cdist_infer(attrs, x1, x2):
    return ((x1._shape[:-1] + x2._shape[-2:-1], x1._dtype),)


@_CDIST.grad_rule(saves="both")
def _cdist_grad(ctx, g):
    """PyTorch's ``_cdist_backward`` for both inputs at once: with diff = x1_i - x2_j and
    d = dist_ij, the gradient of x1_i sums ``w_ij`` over j and that of x2_j sums ``-w_ij`` over i,
    where ``w`` is g sign(diff) (p = 1), g diff / d (p = 2), g sign(diff) [|diff| = d] (inf),
    g diff |diff|^(p-2) / d^(p-1) (other p), and 0 wherever d = 0 (and where diff = 0 for p < 1)."""
    F = _F()
    x1, x2 = ctx.inputs
    (dist,) = ctx.outputs
    p = ctx.attrs["p"]
    if p == 0 or 0 in x1._shape or 0 in x2._shape:
        return F.zeros_like(x1), F.zeros_like(x2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (B..., P, R, M)
    g = g.unsqueeze(-1)
    d = dist.unsqueeze(-1)
    zero = d == 0
    safe = F.where(zero, 1.0, d)  # no inf / nan in the branch that is not taken (double backward)
    if p == 1:
        w = g * diff.sign()
    elif p == 2:
        w = g * diff / safe
    elif math.isinf(p):
        w = g * diff.sign() * (diff.abs() == d)
    elif p < 2:
        small = diff.abs()
        if p < 1:
            zero = zero | (diff == 0)
            small = F.where(diff == 0, 1.0, small)
        w = diff.sign() * small.pow(p - 1) * g / safe.pow(p - 1)
    else:
        w = diff * diff.abs().pow(p - 2) * g / safe.pow(p - 1)
    w = F.where(zero, 0.0, w)
    return w.sum(-2), -w.sum(-3)
