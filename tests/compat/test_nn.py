"""tf.nn of ember.compat.v1: TensorFlow's layouts, padding, defaults and errors, checked against
NumPy (and TensorFlow itself where it is installed), with graph-mode gradients checked by finite
differences."""

from __future__ import annotations

import numpy as np
import pytest

import ember.compat.v1 as tf
from ember.graph import Graph, Session, gradients, placeholder
from ember.ops import functional as F

RNG = np.random.default_rng(0)


def _np_conv2d(x, w, stride, pads):
    """NHWC x HWIO with explicit (before, after) pads per spatial dimension, in loops."""
    (t, b), (left, right) = pads
    x = np.pad(x, ((0, 0), (t, b), (left, right), (0, 0)))
    kh, kw, _, cout = w.shape
    oh = (x.shape[1] - kh) // stride + 1
    ow = (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, cout), x.dtype)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride : i * stride + kh, j * stride : j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def _same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


# -- convolution and pooling -------------------------------------------------------------------


@pytest.mark.parametrize("kernel", [(2, 2), (3, 3), (4, 3), (1, 2)])
@pytest.mark.parametrize("stride", [1, 2, 3])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv2d_matches_numpy_with_tensorflows_padding(kernel, stride, padding):
    x = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
    w = RNG.standard_normal((*kernel, 3, 4)).astype(np.float32)
    pads = [_same_pads(7, kernel[0], stride), _same_pads(6, kernel[1], stride)] if padding == "SAME" else [(0, 0), (0, 0)]
    got = tf.nn.conv2d(x, w, strides=[1, stride, stride, 1], padding=padding)
    np.testing.assert_allclose(got.numpy(), _np_conv2d(x, w, stride, pads), rtol=1e-4, atol=1e-4)


def test_same_padding_puts_the_odd_pad_after():
    # 4x4 ones, 2x2 ones kernel, stride 1: the last row and column see the padding (TensorFlow's rule)
    y = tf.nn.conv2d(np.ones((1, 4, 4, 1), np.float32), np.ones((2, 2, 1, 1), np.float32), 1, "SAME")
    expected = np.array([[4, 4, 4, 2], [4, 4, 4, 2], [4, 4, 4, 2], [2, 2, 2, 1]], np.float32)
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], expected)


def test_conv2d_nchw_explicit_padding_and_dilation():
    x = RNG.standard_normal((1, 5, 5, 2)).astype(np.float32)
    w = RNG.standard_normal((2, 2, 2, 3)).astype(np.float32)
    nchw = tf.nn.conv2d(x.transpose(0, 3, 1, 2), w, [1, 1, 2, 2], "SAME", data_format="NCHW").numpy()
    np.testing.assert_allclose(nchw.transpose(0, 2, 3, 1), tf.nn.conv2d(x, w, 2, "SAME").numpy(), rtol=1e-5, atol=1e-5)
    explicit = tf.nn.conv2d(x, w, 1, [[0, 0], [1, 0], [0, 2], [0, 0]]).numpy()
    np.testing.assert_allclose(explicit, _np_conv2d(x, w, 1, [(1, 0), (0, 2)]), rtol=1e-5, atol=1e-5)
    dilated = tf.nn.conv2d(x, w, 1, "VALID", dilations=2).numpy()
    spread = np.zeros((3, 3, 2, 3), np.float32)
    spread[::2, ::2] = w
    np.testing.assert_allclose(dilated, _np_conv2d(x, spread, 1, [(0, 0), (0, 0)]), rtol=1e-5, atol=1e-5)


