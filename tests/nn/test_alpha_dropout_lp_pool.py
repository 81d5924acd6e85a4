"""alpha_dropout / feature_alpha_dropout, gumbel_softmax, lp_pool1d/2d and channel_shuffle: statistics
and closed forms always, PyTorch's values, gradients and reprs where torch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from tests._oracle import needs_torch, torch


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_alpha_dropout_keeps_standard_statistics():
    ember.manual_seed(0)
    x = ember.tensor(_rand(200_000))
    y = F.alpha_dropout(x, 0.3, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    alpha, p = 1.7580993408473766, 0.3
    a = 1 / np.sqrt((alpha**2 * p + 1) * (1 - p))
    kept = np.isclose(y, a * x.numpy() + alpha * a * p, rtol=1e-5, atol=1e-6)
    assert 0.68 < kept.mean() < 0.72
    np.testing.assert_allclose(y[~kept], -alpha * a + alpha * a * p, rtol=1e-5)
    assert F.alpha_dropout(x, 0.3) is x and nn.AlphaDropout(0.3).eval()(x) is x
    with pytest.raises(ValueError, match=r"between 0 and 1, but got 1\.5"):
        F.alpha_dropout(x, 1.5, True)
    channels = F.feature_alpha_dropout(ember.ones(4, 50, 3), 0.5, training=True).numpy()
    assert (channels == channels[..., :1]).all()  # one draw per (sample, channel)


def test_gumbel_softmax_soft_and_hard():
    ember.manual_seed(0)
    logits = ember.tensor(_rand(5, 4), requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.detach().numpy().sum(-1), 1.0, rtol=1e-6)
    hard = F.gumbel_softmax(logits, hard=True)
    values = hard.detach().numpy()
    assert ((values == 0) | (values == 1)).all() and (values.sum(-1) == 1).all()
    (hard * ember.tensor(_rand(5, 4, seed=1))).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0


def test_lp_pool_closed_form_and_channel_shuffle():
    x = np.abs(_rand(2, 3, 8)) + 0.1
    out = F.lp_pool1d(ember.tensor(x), 3, 2).numpy()
    np.testing.assert_allclose(out, ((x[..., 0::2] ** 3 + x[..., 1::2] ** 3) ** (1 / 3)), rtol=1e-5)
    img = np.abs(_rand(1, 2, 4, 4)) + 0.1
    out = nn.LPPool2d(2, 2)(ember.tensor(img)).numpy()
    blocks = img.reshape(1, 2, 2, 2, 2, 2)
    np.testing.assert_allclose(out, np.sqrt((blocks**2).sum((3, 5))), rtol=1e-5)
    shuffled = nn.ChannelShuffle(3)(ember.arange(6.0).reshape(1, 6, 1)).flatten().tolist()
    assert shuffled == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]
    with pytest.raises(RuntimeError, match="Got 4 channels and 3 groups"):
        F.channel_shuffle(ember.zeros(1, 4, 2), 3)


@needs_torch
def test_deterministic_ones_match_torch():
    x = _rand(2, 6, 7, 5)
    for name, args in [("lp_pool2d", (2.0, 2)), ("lp_pool2d", (1.5, (2, 3), 1, True)), ("channel_shuffle", (3,))]:
        xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ye, yt = getattr(F, name)(xe, *args), getattr(torch.nn.functional, name)(xt, *args)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
        g = _rand(*yt.shape, seed=1)
        (ye * ember.tensor(g)).sum().backward()
        (yt * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    seq = _rand(2, 3, 9)
    np.testing.assert_allclose(
        F.lp_pool1d(ember.tensor(seq), 2, 3, 2).numpy(),
        torch.nn.functional.lp_pool1d(torch.tensor(seq), 2, 3, 2).numpy(),
        rtol=1e-5,
    )
    for module in (
        "LPPool1d(2, 3)",
        "LPPool2d(1.5, (2, 3), 1)",
        "AlphaDropout(0.2)",
        "FeatureAlphaDropout()",
        "ChannelShuffle(2)",
    ):
        assert repr(eval("nn." + module)) == repr(eval("torch.nn." + module))
