"""TensorFlow 1's initializers (ember.compat.v1): the values they build as graph nodes, checked
against their formulas (statistics for the random ones), their configs and errors, and the
oracle where TensorFlow is installed."""

import numpy as np
import pytest

import ember
import ember.compat.v1 as tf


def _values(initializer, shape, seed=0, dtype=None, runs=1):
    """The value ``initializer`` gives a variable of ``shape`` (``runs`` runs of its initializer)."""
    with tf.Graph().as_default() as g:
        tf.set_random_seed(seed)
        v = tf.get_variable("v", shape, dtype=dtype, initializer=initializer)
    out = []
    with tf.Session(graph=g) as sess:
        for _ in range(runs):
            sess.run(v.initializer)
            out.append(sess.run(v))
    return out[0] if runs == 1 else out


def test_constant_initializers():
    np.testing.assert_array_equal(_values(tf.zeros_initializer(), [2, 3]), np.zeros((2, 3)))
    np.testing.assert_array_equal(_values(tf.ones_initializer(), [3], dtype=ember.int32), np.ones(3, dtype=np.int32))
    # a shorter list is padded with its last element (TensorFlow 1's constant with a shape)
    np.testing.assert_array_equal(_values(tf.constant_initializer([1.0, 2.0]), [2, 3]), [[1, 2, 2], [2, 2, 2]])
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(_values(tf.constant_initializer(array), [2, 3]), array)
    np.testing.assert_array_equal(_values(tf.initializers.identity(gain=2.0), [2, 3]), 2 * np.eye(2, 3))
    with tf.Graph().as_default(), pytest.raises(ValueError, match=r"Too many elements provided\. Takes at most 3, but got 4\."):
        tf.constant_initializer([1.0, 2.0, 3.0, 4.0])([3])


def test_random_initializers_follow_their_formulas():
    u = _values(tf.random_uniform_initializer(-0.5, 0.25), [100, 100])
    assert u.min() >= -0.5 and u.max() < 0.25 and u.mean() == pytest.approx(-0.125, abs=0.01)
    n = _values(tf.random_normal_initializer(mean=1.0, stddev=0.1), [100, 100])
    assert n.mean() == pytest.approx(1.0, abs=0.01) and n.std() == pytest.approx(0.1, rel=0.05)
    t = _values(tf.truncated_normal_initializer(stddev=0.1), [100, 100])
    assert np.abs(t).max() <= 0.2 and t.std() == pytest.approx(0.1 * 0.8796, rel=0.05)
    g = _values(tf.glorot_uniform_initializer(), [300, 200])
    limit = np.sqrt(6 / 500)
    assert np.abs(g).max() <= limit and g.std() == pytest.approx(limit / np.sqrt(3), rel=0.05)
    gn = _values(tf.glorot_normal_initializer(), [300, 200])
    assert gn.std() == pytest.approx(np.sqrt(2 / 500), rel=0.05) and np.abs(gn).max() <= 2 * np.sqrt(2 / 500) / 0.8796 + 1e-6


@pytest.mark.parametrize(
    ("mode", "distribution", "shape", "fan"),
    [
        ("fan_in", "truncated_normal", [3, 3, 16, 32], 3 * 3 * 16),
        ("fan_out", "untruncated_normal", [3, 3, 16, 32], 3 * 3 * 32),
        ("fan_avg", "uniform", [400, 100], 250),
        ("fan_in", "normal", [1000], 1000),
    ],
)
def test_variance_scaling_fans_and_distributions(mode, distribution, shape, fan):
    v = _values(tf.variance_scaling_initializer(scale=2.0, mode=mode, distribution=distribution), shape, seed=3)
    assert v.std() == pytest.approx(np.sqrt(2.0 / fan), rel=0.08)
    if distribution == "uniform":
        assert np.abs(v).max() <= np.sqrt(3 * 2.0 / fan)


def test_he_and_lecun_are_variance_scaling():
    assert (tf.initializers.he_normal().scale, tf.initializers.he_normal().mode) == (2.0, "fan_in")
    assert tf.initializers.lecun_uniform().distribution == "uniform"
    v = _values(tf.initializers.he_uniform(), [500, 50])
    assert v.std() == pytest.approx(np.sqrt(2 / 500), rel=0.05)


@pytest.mark.parametrize("shape", [[4, 4], [3, 5], [6, 2], [2, 3, 4]])
def test_orthogonal(shape):
    v = _values(tf.orthogonal_initializer(gain=1.5), shape).reshape(-1, shape[-1])
    rows, cols = v.shape
    product = v.T @ v if rows >= cols else v @ v.T
    np.testing.assert_allclose(product, 2.25 * np.eye(min(rows, cols)), atol=1e-4)


def test_each_initializer_run_draws_again_and_seeds_repeat():
    first, second = _values(tf.random_normal_initializer(), [10], runs=2)
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(
        _values(tf.random_normal_initializer(seed=4), [10]), _values(tf.random_normal_initializer(seed=4), [10])
    )


def test_errors_and_configs():
    with pytest.raises(ValueError, match=r"Argument `scale` must be a positive float\. Received: 0"):
        tf.variance_scaling_initializer(scale=0)
    with pytest.raises(ValueError, match=r"Argument `mode` should be one of"):
        tf.variance_scaling_initializer(mode="x")
    with pytest.raises(ValueError, match=r"Argument `distribution` should be one of"):
        tf.variance_scaling_initializer(distribution="x")
    with pytest.raises(ValueError, match=r"Argument `dtype` is expected to be floating point\. Received: <dtype: 'int32'>\."):
        tf.random_normal_initializer(dtype=ember.int32)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"must be at least two-dimensional\. Received shape=\[3\]"):
            tf.orthogonal_initializer()([3])
        with pytest.raises(ValueError, match="only be used for 2D matrices"):
            tf.initializers.identity()([2, 3, 4])
    assert tf.glorot_uniform_initializer().get_config() == {"seed": None, "dtype": "float32"}
    assert tf.variance_scaling_initializer().get_config() == {
        "scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal", "seed": None, "dtype": "float32",
    }  # fmt: skip
    assert tf.constant_initializer(2).get_config() == {"value": 2, "dtype": "float32"}
    again = tf.initializers.VarianceScaling.from_config(tf.variance_scaling_initializer(mode="fan_out").get_config())
    assert again.mode == "fan_out"


def test_configs_match_the_oracle():
    tensorflow = pytest.importorskip("tensorflow")
    v1 = tensorflow.compat.v1
    for name in ("glorot_uniform_initializer", "variance_scaling_initializer", "zeros_initializer", "random_normal_initializer"):
        assert getattr(tf, name)().get_config() == getattr(v1, name)().get_config(), name
