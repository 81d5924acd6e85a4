"""tf.losses of ember.compat.v1: TensorFlow's weighting and reductions, the LOSSES collection and
the totals, checked against NumPy (and TensorFlow where it is installed)."""

from __future__ import annotations

import numpy as np
import pytest

import ember.compat.v1 as tf
from ember.graph import Graph, Session, placeholder

from ._gradcheck import check_gradients

RNG = np.random.default_rng(1)
LABELS = RNG.random((4, 3)).astype(np.float32)
PRED = RNG.random((4, 3)).astype(np.float32)
BINARY = (RNG.random((4, 3)) > 0.5).astype(np.float32)
LOGITS = (RNG.standard_normal((4, 3)) * 2).astype(np.float32)
WEIGHTS = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)


def _reduce(values, weights, reduction):
    weighted = values * weights
    full = np.broadcast_to(weights, values.shape)
    if reduction == tf.losses.Reduction.NONE:
        return weighted
    total = weighted.sum()
    denominators = {
        tf.losses.Reduction.SUM: 1.0,
        tf.losses.Reduction.MEAN: full.sum(),
        tf.losses.Reduction.SUM_OVER_BATCH_SIZE: values.size,
        tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS: (full != 0).sum(),
    }
    d = denominators[reduction]
    return 0.0 if d == 0 else total / d


def _huber(e, delta):
    a = np.abs(e)
    return np.where(a <= delta, 0.5 * a**2, delta * (a - 0.5 * delta))


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _sigmoid_xent(z, x):
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


ONEHOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
SPARSE = np.array([0, 2, 1, 1], np.int32)
UNIT_A = LABELS / np.linalg.norm(LABELS, axis=1, keepdims=True)
UNIT_B = PRED / np.linalg.norm(PRED, axis=1, keepdims=True)

ELEMENTWISE = {
    "mean_squared_error": (lambda **kw: tf.losses.mean_squared_error(LABELS, PRED, **kw), (PRED - LABELS) ** 2),
    "absolute_difference": (lambda **kw: tf.losses.absolute_difference(LABELS, PRED * 3, **kw), np.abs(PRED * 3 - LABELS)),
    "huber_loss": (lambda **kw: tf.losses.huber_loss(LABELS, PRED * 3, delta=0.7, **kw), _huber(PRED * 3 - LABELS, 0.7)),
    "log_loss": (
        lambda **kw: tf.losses.log_loss(BINARY, PRED, **kw),
        -BINARY * np.log(PRED + 1e-7) - (1 - BINARY) * np.log(1 - PRED + 1e-7),
    ),
    "hinge_loss": (lambda **kw: tf.losses.hinge_loss(BINARY, LOGITS, **kw), np.maximum(0, 1 - (2 * BINARY - 1) * LOGITS)),
    "cosine_distance": (
        lambda **kw: tf.losses.cosine_distance(UNIT_A, UNIT_B, axis=1, **kw),
        1 - (UNIT_A * UNIT_B).sum(1, keepdims=True),
    ),
    "sigmoid_cross_entropy": (
        lambda **kw: tf.losses.sigmoid_cross_entropy(BINARY, LOGITS, label_smoothing=0.2, **kw),
        _sigmoid_xent(BINARY * 0.8 + 0.1, LOGITS),
    ),
    "sparse_softmax_cross_entropy": (
        lambda **kw: tf.losses.sparse_softmax_cross_entropy(SPARSE, LOGITS, **kw),
        -_log_softmax(LOGITS)[np.arange(4), SPARSE][:, None],
    ),
}


