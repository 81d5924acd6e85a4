"""SBP rules of the elementwise ops: splits pass through (shapes broadcast, aligned right), and a
partial survives only where the op commutes with the partial's reduction.

- linear ops (neg, a product by a scalar, real/imag, add of two partial sums, where/lerp of
  partials) keep P(sum);
- non-decreasing ops (relu, exp, floor, clamp, + a constant...) keep P(max) and P(min);
  decreasing ones (neg, a product by a negative scalar) swap them;
- everything else (comparisons included) boxes a partial to broadcast first.

>>> from ember.dispatch.sbp import split, broadcast, partial_sum
>>> elementwise({}, (((4, 3), None), ((3,), None)), (split(0), broadcast))
(S(0), B) -> (S(0))
>>> add_like({}, (((4, 3), None), ((4, 3), None)), (partial_sum, partial_sum))
(P(sum), P(sum)) -> (P(sum))
"""

from __future__ import annotations

from numbers import Real

from ...dispatch.sbp import Signature, broadcast, partial_max, partial_min, partial_sum, split

__all__ = [
    "add_alpha", "add_like", "clamp_like", "div_like", "elementwise", "lerp", "linear_unary", "maximum_like", "minimum_like",
    "monotone_unary", "mul_like", "negate", "shift_unary", "sub_like", "threshold_backward", "where",
]  # fmt: skip

_SWAP = {"max": partial_min, "min": partial_max}


def all_broadcast(n: int, n_out: int = 1) -> Signature:
    return Signature((broadcast,) * n, (broadcast,) * n_out)


def _is_max_min(e) -> bool:
    return e.is_partial and e.reduce in ("max", "min")


def _floating(metas) -> bool:
    """Whether shifting or negating can keep a max: an integer piece holding the reduction's
    identity (iinfo.min after a split was made partial) would wrap around."""
    dtype = metas[0][1]
    return dtype is not None and dtype.is_floating_point


def _both_floating(metas) -> bool:
    return all(m[1] is not None and m[1].is_floating_point for m in metas)


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
        return all_broadcast(len(metas), n_out)
    needed = []
    for s in shapes:
        i = target - (out_ndim - len(s))
        needed.append(split(i) if i >= 0 and s[i] == out_shape[target] else broadcast)
    return Signature(tuple(needed), (split(target),) * n_out)


def linear_unary(attrs, metas, sbps) -> Signature:
    """A linear one-input op (real, imag, conj, a product or quotient by the scalar ``other``):
    a partial sum stays one; by a scalar, a partial max/min stays one (positive scalar) or swaps
    (negative)."""
    e = sbps[0]
    if e == partial_sum:
        return Signature((e,), (e,))
    c = attrs.get("other")
    if _is_max_min(e) and _floating(metas) and isinstance(c, Real) and not isinstance(c, bool) and c == c:
        if c > 0:
            return Signature((e,), (e,))
        if c < 0:
            return Signature((e,), (_SWAP[e.reduce],))
    return elementwise(attrs, metas, sbps)


def negate(attrs, metas, sbps) -> Signature:
    """neg: linear and decreasing: P(sum) stays, P(max) and P(min) swap."""
    e = sbps[0]
    if e == partial_sum:
        return Signature((e,), (e,))
    if _is_max_min(e) and _floating(metas):
        return Signature((e,), (_SWAP[e.reduce],))
    return elementwise(attrs, metas, sbps)


def monotone_unary(attrs, metas, sbps) -> Signature:
    """A non-decreasing one-input op defined on every real (relu, exp, floor, x + c...): a
    partial max or min stays one, since f(max x_i) == max f(x_i)."""
    if _is_max_min(sbps[0]):
        return Signature((sbps[0],), (sbps[0],))
    return elementwise(attrs, metas, sbps)


def shift_unary(attrs, metas, sbps) -> Signature:
    """x + c, x - c: non-decreasing, but only floating pieces shift without wrapping around."""
    if _is_max_min(sbps[0]) and _floating(metas):
        return Signature((sbps[0],), (sbps[0],))
    return elementwise(attrs, metas, sbps)


