"""nn.init: bounds and statistics of each initialiser, default layer initialisation, seeding."""

import math

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import init


def _np(t):
    return t.detach().numpy()


def test_calculate_gain_and_fans():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", True)
    assert init._calculate_fan_in_and_fan_out(ember.empty(8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(ember.empty(3))


def test_uniform_normal_constant():
    ember.manual_seed(0)
    u = _np(init.uniform_(ember.empty(20000), -2.0, 3.0))
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.05
    n = _np(init.normal_(ember.empty(20000), 1.0, 2.0))
    assert abs(n.mean() - 1) < 0.05 and abs(n.std() - 2) < 0.05
    assert _np(init.constant_(ember.empty(3), 0.25)).tolist() == [0.25] * 3
    assert _np(init.ones_(ember.empty(2))).tolist() == [1, 1] and _np(init.zeros_(ember.empty(2))).tolist() == [0, 0]
    np.testing.assert_array_equal(_np(init.eye_(ember.empty(3, 4))), np.eye(3, 4))


def test_xavier_and_kaiming():
    ember.manual_seed(0)
    w = ember.empty(200, 300)
    bound = math.sqrt(6 / 500)
    x = _np(init.xavier_uniform_(w))
    assert np.abs(x).max() <= bound and np.abs(x).max() > 0.95 * bound
    assert abs(_np(init.xavier_normal_(w, gain=2.0)).std() - 2 * math.sqrt(2 / 500)) < 0.005
    k = _np(init.kaiming_uniform_(w, nonlinearity="relu"))
    assert np.abs(k).max() <= math.sqrt(6 / 300) and abs(k.std() - math.sqrt(2 / 300)) < 0.003
    k = _np(init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
    assert abs(k.std() - math.sqrt(2 / 200)) < 0.003
    with pytest.raises(ValueError, match="Mode fan_both not supported"):
        init.kaiming_uniform_(w, mode="fan_both")


def test_trunc_normal_and_orthogonal():
    ember.manual_seed(0)
    t = _np(init.trunc_normal_(ember.empty(20000), mean=0.5, std=1.0, a=0.0, b=1.0))
    assert t.min() >= 0 and t.max() <= 1 and abs(t.mean() - 0.5) < 0.02
    for shape in [(4, 6), (6, 4), (3, 2, 2)]:
        q = _np(init.orthogonal_(ember.empty(shape), gain=2.0)).reshape(shape[0], -1)
        small = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q
        np.testing.assert_allclose(small, 4 * np.eye(min(q.shape)), atol=1e-4)


def test_generator_makes_init_reproducible():
    a = init.normal_(ember.empty(5), generator=ember.Generator().manual_seed(3))
    b = init.normal_(ember.empty(5), generator=ember.Generator().manual_seed(3))
    assert _np(a).tolist() == _np(b).tolist()
    ember.manual_seed(7)
    l1 = nn.Linear(4, 4)
    ember.manual_seed(7)
    l2 = nn.Linear(4, 4)
    np.testing.assert_array_equal(_np(l1.weight), _np(l2.weight))


def test_default_layer_initialisation():
    ember.manual_seed(0)
    lin = nn.Linear(400, 50)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    for p in (lin.weight, lin.bias):
        assert np.abs(_np(p)).max() <= bound and np.abs(_np(p)).max() > 0.9 * bound
    conv = nn.Conv2d(4, 8, 3)
    assert np.abs(_np(conv.weight)).max() <= 1 / math.sqrt(36)
    assert abs(_np(nn.Embedding(1000, 20).weight).std() - 1) < 0.05
    bn = nn.BatchNorm2d(3)
    assert _np(bn.weight).tolist() == [1, 1, 1] and _np(bn.bias).tolist() == [0, 0, 0]
    mha = nn.MultiheadAttention(8, 2)
    assert _np(mha.in_proj_bias).tolist() == [0] * 24 and np.abs(_np(mha.in_proj_weight)).max() <= math.sqrt(6 / 32)
    lstm = nn.LSTM(3, 16)
    assert all(np.abs(_np(p)).max() <= 0.25 for p in lstm.parameters())
