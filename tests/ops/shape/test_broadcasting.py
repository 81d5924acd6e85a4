"""broadcast_tensors and atleast_1d/2d/3d."""

from __future__ import annotations

import pytest

import ember
from tests._oracle import needs_torch, torch


def test_broadcast_tensors_gives_views_of_one_shape():
    a, b = ember.tensor([[1], [2]]), ember.tensor([3, 4, 5])
    out = ember.broadcast_tensors([a, b])
    assert isinstance(out, tuple) and [tuple(t.shape) for t in out] == [(2, 3), (2, 3)]
    assert out[1].untyped_storage() is b.untyped_storage() and out[0].tolist() == [[1, 1, 1], [2, 2, 2]]
    with pytest.raises(RuntimeError, match="broadcast"):
        ember.broadcast_tensors([ember.zeros(2), ember.zeros(3)])


def test_atleast():
    s = ember.tensor(1.0)
    assert ember.atleast_1d(s).shape == (1,) and ember.atleast_2d(s).shape == (1, 1) and ember.atleast_3d(s).shape == (1, 1, 1)
    v = ember.tensor([1, 2])
    assert ember.atleast_2d(v).shape == (1, 2) and ember.atleast_3d(v).shape == (1, 2, 1)
    assert ember.atleast_3d(ember.zeros(2, 3)).shape == (2, 3, 1) and ember.atleast_1d(v) is v
    assert [t.shape for t in ember.atleast_2d([s, v])] == [(1, 1), (1, 2)]


@needs_torch
def test_match_torch():
    shapes = [(3, 1, 2), (4, 1), ()]
    ours = ember.broadcast_tensors([ember.zeros(s) for s in shapes])
    theirs = torch.broadcast_tensors(*[torch.zeros(s) for s in shapes])
    assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
    for n in (1, 2, 3):
        for s in shapes:
            assert tuple(getattr(ember, f"atleast_{n}d")(ember.zeros(s)).shape) == tuple(
                getattr(torch, f"atleast_{n}d")(torch.zeros(s)).shape
            )
