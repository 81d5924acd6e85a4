"""SBP rules of the products: matmul, linear (and its fused backward), embedding.

>>> from ember.dispatch.sbp import split, broadcast
>>> matmul({}, (((4, 3), None), ((3, 5), None)), (split(1), split(0)))
(S(1), S(0)) -> (P(sum))
>>> linear({}, (((4, 3), None), ((5, 3), None), ((5,), None)), (broadcast, split(0), broadcast))
(B, S(0), S(0)) -> (S(1))
"""

from __future__ import annotations

from ...dispatch.sbp import Signature, broadcast, partial_sum, split

__all__ = ["embedding", "linear", "linear_backward", "matmul"]


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
    if b.is_split and b.dim < nb - 2:  # b's batch dim, a lacking it or broadcasting it
        out_dim = out_ndim - nb + b.dim
        ai = out_dim - (out_ndim - na)
        if ai < 0 or sa[ai] == 1:
            return Signature((broadcast, b), (split(out_dim),))
        if sa[ai] == sb[b.dim]:
            return Signature((split(ai), b), (split(out_dim),))
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


def linear(attrs, metas, sbps) -> Signature:
    """input (..., in) @ weight (out, in).T + bias (out):
    input split on a batch dim -> the same split; weight split by rows (Megatron's column
    parallel) -> split on the last dim, bias split alike; input split on its last dim with weight
    split by columns (row parallel) -> P(sum), the bias added once (boxed to P(sum));
    a partial-sum input -> P(sum)."""
    x, w = sbps[0], sbps[1]
    nx = len(metas[0][0])
    has_bias = len(sbps) == 3
    last = nx - 1

    def sig(ins, bias, out):
        return Signature((*ins, bias) if has_bias else ins, (out,))

    if x.is_split and x.dim < last:
        return sig((x, broadcast), broadcast, x)
    if w == split(0) and not x.is_partial:
        return sig((broadcast, w), w, split(last))
    if (x == split(last) or w == split(1)) and nx >= 1:
        return sig((split(last), split(1)), partial_sum, partial_sum)
    if x == partial_sum and not w.is_partial:
        return sig((partial_sum, broadcast), partial_sum, partial_sum)
    return sig((broadcast, broadcast), broadcast, broadcast)


def linear_backward(attrs, metas, sbps) -> Signature:
    """(grad_output, input, weight) -> the masked ones of (grad_input, grad_weight, grad_bias),
    the transposes of linear's signatures: data parallel (batch split: weight and bias grads
    P(sum)), column parallel (weight split by rows: grad_input P(sum)), row parallel (weight
    split by columns: grad_input split on its last dim)."""
    g, x, w = sbps
    nx = len(metas[1][0])
    last = nx - 1
    mask = attrs["output_mask"]

    def sig(ins, outs):
        return Signature(ins, tuple(o for o, need in zip(outs, mask, strict=True) if need))

    if w == split(0) or (g == split(last) and not w.is_partial):
        return sig((split(last), broadcast, split(0)), (partial_sum, split(0), split(0)))
    if w == split(1) or (x == split(last) and not w.is_partial):
        return sig((broadcast, split(last), split(1)), (split(last), split(1), broadcast))
    for e in (g, x):
        if e.is_split and e.dim < last:
            return sig((e, e, broadcast), (e, partial_sum, partial_sum))
    if g == partial_sum and not x.is_partial and not w.is_partial:
        return sig((partial_sum, broadcast, broadcast), (partial_sum, partial_sum, partial_sum))
    return sig((broadcast, broadcast, broadcast), (broadcast, broadcast, broadcast))


def embedding(attrs, metas, sbps) -> Signature:
    """weight (vocab, dim), indices (...) -> (..., dim): split indices give a split output; a
    weight split along dim 1 gives an output split on its last dim. A weight split by rows
    (vocabulary parallel) would need masking and a partial sum: boxed."""
    w, i = sbps
    ni = len(metas[1][0])
    if i.is_split:
        return Signature((broadcast, i), (i,))
    if w == split(1):
        return Signature((w, broadcast), (split(ni),))
    return Signature((broadcast, broadcast), (broadcast,))
