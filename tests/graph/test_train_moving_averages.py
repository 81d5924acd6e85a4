"""tf.train.ExponentialMovingAverage (ember.train): shadow variables named as TensorFlow's, the
update rule and num_updates' decay cap against NumPy, variables_to_restore, and TensorFlow where
it is installed."""

import numpy as np
import pytest

import ember
from ember import train


def _program(tf, num_updates):
    """Track w (moved to 3 values) and a tensor; the averages after each update."""
    with tf.Graph().as_default() as g:
        w = tf.Variable(np.array([1.0, -2.0], np.float32), name="w")
        value = tf.placeholder(tf.float32, shape=(2,))
        move = tf.assign(w, value)
        step = tf.Variable(0, dtype=tf.int64, trainable=False, name="step") if num_updates else None
        ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
        update = ema.apply([w])
        bump = tf.assign_add(step, 1) if num_updates else None
        init = tf.global_variables_initializer()
        restore = sorted(ema.variables_to_restore())
    out = []
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for target in ([3.0, 0.0], [5.0, 1.0], [-1.0, 4.0]):
            sess.run(move, {value: target})
            sess.run(update)
            if bump is not None:
                sess.run(bump)
            out.append(sess.run(ema.average(w)))
    return out, ema.average(w).op.name, restore


class _EmberTF:
    Graph, Session, Variable, placeholder, float32, int64 = (
        ember.Graph,
        ember.Session,
        ember.Variable,
        ember.placeholder,
        ember.float32,
        ember.int64,
    )
    global_variables_initializer = staticmethod(ember.global_variables_initializer)
    assign, assign_add = staticmethod(ember.assign), staticmethod(ember.assign_add)
    train = train


@pytest.mark.parametrize("num_updates", [False, True])
def test_moving_average_rule(num_updates):
    got, name, restore = _program(_EmberTF, num_updates)
    shadow = np.array([1.0, -2.0])
    for t, target in enumerate(([3.0, 0.0], [5.0, 1.0], [-1.0, 4.0])):
        decay = min(0.9, (1 + t) / (10 + t)) if num_updates else 0.9
        shadow = shadow - (shadow - np.array(target)) * (1 - decay)
        np.testing.assert_allclose(got[t], shadow, rtol=1e-6)
    assert name == "w/ExponentialMovingAverage"
    assert restore == (["step", "w/ExponentialMovingAverage"] if num_updates else ["w/ExponentialMovingAverage"])


@pytest.mark.parametrize("num_updates", [False, True])
def test_moving_average_matches_the_oracle(num_updates):
    tensorflow = pytest.importorskip("tensorflow")
    v1 = tensorflow.compat.v1
    ours = _program(_EmberTF, num_updates)
    theirs = _program(v1, num_updates)
    for o, t in zip(ours[0], theirs[0], strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-6)
    assert ours[1:] == theirs[1:]


def test_shadow_starts_from_the_initial_value_and_constants_stay_constant():
    with ember.Graph().as_default() as g:
        w = ember.Variable(1.0)
        ema = train.ExponentialMovingAverage(0.5)
        update = ema.apply([w])
        move = w.assign(3.0)
        init = ember.global_variables_initializer()
    for _ in range(2):  # a second session starts from the same initial values
        with ember.Session(graph=g) as sess:
            sess.run(init)
            assert sess.run(ema.average(w)) == 1.0
            sess.run(move)
            sess.run(update)
            assert sess.run([w, ema.average(w)]) == [3.0, 2.0]
    assert w.initial_value.op.get_attr("value").item() == 1.0
    assert g.get_collection("moving_average_variables") == [w] and not ema.average(w).trainable


def test_errors():
    with ember.Graph().as_default():
        n = ember.Variable(np.array([1, 2], np.int32), name="n")
        with pytest.raises(TypeError, match="The variables must be half, float, or double: n:0"):
            train.ExponentialMovingAverage(0.9).apply([n])
    with pytest.raises(NotImplementedError, match="zero_debias"):
        train.ExponentialMovingAverage(0.9, zero_debias=True)
