"""Boxing: the same logical tensor in another layout, with the cheapest collective.

On one mesh dimension (n ranks, D bytes; the last column is what each rank receives):

    S(i) -> S(i)   nothing                  B -> S(i)   local slice            0
    S(i) -> S(j)   all-to-all      ~D/n     B -> P      rank 0 keeps, zeros    0
    S(i) -> B      all-gather      D(n-1)/n S(i) -> P   own slice in zeros     0
    P -> B         all-reduce      2D(n-1)/n
    P -> S(i)      reduce-scatter  D(n-1)/n

An nd-SBP changes one mesh dimension at a time on the sub-groups along it. Where two mesh
dimensions split the same tensor dimension a one-dimension step could cut in the wrong order, so
such a change goes through broadcast: gather from the last mesh dimension to the first, then cut
from the first to the last. A change of placement gathers on the old ranks, and the first of
them sends each new rank its slice (point to point).
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor_numpy import from_numpy
from ...dispatch.sbp import broadcast, split_range
from . import layout
from .global_tensor import GATHER, GlobalTensor, make_global

__all__ = ["BOXING_LOG_LISTENERS", "box", "gather_logical"]


def _arrays(t: GlobalTensor) -> dict:
    return {r: p._numpy_view() for r, p in t._pieces.items()}


def _wrap(arrays: dict, t: GlobalTensor, sbp: tuple, placement=None) -> GlobalTensor:
    # asarray keeps a 0-d piece 0-d (ascontiguousarray would make it 1-d)
    pieces = {r: from_numpy(np.asarray(a, order="C")) for r, a in arrays.items()}
    return make_global(pieces, t._shape, t._dtype, placement or t._placement, sbp, t._world)


def box(t: GlobalTensor, sbp: tuple, placement=None) -> GlobalTensor:
    """``t`` laid out as ``sbp`` (on ``placement``, default its own). Pure value: no autograd."""
    p = t._placement
    if placement is not None and placement != p:
        return _change_placement(t, sbp, placement)
    src = t._sbp
    if src == sbp:
        return t
    changed = [d for d in range(len(sbp)) if src[d] != sbp[d]]
    if len(sbp) > 1 and not _independent(src, sbp, changed):
        return _cut(_gather(t), sbp)
    arrays = _arrays(t)
    current = list(src)
    for d in changed:
        arrays = _step(t, arrays, tuple(current), d, sbp[d])
        current[d] = sbp[d]
    return _wrap(arrays, t, tuple(sbp))


def _independent(src: tuple, dst: tuple, changed: list) -> bool:
    """Whether each changed mesh dim's tensor dims are split by no other mesh dim."""
    for d in changed:
        dims = {e.dim for e in (src[d], dst[d]) if e.is_split}
        for e in range(len(src)):
            if e != d and any(x.is_split and x.dim in dims for x in (src[e], dst[e])):
                return False
    return True


def _gather(t: GlobalTensor) -> GlobalTensor:
    """Every mesh dim to broadcast, the last first (so nested splits come undone in order)."""
    arrays = _arrays(t)
    current = list(t._sbp)
    for d in reversed(range(len(current))):
        if not current[d].is_broadcast:
            arrays = _step(t, arrays, tuple(current), d, broadcast)
            current[d] = broadcast
    return _wrap(arrays, t, tuple(current))


def _cut(t: GlobalTensor, sbp: tuple) -> GlobalTensor:
    """From all-broadcast to ``sbp``, the first mesh dim first (no communication)."""
    arrays = _arrays(t)
    current = list(t._sbp)
    for d in range(len(sbp)):
        if sbp[d] != current[d]:
            arrays = _step(t, arrays, tuple(current), d, sbp[d])
            current[d] = sbp[d]
    return _wrap(arrays, t, tuple(sbp))


def _log(kind: str, d: int, a, b, nbytes: int) -> None:
    if BOXING_LOG_LISTENERS:
        for listener in BOXING_LOG_LISTENERS:
            listener(kind, d, a, b, nbytes)


BOXING_LOG_LISTENERS: list = []  # called with (kind, mesh dim, from, to, bytes) for every step