def test_conv_errors_name_the_function_and_argument():
    x = np.ones((1, 4, 4, 3), np.float32)
    with pytest.raises(ValueError, match=r"conv2d\(\): Depth of input \(3\) is not a multiple of input depth of filter \(2\)"):
        tf.nn.conv2d(x, np.ones((2, 2, 2, 1), np.float32), 1, "SAME")
    with pytest.raises(ValueError, match=r"strides in the batch and depth dimensions must be 1"):
        tf.nn.conv2d(x, np.ones((2, 2, 3, 1), np.float32), [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"padding must be 'SAME', 'VALID'"):
        tf.nn.conv2d(x, np.ones((2, 2, 3, 1), np.float32), 1, "FULL")
    with pytest.raises(ValueError, match=r"data_format must be 'NHWC' or 'NCHW'"):
        tf.nn.conv2d(x, np.ones((2, 2, 3, 1), np.float32), 1, "SAME", data_format="HWCN")


def test_conv1d_is_conv2d_of_one_row():
    x = RNG.standard_normal((2, 9, 3)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    got = tf.nn.conv1d(x, w, stride=2, padding="SAME").numpy()
    want = tf.nn.conv2d(x[:, None], w[None], [1, 1, 2, 1], "SAME").numpy()[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_depthwise_conv2d_channel_order():
    x = RNG.standard_normal((1, 5, 5, 3)).astype(np.float32)
    w = RNG.standard_normal((2, 3, 3, 2)).astype(np.float32)
    got = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME").numpy()
    for c in range(3):
        for m in range(2):
            want = tf.nn.conv2d(x[..., c : c + 1], w[:, :, c : c + 1, m : m + 1], 1, "SAME").numpy()[..., 0]
            np.testing.assert_allclose(got[..., c * 2 + m], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("padding", "out_hw"), [("SAME", (13, 11)), ("SAME", (14, 12)), ("VALID", (15, 13)), ("VALID", (16, 14))]
)
def test_conv2d_transpose_is_the_adjoint_of_conv2d(padding, out_hw):
    # <conv2d(u), v> == <u, conv2d_transpose(v)> for every u, v: the defining property
    w = RNG.standard_normal((3, 3, 5, 4)).astype(np.float64)
    u = RNG.standard_normal((2, *out_hw, 5))
    v_shape = tf.nn.conv2d(u, w, [1, 2, 2, 1], padding).shape
    v = RNG.standard_normal(tuple(v_shape))
    forward = float((tf.nn.conv2d(u, w, [1, 2, 2, 1], padding).numpy() * v).sum())
    back = tf.nn.conv2d_transpose(v, w, [2, *out_hw, 5], [1, 2, 2, 1], padding).numpy()
    assert back.shape == u.shape
    np.testing.assert_allclose(forward, float((u * back).sum()), rtol=1e-9)


def test_conv2d_transpose_checks_output_shape():
    with pytest.raises(
        ValueError,
        match=r"conv2d_transpose\(\): output_shape \[1, 9, 9, 2\] with padding 'SAME' would come from an input of size 5",
    ):
        tf.nn.conv2d_transpose(np.ones((1, 3, 3, 4), np.float32), np.ones((2, 2, 2, 4), np.float32), [1, 9, 9, 2], 2)


def _np_pool(x, k, s, pads, reduce):
    (t, b), (left, right) = pads
    fill = -np.inf if reduce is np.max else np.nan
    x = np.pad(x, ((0, 0), (t, b), (left, right), (0, 0)), constant_values=fill)
    oh, ow = (x.shape[1] - k[0]) // s + 1, (x.shape[2] - k[1]) // s + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]), np.float32)
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = reduce(x[:, i * s : i * s + k[0], j * s : j * s + k[1]], axis=(1, 2))
    return out


@pytest.mark.parametrize("kernel", [(2, 2), (3, 3), (2, 3)])
@pytest.mark.parametrize("stride", [1, 2, 3])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pools_match_numpy(kernel, stride, padding):
    x = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32) - 3.0  # negative: SAME's padding must never win a max
    pads = [_same_pads(7, kernel[0], stride), _same_pads(6, kernel[1], stride)] if padding == "SAME" else [(0, 0), (0, 0)]
    ksize, strides = [1, *kernel, 1], [1, stride, stride, 1]
    np.testing.assert_allclose(
        tf.nn.max_pool(x, ksize, strides, padding).numpy(), _np_pool(x, kernel, stride, pads, np.max), rtol=1e-6
    )
    # TensorFlow's average divides by the count of real elements (NaN padding is skipped by nanmean)
    np.testing.assert_allclose(
        tf.nn.avg_pool(x, ksize, strides, padding).numpy(), _np_pool(x, kernel, stride, pads, np.nanmean), rtol=1e-5
    )
    np.testing.assert_allclose(
        tf.nn.max_pool2d(x, kernel, stride, padding).numpy(), _np_pool(x, kernel, stride, pads, np.max), rtol=1e-6
    )


def test_avg_pool_same_known_values():
    x = np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    y = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "SAME").numpy()[0, :, :, 0]
    np.testing.assert_allclose(y, [[2.0, 3.0, 3.5], [5.0, 6.0, 6.5], [6.5, 7.5, 8.0]])


# -- activations and softmax ----------------------------------------------------------------------


def test_activations_known_values():
    x = np.array([-2.0, -0.5, 0.0, 0.5, 7.0], np.float32)
    np.testing.assert_allclose(tf.nn.leaky_relu(x).numpy(), np.where(x > 0, x, 0.2 * x))
    np.testing.assert_allclose(tf.nn.relu6(x).numpy(), np.clip(x, 0, 6))
    np.testing.assert_allclose(tf.nn.elu(x).numpy(), np.where(x > 0, x, np.expm1(x)), rtol=1e-6)
    np.testing.assert_allclose(tf.nn.softsign(x).numpy(), x / (1 + np.abs(x)), rtol=1e-6)
    np.testing.assert_allclose(tf.nn.softplus(x).numpy(), np.log1p(np.exp(x)), rtol=1e-6)
    np.testing.assert_allclose(tf.nn.swish(x).numpy(), x / (1 + np.exp(-x)), rtol=1e-6)
    np.testing.assert_allclose(tf.nn.swish(x, beta=2.0).numpy(), x / (1 + np.exp(-2 * x)), rtol=1e-6)
    np.testing.assert_allclose(tf.nn.crelu(x).numpy(), np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)]))
    selu = 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))
    np.testing.assert_allclose(tf.nn.selu(x).numpy(), selu, rtol=1e-6)
    from math import erf

    np.testing.assert_allclose(tf.nn.gelu(x).numpy(), [v * 0.5 * (1 + erf(v / 2**0.5)) for v in x], rtol=1e-5, atol=1e-7)


