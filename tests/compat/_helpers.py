"""What the compat op tests share: running a graph, and checking ``tf.gradients`` against
central finite differences in float64."""

import numpy as np

import ember.compat.v1 as tf


def run(fetches, feed=None):
    """``fetches`` run in a fresh Session of their graph."""
    first = (
        fetches
        if not isinstance(fetches, dict | list | tuple)
        else next(iter(fetches.values() if isinstance(fetches, dict) else fetches))
    )
    with tf.Session(graph=first.graph) as sess:
        return sess.run(fetches, feed)


def check_gradient(fn, *values, eps=1e-6, tol=1e-6):
    """``tf.gradients`` of ``sum(fn(*xs) * w)`` (a fixed random ``w``) for float64 placeholders
    ``xs`` fed ``values``, against central differences of the same graph."""
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        xs = [tf.placeholder(tf.float64, np.shape(v)) for v in values]
        y = fn(*xs)
        w = tf.constant(rng.normal(size=y.shape.as_list()))
        loss = tf.reduce_sum(y * w)
        grads = tf.gradients(loss, xs)
        with tf.Session() as sess:
            feed = dict(zip(xs, values, strict=True))
            got = sess.run(grads, feed)
            for k, v in enumerate(values):
                v = np.asarray(v, dtype=np.float64)
                expected = np.zeros_like(v)
                for i in np.ndindex(v.shape):
                    up, down = v.copy(), v.copy()
                    up[i] += eps
                    down[i] -= eps
                    f_up = sess.run(loss, {**feed, xs[k]: up})
                    f_down = sess.run(loss, {**feed, xs[k]: down})
                    expected[i] = (f_up - f_down) / (2 * eps)
                np.testing.assert_allclose(got[k], expected, rtol=tol, atol=tol)
