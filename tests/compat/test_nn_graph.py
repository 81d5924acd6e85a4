"""tf.nn of ember.compat.v1 in graph mode: TensorFlow's node names and types, graph-mode
gradients checked by finite differences, and TensorFlow itself where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember.compat.v1 as tf
from ember.graph import Graph, placeholder
from ember.ops import functional as F

from ._gradcheck import check_gradients

RNG = np.random.default_rng(5)


# -- graph mode: names and gradients -----------------------------------------------------------------


def test_graph_mode_names_and_shapes():
    with Graph().as_default() as g:
        x = placeholder("float32", (None, 8, 8, 3), name="x")
        y = tf.nn.relu(tf.nn.conv2d(x, np.ones((3, 3, 3, 4), np.float32), [1, 2, 2, 1], "SAME"), name="act")
        pool = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="pool")
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=placeholder("int32", (None,)), logits=F.reshape(pool, (-1, 16)), name="xent"
        )
    assert y.shape.as_list() == [None, 4, 4, 4] and pool.shape.as_list() == [None, 2, 2, 4]
    assert g.get_tensor_by_name("act:0") is y and g.get_tensor_by_name("pool:0") is pool and loss.name == "xent:0"
    assert any(op.name.startswith("pool/") for op in g.get_operations())


def test_in_a_tensorflow_graph_results_carry_tensorflows_names_and_types():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (None, 6, 6, 3), name="x")
        conv = tf.nn.conv2d(x, np.ones((2, 2, 3, 4), np.float32), [1, 2, 2, 1], "SAME")
        act = tf.nn.relu(tf.nn.bias_add(conv, np.zeros(4, np.float32)), name="act")
        pool = tf.nn.avg_pool(act, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        loss = tf.nn.l2_loss(pool)
    assert [t.name for t in (conv, act, pool, loss)] == ["Conv2D:0", "act:0", "AvgPool:0", "L2Loss:0"]
    assert [t.op.type for t in (conv, pool, loss)] == ["Conv2D", "AvgPool", "L2Loss"]
    assert type(act) is type(x)  # the graph's tensor class, with TensorFlow's operators
    assert g.get_tensor_by_name("act:0") is act
    with tf.Session(graph=g) as s:
        got = s.run(loss, {x: np.ones((1, 6, 6, 3), np.float32)})
    assert got == 0.5 * 4 * 4 * 144.0  # every window of the 2x2 SAME average sees 12 inside the image


def test_eager_results_are_eager_tensors():
    y = tf.nn.relu(np.array([-1.0, 2.0], np.float32))
    assert type(y).__name__ == "EagerTensor" and y.numpy().tolist() == [0.0, 2.0]
    values, indices = tf.nn.top_k(np.array([1.0, 3.0, 2.0], np.float32), 2)
    assert type(values).__name__ == "EagerTensor" and type(indices).__name__ == "EagerTensor"


GRAD_CASES = {
    "conv2d_same_even": (lambda x, w: tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"), [(1, 5, 4, 2), (2, 2, 2, 3)]),
    "conv2d_transpose": (
        lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 6, 5, 2], [1, 2, 2, 1], "SAME"),
        [(1, 3, 3, 3), (3, 2, 2, 3)],
    ),
    "depthwise": (lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"), [(1, 5, 4, 2), (2, 3, 2, 2)]),
    "max_pool_same": (lambda x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), [(1, 5, 5, 2)]),
    "avg_pool_same": (lambda x: tf.nn.avg_pool(x, [1, 2, 3, 1], [1, 2, 2, 1], "SAME"), [(1, 5, 5, 2)]),
    "softmax_xent_v2": (lambda z, x: tf.nn.softmax_cross_entropy_with_logits_v2(z, x), [(3, 4), (3, 4)]),
    "sparse_xent": (lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array([1, 0, 3]), logits=x), [(3, 4)]),
    "sigmoid_xent": (lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), [(3, 4), (3, 4)]),
    "weighted_xent": (lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5), [(3, 4), (3, 4)]),
    "l2_normalize": (lambda x: tf.nn.l2_normalize(x, 1), [(3, 4)]),
    "moments": (lambda x: tf.nn.moments(x, [0])[1], [(5, 3)]),
    "fused_batch_norm": (lambda x, g, b: tf.nn.fused_batch_norm(x, g, b)[0], [(3, 2, 2, 2), (2,), (2,)]),
    "lrn": (lambda x: tf.nn.lrn(x, 1), [(1, 2, 2, 4)]),
    "embedding_max_norm": (lambda p: tf.nn.embedding_lookup(p, np.array([0, 2, 2]), max_norm=1.0), [(3, 2)]),
    "conv3d": (lambda x, w: tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "SAME"), [(1, 3, 3, 2, 2), (2, 2, 1, 2, 2)]),
    "max_pool3d": (lambda x: tf.nn.max_pool3d(x, 2, 2, "SAME"), [(1, 3, 3, 3, 1)]),
    "separable": (
        lambda x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME"),
        [(1, 4, 4, 2), (2, 2, 2, 1), (1, 1, 2, 2)],
    ),
    "space_to_depth": (lambda x: tf.nn.space_to_depth(x, 2), [(1, 2, 4, 2)]),
    "weighted_moments": (lambda x: tf.nn.weighted_moments(x, [0], np.array([[1.0], [2.0], [0.5]]))[1], [(3, 2)]),
    "log_poisson_full": (lambda c: tf.nn.log_poisson_loss(np.array([0.5, 2.0, 4.0]), c, compute_full_loss=True), [(3,)]),
    "selu_leaky_softsign": (lambda x: tf.nn.selu(x) + tf.nn.leaky_relu(x) + tf.nn.softsign(x), [(7,)]),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_graph_gradients_match_finite_differences(case):
    fn, shapes = GRAD_CASES[case]
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) + (0.5 if case == "lrn" else 0.0) for s in shapes]
    check_gradients(fn, arrays, atol=1e-5)


# -- the oracle ------------------------------------------------------------------------------------


def test_against_tensorflow():
    real = pytest.importorskip("tensorflow").compat.v1
    x = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
    w = RNG.standard_normal((2, 2, 3, 4)).astype(np.float32)
    for s in (1, 2, 3):
        for padding in ("SAME", "VALID"):
            args = ([1, s, s, 1], padding)
            np.testing.assert_allclose(
                tf.nn.conv2d(x, w, *args).numpy(), real.nn.conv2d(x, w, *args).numpy(), rtol=1e-4, atol=1e-4
            )
            pool = ([1, 2, 3, 1], [1, s, s, 1], padding)
            np.testing.assert_allclose(tf.nn.avg_pool(x, *pool).numpy(), real.nn.avg_pool(x, *pool).numpy(), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(tf.nn.max_pool(x, *pool).numpy(), real.nn.max_pool(x, *pool).numpy())
    z = np.abs(x[..., 0]).reshape(-1, 6)
    z /= z.sum(1, keepdims=True)
    logits = x[..., 1].reshape(-1, 6)
    np.testing.assert_allclose(
        tf.nn.softmax_cross_entropy_with_logits_v2(z, logits).numpy(),
        real.nn.softmax_cross_entropy_with_logits_v2(z, logits).numpy(),
        rtol=1e-5,
    )
    fused = [t.numpy() for t in tf.nn.fused_batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32))]
    for got, want in zip(fused, real.nn.fused_batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32)), strict=True):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
