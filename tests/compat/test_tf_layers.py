"""tf.layers of ember.compat.v1: TensorFlow's variable names, defaults, reuse, the UPDATE_OPS of
batch normalization, and the values, checked against NumPy (and TensorFlow's legacy layers
where they are installed)."""

from __future__ import annotations

import numpy as np
import pytest

import ember.compat.v1 as tf
from ember.graph import Graph, Session, assign_sub, placeholder
from ember.ops import functional as F

RNG = np.random.default_rng(2)
X = RNG.standard_normal((5, 4)).astype(np.float32)
IMAGES = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)


def _names(variables):
    return [v.name for v in variables]


def test_variable_names_reuse_and_scopes():
    with Graph().as_default():
        x = placeholder("float32", (None, 4))
        h = tf.layers.dense(x, 3, activation=tf.nn.relu)
        out = tf.layers.dense(h, 2, name="out")
        shared = tf.layers.dense(h, 2, name="out", reuse=True)
        with tf.variable_scope("block"):
            tf.layers.dense(h, 2)
            tf.layers.dense(h, 2, use_bias=False)
        tf.layers.conv2d(placeholder("float32", (None, 6, 6, 3)), 4, (3, 2))
        tf.layers.batch_normalization(h)
        assert _names(tf.trainable_variables()) == [
            "dense/kernel:0", "dense/bias:0", "out/kernel:0", "out/bias:0", "block/dense/kernel:0", "block/dense/bias:0",
            "block/dense_1/kernel:0", "conv2d/kernel:0", "conv2d/bias:0", "batch_normalization/gamma:0", "batch_normalization/beta:0",
        ]  # fmt: skip
        assert _names(tf.global_variables())[-2:] == [
            "batch_normalization/moving_mean:0",
            "batch_normalization/moving_variance:0",
        ]
        assert tf.global_variables()[7].shape.as_list() == [3, 2, 3, 4]  # conv2d/kernel is HWIO
        assert out.shape.as_list() == [None, 2] and shared.shape.as_list() == [None, 2]
        with Session() as s:
            s.run(tf.global_variables_initializer())
            a, b = s.run([out, shared], {x: X})
        np.testing.assert_array_equal(a, b)  # reuse=True shares out/kernel and out/bias
        with pytest.raises(ValueError, match="already exists"):
            tf.layers.dense(h, 2, name="out")


def test_dense_values_and_default_initializers():
    with Graph().as_default():
        y = tf.layers.dense(X, 7, activation=tf.nn.sigmoid)
        kernel, bias = tf.trainable_variables()
        with Session() as s:
            s.run(tf.global_variables_initializer())
            k, b, got = s.run([kernel, bias, y])
    limit = np.sqrt(6.0 / (4 + 7))  # Glorot uniform
    assert np.abs(k).max() <= limit and k.std() > limit / 4
    np.testing.assert_array_equal(b, np.zeros(7))
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-(X @ k + b))), rtol=1e-5)


def test_dense_of_rank_3_and_initializer_arguments():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    with Graph().as_default():
        y = tf.layers.dense(x, 2, kernel_initializer=tf.constant_initializer(0.5), bias_initializer=tf.ones_initializer())
        with Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(y)
    np.testing.assert_allclose(got, x @ np.full((4, 2), 0.5) + 1.0, rtol=1e-5)
    with Graph().as_default(), pytest.raises(ValueError, match=r"dense\(\): The last dimension of the inputs should be defined"):
        tf.layers.dense(placeholder("float32", (2, None)), 3)


def test_conv2d_layer_is_nn_conv2d_plus_bias():
    with Graph().as_default():
        y = tf.layers.conv2d(
            IMAGES, 4, 3, strides=2, padding="SAME", bias_initializer=tf.constant_initializer(0.25), activation=tf.nn.relu
        )
        kernel = tf.trainable_variables()[0]
        with Session() as s:
            s.run(tf.global_variables_initializer())
            k, got = s.run([kernel, y])
    np.testing.assert_allclose(got, np.maximum(tf.nn.conv2d(IMAGES, k, 2, "SAME").numpy() + 0.25, 0), rtol=1e-5, atol=1e-6)
    with Graph().as_default(), pytest.raises(ValueError, match=r'The `padding` argument must be one of "valid", "same"'):
        tf.layers.conv2d(IMAGES, 4, 3, padding="full")


