"""SBP rules of the op families: what layout each input of an op must have on one mesh
dimension, and what layout its outputs get, for global tensors (``ember/dispatch/sbp.py``).

A rule is ``fn(attrs, metas, sbps) -> Signature | None``: ``metas`` are the inputs' logical
(shape, dtype), ``sbps`` their current layouts on the mesh dimension. It answers with the
signature that needs the least boxing of what the inputs have; None means "no rule": the
interpreter boxes every input to broadcast and runs the op whole, which is always right. A
primitive names its rule with ``OpExpr.tag(sbp=...)`` beside its registration.

>>> from ember.dispatch.sbp import split, broadcast, partial_sum
>>> elementwise({}, (((4, 3), None), ((3,), None)), (split(0), broadcast))
(S(0), B) -> (S(0))
>>> matmul({}, (((4, 3), None), ((3, 5), None)), (split(1), split(0)))
(S(1), S(0)) -> (P(sum))
"""

from __future__ import annotations

from ..dispatch.sbp import Signature, broadcast, partial_sum, split

__all__ = ["add_like", "div_like", "elementwise", "linear_unary", "matmul", "monotone_unary", "mul_like"]


def _all_broadcast(n: int, n_out: int = 1) -> Signature:
    return Signature((broadcast,) * n, (broadcast,) * n_out)


def elementwise(attrs, metas, sbps, n_out: int = 1) -> Signature:
    """Inputs broadcast against each other (aligned right): a split passes to the output when
    every input that has the split dim at full size is split on it and the rest are broadcast.
    A partial is boxed to broadcast (the op is not assumed linear)."""
    shapes = [m[0] for m in metas]
    out_ndim = max((len(s) for s in shapes), default=0)
    out_shape = [1] * out_ndim
    for s in shapes:
        for i, n in enumerate(s):
            k = out_ndim - len(s) + i
            out_shape[k] = n if out_shape[k] == 1 else out_shape[k]
    # the output dim to split on: the first input's split that is not a broadcast size-1 dim
    target = None
    for s, e in zip(shapes, sbps, strict=True):
        if e.is_split and s[e.dim] == out_shape[out_ndim - len(s) + e.dim] and s[e.dim] > 1:
            target = out_ndim - len(s) + e.dim
            break
    if target is None:
        return _all_broadcast(len(metas), n_out)
    needed = []
    for s in shapes:
        i = target - (out_ndim - len(s))
        needed.append(split(i) if i >= 0 and s[i] == out_shape[target] else broadcast)
    return Signature(tuple(needed), (split(target),) * n_out)


def linear_unary(attrs, metas, sbps) -> Signature:
    """A linear one-input op (neg, a product by a scalar): a partial sum stays partial."""
    if sbps[0] == partial_sum:
        return Signature((partial_sum,), (partial_sum,))
    return elementwise(attrs, metas, sbps)


def monotone_unary(attrs, metas, sbps) -> Signature:
    """A non-decreasing one-input op: a partial max or min stays one."""
    if sbps[0].is_partial and sbps[0].reduce in ("max", "min"):
        return Signature((sbps[0],), (sbps[0],))
    return elementwise(attrs, metas, sbps)


def add_like(attrs, metas, sbps) -> Signature:
    """add, sub: P(sum) with P(sum) stays P(sum) (never with B: B would be added n times)."""
    a, b = sbps
    if a == partial_sum and b == partial_sum and metas[0][0] == metas[1][0]:
        return Signature((partial_sum, partial_sum), (partial_sum,))
    return elementwise(attrs, metas, sbps)


def mul_like(attrs, metas, sbps) -> Signature:
    """mul: a partial sum times a broadcast stays a partial sum (either side)."""
    a, b = sbps
    if a == partial_sum and not b.is_partial:
        return Signature((partial_sum, broadcast), (partial_sum,))
    if b == partial_sum and not a.is_partial:
        return Signature((broadcast, partial_sum), (partial_sum,))
    return elementwise(attrs, metas, sbps)


def div_like(attrs, metas, sbps) -> Signature:
    """div: a partial sum over a broadcast stays a partial sum (not the other way round)."""
    if sbps[0] == partial_sum and not sbps[1].is_partial:
        return Signature((partial_sum, broadcast), (partial_sum,))
    return elementwise(attrs, metas, sbps)


def matmul(attrs, metas, sbps) -> Signature | None:
    """(..., m, k) @ (..., k, n): S(m) x B -> S(m); B x S(n) -> S(n); S(k) x S(k) -> P(sum);
    P x B -> P; B x P -> P; B x B -> B; a shared batch dim split on both stays split. Vectors
    (1-D operands) have no rule: they are boxed."""
    (sa, _), (sb, _) = metas
    if len(sa) < 2 or len(sb) < 2:
        return None
    a, b = sbps
    na, nb = len(sa), len(sb)
    out_ndim = max(na, nb)
    m_dim, ka_dim, kb_dim, n_dim = na - 2, na - 1, nb - 2, nb - 1
    if a.is_split and a.dim < na - 2:  # a batch dim: b must be split on the same one, or lack it
        out_dim = out_ndim - na + a.dim
        bi = out_dim - (out_ndim - nb)
        if bi >= 0 and sb[bi] == sa[a.dim]:
            return Signature((a, split(bi)), (split(out_dim),))
        if bi < 0 or sb[bi] == 1:
            return Signature((a, broadcast), (split(out_dim),))
        return Signature((broadcast, broadcast), (broadcast,))
    if a.is_split and a.dim == m_dim:
        return Signature((a, broadcast), (split(out_ndim - 2),))
    if a.is_split and a.dim == ka_dim:
        return Signature((a, split(kb_dim)), (partial_sum,))
    if b.is_split and b.dim == n_dim:
        return Signature((broadcast, b), (split(out_ndim - 1),))
    if b.is_split and b.dim == kb_dim:
        return Signature((split(ka_dim), b), (partial_sum,))
    if a == partial_sum and not b.is_partial:
        return Signature((partial_sum, broadcast), (partial_sum,))
    if b == partial_sum and not a.is_partial:
        return Signature((broadcast, partial_sum), (partial_sum,))
    return Signature((broadcast, broadcast), (broadcast,))
