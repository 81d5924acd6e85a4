"""``tf.losses``: TensorFlow 1's reduced losses and the LOSSES collection.

Every loss computes its per-element values (in float32 for the regression losses and the hinge,
whose inputs TensorFlow casts; in the logits' dtype for the cross entropies), multiplies them by ``weights`` (a scalar, or a
tensor of the losses' rank whose dimensions are 1 or the losses'), reduces them as
``reduction`` says (by default the weighted sum divided by the count of nonzero weights; a
zero denominator gives 0, as TensorFlow's ``div_no_nan``), and adds the result to the graph's
``losses`` collection. ``get_total_loss`` sums that collection and the regularization losses.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...graph.graph import in_graph_scope
from ...graph.sources import identity
from ...ops import functional as F
from . import nn
from .nn._common import convert, convert_like, named, op_scope, rank_of, static_shape
from .variables import GraphKeys, add_to_collection, get_collection

__all__ = [
    "Reduction",
    "absolute_difference",
    "add_loss",
    "compute_weighted_loss",
    "cosine_distance",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


class Reduction:
    """How a loss's weighted values become the loss (TensorFlow's keys)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _cast(t, dtype):
    return t if t.dtype is dtype else t.to(dtype)


def _check_broadcast(weights, losses) -> None:
    w, v = static_shape(weights), static_shape(losses)
    if not w:
        return
    ok = len(w) == len(v) and all(a is None or b is None or a in (1, b) for a, b in zip(w, v, strict=True))
    if not ok:
        raise ValueError(
            f"weights can not be broadcast to values. values.rank={len(v)}. weights.rank={len(w)}. "
            f"values.shape={tuple(v)}. weights.shape={tuple(w)}."
        )


def _div_no_nan(total, count):
    """total / count, and 0 where count is 0."""
    safe = F.where(F.eq(count, 0.0), F.ones_like(count), count)
    return F.where(F.eq(count, 0.0), F.zeros_like(total), F.div(total, safe))


def _reduce(losses, weights, reduction: str):
    Reduction.validate(reduction)
    w = _cast(convert(weights, "compute_weighted_loss", "weights"), losses.dtype)  # TensorFlow casts the weights
    _check_broadcast(w, losses)
    weighted = F.mul(losses, w)
    if reduction == Reduction.NONE:
        return weighted
    total = F.sum(weighted)
    if reduction == Reduction.SUM:
        return total
    full_weights = F.mul(w, F.ones_like(losses))
    if reduction == Reduction.MEAN:
        return _div_no_nan(total, F.sum(full_weights))
    if reduction == Reduction.SUM_OVER_BATCH_SIZE:
        return _div_no_nan(total, F.sum(F.ones_like(losses)))
    return _div_no_nan(total, F.sum(F.ne(full_weights, 0.0).to(losses.dtype)))


def compute_weighted_loss(
    losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS
):
    """``losses`` weighted and reduced (see the module), added to ``loss_collection``.

    >>> import ember.compat.v1 as tf
    >>> float(tf.losses.compute_weighted_loss([1.0, 2.0, 3.0], weights=[1.0, 0.0, 1.0]))
    2.0
    """
    values = convert(losses, "compute_weighted_loss", "losses")
    with op_scope(scope, "weighted_loss"), op_scope(None, _result_name(reduction)) as value:
        loss = named(_reduce(values, weights, reduction), value)
    add_loss(loss, loss_collection)
    return loss


def _result_name(reduction) -> str:
    """TensorFlow's name of a loss's last node: the weighting's Mul, the Sum, or the mean's value."""
    return {Reduction.NONE: "Mul", Reduction.SUM: "Sum"}.get(reduction, "value")


def _elementwise_loss(scope, default, weights, loss_collection, reduction, compute):
    with op_scope(scope, default):
        losses = compute()
        with op_scope(None, _result_name(reduction)) as value:  # <scope>/value (Sum, Mul), as TensorFlow names it
            loss = named(_reduce(losses, weights, reduction), value)
    add_loss(loss, loss_collection)
    return loss


def _pair(labels, predictions, op: str, second: str = "predictions", dtype=None):
    """(labels, predictions) as tensors of one dtype (``dtype`` if given, else the predictions'),
    their static shapes checked compatible."""
    p = convert(predictions, op, second)
    if dtype is not None:
        p = _cast(p, dtype)
    z = _cast(convert(labels, op, "labels"), p.dtype)
    a, b = static_shape(p), static_shape(z)
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b, strict=True)):
        raise ValueError(f"{op}(): Shapes {tuple(a)} and {tuple(b)} are incompatible")
    return z, p


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):  # fmt: skip
    """|predictions - labels|, weighted and reduced."""
    z, p = _pair(labels, predictions, "absolute_difference", dtype=_dt.float32)
    return _elementwise_loss(scope, "absolute_difference", weights, loss_collection, reduction, lambda: F.abs(F.sub(p, z)))


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):  # fmt: skip
    """(predictions - labels) ** 2, weighted and reduced.

    >>> import ember.compat.v1 as tf
    >>> float(tf.losses.mean_squared_error([1.0, 2.0], [1.5, 2.0]))
    0.125
    """
    z, p = _pair(labels, predictions, "mean_squared_error", dtype=_dt.float32)
    return _elementwise_loss(scope, "mean_squared_error", weights, loss_collection, reduction, lambda: F.square(F.sub(p, z)))


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):  # fmt: skip
    """0.5 * e ** 2 where |e| <= delta, else delta * (|e| - 0.5 * delta), e = predictions - labels."""
    z, p = _pair(labels, predictions, "huber_loss", dtype=_dt.float32)

    def compute():
        error = F.abs(F.sub(p, z))
        quadratic = F.clamp_max(error, float(delta))
        return F.add(F.mul(F.square(quadratic), 0.5), F.mul(F.sub(error, quadratic), float(delta)))

    return _elementwise_loss(scope, "huber_loss", weights, loss_collection, reduction, compute)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):  # fmt: skip
    """-labels * log(p + epsilon) - (1 - labels) * log(1 - p + epsilon), p the predicted probabilities."""
    z, p = _pair(labels, predictions, "log_loss", dtype=_dt.float32)

    def compute():
        positive = F.mul(z, F.log(F.add(p, float(epsilon))))
        negative = F.mul(F.rsub(z, 1.0), F.log(F.add(F.rsub(p, 1.0), float(epsilon))))
        return F.neg(F.add(positive, negative))

    return _elementwise_loss(scope, "log_loss", weights, loss_collection, reduction, compute)


