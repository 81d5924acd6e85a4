"""``tf.nn``'s cross entropies and ``l2_loss``: per-example losses, unreduced, with TensorFlow's
keyword-only labels/logits, its shape and label checks, and ``softmax_cross_entropy_with_logits``
(TF1's) sending no gradient into the labels while ``_v2`` does."""

from __future__ import annotations

import math

from ...._core import dtype as _dt
from ....ops import functional as F
from ._common import convert, convert_like, named, op_scope, rank_of, static_shape

__all__ = [
    "l2_loss",
    "log_poisson_loss",
    "sigmoid_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits",
]


def _require(labels, logits, op: str) -> None:
    if labels is None or logits is None:
        raise ValueError(f"Only call `{op}` with named arguments (labels=..., logits=..., ...), both of them given")


def _same_shape(labels, logits, op: str) -> None:
    a, b = static_shape(logits), static_shape(labels)
    compatible = len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))
    if not compatible:
        raise ValueError(f"{op}(): `logits` and `labels` must have the same shape, received ({tuple(a)} vs {tuple(b)}).")


def _softmax_xent(labels, logits, axis, name, op: str, stop_labels: bool):
    _require(labels, logits, op)
    x = convert(logits, op, "logits")
    z = convert_like(labels, x, op, "labels")
    a, b = static_shape(x), static_shape(z)
    if len(a) != len(b) or any(p is not None and q is not None and p != q for p, q in zip(a, b, strict=True)):
        raise ValueError(f"{op}(): logits and labels must be broadcastable: logits_size={a} labels_size={b}")
    axis = -1 if axis is None else int(axis)
    with op_scope(name, "softmax_cross_entropy_with_logits") as scope:
        if stop_labels:
            z = F.detach(z)
        return named(F.neg(F.sum(F.mul(z, F.log_softmax(x, axis)), axis)), scope)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """-sum(labels * log_softmax(logits)) along ``axis`` (TF1's ``dim``), one value per example.
    TF1's form: no gradient flows into ``labels`` (``_v2`` lets it)."""
    if _sentinel is not None:
        _require(None, None, "softmax_cross_entropy_with_logits")
    return _softmax_xent(labels, logits, dim if axis is None else axis, name, "softmax_cross_entropy_with_logits", True)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """-sum(labels * log_softmax(logits)) along ``axis``; gradients flow into both inputs.

    >>> import numpy as np, ember.compat.v1 as tf
    >>> tf.nn.softmax_cross_entropy_with_logits_v2([[0.0, 1.0]], np.zeros((1, 2), np.float32)).tolist()
    [0.6931471824645996]
    """
    if axis is not None and dim is not None:
        raise ValueError("softmax_cross_entropy_with_logits_v2(): cannot specify both 'axis' and 'dim'")
    return _softmax_xent(labels, logits, dim if axis is None else axis, name, "softmax_cross_entropy_with_logits_v2", False)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """-log_softmax(logits)[..., labels]: ``labels`` (int32 or int64) hold class indices and have
    one dimension less than ``logits``. A label outside [0, classes) is an error when run."""
    op = "sparse_softmax_cross_entropy_with_logits"
    if _sentinel is not None:
        _require(None, None, op)
    _require(labels, logits, op)
    x = convert(logits, op, "logits")
    z = convert(labels, op, "labels")
    if z.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"{op}(): labels must be int32 or int64, got {z.dtype.name}")
    if rank_of(z) != rank_of(x) - 1:
        raise ValueError(
            f"{op}(): `labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape={tuple(static_shape(z))} "
            f"of rank {rank_of(z)} and logits.shape={tuple(static_shape(x))} of rank {rank_of(x)}"
        )
    with op_scope(name, "SparseSoftmaxCrossEntropyWithLogits") as scope:
        picked = F.gather(F.log_softmax(x, -1), -1, F.unsqueeze(z.to(_dt.int64), -1))
        return named(F.neg(F.squeeze(picked, -1)), scope, "SparseSoftmaxCrossEntropyWithLogits")


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """The binary cross entropy of sigmoid(logits) against ``labels`` in [0, 1], element-wise,
    as max(x, 0) - x * z + log(1 + exp(-|x|)) (stable for any x)."""
    op = "sigmoid_cross_entropy_with_logits"
    if _sentinel is not None:
        _require(None, None, op)
    _require(labels, logits, op)
    x = convert(logits, op, "logits")
    z = convert_like(labels, x, op, "labels")
    _same_shape(z, x, op)
    with op_scope(name, "logistic_loss") as scope:
        # max(x, 0) and -|x| as selections on x >= 0, as TensorFlow writes them: at x == 0 the
        # derivative is then sigmoid(0) - z (relu's and abs's derivatives there would give 1 - z)
        positive = F.ge(x, 0)
        relu_x, neg_abs_x = F.where(positive, x, F.zeros_like(x)), F.where(positive, F.neg(x), x)
        loss = F.add(F.sub(relu_x, F.mul(x, z)), F.log1p(F.exp(neg_abs_x)))
        return named(loss, scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """``sigmoid_cross_entropy_with_logits`` with the positive term weighted by ``pos_weight``:
    (1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0))."""
    op = "weighted_cross_entropy_with_logits"
    if labels is not None and targets is not None:
        raise ValueError(f"{op}(): cannot specify both 'labels' and 'targets'")
    labels = targets if labels is None else labels
    _require(labels, logits, op)
    if pos_weight is None:
        raise ValueError(f"{op}(): pos_weight is required")
    x = convert(logits, op, "logits")
    z = convert_like(labels, x, op, "labels")
    q = convert_like(pos_weight, x, op, "pos_weight")
    _same_shape(z, x, op)
    with op_scope(name, "logistic_loss") as scope:
        log_weight = F.add(F.mul(F.sub(q, 1.0), z), 1.0)
        soft = F.add(F.log1p(F.exp(F.neg(F.abs(x)))), F.relu(F.neg(x)))
        return named(F.add(F.mul(F.rsub(z, 1.0), x), F.mul(log_weight, soft)), scope)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar.

    >>> import ember.compat.v1 as tf
    >>> float(tf.nn.l2_loss([1.0, 2.0]))
    2.5
    """
    x = convert(t, "l2_loss", "t")
    with op_scope(name, "L2Loss") as scope:
        return named(F.mul(F.sum(F.square(x)), 0.5), scope, "L2Loss")


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets, the Poisson negative log likelihood up to a constant;
    ``compute_full_loss`` adds Stirling's approximation of log(targets!) for targets > 1."""
    x = convert(log_input, "log_poisson_loss", "log_input")
    z = convert_like(targets, x, "log_poisson_loss", "targets")
    _same_shape(z, x, "log_poisson_loss")
    with op_scope(name, "log_poisson_loss") as scope:
        loss = F.sub(F.exp(x), F.mul(x, z))
        if compute_full_loss:
            stirling = F.add(F.sub(F.mul(z, F.log(z)), z), F.mul(F.log(F.mul(z, 2 * math.pi)), 0.5))
            small = F.logical_and(F.ge(z, 0.0), F.le(z, 1.0))
            loss = F.add(loss, F.where(small, F.zeros_like(z), stirling))
        return named(loss, scope)
