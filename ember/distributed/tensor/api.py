"""``to_global``, ``to_local`` and ``distribute``: into, out of and between layouts, each
differentiable with its dual as backward.

- ``local.to_global(placement, sbp)``: the local tensor is this rank's piece (for broadcast, the
  same value on every rank, compared in EMBER_DISTRIBUTED_DEBUG=DETAIL mode). Under MPI the
  pieces' shapes are exchanged and checked on every rank (``check_meta``), so a bad piece raises
  everywhere. Its gradient is the rank's piece of the global gradient (a partial's piece and a
  broadcast's get the whole of it), or laid out as ``grad_sbp`` when given.
- ``global.to_global(placement, sbp)``: boxing (``boxing.py``). The gradient is boxed back to the
  input's layout, which runs each collective's dual (all-gather <-> reduce-scatter, local slice
  <-> all-gather, all-to-all <-> all-to-all); where the input was partial it stays as it comes
  (P -> B's backward is the identity: any layout of the same logical gradient is right, and this
  one costs nothing); ``grad_sbp=`` names the gradient's layout instead (OneFlow's argument).
- ``global.to_local()``: the piece. Its gradient comes back with the same layout, except that a
  broadcast's comes back partial-sum (each rank's use of its copy adds to the logical gradient).
- ``distribute(tensor, placement, sbp)``: every rank has the whole logical tensor and keeps its
  own slice (no communication); PyTorch DTensor's ``distribute_tensor``.
"""

from __future__ import annotations

import numpy as np

from ..._core import tensor as _tensor_module
from ..._core.tensor import Tensor
from ..._core.tensor_numpy import from_numpy
from ...autograd.function import Function
from ...dispatch import sbp as _sbp
from ...dispatch.sbp import broadcast, partial_sum
from . import layout
from .boxing import box
from .comm import current_world
from .global_tensor import GlobalTensor, check_placement, from_pieces, make_global
from .interpreter import activate

__all__ = ["distribute", "to_global", "to_local"]


def _start(fn: str):
    world = current_world()
    activate()
    return world


class _Box(Function):
    """Boxing is the identity on the logical value, so the backward boxes the gradient back to
    the input's placement and layout, which makes each collective's dual run: an all-gather's
    gradient arrives partial and is reduce-scattered, a local slice's is all-gathered. Where
    the input was partial its gradient keeps the layout it comes with on that mesh dim (P -> B's
    backward is the identity, B -> P's too). ``grad_sbp`` names the gradient's layout instead."""

    @staticmethod
    def forward(ctx, x, placement, sbp, grad_sbp):
        ctx.src = (x._placement, x._sbp, grad_sbp)
        out = box(x, sbp, placement)
        return out.__copy__() if out is x else out  # a new tensor: autograd must not alias the input

    @staticmethod
    def backward(ctx, g):
        placement, sbp, grad_sbp = ctx.src
        if grad_sbp is not None:
            target = grad_sbp
        elif g._placement == placement:
            target = tuple(g._sbp[d] if e.is_partial else e for d, e in enumerate(sbp))
        else:
            target = tuple(broadcast if e.is_partial else e for e in sbp)
        return box(g, target, placement), None, None, None


class _FromLocal(Function):
    """The local tensor is this rank's piece. Its gradient is this rank's piece of the global
    gradient laid out as the forward's sbp, except that a partial's piece gets the whole
    gradient (broadcast: the logical value is the sum of the pieces, so each piece's derivative
    is the gradient itself), or as ``grad_sbp`` when given."""

    @staticmethod
    def forward(ctx, x, placement, sbp, shape, world, grad_sbp):
        ctx.sbp = grad_sbp if grad_sbp is not None else tuple(broadcast if e.is_partial else e for e in sbp)
        pieces = {r: x.detach() for r in world.hosted(placement.rank_list())}
        return from_pieces(pieces, shape, x._dtype, placement, sbp, world, "to_global")

    @staticmethod
    def backward(ctx, g):
        g = box(g, ctx.sbp)
        pieces = list(g._pieces.values())
        if not pieces:
            return None, None, None, None, None, None
        total = pieces[0]
        for p in pieces[1:]:  # a simulated world hands one local tensor to every rank: its gradient is their sum
            total = total + p
        return total, None, None, None, None, None


