"""SBP rules of the row-wise nn ops: softmax and the norms keep a split of a dim they do not
normalise over and box one they do; cross entropy with batch-split logits and targets gives a
partial sum of the loss, scaled by the GLOBAL batch for ``mean``.

>>> from ember.dispatch.sbp import split
>>> softmax({"dim": 1}, (((4, 3), None),), (split(0),))
(S(0)) -> (S(0))
>>> softmax({"dim": 1}, (((4, 3), None),), (split(1),))
(B) -> (B)
"""

from __future__ import annotations

from ...dispatch.opexpr import OP_REGISTRY
from ...dispatch.sbp import Signature, broadcast, partial_sum, split
from .elementwise import elementwise

__all__ = [
    "pointwise_loss",
    "cross_entropy",
    "cross_entropy_backward",
    "cross_entropy_probs_backward",
    "cross_entropy_with_probs",
    "norm",
    "softmax",
]


def _whole(n_in: int, n_out: int = 1) -> Signature:
    return Signature((broadcast,) * n_in, (broadcast,) * n_out)


def softmax(attrs, metas, sbps) -> Signature:
    """softmax / log_softmax along ``dim``: a split of another dim passes; the normalised dim is boxed."""
    n = len(metas[0][0])
    at = attrs["dim"] + n if attrs["dim"] < 0 else attrs["dim"]
    e = sbps[0]
    if e.is_split and e.dim != at:
        return Signature((e,), (e,))
    return _whole(1)


def norm(attrs, metas, sbps) -> Signature:
    """layer_norm / rms_norm over the trailing ``ndim`` dims: a split of a leading (batch) dim
    passes, the weight and bias broadcast."""
    n = len(metas[0][0])
    e = sbps[0]
    if e.is_split and e.dim < n - attrs["ndim"]:
        return Signature((e, *(broadcast,) * (len(sbps) - 1)), (e,))
    return _whole(len(sbps))


def _batch_split(metas, sbps) -> bool:
    """(N, C) logits and their targets both split on the batch dim (a class weight broadcast)."""
    return len(metas[0][0]) == 2 and sbps[0] == split(0) and sbps[1] == split(0) and not any(e.is_partial for e in sbps[2:])


def _mean_run(apply, pieces, attrs, info):
    """A rank's part of the mean loss: its summed loss over the global batch."""
    x = info["inputs"][0]
    rows = x._shape[0]
    (total,) = apply(OP_REGISTRY["cross_entropy"], pieces, {**attrs, "reduction": "sum"})
    if rows == 0:
        return apply(OP_REGISTRY["cross_entropy"], pieces, attrs)
    return apply(OP_REGISTRY["div_scalar"], (total,), {"other": rows})


def cross_entropy(attrs, metas, sbps) -> Signature:
    """cross_entropy(input (N, C), target[, weight]) with input and target split on the batch:
    ``none`` keeps the split, ``sum`` is a partial sum, ``mean`` with probability targets a
    partial sum of local sums over the global batch. Class targets with ``mean`` divide by the
    count of targets not ignored, which no rank knows alone: boxed."""
    n = len(sbps)
    if not _batch_split(metas, sbps):
        return _whole(n)
    ins = (split(0), split(0), *(broadcast,) * (n - 2))
    reduction = attrs["reduction"]
    if reduction == "none":
        return Signature(ins, (split(0),))
    if reduction == "sum":
        return Signature(ins, (partial_sum,))
    if attrs["probs"] and n == 2:
        return Signature(ins, (partial_sum,), run=_mean_run)
    return _whole(n)


def cross_entropy_backward(attrs, metas, sbps) -> Signature:
    """The fused gradient (grad_output, input, target) of class-target cross entropy: with the
    batch split, ``none`` (grad_output split alike) and ``sum`` (grad_output broadcast) keep the
    split; ``mean`` scales by the local batch in the kernel: boxed."""
    g, x, t = sbps
    if len(metas[1][0]) != 2 or x != split(0) or t != split(0):
        return _whole(3)
    reduction = attrs["reduction"]
    if reduction == "none":
        return Signature((x, x, t), (x,))
    if reduction == "sum" and not g.is_partial:
        return Signature((broadcast, x, t), (x,))
    return _whole(3)


def _with_probs_run(apply, pieces, attrs, info):
    """A rank's mean over its rows, scaled by its share of the global batch: a partial sum of the
    mean (the fused op runs only when no target is ignored, so the mean divides by the batch)."""
    loss, probs = apply(info["op"], pieces, attrs)
    rows, total = pieces[0]._shape[0], info["inputs"][0]._shape[0]
    if rows != total:
        (loss,) = apply(OP_REGISTRY["mul_scalar"], (loss,), {"other": rows / total})
    return loss, probs


def cross_entropy_with_probs(attrs, metas, sbps) -> Signature:
    """The training loop's fused cross entropy (class targets, ``mean``, the softmax kept (C, N)
    for the backward): with logits or targets split on the batch, a partial sum of the mean and
    the probabilities split by columns; otherwise whole."""
    x, target = sbps
    if x == split(0) or target == split(0):
        return Signature((split(0), split(0)), (partial_sum, split(1)), run=_with_probs_run)
    return _whole(2, 2)


def _probs_backward_run(apply, pieces, attrs, info):
    """The kernel scales by the rows it sees; the mean is over the global batch."""
    (out,) = apply(info["op"], pieces, attrs)
    rows, total = pieces[1]._shape[1], info["inputs"][1]._shape[1]
    if rows == 0 or rows == total:
        return (out,)
    return apply(OP_REGISTRY["mul_scalar"], (out,), {"other": rows / total})


def cross_entropy_probs_backward(attrs, metas, sbps) -> Signature:
    """(grad_output, probs (C, N), target (N,)) -> (N, C): with the batch split (probs on dim 1)
    the gradient's rows are split, each scaled by the global batch."""
    g, probs, target = sbps
    if probs == split(1) and target == split(0) and not g.is_partial:
        return Signature((broadcast, probs, target), (split(0),), run=_probs_backward_run)
    return _whole(3)


def _loss_mean_run(apply, pieces, attrs, info):
    """A rank's part of a mean loss: its summed loss over the global element count."""
    op, x = info["op"], info["inputs"][0]
    count = 1
    for size in x._shape:
        count *= size
    (total,) = apply(op, pieces, {**attrs, "reduction": "sum"})
    if count == 0:
        return apply(op, pieces, attrs)
    return apply(OP_REGISTRY["div_scalar"], (total,), {"other": count})


def pointwise_loss(attrs, metas, sbps) -> Signature:
    """mse / l1 / smooth_l1 / huber / binary cross entropy (input, target) without weights: the
    elementwise rule's split, then ``none`` keeps it, ``sum`` is a partial sum and ``mean`` a
    partial sum of local sums over the global element count."""
    if len(sbps) != 2:
        return _whole(len(sbps))
    sig = elementwise(attrs, metas, sbps)
    if not sig.outputs[0].is_split or attrs["reduction"] == "none":
        return sig
    if attrs["reduction"] == "sum":
        return Signature(sig.inputs, (partial_sum,))
    return Signature(sig.inputs, (partial_sum,), run=_loss_mean_run)
