"""Boxing in a simulated world: every pair of layouts on 1-D meshes of 1-4 ranks (uneven
sizes, empty pieces, every dtype kind), nd-SBP on 2x2 and 2x3 meshes, placement changes, and
each boxing's gradient against finite differences and against its dual collective.

Each check compares every rank's piece with the slice of the logical NumPy array that the
layout gives it, and the gathered value with the array itself.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from ember.dispatch.sbp import broadcast, partial_max, partial_min, partial_sum, split
from ember.distributed.tensor import box, distribute, layout, simulated_world

ENTRIES_2D = (split(0), split(1), broadcast, partial_sum, partial_max, partial_min)
# the collective each 1-D pair runs (none: a local step)
KIND = {
    ("S", "B"): "all_gather",
    ("P", "B"): "all_reduce",
    ("P", "S"): "reduce_scatter",
    ("S", "S"): "all_to_all",
    ("B", "S"): None,
    ("B", "P"): None,
    ("S", "P"): None,
    ("P", "P"): "all_reduce",
    ("B", "B"): None,
}


def _logical(shape, dtype=np.float64, seed=0) -> np.ndarray:
    values = np.random.RandomState(seed).randint(-9, 10, size=shape)
    return (values > 0) if dtype is np.bool_ else values.astype(dtype)


def _check(t, ref: np.ndarray, sbp: tuple, p) -> None:
    """Every piece has its layout's shape; split/broadcast pieces hold exactly their slice; the
    reduction of partial pieces (checked through the gathered value) gives the logical tensor."""
    assert t.sbp == tuple(sbp) and t.placement == p
    for r in p.rank_list():
        where = layout.piece_slices(ref.shape, sbp, p.mesh_shape, p.coordinate(r))
        piece = t.to_local(rank=r).numpy()
        assert piece.shape == ref[where].shape, (r, piece.shape, ref[where].shape)
        assert piece.dtype == ref.dtype
        if not any(e.is_partial for e in sbp):
            np.testing.assert_array_equal(piece, ref[where])
    np.testing.assert_array_equal(t.numpy(), ref)


def _mesh(shape) -> list:
    return np.arange(int(np.prod(shape))).reshape(shape).tolist()


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("shape", [(5, 3), (2, 7), (1, 3), (0, 2)])
def test_every_pair_1d(n, shape):
    ref = _logical(shape)
    with simulated_world(n) as world:
        p = ember.placement("cpu", list(range(n)))
        for a, b in itertools.product(ENTRIES_2D, repeat=2):
            x = distribute(ember.tensor(ref), p, a)
            _check(x, ref, (a,), p)
            world.counts.clear()
            y = box(x, (b,))
            kind = None if a == b else KIND[(a.kind, b.kind)]
            assert world.counts == ({kind: 1} if kind else {}), (a, b, world.counts)
            _check(y, ref, (b,), p)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.int64, np.uint8, np.bool_])
def test_every_pair_dtypes(dtype):
    ref = _logical((5, 3), dtype)
    entries = [e for e in ENTRIES_2D if not (dtype is np.bool_ and e == partial_sum)]  # a sum of bools is no bool
    with simulated_world(3):
        p = ember.placement("cpu", [0, 1, 2])
        for a, b in itertools.product(entries, repeat=2):
            _check(box(distribute(ember.tensor(ref), p, a), (b,)), ref, (b,), p)


def test_bfloat16_partial_sum_reduces_in_float32():
    ref = _logical((4, 3), np.float32) / 8
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        x = distribute(ember.tensor(ref).to(ember.bfloat16), p, partial_sum)
        np.testing.assert_array_equal(box(x, (broadcast,)).to_local(rank=1).float().numpy(), ref)


def test_non_contiguous_pieces():
    ref = _logical((6, 4))
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        x = distribute(ember.tensor(ref), p, split(0))
        pieces = {r: x.to_local(rank=r).t().contiguous().t() for r in (0, 1)}  # column-major pieces
        assert not pieces[0].is_contiguous()
        from ember.distributed.tensor.global_tensor import make_global

        y = make_global(pieces, ref.shape, x.dtype, p, (split(0),))
        for b in (split(1), broadcast, partial_sum):
            _check(box(y, (b,)), ref, (b,), p)


@pytest.mark.parametrize("mesh", [(2, 2), (2, 3), (3, 2)])
def test_nd_pairs(mesh):
    ref = _logical((5, 7))
    entries = (split(0), split(1), broadcast, partial_sum, partial_max)
    with simulated_world(int(np.prod(mesh))):
        p = ember.placement("cpu", _mesh(mesh))
        for a in itertools.product(entries, repeat=2):
            x = distribute(ember.tensor(ref), p, a)
            _check(x, ref, a, p)
            for b in itertools.product(entries, repeat=2):
                _check(box(x, b), ref, b, p)


def test_nd_changes_one_mesh_dim_on_its_sub_groups():
    ref = _logical((4, 6))
    with simulated_world(4) as world:
        p = ember.placement("cpu", [[0, 1], [2, 3]])
        x = distribute(ember.tensor(ref), p, (split(0), split(1)))
        world.counts.clear()
        y = box(x, (split(0), broadcast))
        assert world.counts == {"all_gather": 2}  # one per row of the mesh
        _check(y, ref, (split(0), broadcast), p)
        world.counts.clear()
        x = distribute(ember.tensor(ref), p, (split(0), split(0)))  # nested cuts of one dim: through broadcast
        world.counts.clear()
        y = box(x, (split(0), split(1)))
        assert world.counts == {"all_gather": 4}  # the rows' dim 1 undone per row, then dim 0 per column
        _check(y, ref, (split(0), split(1)), p)


PLACEMENTS = {
    "one": [0],
    "last": [3],
    "pair": [1, 2],
    "all": [0, 1, 2, 3],
    "reversed": [3, 2, 1, 0],
    "mesh": [[0, 1], [2, 3]],
    "mesh-t": [[0, 2], [1, 3]],
    "disjoint": [2, 3],
}


@pytest.mark.parametrize("src", list(PLACEMENTS))
def test_placement_changes(src):
    ref = _logical((5, 7))
    with simulated_world(4):
        ps = ember.placement("cpu", PLACEMENTS[src])
        for dst, ranks in PLACEMENTS.items():
            pd = ember.placement("cpu", ranks)
            for a, b in itertools.product((split(0), broadcast, partial_sum), (split(1), broadcast, partial_max)):
                x = distribute(ember.tensor(ref), ps, (a,) * ps.ndim)
                y = x.to_global(pd, (b,) * pd.ndim)
                _check(y, ref, (b,) * pd.ndim, pd)
                assert set(y.pieces()) == set(pd.rank_list()), dst


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3])
def test_gradcheck_every_pair_1d(n):
    c = np.random.RandomState(2).randn(5, 4)
    entries = (split(0), split(1), broadcast, partial_sum, partial_max)
    with simulated_world(n):
        p = ember.placement("cpu", list(range(n)))
        weight = distribute(ember.tensor(c), p, broadcast)
        for a, b in itertools.product(entries, repeat=2):

            def f(x, a=a, b=b):
                y = distribute(x, p, a).to_global(sbp=b)
                return (y * weight).to_global(sbp=broadcast).to_local(rank=n - 1)

            x = ember.tensor(np.random.RandomState(1).randn(5, 4), requires_grad=True)
            assert gradcheck(f, (x,)), (a, b)


def test_gradcheck_nd_and_placement_change():
    with simulated_world(4):
        p = ember.placement("cpu", [[0, 1], [2, 3]])
        q = ember.placement("cpu", [3, 1])
        for a, b in [((split(0), split(0)), (split(1), partial_sum)), ((partial_sum, split(1)), (split(0), split(0))),
                     ((broadcast, split(0)), (partial_sum, broadcast))]:  # fmt: skip

            def f(x, a=a, b=b):
                y = distribute(x, p, a).to_global(sbp=b).to_global(q, split(1))
                return (y * y).to_global(sbp=broadcast).to_local(rank=3)

            x = ember.tensor(np.random.RandomState(1).randn(5, 3), requires_grad=True)
            assert gradcheck(f, (x,)), (a, b)


DUALS = [  # forward layout change, the gradient's layout as it arrives, the collective the backward runs
    (split(0), broadcast, partial_sum, "reduce_scatter"),  # all-gather <-> reduce-scatter
    (split(0), broadcast, broadcast, None),  # a broadcast gradient: its slice
    (partial_sum, split(0), split(0), None),  # reduce-scatter's gradient stays split for a partial input
    (broadcast, split(1), split(1), "all_gather"),  # a local slice's dual
    (split(0), split(1), split(1), "all_to_all"),
    (partial_sum, broadcast, broadcast, None),  # all-reduce: identity to partial in backward
    (partial_sum, broadcast, partial_sum, None),
    (broadcast, partial_sum, broadcast, None),
    (broadcast, partial_sum, partial_sum, "all_reduce"),
]


@pytest.mark.parametrize(("a", "b", "grad", "kind"), DUALS)
def test_backward_runs_the_dual(a, b, grad, kind):
    ref, g = _logical((5, 4), seed=1), _logical((5, 4), seed=2)
    with simulated_world(2) as world:
        p = ember.placement("cpu", [0, 1])
        x = distribute(ember.tensor(ref), p, a).detach().requires_grad_()
        y = x.to_global(sbp=b)
        gy = distribute(ember.tensor(g), p, grad)
        world.counts.clear()
        (gx,) = ember.autograd.grad(y, x, gy)  # not .backward(): accumulating into .grad clones, and clone has no SBP rule yet
        assert world.counts == ({kind: 1} if kind else {}), world.counts
        assert gx.placement == p
        assert gx.sbp == ((grad,) if a.is_partial else (a,))  # a partial input's gradient keeps the layout it comes with
        np.testing.assert_array_equal(gx.numpy(), g)


def test_grad_sbp_names_the_gradient_layout():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        x = distribute(ember.tensor(_logical((4, 3))), p, split(0)).detach().requires_grad_()
        y = x.to_global(sbp=broadcast, grad_sbp=partial_sum)
        (gx,) = ember.autograd.grad(y, x, distribute(ember.ones(4, 3, dtype=ember.float64), p, broadcast))
        assert gx.sbp == (partial_sum,)
        np.testing.assert_array_equal(gx.numpy(), np.ones((4, 3)))


def test_to_local_and_from_local_gradients():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        local = ember.tensor(_logical((2, 3)), requires_grad=True)
        # A simulated world hands the one local tensor to both ranks: its gradient is the sum of
        # the ranks' gradients. Each rank's is its piece of the global gradient, a partial's the
        # whole of it (the logical value is the pieces' sum), a broadcast's the whole of it too
        # (OneFlow's rule: every copy learns, as data parallelism needs).
        c = _logical((4, 3), seed=3)
        for sbp in (split(0), broadcast, partial_sum):
            local.grad = None
            g = local.to_global(p, sbp)
            weight = distribute(ember.tensor(c[: g.shape[0]]), p, broadcast)
            (g * weight).to_global(sbp=broadcast).to_local(rank=0).sum().backward()
            grad = c[:4].reshape(2, 2, 3).sum(0) if sbp.is_split else 2 * c[:2]
            np.testing.assert_array_equal(local.grad.numpy(), grad)