@pytest.mark.parametrize("loss", sorted(ELEMENTWISE))
@pytest.mark.parametrize(
    "reduction", ["none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size", "weighted_sum_by_nonzero_weights"]
)
@pytest.mark.parametrize("weights", ["scalar", "column", "zeros"])
def test_losses_weights_and_reductions(loss, reduction, weights):
    fn, values = ELEMENTWISE[loss]
    w = {"scalar": np.float32(2.5), "column": WEIGHTS, "zeros": np.zeros((4, 1), np.float32)}[weights]
    if loss == "sparse_softmax_cross_entropy" and reduction == "none":
        values = values[:, 0]  # per example: [batch]
        w = w if np.ndim(w) == 0 else w[:, 0]
    elif loss == "sparse_softmax_cross_entropy":
        values, w = values[:, 0], (w if np.ndim(w) == 0 else w[:, 0])
    got = fn(weights=w, reduction=reduction)
    np.testing.assert_allclose(got.numpy(), _reduce(values, w, reduction), rtol=1e-5, atol=1e-6)


def test_default_reduction_is_sum_by_nonzero_weights():
    got = tf.losses.mean_squared_error(LABELS, PRED, weights=WEIGHTS)
    assert tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS == "weighted_sum_by_nonzero_weights"
    np.testing.assert_allclose(float(got), ((PRED - LABELS) ** 2 * WEIGHTS).sum() / 9, rtol=1e-6)


def test_softmax_cross_entropy_label_smoothing_and_weights():
    got = tf.losses.softmax_cross_entropy(ONEHOT, LOGITS, weights=WEIGHTS[:, 0], label_smoothing=0.3)
    smoothed = ONEHOT * 0.7 + 0.1
    per_example = -(smoothed * _log_softmax(LOGITS)).sum(-1)
    np.testing.assert_allclose(float(got), (per_example * WEIGHTS[:, 0]).sum() / 3, rtol=1e-5)


def test_regression_losses_compute_in_float32_as_tensorflow():
    labels, predictions = np.array([[1, 0]], np.int32), np.array([[0.5, 0.25]], np.float64)
    assert tf.losses.mean_squared_error(labels, predictions).dtype.name == "float32"
    assert tf.losses.hinge_loss(labels, predictions).dtype.name == "float32"
    assert tf.losses.sigmoid_cross_entropy(labels, predictions).dtype.name == "float64"  # the logits' dtype
    np.testing.assert_allclose(float(tf.losses.absolute_difference(labels, predictions, weights=np.float64(2.0))), 0.75)


def test_errors():
    with pytest.raises(ValueError, match="Invalid Reduction Key mean"):
        tf.losses.mean_squared_error(LABELS, PRED, reduction="mean")
    with pytest.raises(ValueError, match=r"weights can not be broadcast to values. values.rank=2. weights.rank=1"):
        tf.losses.mean_squared_error(LABELS, PRED, weights=np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"mean_squared_error\(\): Shapes \(4, 2\) and \(4, 3\) are incompatible"):
        tf.losses.mean_squared_error(LABELS, PRED[:, :2])
    with pytest.raises(ValueError, match=r"You must specify argument `axis`\."):
        tf.losses.cosine_distance(UNIT_A, UNIT_B)


def test_collections_and_totals():
    with Graph().as_default():
        with tf.variable_scope("model"):
            w = tf.get_variable("w", [3], initializer=tf.ones_initializer(), regularizer=lambda v: 0.5 * tf.nn.l2_loss(v))
        mse = tf.losses.mean_squared_error(LABELS, PRED)
        hinge = tf.losses.hinge_loss(BINARY, LOGITS, loss_collection=None)  # kept out of the collection
        with tf.name_scope("aux"):
            absd = tf.losses.absolute_difference(LABELS, PRED)
        assert tf.losses.get_losses() == [mse, absd] and tf.get_collection(tf.GraphKeys.LOSSES) == [mse, absd]
        assert tf.losses.get_losses(scope="aux") == [absd]
        assert mse.name == "mean_squared_error/value:0" and hinge.name.startswith("hinge_loss/")
        assert len(tf.losses.get_regularization_losses()) == 1
        total = tf.losses.get_total_loss()
        without = tf.losses.get_total_loss(add_regularization_losses=False, name="data_loss")
        reg = tf.losses.get_regularization_loss()
        assert total.name == "total_loss:0" and without.name == "data_loss:0" and reg.name == "total_regularization_loss:0"
        with Session() as s:
            s.run(tf.global_variables_initializer())
            got_total, got_without, got_reg = s.run([total, without, reg])
    data = ((PRED - LABELS) ** 2).mean() + np.abs(PRED - LABELS).mean()
    np.testing.assert_allclose([got_total, got_without, got_reg], [data + 0.75, data, 0.75], rtol=1e-5)
    assert w.name == "model/w:0"


