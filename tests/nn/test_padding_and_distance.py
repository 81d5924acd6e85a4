"""The padding layers, CosineSimilarity, PairwiseDistance and the upsampling layers."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests._oracle import needs_torch, torch

PADS = [
    ("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 0, 2, 1),)), ("ZeroPad3d", (1,)),
    ("ConstantPad1d", ((1, 2), 3.5)), ("ConstantPad2d", (1, -1.0)), ("ConstantPad3d", ((1, 0, 0, 1, 1, 0), 2.0)),
    ("ReflectionPad1d", (2,)), ("ReflectionPad2d", ((1, 1, 2, 0),)), ("ReflectionPad3d", (1,)),
    ("ReplicationPad1d", ((3, 1),)), ("ReplicationPad2d", (2,)), ("ReplicationPad3d", (1,)),
    ("CircularPad1d", (1,)), ("CircularPad2d", ((1, 2, 0, 1),)), ("CircularPad3d", (1,)),
]  # fmt: skip


def _input(name: str) -> np.ndarray:
    dims = int(name[-2])
    return np.arange(2 * 3**dims, dtype=np.float32).reshape((1, 2) + (3,) * dims)


def test_padding_values_without_torch():
    x = ember.tensor([[[1.0, 2.0, 3.0]]])
    assert nn.ZeroPad1d((1, 2))(x).tolist() == [[[0.0, 1.0, 2.0, 3.0, 0.0, 0.0]]]
    assert nn.ConstantPad1d(1, 9.0)(x).tolist() == [[[9.0, 1.0, 2.0, 3.0, 9.0]]]
    assert nn.ReplicationPad1d(2)(x).tolist() == [[[1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0]]]
    assert nn.CircularPad1d(1)(x).tolist() == [[[3.0, 1.0, 2.0, 3.0, 1.0]]]
    assert repr(nn.ConstantPad2d(1, 0.5)) == "ConstantPad2d(padding=(1, 1, 1, 1), value=0.5)"
    with pytest.raises(ValueError, match="ZeroPad2d: padding must be an int or a tuple of 4 ints"):
        nn.ZeroPad2d((1, 2))
    y = ember.tensor([[[1.0, 2.0, 3.0]]], requires_grad=True)
    nn.ReflectionPad1d(1)(y).sum().backward()
    assert y.grad.tolist() == [[[1.0, 3.0, 1.0]]]


def test_similarity_and_upsampling_layers():
    a, b = ember.tensor([[1.0, 0.0], [0.0, 2.0]]), ember.tensor([[1.0, 1.0], [0.0, 3.0]])
    assert nn.CosineSimilarity()(a, b).tolist() == pytest.approx([2**-0.5, 1.0])
    assert nn.PairwiseDistance(p=1.0, eps=0.0)(a, b).tolist() == [1.0, 1.0]
    assert nn.PairwiseDistance(keepdim=True)(a, b).shape == (2, 1)
    x = ember.arange(4.0).view(1, 1, 2, 2)
    assert nn.UpsamplingNearest2d(scale_factor=2)(x)[0, 0, :, 0].tolist() == [0.0, 0.0, 2.0, 2.0]
    assert nn.UpsamplingBilinear2d(size=(3, 3))(x)[0, 0, 1].tolist() == [1.0, 1.5, 2.0]  # align_corners=True
    assert nn.Upsample(size=5)(ember.ones(1, 1, 2)).shape == (1, 1, 5)


@needs_torch
@pytest.mark.parametrize(("name", "args"), PADS, ids=[p[0] for p in PADS])
def test_padding_matches_torch(name, args):
    x = _input(name)
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert np.array_equal(ours(ember.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy())
    assert repr(ours) == repr(theirs)


@needs_torch
def test_similarity_and_upsampling_match_torch():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 2, 4, 3)).astype(np.float32)
    for ours, theirs in (
        (nn.CosineSimilarity(dim=2), torch.nn.CosineSimilarity(dim=2)),
        (nn.PairwiseDistance(p=3.0), torch.nn.PairwiseDistance(p=3.0)),
    ):
        assert np.allclose(
            ours(ember.tensor(a), ember.tensor(b)).numpy(), theirs(torch.tensor(a), torch.tensor(b)).numpy(), rtol=1e-5
        )
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    for make in (
        lambda m: m.Upsample(scale_factor=2, mode="bilinear"),
        lambda m: m.Upsample(size=(5, 7), mode="nearest"),
        lambda m: m.UpsamplingBilinear2d(scale_factor=2),
        lambda m: m.UpsamplingNearest2d(size=(6, 8)),
    ):
        ours, theirs = make(nn), make(torch.nn)
        assert np.allclose(ours(ember.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), atol=1e-6)
        assert repr(ours) == repr(theirs)