def test_softmax_axis_and_dim():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(tf.nn.softmax(x).numpy(), e / e.sum(-1, keepdims=True), rtol=1e-6)
    e0 = np.exp(x - x.max(0, keepdims=True))
    np.testing.assert_allclose(tf.nn.softmax(x, dim=0).numpy(), e0 / e0.sum(0, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(tf.nn.log_softmax(x, axis=0).numpy(), np.log(e0 / e0.sum(0, keepdims=True)), rtol=1e-5)
    with pytest.raises(ValueError, match="cannot specify both 'axis' and 'dim'"):
        tf.nn.softmax(x, axis=0, dim=0)


def test_bias_add_data_formats():
    x = np.zeros((2, 3, 4), np.float32)
    np.testing.assert_array_equal(tf.nn.bias_add(x, np.arange(4, dtype=np.float32)).numpy()[1, 2], np.arange(4))
    np.testing.assert_array_equal(
        tf.nn.bias_add(x, np.arange(3, dtype=np.float32), data_format="NCHW").numpy()[1, :, 0], np.arange(3)
    )
    with pytest.raises(ValueError, match="rank 1"):
        tf.nn.bias_add(x, np.zeros((1, 4), np.float32))


# -- losses ---------------------------------------------------------------------------------------

LOGITS = RNG.standard_normal((4, 5)).astype(np.float32)
LABELS = RNG.random((4, 5)).astype(np.float32)
LABELS /= LABELS.sum(1, keepdims=True)


def _np_log_softmax(x, axis=-1):
    x = x - x.max(axis, keepdims=True)
    return x - np.log(np.exp(x).sum(axis, keepdims=True))


def test_cross_entropies_known_values():
    want = -(LABELS * _np_log_softmax(LOGITS)).sum(-1)
    np.testing.assert_allclose(tf.nn.softmax_cross_entropy_with_logits_v2(LABELS, LOGITS).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(tf.nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=LOGITS).numpy(), want, rtol=1e-5)
    sparse = np.array([1, 0, 4, 2], np.int64)
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse, logits=LOGITS).numpy()
    np.testing.assert_allclose(got, -_np_log_softmax(LOGITS)[np.arange(4), sparse], rtol=1e-5)
    z, x = LABELS, LOGITS * 5
    np.testing.assert_allclose(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x).numpy(),
        -(z * np.log(1 / (1 + np.exp(-x))) + (1 - z) * np.log(1 - 1 / (1 + np.exp(-x)))),
        rtol=1e-4,
    )
    weighted = tf.nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=3.0).numpy()
    p = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(weighted, -(3.0 * z * np.log(p) + (1 - z) * np.log(1 - p)), rtol=1e-4)
    assert float(tf.nn.l2_loss(np.array([1.0, 2.0, 3.0], np.float32))) == 7.0


