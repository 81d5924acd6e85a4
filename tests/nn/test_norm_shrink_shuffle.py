"""Instance/local-response norm, pixel (un)shuffle and the shrink/threshold activations: own values and
identities always, PyTorch's values and gradients where torch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd.gradcheck import gradcheck
from tests._oracle import needs_torch, torch


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- without torch: closed forms and identities


def test_shrinks_and_threshold_closed_forms():
    x = ember.tensor([-1.0, -0.5, 0.2, 0.5, 2.0, float("nan")])
    np.testing.assert_allclose(F.hardshrink(x).numpy(), [-1.0, 0.0, 0.0, 0.0, 2.0, np.nan])
    np.testing.assert_allclose(F.softshrink(x).numpy(), [-0.5, 0.0, 0.0, 0.0, 1.5, np.nan])
    np.testing.assert_allclose(F.threshold(x, 0.5, 9.0).numpy(), [9.0, 9.0, 9.0, 9.0, 2.0, np.nan])
    with pytest.raises(RuntimeError, match="lambda"):
        F.softshrink(x, -1.0)
    for fn in (F.hardshrink, F.softshrink, lambda t: F.threshold(t.bool(), 0, 1)):
        with pytest.raises(NotImplementedError, match="not implemented for"):
            fn(ember.tensor([1, 2]))
    assert F.threshold(ember.tensor([1, 5]), 2, 0).tolist() == [0, 5]
    half = F.hardshrink(ember.tensor([1.0, 0.1], dtype=ember.float16))
    assert half.dtype == ember.float16 and half.tolist() == [1.0, 0.0]


def test_threshold_inplace_and_module():
    x = ember.tensor([0.0, 3.0])
    out = nn.Threshold(1.0, -2.0, inplace=True)(x)
    assert out is x and x.tolist() == [-2.0, 3.0]
    assert repr(nn.Threshold(0.1, 2.0, True)) == "Threshold(threshold=0.1, value=2.0, inplace=True)"


def test_rrelu_eval_is_mean_slope_and_training_slopes_lie_in_range():
    x = ember.tensor(-np.ones(1000))
    np.testing.assert_allclose(F.rrelu(x, 0.1, 0.3).numpy(), -0.2)
    y = nn.RReLU(0.1, 0.3).train()(x).numpy()
    assert ((-y >= 0.1) & (-y <= 0.3)).all() and np.unique(y).size > 100
    assert (nn.RReLU()(ember.tensor([2.0]))).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="Lower bound"):
        F.rrelu(x, 0.5, 0.1, training=True)


def test_softmax2d_sums_over_channels():
    out = nn.Softmax2d()(ember.tensor(_rand(2, 3, 4, 5)))
    np.testing.assert_allclose(out.sum(1).numpy(), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(ember.zeros(2, 3))


def test_pixel_shuffle_round_trip_and_layout():
    x = ember.arange(2 * 8 * 3 * 2.0).reshape(2, 8, 3, 2)
    y = F.pixel_shuffle(x, 2)
    assert y.shape == (2, 2, 6, 4)
    # output[c, h*r + i, w*r + j] = input[c*r*r + i*r + j, h, w]
    assert y[1, 1, 3, 2].item() == x[1, 4 + 1 * 2 + 0, 1, 1].item()
    assert ember.equal(F.pixel_unshuffle(y, 2), x)
    assert ember.pixel_shuffle is F.pixel_shuffle and ember.pixel_unshuffle is F.pixel_unshuffle  # torch has both
    assert F.pixel_shuffle(ember.zeros(4, 2, 2), 2).shape == (1, 4, 4)
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(ember.zeros(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\)=3 is not divisible by 2"):
        nn.PixelUnshuffle(2)(ember.zeros(1, 1, 2, 3))
    with pytest.raises(RuntimeError, match="at least 3 dimensions"):
        F.pixel_shuffle(ember.zeros(4, 4), 2)


def test_instance_norm_normalises_each_plane():
    x = ember.tensor(_rand(3, 4, 5, 6) * 3 + 1)
    y = nn.InstanceNorm2d(4)(x).numpy()
    np.testing.assert_allclose(y.mean((2, 3)), 0.0, atol=1e-6)
    np.testing.assert_allclose(y.var((2, 3)), 1.0, rtol=1e-4)
    unbatched = nn.InstanceNorm2d(4)(x[0]).numpy()
    np.testing.assert_allclose(unbatched, y[0], rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        nn.InstanceNorm2d(4)(ember.zeros(2, 4, 3, 3, 3))
    with pytest.raises(ValueError, match="Expected more than 1 spatial element"):
        F.instance_norm(ember.zeros(2, 3, 1))
    with pytest.raises(ValueError, match="to match num_features"):
        nn.InstanceNorm1d(3, affine=True)(ember.zeros(2, 4, 5))


def test_instance_norm_running_stats():
    x = ember.tensor(_rand(2, 3, 7), dtype=ember.float32)
    m = nn.InstanceNorm1d(3, track_running_stats=True, momentum=0.5)
    m(x)
    per_plane = x.numpy()
    np.testing.assert_allclose(m.running_mean.numpy(), 0.5 * per_plane.mean(2).mean(0), rtol=1e-5)
    np.testing.assert_allclose(m.running_var.numpy(), 0.5 + 0.5 * per_plane.var(2, ddof=1).mean(0), rtol=1e-5)
    m.eval()
    expected = (per_plane - m.running_mean.numpy()[:, None]) / np.sqrt(m.running_var.numpy()[:, None] + 1e-5)
    np.testing.assert_allclose(m(x).numpy(), expected, rtol=1e-4, atol=1e-5)


def test_local_response_norm_closed_form():
    x = _rand(2, 5, 3)
    size, alpha, beta, k = 3, 0.2, 0.75, 2.0
    padded = np.pad(x**2, ((0, 0), (1, 1), (0, 0)))
    window = (padded[:, :-2] + padded[:, 1:-1] + padded[:, 2:]) / size
    expected = x / (k + alpha * window) ** beta
    out = nn.LocalResponseNorm(size, alpha, beta, k)(ember.tensor(x)).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    with pytest.raises(ValueError, match="Expected 3D or higher"):
        F.local_response_norm(ember.zeros(2, 3), 2)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.hardshrink(x, 0.3),
        lambda x: F.softshrink(x, 0.3),
        lambda x: F.threshold(x, 0.1, 2.0),
        lambda x: F.instance_norm(x.reshape(2, 3, 4)),
        lambda x: F.local_response_norm(x.reshape(2, 3, 4), 2),
        lambda x: F.pixel_shuffle(x.reshape(1, 4, 3, 2), 2),
        lambda x: F.pixel_unshuffle(x.reshape(1, 1, 4, 6), 2),
    ],
)
def test_gradcheck(fn):
    x = ember.tensor(_rand(24) + 0.05, dtype=ember.float64, requires_grad=True)
    assert gradcheck(fn, (x,))


# ---- against torch


@needs_torch
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("track", [False, True])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_instance_norm_matches_torch(affine, track, dims):
    shape = (2, 3) + (4,) * dims
    x = _rand(*shape)
    ours = getattr(nn, f"InstanceNorm{dims}d")(3, affine=affine, track_running_stats=track)
    theirs = getattr(torch.nn, f"InstanceNorm{dims}d")(3, affine=affine, track_running_stats=track).double()
    if affine:
        w, b = _rand(3, seed=1), _rand(3, seed=2)
        ours.weight.data = ember.tensor(w, dtype=ember.float32)
        ours.bias.data = ember.tensor(b, dtype=ember.float32)
        theirs.weight.data, theirs.bias.data = torch.tensor(w), torch.tensor(b)
    xe = ember.tensor(x, dtype=ember.float32, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    for mode in ("train", "eval"):
        getattr(ours, mode)(), getattr(theirs, mode)()
        ye, yt = ours(xe), theirs(xt)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-4, atol=1e-5)
        (ye * ember.tensor(x, dtype=ember.float32)).sum().backward()
        (yt * torch.tensor(x)).sum().backward()
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-3, atol=1e-4)
        xe.grad = None
        xt.grad = None
        if track:
            np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-5)


@needs_torch
def test_functionals_match_torch():
    x = _rand(2, 8, 4, 6)
    cases = [
        ("hardshrink", (0.4,)),
        ("softshrink", (0.4,)),
        ("threshold", (0.2, -3.0)),
        ("local_response_norm", (3, 1e-2, 0.6, 1.5)),
        ("local_response_norm", (4,)),
        ("pixel_shuffle", (2,)),
        ("pixel_unshuffle", (2,)),
        ("rrelu", (0.1, 0.4)),
    ]
    for name, args in cases:
        ye = getattr(F, name)(ember.tensor(x), *args).numpy()
        yt = getattr(torch.nn.functional, name)(torch.tensor(x), *args).numpy()
        np.testing.assert_allclose(ye, yt, rtol=1e-6, atol=1e-7, err_msg=name)
    lrn3 = _rand(2, 5, 7)
    np.testing.assert_allclose(
        F.local_response_norm(ember.tensor(lrn3), 3).numpy(),
        torch.nn.functional.local_response_norm(torch.tensor(lrn3), 3).numpy(),
        rtol=1e-6,
    )
    for module in ("Hardshrink()", "Softshrink(0.3)", "RReLU(0.1, 0.2, True)", "PixelShuffle(3)", "LocalResponseNorm(2)",
                   "InstanceNorm3d(4, affine=True)", "Softmax2d()"):  # fmt: skip
        assert repr(eval("nn." + module)) == repr(eval("torch.nn." + module))
