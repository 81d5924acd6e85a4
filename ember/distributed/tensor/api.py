"""``to_global``, ``to_local`` and ``distribute``: into, out of and between layouts, each
differentiable with its dual as backward.

- ``local.to_global(placement, sbp)``: the local tensor is this rank's piece (for broadcast, the
  same value on every rank). Its gradient is the rank's piece of the global gradient.
- ``global.to_global(placement, sbp)``: boxing (``boxing.py``). The gradient is boxed back to the
  input's layout; where the input was partial it stays as it comes (any layout of the same
  logical gradient is right, and this one costs nothing).
- ``global.to_local()``: the piece. Its gradient comes back with the same layout, except that a
  broadcast's comes back partial-sum (each rank's use of its copy adds to the logical gradient).
- ``distribute(tensor, placement, sbp)``: every rank has the whole logical tensor and keeps its
  own slice (no communication); PyTorch DTensor's ``distribute_tensor``.
"""

from __future__ import annotations

import numpy as np

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
    @staticmethod
    def forward(ctx, x, placement, sbp):
        ctx.src = (x._placement, x._sbp)
        return box(x, sbp, placement)

    @staticmethod
    def backward(ctx, g):
        placement, sbp = ctx.src
        target = tuple(g._sbp[d] if e.is_partial and g._placement == placement else e for d, e in enumerate(sbp))
        if g._placement != placement:
            target = tuple(broadcast if e.is_partial else e for e in sbp)
        return box(g, target, placement), None, None


class _FromLocal(Function):
    @staticmethod
    def forward(ctx, x, placement, sbp, shape, world):
        ctx.sbp = sbp
        pieces = {r: x.detach() for r in world.hosted(placement.rank_list())}
        return from_pieces(pieces, shape, x._dtype, placement, sbp, world, "to_global")

    @staticmethod
    def backward(ctx, g):
        g = box(g, tuple(partial_sum if e.is_partial else e for e in ctx.sbp))
        pieces = list(g._pieces.values())
        if not pieces:
            return None, None, None, None, None
        total = pieces[0]
        for p in pieces[1:]:  # a simulated world hands one local tensor to every rank: its gradient is their sum
            total = total + p
        return total, None, None, None, None


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
    """This tensor as a global tensor on ``placement`` with layout ``sbp`` (see the module)."""
    world = _start("to_global")
    if type(self) is GlobalTensor:
        placement = self._placement if placement is None else check_placement(placement, world, "to_global")
        sbp = self._sbp if sbp is None else _sbp.normalize(sbp, placement.ndim, self.ndim, "to_global")
        return _Box.apply(self, placement, sbp)
    if placement is None or sbp is None:
        raise TypeError("to_global(): a local tensor needs both placement= and sbp=")
    placement = check_placement(placement, world, "to_global")
    sbp = _sbp.normalize(sbp, placement.ndim, self.ndim, "to_global")
    if shape is None:
        shape = _logical_shape(self, placement, sbp, world)
    return _FromLocal.apply(self, placement, sbp, tuple(shape), world)


def _logical_shape(local: Tensor, placement, sbp: tuple, world) -> tuple:
    """From the pieces' shapes: a split dim's logical size is the sum over its ranks (under MPI
    the shapes are exchanged: a collective)."""
    shape = list(local._shape)
    if not any(e.is_split for e in sbp):
        return tuple(shape)
    if world.name == "simulated":
        for d, e in enumerate(sbp):
            if e.is_split:
                shape[e.dim] *= placement.mesh_shape[d]
        return tuple(shape)
    from ..objects import all_gather_object

    everyone: list = [None] * world.size
    all_gather_object(everyone, tuple(local._shape))
    for d, e in enumerate(sbp):
        if e.is_split:
            group = placement.ranks_along(d, world.rank) if world.rank in placement.rank_list() else placement.groups_along(d)[0]
            shape[e.dim] = sum(everyone[r][e.dim] for r in group)
    return tuple(shape)


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
            piece = np.ascontiguousarray(array[where])
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