def test_conv2d_transpose_pooling_flatten_shapes_and_values():
    with Graph().as_default():
        same = tf.layers.conv2d_transpose(IMAGES, 2, 3, strides=2, padding="same")
        valid = tf.layers.conv2d_transpose(IMAGES, 2, 3, strides=2)
        assert same.shape.as_list() == [2, 12, 12, 2] and valid.shape.as_list() == [2, 13, 13, 2]
        assert _names(tf.trainable_variables())[:2] == ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0"]
        assert tf.trainable_variables()[0].shape.as_list() == [3, 3, 2, 3]  # [h, w, filters, in]
        pooled = tf.layers.max_pooling2d(IMAGES, 2, 2)
        averaged = tf.layers.average_pooling2d(IMAGES, 3, 2, padding="same")
        flat = tf.layers.flatten(pooled)
        assert pooled.name.startswith("max_pooling2d/") and flat.shape.as_list() == [2, 27]
        with Session() as s:
            got_max, got_avg, got_flat = s.run([pooled, averaged, flat])
    np.testing.assert_array_equal(got_max, tf.nn.max_pool(IMAGES, 2, 2, "VALID").numpy())
    np.testing.assert_allclose(got_avg, tf.nn.avg_pool(IMAGES, 3, 2, "SAME").numpy(), rtol=1e-6)
    np.testing.assert_array_equal(got_flat, got_max.reshape(2, -1))


def test_dropout_layer_training_flag():
    x = np.ones((50, 40), np.float32)
    with Graph().as_default():
        training = placeholder("bool", ())
        off = tf.layers.dropout(x, 0.5)
        fed = tf.layers.dropout(x, rate=0.75, training=training)
        with Session() as s:
            got_off, got_train, got_eval = s.run(off), s.run(fed, {training: True}), s.run(fed, {training: False})
    np.testing.assert_array_equal(got_off, x)
    np.testing.assert_array_equal(got_eval, x)
    assert set(np.unique(got_train)) <= {0.0, 4.0} and 0.15 < (got_train != 0).mean() < 0.35


