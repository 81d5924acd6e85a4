"""Placements and SBP tuples: value semantics and the errors for bad input (simulated worlds)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.dispatch.sbp import broadcast, partial_sum, split
from ember.distributed.tensor import distribute, simulated_world


def test_equality_hashing_and_repr():
    a = ember.placement("cpu", [[0, 1], [2, 3]])
    same = ember.placement("cpu", np.array([[0, 1], [2, 3]]))
    flat = ember.placement("cpu", [0, 1, 2, 3])
    assert a == same and hash(a) == hash(same) and len({a, same, flat}) == 2
    assert a != flat and a != ember.placement("cpu", [[0, 2], [1, 3]]) and a != "cpu"
    assert {a: 1}[same] == 1
    assert repr(a) == "placement(type='cpu', ranks=[[0, 1], [2, 3]])"
    assert eval(repr(flat), {"placement": ember.placement}) == flat
    assert (a.mesh_shape, a.ndim, a.size, a.rank_list()) == ((2, 2), 2, 4, [0, 1, 2, 3])
    assert a.coordinate(2) == (1, 0) and a.coordinate(7) is None
    assert a.ranks_along(0, 3) == [1, 3] and a.ranks_along(1, 3) == [2, 3]
    assert a.groups_along(0) == [[0, 2], [1, 3]] and a.groups_along(1) == [[0, 1], [2, 3]]


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (("gpu", [0]), ValueError, "type must be one of"),
        (("cpu", None), TypeError, "ranks is required"),
        (("cpu", []), ValueError, "non-empty"),
        (("cpu", [[0, 1], [2]]), ValueError, "rectangular"),
        (("cpu", [0, -1]), ValueError, "non-negative"),
        (("cpu", [0, True]), ValueError, "non-negative ints"),
        (("cpu", [0, 1.0]), ValueError, "non-negative ints"),
        (("cpu", [0, 1, 0]), ValueError, "distinct"),
    ],
)
def test_bad_placements(args, error, match):
    with pytest.raises(error, match=match):
        ember.placement(*args)


def test_ranks_outside_the_world():
    p = ember.placement("cpu", [0, 1, 2])  # no world yet (a plain python): checked where it is used
    with simulated_world(2):
        with pytest.raises(
            ValueError, match=r"placement\(\): .*names rank\(s\) \[2, 3\], but the world has 2 process\(es\) \(ranks 0-1\)"
        ):
            ember.placement("cpu", [[0, 1], [2, 3]])  # inside a world: checked at once
        with pytest.raises(ValueError, match=r"distribute\(\): .*names rank\(s\) \[2\], but the world has 2 process\(es\)"):
            distribute(ember.ones(3), p, split(0))
        x = distribute(ember.ones(3), ember.placement("cpu", [0, 1]), split(0))
        with pytest.raises(ValueError, match=r"to_global\(\): .*names rank\(s\) \[2\]"):
            x.to_global(p, broadcast)


@pytest.mark.parametrize(
    ("sbp", "error", "match"),
    [
        ((split(0), broadcast), ValueError, r"sbp has 2 entries .* mesh has 1 dimension"),
        ((), ValueError, "sbp has 0 entries"),
        ("S(0)", TypeError, "sbp must be an sbp"),
        ((split(0), "B"), TypeError, "sbp must be an sbp"),
        (split(2), ValueError, r"splits dim 2, but the tensor has 2 dimension"),
    ],
)
def test_bad_sbp(sbp, error, match):
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        with pytest.raises(error, match=match):
            distribute(ember.ones(3, 2), p, sbp)
        x = distribute(ember.ones(3, 2), p, broadcast)
        with pytest.raises(error, match=match):
            x.to_global(sbp=sbp)
        with pytest.raises(error, match=match):
            ember.ones(3, 2).to_global(p, sbp)


def test_bad_split_and_other_calls():
    with pytest.raises(ValueError, match=r"sbp.split\(\): dim must be a non-negative int, got -1"):
        split(-1)
    with simulated_world(4):
        p = ember.placement("cpu", [[0, 1], [2, 3]])
        x = distribute(ember.ones(4), ember.placement("cpu", [0, 1]), split(0))
        with pytest.raises(ValueError, match=r"mesh has 2 dimension.*pass sbp="):
            x.to_global(p)
        with pytest.raises(TypeError, match="needs both placement= and sbp="):
            ember.ones(2).to_global(p)
        with pytest.raises(TypeError, match="already global"):
            distribute(x, p, (broadcast, broadcast))
        with pytest.raises(TypeError, match=r"placement must be an ember\.placement, got list"):
            ember.ones(2).to_global([0, 1], split(0))


def test_wrong_piece_shape_for_to_global():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        with pytest.raises(
            ValueError, match=r"rank 0's piece has shape \[2, 3\], but .* of a \[5, 3\] tensor .* gives it \[3, 3\]"
        ):
            ember.ones(2, 3).to_global(p, split(0), shape=(5, 3))
        y = ember.ones(3, 3).to_global(p, split(0), shape=(6, 3))
        assert y.shape == (6, 3)
        assert ember.ones(3, 3).to_global(p, split(1)).shape == (3, 6)  # no shape: the pieces' sizes add up
        assert ember.ones(3, 3).to_global(p, partial_sum).shape == (3, 3)


def test_ranks_outside_the_placement_hold_nothing():
    with simulated_world(4):
        p = ember.placement("cpu", [1, 2])
        x = distribute(ember.arange(5.0), p, split(0))
        assert sorted(x.pieces()) == [1, 2]
        assert x.to_local(rank=0).shape == (0,) and x.to_local(rank=3).numel() == 0
        assert x.to_local(rank=2).tolist() == [3.0, 4.0]
        with pytest.raises(ValueError, match="simulated world: pass rank="):
            x.to_local()