def test_cross_entropy_errors():
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - 1`"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.zeros((4, 5), np.int32), logits=LOGITS)
    with pytest.raises(TypeError, match="labels must be int32 or int64, got float32"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.zeros(4, np.float32), logits=LOGITS)
    with pytest.raises(ValueError, match="Only call `sparse_softmax_cross_entropy_with_logits` with named arguments"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(np.zeros(4, np.int32), LOGITS)
    with pytest.raises(ValueError, match="must have the same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=np.zeros((4, 4), np.float32), logits=LOGITS)
    with pytest.raises(ValueError, match="logits and labels must be broadcastable"):
        tf.nn.softmax_cross_entropy_with_logits_v2(np.zeros((4, 4), np.float32), LOGITS)


def test_softmax_cross_entropy_v1_sends_no_gradient_into_labels():
    with Graph().as_default():
        z, x = placeholder("float32", (4, 5)), placeholder("float32", (4, 5))
        v1 = F.sum(tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x))
        v2 = F.sum(tf.nn.softmax_cross_entropy_with_logits_v2(labels=z, logits=x))
        g1, g2 = gradients(v1, [z])[0], gradients(v2, [z])[0]
        with Session() as s:
            got2 = s.run(g2, {z: LABELS, x: LOGITS})
            got1 = None if g1 is None else s.run(g1, {z: LABELS, x: LOGITS})
    assert got1 is None or not got1.any()
    np.testing.assert_allclose(got2, -_np_log_softmax(LOGITS), rtol=1e-5)


# -- statistics, normalization, dropout ------------------------------------------------------------


def test_moments_and_batch_normalization():
    x = RNG.standard_normal((6, 2, 2, 3)).astype(np.float32)
    mean, var = tf.nn.moments(x, [0, 1, 2])
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 1, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.numpy(), x.var((0, 1, 2)), rtol=1e-5)
    assert tuple(tf.nn.moments(x, [1], keep_dims=True)[0].shape) == (6, 1, 2, 3)
    scale, offset = np.array([1.0, 2.0, 3.0], np.float32), np.array([0.5, 0.0, -0.5], np.float32)
    y = tf.nn.batch_normalization(x, mean, var, offset, scale, 1e-3).numpy()
    np.testing.assert_allclose(
        y, (x - x.mean((0, 1, 2))) / np.sqrt(x.var((0, 1, 2)) + 1e-3) * scale + offset, rtol=1e-4, atol=1e-5
    )
    fused, batch_mean, batch_var = tf.nn.fused_batch_norm(x, scale, offset)
    np.testing.assert_allclose(fused.numpy(), y, rtol=1e-4, atol=1e-5)  # epsilon 1e-3 is the default
    np.testing.assert_allclose(batch_var.numpy(), x.var((0, 1, 2), ddof=1), rtol=1e-5)  # Bessel's correction, as TensorFlow
    np.testing.assert_allclose(batch_mean.numpy(), x.mean((0, 1, 2)), rtol=1e-5, atol=1e-6)
    inference = tf.nn.fused_batch_norm(x, scale, offset, np.zeros(3, np.float32), np.ones(3, np.float32), is_training=False)[0]
    np.testing.assert_allclose(inference.numpy(), x / np.sqrt(1 + 1e-3) * scale + offset, rtol=1e-5, atol=1e-6)


def test_l2_normalize_lrn_zero_fraction():
    np.testing.assert_allclose(tf.nn.l2_normalize(np.array([3.0, 4.0], np.float32), 0).numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(tf.nn.l2_normalize(np.zeros(2, np.float32)).numpy(), [0.0, 0.0])  # epsilon keeps 0/0 away
    x = RNG.standard_normal((2, 3, 3, 6)).astype(np.float32)
    sq = np.pad(x**2, ((0, 0), (0, 0), (0, 0), (2, 2)))
    sums = sum(sq[..., i : i + 6] for i in range(5))
    np.testing.assert_allclose(tf.nn.lrn(x, 2, bias=2.0, alpha=0.5, beta=0.75).numpy(), x / (2.0 + 0.5 * sums) ** 0.75, rtol=1e-5)
    assert float(tf.nn.zero_fraction(np.array([0, 1, 0, 2], np.float32))) == 0.5


def test_dropout_tf1_signature():
    x = np.ones((200, 50), np.float32)
    y = tf.nn.dropout(x, keep_prob=0.25).numpy()
    assert set(np.unique(y)) <= {0.0, 4.0}
    assert 0.2 < (y != 0).mean() < 0.3
    y = tf.nn.dropout(x, rate=0.5, noise_shape=[200, 1]).numpy()
    assert all(len(set(row)) == 1 for row in y)  # one draw per row
    with pytest.raises(ValueError, match="Cannot specify both 'keep_prob' and 'rate'"):
        tf.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError, match=r"`rate` must be provided"):
        tf.nn.dropout(x)
    with pytest.raises(ValueError, match=r"in the range \[0, 1\). Received: rate=1.0"):
        tf.nn.dropout(x, keep_prob=0.0)


def test_dropout_keep_prob_placeholder_redraws_each_run():
    with Graph().as_default():
        keep = placeholder("float32", ())
        y = tf.nn.dropout(np.ones((100, 10), np.float32), keep)
        with Session() as s:
            a, b = s.run(y, {keep: 0.5}), s.run(y, {keep: 0.5})
            full = s.run(y, {keep: 1.0})
    assert set(np.unique(a)) <= {0.0, 2.0} and (a != b).any()
    np.testing.assert_array_equal(full, np.ones((100, 10)))


def test_dropout_follows_the_graph_seed():
    def masks(seed):
        with tf.Graph().as_default():
            tf.set_random_seed(seed)
            y = tf.nn.dropout(np.ones((8, 8), np.float32), rate=0.5)
            with tf.Session() as s:
                return s.run(y), s.run(y)

    first, second = masks(3)
    again = masks(3)
    np.testing.assert_array_equal(first, again[0])
    np.testing.assert_array_equal(second, again[1])
    assert (first != second).any() and (first != masks(4)[0]).any()


# -- lookups ---------------------------------------------------------------------------------------


def test_embedding_lookup_shards():
    shards = [np.arange(6.0, dtype=np.float32).reshape(3, 2), np.arange(4.0, dtype=np.float32).reshape(2, 2) + 10]
    table_mod = np.array([[0, 1], [10, 11], [2, 3], [12, 13], [4, 5]], np.float32)  # id i in shard i % 2, row i // 2
    ids = np.array([[4, 1], [0, 3]])
    np.testing.assert_array_equal(tf.nn.embedding_lookup(shards, ids).numpy(), table_mod[ids])
    table_div = np.concatenate(shards)
    np.testing.assert_array_equal(tf.nn.embedding_lookup(shards, ids, partition_strategy="div").numpy(), table_div[ids])
    clipped = tf.nn.embedding_lookup(np.array([[3.0, 4.0], [0.3, 0.4]], np.float32), [0, 1], max_norm=1.0).numpy()
    np.testing.assert_allclose(clipped, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


def test_top_k_and_in_top_k():
    values, indices = tf.nn.top_k(np.array([[1.0, 3.0, 2.0, 3.0]], np.float32), 2)
    assert values.numpy().tolist() == [[3.0, 3.0]] and indices.numpy().tolist() == [[1, 3]] and indices.dtype.name == "int32"
    p = np.array([[1.0, 2.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0], [0.0, np.nan, 1.0, 2.0]], np.float32)
    # ties with the k-th value count as in the top k; a NaN prediction never does
    assert tf.nn.in_top_k(p, np.array([1, 3, 1]), 1).numpy().tolist() == [True, True, False]
    assert tf.nn.in_top_k(p, np.array([0, 0, 3]), 2).numpy().tolist() == [False, True, True]


def test_conv3d_and_pool3d_match_numpy():
    x = RNG.standard_normal((1, 4, 5, 3, 2))
    w = RNG.standard_normal((2, 3, 2, 2, 3))
    got = tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME").numpy()
    pads = [_same_pads(4, 2, 1), _same_pads(5, 3, 2), _same_pads(3, 2, 1)]
    xp = np.pad(x, ((0, 0), *pads, (0, 0)))
    want = np.zeros(got.shape)
    for d in range(got.shape[1]):
        for h in range(got.shape[2]):
            for c in range(got.shape[3]):
                patch = xp[:, d : d + 2, h * 2 : h * 2 + 3, c : c + 2]
                want[:, d, h, c] = np.tensordot(patch, w, axes=([1, 2, 3, 4], [0, 1, 2, 3]))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    # a pool with depth 1 is the 2-D pool of each depth slice
    pooled = tf.nn.avg_pool3d(x, [1, 1, 2, 3, 1], [1, 1, 2, 2, 1], "SAME").numpy()
    for d in range(4):
        np.testing.assert_allclose(pooled[:, d], tf.nn.avg_pool(x[:, d], [1, 2, 3, 1], [1, 2, 2, 1], "SAME").numpy(), rtol=1e-12)
    maxed = tf.nn.max_pool1d(x[:, 0, :, 0], 2, 2, "SAME").numpy()
    np.testing.assert_array_equal(maxed, tf.nn.max_pool(x[:, 0:1, :, 0], [1, 1, 2, 1], [1, 1, 2, 1], "SAME").numpy()[:, 0])


def test_separable_atrous_and_space_to_depth():
    x = RNG.standard_normal((1, 5, 5, 2))
    dw = RNG.standard_normal((3, 3, 2, 2))
    pw = RNG.standard_normal((1, 1, 4, 3))
    separable = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME").numpy()
    depthwise = tf.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME").numpy()
    np.testing.assert_allclose(separable, depthwise @ pw[0, 0], rtol=1e-10)
    w = RNG.standard_normal((2, 2, 2, 3))
    np.testing.assert_allclose(tf.nn.atrous_conv2d(x, w, 2, "VALID").numpy(), tf.nn.conv2d(x, w, 1, "VALID", dilations=2).numpy())
    block = np.array([1.0, 2.0, 3.0, 4.0]).reshape(1, 2, 2, 1)  # TensorFlow's documented example
    assert tf.nn.space_to_depth(block, 2).numpy().tolist() == [[[[1.0, 2.0, 3.0, 4.0]]]]
    y = RNG.standard_normal((2, 4, 6, 3))
    np.testing.assert_array_equal(tf.nn.depth_to_space(tf.nn.space_to_depth(y, 2), 2).numpy(), y)


def test_sufficient_statistics_weighted_moments_log_poisson():
    x = RNG.standard_normal((3, 4, 2))
    count, m_ss, v_ss, shift = tf.nn.sufficient_statistics(x, [0, 1], shift=0.25)
    assert float(count) == 12.0 and shift == 0.25
    mean, variance = tf.nn.normalize_moments(count, m_ss, v_ss, 0.25)
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 1)), rtol=1e-10)
    np.testing.assert_allclose(variance.numpy(), x.var((0, 1)), rtol=1e-10)
    w = RNG.random((3, 1, 1))
    mean, variance = tf.nn.weighted_moments(x, [0, 1], w)
    full = np.broadcast_to(w, x.shape)
    want_mean = (full * x).sum((0, 1)) / full.sum((0, 1))
    np.testing.assert_allclose(mean.numpy(), want_mean, rtol=1e-10)
    np.testing.assert_allclose(variance.numpy(), (full * (x - want_mean) ** 2).sum((0, 1)) / full.sum((0, 1)), rtol=1e-10)
    z = np.array([0.0, 0.5, 3.0])
    c = np.array([0.1, -0.2, 1.5])
    plain = np.exp(c) - c * z
    np.testing.assert_allclose(tf.nn.log_poisson_loss(z, c).numpy(), plain, rtol=1e-12)
    stirling = np.array([0.0, 0.0, 3 * np.log(3) - 3 + 0.5 * np.log(2 * np.pi * 3)])
    np.testing.assert_allclose(tf.nn.log_poisson_loss(z, c, compute_full_loss=True).numpy(), plain + stirling, rtol=1e-12)


def test_sigmoid_cross_entropy_gradient_at_zero_logits_is_sigmoid_minus_label():
    # TensorFlow selects on logits >= 0 for max(x, 0) and -|x|: at 0 the derivative is 0.5 - z
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (3,))
        z = tf.constant([0.0, 1.0, 0.25])
        (g,) = tf.gradients(tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)), [x])
        value = tf.Session().run(g, {x: [0.0, 0.0, 0.0]})
    np.testing.assert_allclose(value, [0.5, -0.5, 0.25])
