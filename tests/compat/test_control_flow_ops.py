"""tf.cond / tf.while_loop / tf.case with TensorFlow's conversion of Python values; flow ops."""

import pytest

import ember.compat.v1 as tf
from ember.graph.errors import InvalidArgumentError


def test_python_numbers_in_loops_and_branches_are_tensorflows_constants():
    with tf.Graph().as_default() as g:
        i, total = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), [0, 0])
        x = tf.placeholder(tf.float32, shape=())
        picked = tf.cond(x > 0, lambda: 1, lambda: -1)
        cased = tf.case([(x > 10, lambda: 2.0)], default=lambda: 0.5)
    assert (i.dtype, total.dtype, picked.dtype, cased.dtype) == (tf.int32, tf.int32, tf.int32, tf.float32)
    with tf.Session(graph=g) as sess:
        assert sess.run([i, total]) == [5, 10]
        assert sess.run([picked, cased], {x: 3.0}) == [1, 0.5]
        assert sess.run([picked, cased], {x: -3.0}) == [-1, 0.5]


def test_stop_gradient_print_assert_and_debugging():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, shape=(2,))
        y = tf.stop_gradient(x * 2.0) * x
        (dx,) = tf.gradients(y, [x])
        check = tf.debugging.assert_positive(x, message="x must be positive")
        with tf.control_dependencies([check]):
            checked = tf.identity(x)
        a, b = tf.tuple([x, y])
    with tf.Session(graph=g) as sess:
        assert sess.run(dx, {x: [1.0, 3.0]}).tolist() == [2.0, 6.0]  # only the unstopped factor differentiates
        assert sess.run(checked, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]
        with pytest.raises(InvalidArgumentError, match="x must be positive"):
            sess.run(checked, {x: [1.0, -2.0]})
        assert sess.run(b, {x: [1.0, 2.0]}).tolist() == [2.0, 8.0] and a is not x
    assert tf.assert_equal is tf.debugging.assert_equal and tf.print is not print