def hinge_loss(
    labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS
):
    """max(0, 1 - (2 * labels - 1) * logits) for labels in {0, 1}."""
    z, x = _pair(labels, logits, "hinge_loss", "logits", dtype=_dt.float32)
    compute = lambda: F.relu(F.rsub(F.mul(F.sub(F.mul(z, 2.0), 1.0), x), 1.0))  # noqa: E731 - one expression
    return _elementwise_loss(scope, "hinge_loss", weights, loss_collection, reduction, compute)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):  # fmt: skip
    """1 - sum(labels * predictions, axis) for unit-normalized inputs (kept as a dimension of size 1)."""
    if axis is not None and dim is not None:
        raise ValueError("cosine_distance(): cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    z, p = _pair(labels, predictions, "cosine_distance", dtype=_dt.float32)
    compute = lambda: F.rsub(F.sum(F.mul(p, z), int(axis), True), 1.0)  # noqa: E731 - one expression
    return _elementwise_loss(scope, "cosine_distance_loss", weights, loss_collection, reduction, compute)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):  # fmt: skip
    """Softmax cross entropy per example (no gradient into the labels); ``label_smoothing`` s
    turns the labels into labels * (1 - s) + s / classes."""
    z, x = _pair(onehot_labels, logits, "softmax_cross_entropy", "logits")

    def compute():
        labels = F.detach(z)
        if label_smoothing:
            classes = static_shape(x)[-1]
            if classes is None:
                raise ValueError(
                    "softmax_cross_entropy(): label_smoothing needs the number of classes known when the graph is built"
                )
            labels = F.add(F.mul(labels, 1.0 - float(label_smoothing)), float(label_smoothing) / classes)
        return nn.softmax_cross_entropy_with_logits_v2(labels, x)

    return _elementwise_loss(scope, "softmax_cross_entropy_loss", weights, loss_collection, reduction, compute)


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):  # fmt: skip
    """Sparse softmax cross entropy per example; labels of shape [batch, 1] are squeezed to [batch]."""
    x = convert(logits, "sparse_softmax_cross_entropy", "logits")
    z = convert(labels, "sparse_softmax_cross_entropy", "labels")
    if rank_of(z) == rank_of(x) and static_shape(z)[-1] == 1:
        z = F.squeeze(z, -1)
    if not isinstance(weights, (int, float)):
        w = convert_like(weights, x, "sparse_softmax_cross_entropy", "weights")
        weights = F.squeeze(w, -1) if rank_of(w) == rank_of(x) and static_shape(w)[-1] == 1 else w
    compute = lambda: nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x)  # noqa: E731 - one expression
    return _elementwise_loss(scope, "sparse_softmax_cross_entropy_loss", weights, loss_collection, reduction, compute)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):  # fmt: skip
    """Sigmoid cross entropy per element; ``label_smoothing`` s turns the labels into
    labels * (1 - s) + s / 2."""
    z, x = _pair(multi_class_labels, logits, "sigmoid_cross_entropy", "logits")

    def compute():
        labels = z
        if label_smoothing:
            labels = F.add(F.mul(labels, 1.0 - float(label_smoothing)), 0.5 * float(label_smoothing))
        return nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=x)

    return _elementwise_loss(scope, "sigmoid_cross_entropy_loss", weights, loss_collection, reduction, compute)


# -- the collections ---------------------------------------------------------------------------------


def add_loss(loss, loss_collection=GraphKeys.LOSSES) -> None:
    """Add ``loss`` to ``loss_collection`` of the default graph (nothing happens eagerly)."""
    if loss_collection and in_graph_scope():
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES) -> list:
    """The losses in ``loss_collection`` whose names match ``scope``."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None) -> list:
    """The regularization losses (from ``get_variable(regularizer=...)`` and layers) matching ``scope``."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def _add_n(tensors):
    if len(tensors) == 1:
        return identity(tensors[0])  # a node of its own, to carry the total's name
    total = tensors[0]
    for t in tensors[1:]:
        total = F.add(total, t)
    return total


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses, or a 0.0 constant when there are none."""
    losses = get_regularization_losses(scope)
    if not losses:
        return convert(0.0, "get_regularization_loss", "losses")
    with op_scope(name, "total_regularization_loss") as scope:
        return named(_add_n(losses), scope)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the losses in the LOSSES collection, plus the regularization losses unless
    ``add_regularization_losses`` is False."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("get_total_loss(): no losses in the 'losses' collection (nor regularization losses) to add up")
    with op_scope(name, "total_loss") as scope:
        return named(_add_n(losses), scope)
