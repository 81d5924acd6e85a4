"""SBP rules of the reductions (attrs ``dims``, sorted and non-negative, and ``keepdim``).

A split dim that is not reduced stays split (re-indexed unless keepdim). Reducing a split dim
gives the partial of the reduction: P(sum) for sum, P(max)/P(min) for amax/amin. mean is a local
sum scaled by the GLOBAL count (never the mean of uneven shards). Ops whose partial results do
not combine that simply (argmax, prod, var, logsumexp...) box a reduced split dim to broadcast.

>>> from ember.dispatch.sbp import split, partial_sum
>>> sum_rule({"dims": (0,), "keepdim": False}, (((4, 3), None),), (split(1),))
(S(1)) -> (S(0))
>>> sum_rule({"dims": (0,), "keepdim": False}, (((4, 3), None),), (split(0),))
(S(0)) -> (P(sum))
"""

from __future__ import annotations

from ...dispatch.opexpr import OP_REGISTRY
from ...dispatch.sbp import Signature, broadcast, needs_ranks, partial_max, partial_min, partial_sum, split

__all__ = ["count_rule", "extremum_rule", "local_reduction", "mean_rule", "sum_rule"]


def _dims(attrs, ndim: int) -> tuple:
    dims = attrs.get("dims")
    return tuple(range(ndim)) if dims is None else tuple(dims)


def _kept(e, attrs, ndim: int):
    """The output layout of a split on a dim that is not reduced (None if it is reduced)."""
    dims = _dims(attrs, ndim)
    if e.dim in dims:
        return None
    if attrs.get("keepdim"):
        return e
    return split(e.dim - sum(1 for d in dims if d < e.dim))


def _whole(n_out: int = 1) -> Signature:
    return Signature((broadcast,), (broadcast,) * n_out)


def local_reduction(attrs, metas, sbps, n_out: int = 1) -> Signature:
    """A reduction computed whole per piece: a split on a kept dim passes, anything else is
    boxed (prod, var, std, logsumexp, all, any, argmax, max(dim) with its indices...)."""
    e = sbps[0]
    if e.is_split:
        out = _kept(e, attrs, len(metas[0][0]))
        if out is not None:
            return Signature((e,), (out,) * n_out)
    return _whole(n_out)


def local_reduction_2(attrs, metas, sbps) -> Signature:
    """max(dim)/min(dim): values and indices, both computed whole per piece."""
    return local_reduction(attrs, metas, sbps, 2)


def sum_rule(attrs, metas, sbps) -> Signature:
    """sum: reducing a split dim gives P(sum); a partial sum stays one."""
    e = sbps[0]
    if e == partial_sum:
        return Signature((e,), (e,))
    if e.is_split and _kept(e, attrs, len(metas[0][0])) is None:
        return Signature((e,), (partial_sum,))
    return local_reduction(attrs, metas, sbps)


def count_rule(attrs, metas, sbps) -> Signature:
    """count_nonzero: counts over a split dim add up (a partial input is boxed: the count is not linear)."""
    e = sbps[0]
    if e.is_split and _kept(e, attrs, len(metas[0][0])) is None:
        return Signature((e,), (partial_sum,))
    return local_reduction(attrs, metas, sbps)


def _mean_run(apply, pieces, attrs, info):
    """A rank's part of the mean: its local sum over the reduced dims over the global count."""
    shape, dims = info["inputs"][0]._shape, attrs["dims"]
    count = 1
    for d in dims:
        count *= shape[d]
    total = apply(OP_REGISTRY["sum"], pieces, attrs)[0]
    if count == 0:
        return apply(OP_REGISTRY["mean"], pieces, attrs)  # nan where torch gives nan
    return apply(OP_REGISTRY["div_scalar"], (total,), {"other": count})


def mean_rule(attrs, metas, sbps) -> Signature:
    """mean: reducing a split dim gives P(sum) of local sums over the global count; a partial
    sum stays one (the mean is linear)."""
    e = sbps[0]
    if e == partial_sum:
        return Signature((e,), (e,))
    if e.is_split and _kept(e, attrs, len(metas[0][0])) is None:
        return Signature((e,), (partial_sum,), run=_mean_run)
    return local_reduction(attrs, metas, sbps)


def extremum_rule(kind):
    """amax / amin: reducing a split dim gives P(max) / P(min) when no rank's piece is empty
    (an empty max has no value); a partial of the same kind stays one."""

    @needs_ranks
    def rule(attrs, metas, sbps, ranks) -> Signature:
        e = sbps[0]
        shape = metas[0][0]
        if e == kind:
            return Signature((e,), (e,))
        if e.is_split and _kept(e, attrs, len(shape)) is None and shape[e.dim] >= ranks:
            return Signature((e,), (kind,))
        return local_reduction(attrs, metas, sbps)

    rule.__name__ = rule.__qualname__ = f"extremum_rule_{kind.reduce}"
    return rule


amax_rule = extremum_rule(partial_max)
amin_rule = extremum_rule(partial_min)