class _ToLocal(Function):
    @staticmethod
    def forward(ctx, x, rank):
        ctx.meta = (x._shape, x._dtype, x._placement, x._sbp, x._world, rank)
        return x._piece(rank).detach()

    @staticmethod
    def backward(ctx, g):
        shape, dtype, placement, sbp, world, rank = ctx.meta
        grad_sbp = tuple(partial_sum if e.is_broadcast else e for e in sbp)
        pieces = {}
        for r in world.hosted(placement.rank_list()):
            want = layout.piece_shape(shape, grad_sbp, placement.mesh_shape, placement.coordinate(r))
            if rank is None or r == rank:
                pieces[r] = g
            else:
                pieces[r] = from_numpy(np.zeros(want, dtype.numpy_dtype))
        return make_global(pieces, shape, dtype, placement, grad_sbp, world), None


def to_global(self: Tensor, placement=None, sbp=None, *, shape=None, grad_sbp=None, check_meta: bool = True) -> GlobalTensor:
    """This tensor as a global tensor on ``placement`` with layout ``sbp`` (see the module).

    >>> import ember
    >>> from ember.distributed.tensor import simulated_world
    >>> with simulated_world(2):
    ...     p = ember.placement("cpu", [0, 1])
    ...     x = ember.arange(4.0).to_global(p, ember.sbp.broadcast).to_global(sbp=ember.sbp.split(0))
    ...     x.to_local(rank=1).tolist(), x.to_global(sbp=ember.sbp.partial_sum).to_local(rank=1).tolist()
    ([2.0, 3.0], [0.0, 0.0, 2.0, 3.0])
    """
    world = _start("to_global")
    if type(self) is GlobalTensor:
        src = self._placement
        placement = src if placement is None else check_placement(placement, world, "to_global")
        if sbp is None and placement.ndim != src.ndim:
            raise ValueError(
                f"to_global(): the new placement's mesh has {placement.ndim} dimension(s), the tensor's {src.ndim}: pass sbp="
            )
        sbp = self._sbp if sbp is None else _sbp.normalize(sbp, placement.ndim, self.ndim, "to_global")
        if grad_sbp is not None:
            grad_sbp = _sbp.normalize(grad_sbp, src.ndim, self.ndim, "to_global (grad_sbp)")
        return _Box.apply(self, placement, sbp, grad_sbp)
    if placement is None or sbp is None:
        raise TypeError("to_global(): a local tensor needs both placement= and sbp=")
    placement = check_placement(placement, world, "to_global")
    sbp = _sbp.normalize(sbp, placement.ndim, self.ndim, "to_global")
    if grad_sbp is not None:
        grad_sbp = _sbp.normalize(grad_sbp, placement.ndim, self.ndim, "to_global (grad_sbp)")
    if shape is not None:
        shape = tuple(int(s) for s in shape)
    if world.name == "mpi" and (shape is None or check_meta):
        shape = _check_local_meta(self, placement, sbp, world, shape)
    elif shape is None:
        shape = _logical_shape(self, placement, sbp)
    return _FromLocal.apply(self, placement, sbp, shape, world, grad_sbp)


def _logical_shape(local: Tensor, placement, sbp: tuple) -> tuple:
    """In a simulated world every rank's piece is the one local tensor: a split dim is that
    size times the ranks along its mesh dims."""
    shape = list(local._shape)
    for d, e in enumerate(sbp):
        if e.is_split:
            shape[e.dim] *= placement.mesh_shape[d]
    return tuple(shape)


