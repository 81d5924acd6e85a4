"""nansum and nanmean."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import needs_torch, torch

NAN = math.nan


def test_values_skip_nans():
    x = ember.tensor([[1.0, NAN, 3.0], [NAN, NAN, NAN]])
    assert ember.nansum(x).item() == 4.0 and x.nansum(dim=1).tolist() == [4.0, 0.0]
    means = ember.nanmean(x, dim=1).tolist()
    assert means[0] == 2.0 and math.isnan(means[1])
    assert x.nanmean(dim=0, keepdim=True).shape == (1, 3)
    assert ember.nansum(ember.tensor([1, 2], dtype=ember.int32)).dtype is ember.int64
    assert ember.nansum(x, dtype=ember.float64).dtype is ember.float64


def test_refusals():
    with pytest.raises(RuntimeError, match="nansum does not support complex"):
        ember.nansum(ember.tensor([1j]))
    with pytest.raises(RuntimeError, match="expected input to have floating point"):
        ember.nanmean(ember.tensor([1, 2]))


def test_gradient_is_zero_at_nans():
    x = ember.tensor([1.0, NAN, 3.0], dtype=ember.float64, requires_grad=True)
    ember.nanmean(x).backward()
    assert x.grad.tolist() == [0.5, 0.0, 0.5]
    y = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda t: ember.nansum(t * 2), (y,))


@needs_torch
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
def test_match_torch(dim):
    a = np.random.default_rng(1).standard_normal((4, 5))
    a[a > 0.8] = NAN
    for name in ("nansum", "nanmean"):
        ours = getattr(ember, name)(ember.tensor(a), dim=dim)
        theirs = getattr(torch, name)(torch.tensor(a), dim=dim)
        assert np.allclose(ours.numpy(), theirs.numpy(), equal_nan=True)
