"""nn.Upsample and its fixed-mode forms hold F.interpolate's options."""

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from tests._oracle import require_torch


def test_upsample_is_interpolate():
    x = ember.arange(12.0).reshape(1, 1, 3, 4)
    np.testing.assert_array_equal(nn.Upsample(scale_factor=2)(x).numpy(), F.interpolate(x, scale_factor=2.0).numpy())
    np.testing.assert_array_equal(
        nn.UpsamplingBilinear2d(size=(5, 7))(x).numpy(),
        F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True).numpy(),
    )
    assert nn.Upsample(scale_factor=2)(ember.tensor([[[1.0, 2.0]]])).tolist() == [[[1.0, 1.0, 2.0, 2.0]]]
    up = nn.Upsample(scale_factor=(2, 3), mode="bilinear")
    assert up.scale_factor == (2.0, 3.0) and up(x).shape == (1, 1, 6, 12)
    assert repr(up) == "Upsample(scale_factor=(2.0, 3.0), mode='bilinear')"
    assert repr(nn.UpsamplingNearest2d(size=4)) == "UpsamplingNearest2d(size=4, mode='nearest')"
    assert nn.Upsample(size=3).scale_factor is None and list(nn.Upsample(size=3).parameters()) == []


def test_upsample_errors_come_from_interpolate():
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        nn.Upsample()(ember.zeros(1, 1, 2, 2))


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Upsample(scale_factor=2),
        lambda nn: nn.Upsample(size=(7, 9), mode="bilinear"),
        lambda nn: nn.Upsample(scale_factor=(1.5, 2), mode="bicubic", align_corners=True),
        lambda nn: nn.UpsamplingNearest2d(scale_factor=3),
        lambda nn: nn.UpsamplingBilinear2d(size=6),
    ],
)
def test_upsample_matches_torch(make):
    torch = require_torch()
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    ours, theirs = make(nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(ember.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-6)
