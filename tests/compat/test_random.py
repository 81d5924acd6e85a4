"""TensorFlow 1's random ops in ember.compat.v1: node types, TensorFlow's seed rule (repeatable
programs, distinct streams per op), and the distributions (statistics, not TensorFlow's values:
the generators differ)."""

import numpy as np
import pytest

import ember
import ember.compat.v1 as tf
from ember.compat.v1.random_ops import DEFAULT_GRAPH_SEED, get_seed
from ember.graph import constant


def _program(graph_seed=None, op_seed=None):
    """Build and run a small random program; its values and graph."""
    with tf.Graph().as_default() as g:
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        a = tf.random_uniform([50], seed=op_seed)
        b = tf.random_uniform([50], seed=op_seed)
    with tf.Session(graph=g) as sess:
        first = sess.run([a, b])
        second = sess.run([a, b])
    return first, second, g


def test_same_program_same_values_with_a_graph_seed():
    (a1, b1), (a2, b2), _ = _program(graph_seed=5)
    (c1, _), (_, d2), _ = _program(graph_seed=5)
    np.testing.assert_array_equal(a1, c1)
    np.testing.assert_array_equal(b2, d2)
    assert not np.array_equal(a1, b1)  # two ops without op seeds: different streams
    assert not np.array_equal(a1, a2)  # each run of an op draws the next values of its stream
    (e1, _), _, _ = _program(graph_seed=6)
    assert not np.array_equal(a1, e1)


def test_op_seed_alone_is_repeatable_and_shared_by_equal_seeds():
    (a1, b1), _, _ = _program(op_seed=11)
    (c1, _), _, _ = _program(op_seed=11)
    np.testing.assert_array_equal(a1, c1)
    np.testing.assert_array_equal(a1, b1)  # the same (graph seed, op seed): the same stream, as TensorFlow


def test_no_seed_differs_between_programs():
    (a1, _), _, _ = _program()
    (c1, _), _, _ = _program()
    assert not np.array_equal(a1, c1)


def test_seed_rule_is_tensorflows():
    with tf.Graph().as_default() as g:
        assert get_seed(None) == (None, None)
        assert get_seed(7) == (DEFAULT_GRAPH_SEED, 7)
        tf.set_random_seed(0)
        assert get_seed(0) == (0, 2**31 - 1)  # (0, 0) would mean "nondeterministic" to the kernels
        tf.set_random_seed(3)
        constant(1.0)
        assert get_seed(None) == (3, len(g.get_operations()))
        assert get_seed(2**31 + 4) == (3, 5)


def test_node_types_and_names():
    with tf.Graph().as_default() as g:
        u = tf.random_uniform([2, 3], -1.0, 1.0)
        n = tf.random_normal([4])
        t = tf.truncated_normal([4], name="tn")
        i = tf.random_uniform([3], 0, 10, dtype=ember.int64)
    types = {op.type for op in g.get_operations()}
    assert {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt"} <= types
    assert (u.name, n.name, t.name, i.name) == ("random_uniform:0", "random_normal:0", "tn:0", "random_uniform_1:0")
    assert u.shape.as_list() == [2, 3] and u.dtype == ember.float32 and i.dtype == ember.int64
    seeded = g.get_operation_by_name("random_uniform/RandomUniform")
    assert seeded.get_attr("seed") == 0 and seeded.get_attr("seed2") == 0


def test_distributions():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1234)
        u = tf.random_uniform([20000], minval=-2.0, maxval=3.0)
        k = tf.random_uniform([20000], minval=2, maxval=9, dtype=ember.int32)
        n = tf.random_normal([20000], mean=1.0, stddev=2.0, dtype=ember.float64)
        t = tf.truncated_normal([20000], mean=-1.0, stddev=0.5)
    with tf.Session(graph=g) as sess:
        u, k, n, t = sess.run([u, k, n, t])
    assert u.dtype == np.float32 and u.min() >= -2.0 and u.max() < 3.0 and u.mean() == pytest.approx(0.5, abs=0.05)
    assert k.dtype == np.int32 and set(np.unique(k)) == set(range(2, 9))
    assert n.dtype == np.float64 and n.mean() == pytest.approx(1.0, abs=0.05) and n.std() == pytest.approx(2.0, rel=0.03)
    # re-drawn beyond two standard deviations: within [-2, -0] and the truncated spread 0.8796 * stddev
    assert t.min() >= -2.0 and t.max() <= 0.0 and t.std() == pytest.approx(0.5 * 0.87962566, rel=0.03)


def test_shuffle_and_multinomial():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(2)
        s = tf.random_shuffle(constant(np.arange(20).reshape(10, 2)))
        logits = constant(np.log(np.array([[0.2, 0.8], [0.9, 0.1]], dtype=np.float32)))
        m = tf.multinomial(logits, 4000)
        c = tf.random.categorical(logits, 10, dtype=ember.int32)
    with tf.Session(graph=g) as sess:
        s1, m, c = sess.run([s, m, c])
    assert sorted(s1[:, 0].tolist()) == list(range(0, 20, 2)) and (s1[:, 1] == s1[:, 0] + 1).all()
    assert m.dtype == np.int64 and m.shape == (2, 4000)
    assert m[0].mean() == pytest.approx(0.8, abs=0.03) and m[1].mean() == pytest.approx(0.1, abs=0.03)
    assert c.dtype == np.int32 and c.shape == (2, 10)


def test_argument_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Must specify maxval for integer dtype 'int32'"):
            tf.random_uniform([2], dtype=ember.int32)
        with pytest.raises(ValueError, match="Need minval < maxval: 5 >= 5"):
            tf.random_uniform([2], 5, 5, dtype=ember.int32)
        with pytest.raises(ValueError, match="Invalid dtype 'int32' for random_normal"):
            tf.random_normal([2], dtype=ember.int32)
        with pytest.raises(ValueError, match="fully defined"):
            tf.random_normal([None, 2])
        with pytest.raises(ValueError, match="logits should be a matrix"):
            tf.multinomial(constant([0.5, 0.5]), 3)


def test_a_probe_shape_draws_a_seeded_batch_of_the_fed_size():
    def run():
        with tf.Graph().as_default() as g:
            tf.set_random_seed(9)
            x = tf.placeholder(ember.float32, (None, 3))
            noise = tf.random_uniform(x._shape)  # how tf.nn.dropout draws for an unknown batch size
            y = x + noise
        assert noise.shape.as_list() == [None, 3]
        with tf.Session(graph=g) as sess:
            return sess.run(y, {x: np.zeros((2, 3), np.float32)}), sess.run(y, {x: np.zeros((5, 3), np.float32)})

    (a2, a5), (b2, b5) = run(), run()
    assert a2.shape == (2, 3) and a5.shape == (5, 3) and ((a5 >= 0) & (a5 < 1)).all()
    np.testing.assert_array_equal(a2, b2)
    np.testing.assert_array_equal(a5, b5)
