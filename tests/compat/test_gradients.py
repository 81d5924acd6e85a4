"""tf.gradients with TensorFlow 1's signature, tf.hessians, UnconnectedGradients."""

import numpy as np
import pytest

import ember.compat.v1 as tf


def test_hessians_are_the_gradients_of_the_gradient():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3])
        y = (x * x * x).sum() + (x[0] * x[1])
        (h,) = tf.hessians(y, x)
    value = tf.Session(graph=g).run(h, {x: [1.0, 2.0, 3.0]})
    np.testing.assert_allclose(value, [[6.0, 1.0, 0.0], [1.0, 12.0, 0.0], [0.0, 0.0, 18.0]])
    assert h.shape.as_list() == [3, 3]


def test_unconnected_gradients_and_the_scheduling_arguments():
    with tf.Graph().as_default() as g:
        x, unused = tf.constant([1.0, 2.0]), tf.constant([5.0])
        none = tf.gradients(x * 3.0, [x, unused], gate_gradients=True, colocate_gradients_with_ops=True)
        zero = tf.gradients(x * 3.0, [x, unused], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert none[1] is None
    dx, du = tf.Session(graph=g).run(zero)
    assert dx.tolist() == [3.0, 3.0] and du.tolist() == [0.0]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tf.gradients(x, [x], unconnected_gradients="ones")
    with pytest.raises(ValueError, match="fully defined shape"):
        with tf.Graph().as_default():
            p = tf.placeholder(tf.float32, [None])
            tf.hessians((p * p).sum(), p)