def _check_local_meta(local: Tensor, placement, sbp: tuple, world, shape) -> tuple:
    """Under MPI: exchange every rank's piece shape and dtype (a collective of the whole world),
    find the logical shape (a split dim's size is the sum along its mesh dim, the first sub-group
    of each), and check every placement rank's piece against it, so that every rank raises the
    same error instead of some going on into a collective alone. In DETAIL debug mode the
    pieces of a broadcast must also be equal (their digests are compared)."""
    from .. import debug
    from ..objects import all_gather_object

    detail = debug.get_debug_level() is debug.DebugLevel.DETAIL and any(e.is_broadcast for e in sbp)
    digest = _digest(local) if detail and world.rank in placement.rank_list() else None
    everyone: list = [None] * world.size
    all_gather_object(everyone, (tuple(local._shape), local._dtype.name, digest))
    ranks = placement.rank_list()
    first = everyone[ranks[0]]
    for r in ranks:
        if len(everyone[r][0]) != len(first[0]) or everyone[r][1] != first[1]:
            raise ValueError(
                f"to_global(): the local tensors differ in rank or dtype across {placement!r}: "
                + ", ".join(f"rank {q} has {list(everyone[q][0])} {everyone[q][1]}" for q in ranks)
            )
    if shape is None:
        shape = list(first[0])
        for d, e in enumerate(sbp):
            if e.is_split:
                shape[e.dim] = sum(everyone[r][0][e.dim] for r in placement.ranks_along(d, ranks[0]))
        shape = _nested_total(shape, first[0], sbp, placement, everyone)
    shape = tuple(shape)
    wrong = []
    for r in ranks:
        want = layout.piece_shape(shape, sbp, placement.mesh_shape, placement.coordinate(r))
        if tuple(everyone[r][0]) != want:
            wrong.append(f"rank {r} has {list(everyone[r][0])}, expected {list(want)}")
    if wrong:
        raise ValueError(
            f"to_global(): the local pieces do not lay out a {list(shape)} tensor as {tuple(e.short() for e in sbp)} over "
            f"{placement!r} (uneven splits put the larger pieces first): " + "; ".join(wrong)
        )
    if detail:
        for d, e in enumerate(sbp):
            if not e.is_broadcast:
                continue
            for group in placement.groups_along(d):
                digests = {r: everyone[r][2] for r in group}
                if len(set(digests.values())) > 1:
                    raise ValueError(
                        f"to_global(): sbp {e!r} on mesh dim {d} needs the same local tensor on ranks {group}, but they differ "
                        f"(EMBER_DISTRIBUTED_DEBUG=DETAIL compares them; digests {digests})"
                    )
    return shape


def _nested_total(shape: list, local_shape, sbp: tuple, placement, everyone: list) -> list:
    """A tensor dim split by several mesh dims: its size is the sum over every rank that shares
    no coordinate on the other mesh dims (the first rank of each nested cut)."""
    for dim in {e.dim for e in sbp if e.is_split}:
        splitting = [d for d, e in enumerate(sbp) if e.is_split and e.dim == dim]
        if len(splitting) < 2:
            continue
        total = 0
        for r in placement.rank_list():
            coord = placement.coordinate(r)
            if all(coord[d] == 0 for d in range(placement.ndim) if d not in splitting):
                total += everyone[r][0][dim]
        shape[dim] = total
    return shape


def _digest(t: Tensor) -> str:
    import hashlib

    return hashlib.blake2b(np.ascontiguousarray(t._numpy_view()).tobytes(), digest_size=8).hexdigest()


def to_local(self: Tensor, rank: int | None = None) -> Tensor:
    """This rank's piece of a global tensor (a local tensor is returned as it is)."""
    if type(self) is not GlobalTensor:
        return self
    return _ToLocal.apply(self, rank)


class _Distribute(Function):
    @staticmethod
    def forward(ctx, x, placement, sbp, world):
        ctx.sbp = sbp
        array = x._numpy_view()
        pieces = {}
        for r in world.hosted(placement.rank_list()):
            where = layout.piece_slices(tuple(x._shape), sbp, placement.mesh_shape, placement.coordinate(r))
            piece = np.array(array[where], copy=True, order="C")  # its own memory: pieces never alias each other or the source
            for d, e in enumerate(sbp):  # a partial: rank 0 of that mesh dim keeps the value
                if e.is_partial and placement.coordinate(r)[d] != 0:
                    piece = np.zeros_like(piece) if e.reduce == "sum" else piece
            pieces[r] = from_numpy(piece)
        return make_global(pieces, tuple(x._shape), x._dtype, placement, sbp, world)

    @staticmethod
    def backward(ctx, g):
        whole = box(g, (broadcast,) * len(ctx.sbp))
        piece = next(iter(whole._pieces.values()), None)
        return (piece.clone() if piece is not None else None), None, None, None


def distribute(tensor: Tensor, placement, sbp) -> GlobalTensor:
    """The whole logical ``tensor`` (the same on every rank) laid out as ``sbp``: each rank keeps
    its slice."""
    world = _start("distribute")
    if type(tensor) is GlobalTensor:
        raise TypeError("distribute(): the tensor is already global: use .to_global(placement, sbp) to change its layout")
    placement = check_placement(placement, world, "distribute")
    sbp = _sbp.normalize(sbp, placement.ndim, tensor.ndim, "distribute")
    return _Distribute.apply(tensor, placement, sbp, world)


TENSOR_METHODS = {"to_global": to_global, "to_local": to_local}


def _global_tensor(whole: Tensor, placement, sbp) -> GlobalTensor:
    """``ember.tensor(data, placement=, sbp=)``: the whole value, distributed (no communication)."""
    return distribute(whole, placement, sbp)


_tensor_module.GLOBAL_TENSOR[0] = _global_tensor