def _step(t: GlobalTensor, arrays: dict, current: tuple, d: int, to) -> dict:
    """Change mesh dim ``d`` from ``current[d]`` to ``to`` on every hosted sub-group along it."""
    p = t._placement
    world = t._world
    frm = current[d]
    mesh = p.mesh_shape
    out = {}
    for ranks in p.groups_along(d):
        hosted = world.hosted(ranks)
        if not hosted:
            continue
        pieces = {r: arrays[r] for r in hosted}
        nbytes = sum(a.nbytes for a in pieces.values())
        coord = p.coordinate(hosted[0])
        if frm.is_split and to.is_broadcast:
            full = layout.size_above(t._shape, current, mesh, coord, d, frm.dim)
            _log("all_gather", d, frm, to, nbytes)
            got = world.all_gather(pieces, ranks, frm.dim, full)
        elif frm.is_partial and to.is_broadcast:
            _log("all_reduce", d, frm, to, nbytes)
            got = world.all_reduce(pieces, ranks, frm.reduce)
        elif frm.is_partial and to.is_split:
            _log("reduce_scatter", d, frm, to, nbytes)
            got = world.reduce_scatter(pieces, ranks, frm.reduce, to.dim)
        elif frm.is_split and to.is_split:
            full = layout.size_above(t._shape, current, mesh, coord, d, frm.dim)
            _log("all_to_all", d, frm, to, nbytes)
            got = world.all_to_all(pieces, ranks, to.dim, frm.dim, full)
        elif frm.is_broadcast and to.is_split:
            got = {}
            for r in hosted:
                a = pieces[r]
                start, stop = split_range(a.shape[to.dim], len(ranks), ranks.index(r))
                index = [slice(None)] * a.ndim
                index[to.dim] = slice(start, stop)
                got[r] = a[tuple(index)]
        elif to.is_partial and (frm.is_broadcast or frm.is_split):
            got = {}
            for r in hosted:
                got[r] = _to_partial(t, pieces[r], current, d, frm, to, ranks.index(r), coord_of=p.coordinate(r))
        elif frm.is_partial and to.is_partial:  # another reduction: through broadcast
            _log("all_reduce", d, frm, to, nbytes)
            whole = world.all_reduce(pieces, ranks, frm.reduce)
            got = {r: _to_partial(t, whole[r], current, d, broadcast, to, ranks.index(r), p.coordinate(r)) for r in hosted}
        else:
            raise AssertionError(f"boxing: no step from {frm!r} to {to!r}")
        out.update(got)
    return out


def _to_partial(t, a: np.ndarray, current: tuple, d: int, frm, to, index: int, coord_of) -> np.ndarray:
    """A piece of a partial whose reduction over the group gives ``a``'s logical value."""
    if to.reduce in ("max", "min"):
        if frm.is_broadcast:
            return a.copy()  # max(x, x, ...) == x
        fill = _identity(a.dtype, to.reduce)
    else:
        if frm.is_broadcast:
            return a.copy() if index == 0 else np.zeros_like(a)
        fill = 0
    # a split piece: place it in a block of the size above, the rest the reduction's identity
    full = layout.size_above(t._shape, current, t._placement.mesh_shape, coord_of, d, frm.dim)
    shape = list(a.shape)
    shape[frm.dim] = full
    block = np.full(shape, fill, dtype=a.dtype)
    start, stop = split_range(full, t._placement.mesh_shape[d], index)
    where = [slice(None)] * a.ndim
    where[frm.dim] = slice(start, stop)
    block[tuple(where)] = a
    return block


def _identity(dtype: np.dtype, reduce: str):
    if dtype.kind == "b":
        return reduce == "min"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if reduce == "max" else info.max
    return -np.inf if reduce == "max" else np.inf


def _change_placement(t: GlobalTensor, sbp: tuple, placement) -> GlobalTensor:
    """Gather on the old ranks, then the first of them sends each new rank only the slice that
    ``sbp`` gives it (partial entries travel as broadcast and are made partial there, locally)."""
    whole = _gather(t) if t._pieces or t._world.name == "mpi" else t
    world = t._world
    src = t._placement.rank_list()[0]
    dst = placement.rank_list()
    cut = tuple(broadcast if e.is_partial else e for e in sbp)
    mesh = placement.mesh_shape
    slices = {r: layout.piece_slices(tuple(t._shape), cut, mesh, placement.coordinate(r)) for r in dst}
    shapes = {r: layout.piece_shape(tuple(t._shape), cut, mesh, placement.coordinate(r)) for r in dst}
    parts = {}
    if world.hosts(src):
        source = whole._pieces[src]._numpy_view()
        parts = {r: source[slices[r]] for r in dst}
    _log("send", -1, t._placement, placement, sum(int(np.prod(s)) for s in shapes.values()) * t._dtype.itemsize)
    got = world.scatter_to(parts, src, dst, shapes, t._dtype.numpy_dtype)
    pieces = {r: from_numpy(np.asarray(a, order="C")) for r, a in got.items()}
    moved = make_global(pieces, t._shape, t._dtype, placement, cut, world)
    return box(moved, sbp)


def gather_logical(t: GlobalTensor) -> np.ndarray:
    """The whole logical tensor on every rank of the world (a collective)."""
    whole = _gather(t)
    world = t._world
    if world.name == "simulated":
        return np.array(next(iter(whole._pieces.values()))._numpy_view(), copy=True)
    ranks = t._placement.rank_list()
    outside = [r for r in range(world.size) if r not in ranks]
    if outside:
        got = world.copy_to(_arrays(whole), ranks[0], outside, tuple(t._shape), t._dtype.numpy_dtype)
        if world.rank in got:
            return got[world.rank]
    return np.array(whole._pieces[world.rank]._numpy_view(), copy=True)


GATHER[0] = gather_logical