def clamp_like(attrs, metas, sbps) -> Signature:
    """clamp with scalar bounds (tensor bounds come as extra inputs: elementwise)."""
    if len(metas) == 1:
        return monotone_unary(attrs, metas, sbps)
    return elementwise(attrs, metas, sbps)


def add_like(attrs, metas, sbps) -> Signature:
    """add: P(sum) + P(sum) stays P(sum) (never with B: B would be added n times); P(max|min)
    + B stays (adding the same value to every piece commutes with the max)."""
    a, b = sbps
    if (a == partial_sum or b == partial_sum) and not (a.is_partial and b.is_partial and a != b):
        return Signature((partial_sum, partial_sum), (partial_sum,))
    if _is_max_min(a) and not b.is_partial and _both_floating(metas):
        return Signature((a, broadcast), (a,))
    if _is_max_min(b) and not a.is_partial and _both_floating(metas):
        return Signature((broadcast, b), (b,))
    return elementwise(attrs, metas, sbps)


def sub_like(attrs, metas, sbps) -> Signature:
    """sub: P(sum) - P(sum) stays P(sum); P(max) - B stays P(max); B - P(max) is P(min)."""
    a, b = sbps
    if (a == partial_sum or b == partial_sum) and not (a.is_partial and b.is_partial and a != b):
        return Signature((partial_sum, partial_sum), (partial_sum,))
    if _is_max_min(a) and not b.is_partial and _both_floating(metas):
        return Signature((a, broadcast), (a,))
    if _is_max_min(b) and not a.is_partial and _both_floating(metas):
        return Signature((broadcast, b), (_SWAP[b.reduce],))
    return elementwise(attrs, metas, sbps)


def add_alpha(attrs, metas, sbps) -> Signature:
    """input + alpha * other (the optimisers' and derivatives' add): linear in both."""
    a, b = sbps
    if (a == partial_sum or b == partial_sum) and not (a.is_partial and b.is_partial and a != b):
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


def _extremum(kind):
    def rule(attrs, metas, sbps) -> Signature:
        a, b = sbps
        if a == kind and b == kind:
            return Signature((kind, kind), (kind,))
        if a == kind and not b.is_partial:
            return Signature((kind, broadcast), (kind,))
        if b == kind and not a.is_partial:
            return Signature((broadcast, kind), (kind,))
        return elementwise(attrs, metas, sbps)

    return rule


maximum_like = _extremum(partial_max)
maximum_like.__name__ = maximum_like.__qualname__ = "maximum_like"
maximum_like.__doc__ = "maximum: P(max) with P(max) or B stays P(max) (max of maxes)."
minimum_like = _extremum(partial_min)
minimum_like.__name__ = minimum_like.__qualname__ = "minimum_like"
minimum_like.__doc__ = "minimum: P(min) with P(min) or B stays P(min)."


def where(attrs, metas, sbps) -> Signature:
    """where(condition, input, other): picking is linear and commutes with max/min, so a partial
    input (or other) keeps its kind when the condition is broadcast; the other operand is boxed
    to the same partial (B -> P is local)."""
    c, x, y = sbps
    for e in (x, y):
        if e.is_partial and not c.is_partial and not (x.is_partial and y.is_partial and x != y):
            return Signature((broadcast, e, e), (e,))
    return elementwise(attrs, metas, sbps)


def lerp(attrs, metas, sbps) -> Signature:
    """input + weight * (end - input): linear in (input, end) for a broadcast weight."""
    a, b = sbps[0], sbps[1]
    rest = sbps[2:]
    if (
        (a == partial_sum or b == partial_sum)
        and not any(e.is_partial for e in rest)
        and not (a.is_partial and b.is_partial and a != b)
    ):
        return Signature((partial_sum, partial_sum, *(broadcast,) * len(rest)), (partial_sum,))
    return elementwise(attrs, metas, sbps)


def threshold_backward(attrs, metas, sbps) -> Signature:
    """grad_output where output > threshold, else 0: linear in grad_output."""
    g, out = sbps
    if g == partial_sum and not out.is_partial:
        return Signature((partial_sum, broadcast), (partial_sum,))
    return elementwise(attrs, metas, sbps)