def test_totals_with_nothing_collected():
    with Graph().as_default():
        zero = tf.losses.get_regularization_loss()
        with Session() as s:
            assert s.run(zero) == 0.0
        with pytest.raises(ValueError, match="no losses"):
            tf.losses.get_total_loss()


def test_a_loss_placeholder_batch_and_gradients():
    with Graph().as_default():
        z = placeholder("int32", (None,))
        x = placeholder("float32", (None, 3))
        loss = tf.losses.sparse_softmax_cross_entropy(z, x)
        (grad,) = tf.gradients(loss, [x])
        with Session() as s:
            got_loss, got_grad = s.run([loss, grad], {z: SPARSE, x: LOGITS})
    np.testing.assert_allclose(got_loss, -_log_softmax(LOGITS)[np.arange(4), SPARSE].mean(), rtol=1e-5)
    softmax = np.exp(_log_softmax(LOGITS))
    np.testing.assert_allclose(got_grad, (softmax - np.eye(3)[SPARSE]) / 4, rtol=1e-5, atol=1e-7)


GRAD_CASES = {
    "huber": lambda z, p: tf.losses.huber_loss(z, p, weights=np.array([[1.0], [2.0]]), delta=0.5, reduction="weighted_mean"),
    "log_loss": lambda z, p: tf.losses.log_loss(z, 1 / (1 + np.e**-p)),
    "hinge": lambda z, p: tf.losses.hinge_loss(np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), p),
    "softmax_smoothed": lambda z, p: tf.losses.softmax_cross_entropy(np.eye(3)[[0, 2]], p, label_smoothing=0.2),
    "sigmoid": lambda z, p: tf.losses.sigmoid_cross_entropy(np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), p, label_smoothing=0.1),
    "cosine": lambda z, p: tf.losses.cosine_distance(z, p, axis=1, reduction="weighted_sum"),
}

FLOAT32_CASES = {"huber", "log_loss", "hinge", "cosine"}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_loss_gradients_match_finite_differences(case):
    rng = np.random.default_rng(4)
    z = rng.random((2, 3))
    p = rng.standard_normal((2, 3)) * (0.3 if case == "log_loss" else 1.0)
    if case == "hinge":
        p = p + 0.05  # keep away from the kink at 1 - y * p = 0
    if case in FLOAT32_CASES:  # TensorFlow computes these in float32 whatever the inputs' dtype
        check_gradients(lambda p_: GRAD_CASES[case](z, p_), [p], atol=2e-4, eps=1e-3, rtol=1e-3)
    else:
        check_gradients(lambda p_: GRAD_CASES[case](z, p_), [p], atol=1e-5)


def test_against_tensorflow():
    real = pytest.importorskip("tensorflow").compat.v1
    for reduction in tf.losses.Reduction.all():
        for weights in (1.0, WEIGHTS):
            want = real.losses.huber_loss(LABELS, PRED * 3, weights=weights, delta=0.7, reduction=reduction)
            got = tf.losses.huber_loss(LABELS, PRED * 3, weights=weights, delta=0.7, reduction=reduction)
            np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-5, atol=1e-6)
            want = real.losses.softmax_cross_entropy(ONEHOT, LOGITS, weights=weights if np.ndim(weights) == 0 else weights[:, 0],
                                                     label_smoothing=0.1, reduction=reduction)  # fmt: skip
            got = tf.losses.softmax_cross_entropy(ONEHOT, LOGITS, weights=weights if np.ndim(weights) == 0 else weights[:, 0],
                                                  label_smoothing=0.1, reduction=reduction)  # fmt: skip
            np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-5, atol=1e-6)
