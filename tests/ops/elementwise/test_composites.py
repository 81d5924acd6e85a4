"""addcmul, addcdiv (and their in-place forms), clamp_min, clamp_max, deg2rad, rad2deg."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import needs_torch, torch


def test_addcmul_and_addcdiv_values_broadcasting_and_in_place():
    x, a, b = ember.tensor([[1.0], [2.0]]), ember.tensor([1.0, 2.0, 3.0]), ember.tensor([2.0, 4.0, 8.0])
    assert ember.addcmul(x, a, b, value=0.5).tolist() == [[2.0, 5.0, 13.0], [3.0, 6.0, 14.0]]
    assert ember.addcdiv(x, a, b, value=-2).tolist() == [[0.0, 0.0, 0.25], [1.0, 1.0, 1.25]]
    state = ember.zeros(3)
    same = state.addcmul_(a, a, value=0.1).addcdiv_(a, b)
    assert same is state and np.allclose(state.numpy(), [0.6, 0.9, 1.275])
    assert ember.addcmul(ember.tensor([1, 2]), ember.tensor([3, 4]), ember.tensor([5, 6]), value=2).tolist() == [31, 50]


def test_refusals_as_pytorch():
    ints = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        ember.addcdiv(ints, ints, ints)
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        ember.addcmul(ints, ints, ints, value=0.5)
    with pytest.raises(RuntimeError, match="not supported for complex"):
        ember.deg2rad(ember.tensor([1j]))


def test_clamp_and_angle_conversions():
    x = ember.tensor([-2.0, 0.5, 3.0])
    assert ember.clamp_min(x, 0.0).tolist() == [0.0, 0.5, 3.0] and x.clamp_max(1).tolist() == [-2.0, 0.5, 1.0]
    assert x.clamp_min(ember.tensor([0.0, 1.0, 0.0])).tolist() == [0.0, 1.0, 3.0]
    y = x.clone()
    assert y.clamp_min_(0.0) is y and y.tolist() == [0.0, 0.5, 3.0]
    assert ember.deg2rad(ember.tensor([180])).dtype is ember.float32
    assert ember.rad2deg(ember.deg2rad(ember.tensor([90.0, -45.0], dtype=ember.float64))).tolist() == pytest.approx(
        [90.0, -45.0], rel=1e-15
    )
    assert ember.deg2rad(ember.tensor([180.0], dtype=ember.float64)).item() == math.pi


def test_gradients():
    x, a, b = (ember.tensor(v, dtype=ember.float64, requires_grad=True) for v in ([1.0, 2.0], [0.5, -1.0], [2.0, 3.0]))
    assert gradcheck(lambda x, a, b: ember.addcmul(x, a, b, value=0.3), (x, a, b))
    assert gradcheck(lambda x, a, b: ember.addcdiv(x, a, b, value=-1.5), (x, a, b))
    assert gradcheck(ember.deg2rad, (x,)) and gradcheck(lambda t: ember.clamp_min(t, 1.5), (x,))


@needs_torch
def test_match_torch():
    rng = np.random.default_rng(0)
    x, a, b = (rng.standard_normal(s).astype(np.float32) for s in ((3, 1), (4,), (3, 4)))
    for name, kwargs in (("addcmul", {"value": 0.7}), ("addcdiv", {"value": -0.2})):
        ours = getattr(ember, name)(ember.tensor(x), ember.tensor(a), ember.tensor(b), **kwargs)
        theirs = getattr(torch, name)(torch.tensor(x), torch.tensor(a), torch.tensor(b), **kwargs)
        assert np.allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    for name in ("deg2rad", "rad2deg"):
        assert np.allclose(getattr(ember, name)(ember.tensor(b)).numpy(), getattr(torch, name)(torch.tensor(b)).numpy())
    assert np.array_equal(ember.clamp_max(ember.tensor(b), 0.1).numpy(), torch.clamp_max(torch.tensor(b), 0.1).numpy())