@pytest.mark.parametrize("rank4", [False, True])
def test_batch_normalization_updates_and_inference(rank4):
    x = IMAGES if rank4 else X
    axes = (0, 1, 2) if rank4 else (0,)
    with Graph().as_default():
        y = tf.layers.batch_normalization(x, training=True, momentum=0.9)
        infer = tf.layers.batch_normalization(x, training=False, name="batch_normalization", reuse=True)
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert len(updates) == 2 and updates[0].name.startswith("batch_normalization/AssignMovingAvg")
        moving_mean, moving_variance = tf.global_variables()[2:4]
        with Session() as s:
            s.run(tf.global_variables_initializer())
            normalized = s.run(y)
            s.run(updates)
            mean, variance, inferred = s.run([moving_mean, moving_variance, infer])
    batch_var = x.var(axes)
    np.testing.assert_allclose(normalized, (x - x.mean(axes)) / np.sqrt(batch_var + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mean, 0.1 * x.mean(axes), rtol=1e-5, atol=1e-7)
    # the fused (4-D) path feeds the moving variance the Bessel-corrected batch variance, as TensorFlow
    corrected = x.var(axes, ddof=1) if rank4 else batch_var
    np.testing.assert_allclose(variance, 0.9 + 0.1 * corrected, rtol=1e-5)
    np.testing.assert_allclose(inferred, (x - mean) / np.sqrt(variance + 1e-3), rtol=1e-4, atol=1e-5)


def test_batch_normalization_training_placeholder():
    with Graph().as_default():
        training = placeholder("bool", ())
        y = tf.layers.batch_normalization(X, training=training)
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        moving_mean = tf.global_variables()[2]
        with Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_allclose(s.run(y, {training: False}), X / np.sqrt(1 + 1e-3), rtol=1e-5)
            s.run(updates, {training: False})
            np.testing.assert_array_equal(s.run(moving_mean), np.zeros(4))  # no update at evaluation
            s.run(updates, {training: True})
            np.testing.assert_allclose(s.run(moving_mean), 0.01 * X.mean(0), rtol=1e-5, atol=1e-8)


def test_a_small_cnn_trains():
    labels = np.array([0, 1], np.int32)
    with Graph().as_default():
        x = placeholder("float32", (None, 6, 6, 3))
        z = placeholder("int32", (None,))
        h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        logits = tf.layers.dense(tf.layers.flatten(h), 2)
        loss = tf.losses.sparse_softmax_cross_entropy(z, logits)
        params = tf.trainable_variables()
        grads = tf.gradients(loss, params)
        step = tf.group(*[assign_sub(p, F.mul(g, 0.1)) for p, g in zip(params, grads, strict=True)])
        with Session() as s:
            s.run(tf.global_variables_initializer())
            first = s.run(loss, {x: IMAGES, z: labels})
            for _ in range(20):
                s.run(step, {x: IMAGES, z: labels})
            last = s.run(loss, {x: IMAGES, z: labels})
    assert last < first * 0.5


def test_regularizers_reach_the_collection():
    with Graph().as_default():
        tf.layers.dense(X, 3, kernel_regularizer=tf.nn.l2_loss, activity_regularizer=lambda t: F.sum(F.abs(t)))
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert len(losses) == 2 and losses[0].name.startswith("dense/kernel/Regularizer/")


def test_against_tensorflow_legacy_layers():
    real = pytest.importorskip("tensorflow").compat.v1
    try:
        real_dense = real.layers.dense
    except (AttributeError, ImportError):
        pytest.skip("tf.compat.v1.layers needs the legacy Keras (TF_USE_LEGACY_KERAS=1 with tf_keras)")
    graph = real.Graph()
    with graph.as_default():
        init = real.constant_initializer(np.linspace(-1, 1, 4 * 3).reshape(4, 3))
        y = real.layers.batch_normalization(real_dense(X, 3, kernel_initializer=init), training=True)
        updates = real.get_collection(real.GraphKeys.UPDATE_OPS)
        with real.Session() as s:
            s.run(real.global_variables_initializer())
            want = s.run(y)
            s.run(updates)
            want_vars = s.run(real.global_variables())
    with Graph().as_default():
        init = tf.constant_initializer(np.linspace(-1, 1, 4 * 3).reshape(4, 3))
        y = tf.layers.batch_normalization(tf.layers.dense(X, 3, kernel_initializer=init), training=True)
        with Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(y)
            s.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
            got_vars = s.run(tf.global_variables())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    for a, b in zip(got_vars, want_vars, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_layer_objects_share_their_variables():
    with Graph().as_default():
        tf.layers.dense(X, 3)  # takes "dense"
        layer = tf.layers.Dense(2, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(0.5))
        a = layer(X)
        b = layer(X[:2])
        other = tf.layers.Dense(2)
        other(X)
        assert layer.name == "dense_1" and other.name == "dense_2"
        assert _names(layer.trainable_variables) == ["dense_1/kernel:0", "dense_1/bias:0"]
        assert layer.kernel is layer.trainable_variables[0] and layer.kernel.shape.as_list() == [4, 2]
        conv = tf.layers.Conv2D(4, 3, padding="same")
        pool = tf.layers.MaxPooling2D(2, 2)
        y = tf.layers.Flatten()(pool(conv(IMAGES)))
        norm = tf.layers.BatchNormalization(momentum=0.5)
        z = norm(y, training=True)
        assert len(norm.updates) == 2 and _names(norm.non_trainable_variables) == [
            "batch_normalization/moving_mean:0",
            "batch_normalization/moving_variance:0",
        ]
        dropped = tf.layers.Dropout(0.5)(z, training=False)
        assert len(tf.global_variables()) == 2 + 2 + 2 + 2 + 4
        with Session() as s:
            s.run(tf.global_variables_initializer())
            got_a, got_b, got_z, got_dropped = s.run([a, b, z, dropped])
    np.testing.assert_allclose(got_a, np.maximum(X @ np.full((4, 2), 0.5), 0), rtol=1e-5)
    np.testing.assert_array_equal(got_b, got_a[:2])
    np.testing.assert_array_equal(got_dropped, got_z)
    assert got_z.shape == (2, 36)
