"""affine_grid / grid_sample: identities (the identity transform reproduces the input, a flip flips it,
bilinear at a midpoint averages) always; PyTorch's values and gradients (input and grid) where torch is
installed, over modes, padding modes, align_corners, 2D and 3D."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd.gradcheck import gradcheck
from tests._oracle import needs_torch, torch


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


@pytest.mark.parametrize("align_corners", [False, True])
def test_identity_and_flip(align_corners):
    image = ember.tensor(_rand(2, 3, 4, 5))
    identity = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2)
    grid = F.affine_grid(identity, [2, 3, 4, 5], align_corners=align_corners)
    out = F.grid_sample(image, grid, align_corners=align_corners)
    np.testing.assert_allclose(out.numpy(), image.numpy(), rtol=1e-5, atol=1e-6)
    flip = ember.tensor([[[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2)
    flipped = F.grid_sample(
        image, F.affine_grid(flip, [2, 3, 4, 5], align_corners=align_corners), "nearest", align_corners=align_corners
    )
    np.testing.assert_allclose(flipped.numpy(), image.numpy()[..., ::-1], rtol=1e-6)


def test_bilinear_midpoint_padding_and_errors():
    image = ember.tensor([[[[0.0, 2.0], [4.0, 6.0]]]])
    centre = ember.zeros(1, 1, 1, 2)
    assert F.grid_sample(image, centre, align_corners=True).item() == 3.0
    far = ember.tensor([[[[5.0, 0.0]]]])
    assert F.grid_sample(image, far, padding_mode="zeros", align_corners=True).item() == 0.0
    assert F.grid_sample(image, far, padding_mode="border", align_corners=True).item() == 4.0
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(image, centre)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(image, centre, mode="area", align_corners=True)
    with pytest.raises(ValueError, match="expected padding_mode"):
        F.grid_sample(image, centre, padding_mode="wrap", align_corners=True)
    with pytest.raises(NotImplementedError, match="floating-point"):
        F.grid_sample(ember.zeros(1, 1, 2, 2, dtype=ember.int64), ember.zeros(1, 1, 1, 2, dtype=ember.int64), align_corners=True)
    with pytest.raises(RuntimeError, match="same batch size"):
        F.grid_sample(image, ember.zeros(2, 1, 1, 2), align_corners=True)
    with pytest.raises(ValueError, match="shape Nx2x3"):
        F.affine_grid(ember.zeros(1, 3, 3), [1, 1, 2, 2], align_corners=True)
    with pytest.raises(NotImplementedError, match="4D and 5D sizes"):
        F.affine_grid(ember.zeros(1, 2, 3), [1, 1, 2], align_corners=True)


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bilinear", "border"), ("bilinear", "reflection")])
def test_gradcheck(mode, padding_mode):
    image = ember.tensor(_rand(1, 2, 3, 4).astype(np.float64), requires_grad=True)
    grid = ember.tensor(_rand(1, 2, 3, 2, seed=1, scale=0.7).astype(np.float64), requires_grad=True)
    assert gradcheck(lambda i, g: F.grid_sample(i, g, mode, padding_mode, align_corners=False), (image, grid))


@needs_torch
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dims", [2, 3])
def test_matches_torch(mode, padding_mode, align_corners, dims):
    spatial = (4, 5) if dims == 2 else (3, 4, 5)
    x = _rand(2, 3, *spatial)
    # points well outside [-1, 1] exercise the padding (several reflections included)
    g = _rand(2, *(3,) * dims, dims, seed=1, scale=1.6)
    xe, ge = ember.tensor(x, requires_grad=True), ember.tensor(g, requires_grad=True)
    xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    ours = F.grid_sample(xe, ge, mode, padding_mode, align_corners)
    theirs = torch.nn.functional.grid_sample(xt, gt, mode, padding_mode, align_corners)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-5)
    w = _rand(*theirs.shape, seed=2)
    (ours * ember.tensor(w)).sum().backward()
    (theirs * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ge.grad.numpy(), gt.grad.numpy(), rtol=1e-4, atol=1e-4)


@needs_torch
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(align_corners):
    for size, theta_shape in (([2, 3, 4, 5], (2, 2, 3)), ([2, 1, 3, 4, 5], (2, 3, 4))):
        theta = _rand(*theta_shape)
        te, tt = ember.tensor(theta, requires_grad=True), torch.tensor(theta, requires_grad=True)
        ours = F.affine_grid(te, size, align_corners=align_corners)
        theirs = torch.nn.functional.affine_grid(tt, size, align_corners=align_corners)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
        w = _rand(*theirs.shape, seed=3)
        (ours * ember.tensor(w)).sum().backward()
        (theirs * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(te.grad.numpy(), tt.grad.numpy(), rtol=1e-4, atol=1e-5)
