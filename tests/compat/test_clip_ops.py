"""TensorFlow 1's gradient clipping (ember.compat.v1): values against NumPy, None handling, the
finite gradient of clip_by_norm at zero, errors, and TensorFlow where it is installed."""

import numpy as np
import pytest

import ember
import ember.compat.v1 as tf

A = np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
B = np.array([12.0], dtype=np.float32)


def _clip_program(t):
    """The clipping calls on A and B in TF1 module ``t`` (with its ``constant``), run."""
    with t.Graph().as_default() as g:
        a, b = t.constant(A), t.constant(B)
        clipped, norm = t.clip_by_global_norm([a, None, b], 6.5)
        fetches = [
            t.clip_by_norm(a, 2.0), t.clip_by_norm(a, 2.0, axes=[1]), t.clip_by_value(a, 0.5, 3.5),
            clipped[0], clipped[2], norm, t.global_norm([a, None, b]),
        ]  # fmt: skip
    with t.Session(graph=g) as sess:
        return sess.run(fetches), clipped[1]


class _EmberTF:
    Graph, Session = ember.Graph, ember.Session
    constant = staticmethod(ember.constant)
    clip_by_norm, clip_by_value = staticmethod(tf.clip_by_norm), staticmethod(tf.clip_by_value)
    clip_by_global_norm, global_norm = staticmethod(tf.clip_by_global_norm), staticmethod(tf.global_norm)


def test_clipping_values():
    (by_norm, by_row_norm, by_value, g0, g2, norm, gnorm), none = _clip_program(_EmberTF)
    np.testing.assert_allclose(by_norm, A * 2.0 / 5.0)
    np.testing.assert_allclose(by_row_norm, [[1.2, 1.6], [0.0, 0.0]])
    np.testing.assert_array_equal(by_value, np.clip(A, 0.5, 3.5))
    assert none is None and norm == pytest.approx(13.0) and gnorm == pytest.approx(13.0)
    np.testing.assert_allclose(g0, A * 6.5 / 13.0)
    np.testing.assert_allclose(g2, B * 6.5 / 13.0)


def test_clipping_matches_the_oracle():
    tensorflow = pytest.importorskip("tensorflow")
    v1 = tensorflow.compat.v1
    ours, _ = _clip_program(_EmberTF)
    theirs, none = _clip_program(v1)
    assert none is None
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-6)


def test_small_norms_are_untouched_and_zero_has_a_finite_gradient():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, [2])
        y = tf.clip_by_norm(x, 10.0)
        (dx,) = ember.gradients(y.sum(), [x])
        clipped, _ = tf.clip_by_global_norm([x], 10.0)
        inf_clipped, _ = tf.clip_by_global_norm([x], 1.0, use_norm=ember.constant(np.float32(np.inf)))
    with ember.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [3.0, 4.0]}), [3.0, 4.0])
        np.testing.assert_array_equal(sess.run(dx, {x: [0.0, 0.0]}), [1.0, 1.0])
        np.testing.assert_array_equal(sess.run(clipped[0], {x: [3.0, 4.0]}), [3.0, 4.0])
        assert np.isnan(sess.run(inf_clipped[0], {x: [3.0, 4.0]})).all()


def test_errors():
    with ember.Graph().as_default():
        a = ember.constant(A)
        with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
            tf.global_norm(a)
        with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
            tf.clip_by_global_norm(a, 1.0)
        with pytest.raises((ValueError, RuntimeError)):
            tf.clip_by_value(a, ember.constant([1.0, 2.0, 3.0]), 5.0)
