"""tf.train's learning-rate schedules (ember.train) at many global steps, against their formulas
(TensorFlow's) in NumPy, and against TensorFlow where it is installed."""

import math

import numpy as np
import pytest

import ember
from ember import train

STEPS = [0, 1, 5, 9, 10, 11, 25, 37, 100]


def _cosine_restarts(step, first, t_mul, m_mul, alpha):
    fraction = step / first
    if t_mul == 1.0:
        restart = math.floor(fraction)
        fraction -= restart
    else:
        restart = math.floor(math.log(1 - fraction * (1 - t_mul)) / math.log(t_mul))
        fraction = (fraction - (1 - t_mul**restart) / (1 - t_mul)) / t_mul**restart
    cosine = 0.5 * m_mul**restart * (1 + math.cos(math.pi * fraction))
    return 0.1 * ((1 - alpha) * cosine + alpha)


def _polynomial(step, cycle):
    steps = 10.0
    if cycle:
        steps *= 1.0 if step == 0 else math.ceil(step / 10.0)
    else:
        step = min(step, 10.0)
    return (0.1 - 0.01) * (1 - step / steps) ** 2.0 + 0.01


SCHEDULES = {
    "exponential": (lambda t, s: t.exponential_decay(0.1, s, 10, 0.5), lambda s: 0.1 * 0.5 ** (s / 10)),
    "exponential_staircase": (lambda t, s: t.exponential_decay(0.1, s, 10, 0.5, staircase=True), lambda s: 0.1 * 0.5 ** (s // 10)),
    "inverse_time": (lambda t, s: t.inverse_time_decay(0.1, s, 10, 0.5), lambda s: 0.1 / (1 + 0.5 * s / 10)),
    "inverse_time_staircase": (lambda t, s: t.inverse_time_decay(0.1, s, 10, 0.5, staircase=True), lambda s: 0.1 / (1 + 0.5 * (s // 10))),
    "natural_exp": (lambda t, s: t.natural_exp_decay(0.1, s, 10, 0.5), lambda s: 0.1 * math.exp(-0.5 * s / 10)),
    "polynomial": (lambda t, s: t.polynomial_decay(0.1, s, 10, 0.01, power=2.0), lambda s: _polynomial(s, False)),
    "polynomial_cycle": (lambda t, s: t.polynomial_decay(0.1, s, 10, 0.01, power=2.0, cycle=True), lambda s: _polynomial(s, True)),
    "cosine": (lambda t, s: t.cosine_decay(0.1, s, 20, alpha=0.1), lambda s: 0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 20) / 20)) + 0.1)),
    "cosine_restarts": (lambda t, s: t.cosine_decay_restarts(0.1, s, 10, t_mul=2.0, m_mul=0.5, alpha=0.05),
                        lambda s: _cosine_restarts(s, 10, 2.0, 0.5, 0.05)),
    "cosine_restarts_flat": (lambda t, s: t.cosine_decay_restarts(0.1, s, 10, t_mul=1.0), lambda s: _cosine_restarts(s, 10, 1.0, 1.0, 0.0)),
    "piecewise": (lambda t, s: t.piecewise_constant(s, [5, 10], [1.0, 0.5, 0.1]), lambda s: 1.0 if s <= 5 else 0.5 if s <= 10 else 0.1),
}  # fmt: skip


def _run(graph_cls, session_cls, placeholder, int64, make):
    with graph_cls().as_default() as g:
        step = placeholder(int64, shape=())
        lr = make(step)
    with session_cls(graph=g) as sess:
        return [float(sess.run(lr, {step: s})) for s in STEPS], lr


@pytest.mark.parametrize("name", SCHEDULES)
def test_schedule_follows_its_formula(name):
    make, formula = SCHEDULES[name]
    values, lr = _run(ember.Graph, ember.Session, ember.placeholder, ember.int64, lambda s: make(train, s))
    np.testing.assert_allclose(values, [formula(s) for s in STEPS], rtol=1e-5)
    assert lr.dtype == ember.float32 and lr.shape.as_list() == []


@pytest.mark.parametrize("name", SCHEDULES)
def test_schedule_matches_the_oracle(name):
    tensorflow = pytest.importorskip("tensorflow")
    v1 = tensorflow.compat.v1
    make = SCHEDULES[name][0]
    ours, _ = _run(ember.Graph, ember.Session, ember.placeholder, ember.int64, lambda s: make(train, s))
    theirs, _ = _run(v1.Graph, v1.Session, v1.placeholder, v1.int64, lambda s: make(v1.train, s))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_names_and_errors():
    with ember.Graph().as_default():
        step = train.get_or_create_global_step()
        assert train.exponential_decay(0.1, step, 10, 0.5).name == "ExponentialDecay:0"
        assert train.piecewise_constant(step, [5], [0.1, 0.01], name="lr").name == "lr:0"
        with pytest.raises(ValueError, match=r"global_step is required for exponential_decay\."):
            train.exponential_decay(0.1, None, 10, 0.5)
        with pytest.raises(ValueError, match="The length of boundaries should be 1 less than the length of values"):
            train.piecewise_constant(step, [5, 10], [0.1, 0.01])
