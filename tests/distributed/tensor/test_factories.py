"""Factories with ``placement=``/``sbp=`` and the random ``*_like`` of global tensors, in a
simulated world: every layout (uneven splits included) gives the local factory's logical value,
and the random ones the same values for the same seed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
from ember.dispatch.sbp import broadcast, partial_max, partial_sum, split
from ember.distributed.tensor import layout, simulated_world

SHAPE = (5, 3)  # uneven over 2 and over 3 ranks
ENTRIES = (split(0), split(1), broadcast, partial_sum, partial_max)
MESHES = {2: [0, 1], 3: [0, 1, 2], 4: [[0, 1], [2, 3]]}
LAYOUTS = [(n, (e,)) for n in (2, 3) for e in ENTRIES] + [(4, s) for s in itertools.product(ENTRIES, repeat=2)]


def _ids(case) -> str:
    n, sbp = case
    return f"{n}-" + "x".join(repr(e) for e in sbp)


def _factories():
    """(name, local call, global call) with the same arguments."""
    return {
        "zeros": lambda **kw: ember.zeros(*SHAPE, **kw),
        "ones": lambda **kw: ember.ones(SHAPE, dtype=ember.float64, **kw),
        "full": lambda **kw: ember.full(SHAPE, 7, **kw),
        "rand": lambda **kw: ember.rand(*SHAPE, **kw),
        "randn": lambda **kw: ember.randn(SHAPE, dtype=ember.float64, **kw),
        "randint": lambda **kw: ember.randint(-4, 9, SHAPE, **kw),
    }


def _check_pieces(g, world_n: int, sbp: tuple, want: np.ndarray) -> None:
    """Each rank's piece is its slice of ``want`` (a partial sum: the value on the first rank)."""
    p = g.placement
    for rank in range(world_n):
        coord = p.coordinate(rank)
        piece = g.to_local(rank=rank).numpy()
        expected = want[layout.piece_slices(want.shape, sbp, p.mesh_shape, coord)]
        if any(e == partial_sum and c != 0 for e, c in zip(sbp, coord, strict=True)):
            expected = np.zeros_like(expected)
        np.testing.assert_array_equal(piece, expected)


@pytest.mark.parametrize("case", LAYOUTS, ids=_ids)
@pytest.mark.parametrize("name", ["zeros", "ones", "full", "rand", "randn", "randint"])
def test_factory_matches_local_factory(case, name):
    n, sbp = case
    make = _factories()[name]
    ember.manual_seed(11)
    local = make().numpy()
    after_local = ember.rand(2).numpy()  # the generator's position after the local factory
    with simulated_world(n):
        p = ember.placement("cpu", MESHES[n])
        ember.manual_seed(11)
        g = make(placement=p, sbp=sbp)
        after_global = ember.rand(2).numpy()
        assert g.is_global and tuple(g.shape) == SHAPE and g.dtype == ember.tensor(local).dtype
        assert g.sbp == sbp
        np.testing.assert_array_equal(g.numpy(), local)
        _check_pieces(g, n, sbp, local)
    np.testing.assert_array_equal(after_global, after_local)  # the stream advanced as the local one did


@pytest.mark.parametrize("case", LAYOUTS, ids=_ids)
def test_arange_and_empty(case):
    n, sbp = case
    sbp1 = tuple(split(0) if e.is_split else e for e in sbp)  # arange is 1-D
    with simulated_world(n):
        p = ember.placement("cpu", MESHES[n])
        g = ember.arange(1, 12, 2, placement=p, sbp=sbp1)
        np.testing.assert_array_equal(g.numpy(), ember.arange(1, 12, 2).numpy())
        _check_pieces(g, n, sbp1, ember.arange(1, 12, 2).numpy())
        e = ember.empty(SHAPE, dtype=ember.int32, placement=p, sbp=sbp)
        assert tuple(e.shape) == SHAPE and e.dtype == ember.int32
        for rank in range(n):
            want = layout.piece_shape(SHAPE, sbp, p.mesh_shape, p.coordinate(rank))
            assert tuple(e.to_local(rank=rank).shape) == want


@pytest.mark.parametrize(
    "case", [(2, (split(0),)), (3, (split(1),)), (4, (split(0), partial_sum)), (4, (broadcast, split(1)))], ids=_ids
)
@pytest.mark.parametrize("name", ["rand_like", "randn_like"])
def test_random_like_of_a_global_tensor(case, name):
    n, sbp = case
    fn = getattr(ember, name)
    ember.manual_seed(5)
    want = fn(ember.zeros(SHAPE)).numpy()
    with simulated_world(n):
        p = ember.placement("cpu", MESHES[n])
        x = ember.zeros(SHAPE, placement=p, sbp=sbp)
        ember.manual_seed(5)
        g = fn(x)
        assert g.placement == p and g.sbp == tuple(broadcast if e.is_partial else e for e in sbp)
        np.testing.assert_array_equal(g.numpy(), want)


def test_requires_grad_gives_a_differentiable_leaf():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        w = ember.randn(4, 3, placement=p, sbp=split(0), requires_grad=True)
        assert w.requires_grad and w.is_leaf
        (w * w).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), 2 * w.detach().numpy(), rtol=1e-6)


def test_bad_arguments_name_the_factory():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        with pytest.raises(TypeError, match=r"zeros\(\).*sbp= is missing"):
            ember.zeros(3, placement=p)
        with pytest.raises(TypeError, match=r"randn\(\).*placement= is missing"):
            ember.randn(3, sbp=split(0))
        with pytest.raises(ValueError, match=r"ones\(\).*splits dim 2"):
            ember.ones(3, 2, placement=p, sbp=split(2))
        with pytest.raises(TypeError, match=r"full\(\).*placement"):
            ember.full((2,), 1.0, placement=[0, 1], sbp=broadcast)


def test_local_calls_are_unchanged():
    ember.manual_seed(2)
    a = ember.randn(3, 2)
    ember.manual_seed(2)
    b = ember.randn(3, 2, placement=None, sbp=None)
    assert not b.is_global
    np.testing.assert_array_equal(a.numpy(), b.numpy())
