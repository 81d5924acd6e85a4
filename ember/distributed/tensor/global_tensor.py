"""A global tensor: one logical tensor whose pieces lie on the ranks of a placement.

It is an ember Tensor whose own storage is a meta storage of the logical shape (so shape,
dtype, autograd and every op's inference rule see the logical tensor) and which carries its
``placement``, its nd-SBP and, for each rank this process hosts, that rank's piece as an
ordinary local tensor. Under MPI a process hosts one rank; a rank outside the placement hosts
nothing. Ops on global tensors go to the global interpreter (``interpreter.py``).
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.device import CPU, META
from ..._core.shape import contiguous_strides
from ..._core.storage import Storage
from ..._core.tensor import Tensor
from ..._core.tensor_numpy import from_numpy
from ...dispatch import sbp as _sbp
from . import layout
from .comm import current_world
from .placement import placement as Placement

__all__ = ["GlobalTensor", "from_pieces", "is_global", "make_global"]


# boxing.gather_logical, handed down by boxing (which builds on this file)
GATHER: list = [None]


class GlobalTensor(Tensor):
    """A logical tensor with a placement, an nd-SBP, and this process's pieces (``_pieces``:
    global rank -> local Tensor)."""

    __slots__ = ("_pieces", "_placement", "_sbp", "_world")

    # -- what it is -----------------------------------------------------------------

    @property
    def is_global(self) -> bool:
        return True

    @property
    def placement(self) -> Placement:
        return self._placement

    @property
    def sbp(self) -> tuple:
        return self._sbp

    @property
    def device(self):
        return CPU

    @property
    def is_meta(self) -> bool:
        return False

    @property
    def is_cpu(self) -> bool:
        return True

    def _piece(self, rank: int | None = None) -> Tensor:
        """This rank's piece (no communication). In a simulated world, name the rank. A rank
        outside the placement holds nothing: it gets an empty tensor."""
        world = self._world
        if rank is None:
            if len(self._pieces) > 1 or world.name == "simulated":
                raise ValueError(f"to_local(): this process hosts ranks {sorted(self._pieces)} of a simulated world: pass rank=")
            rank = next(iter(self._pieces), None)
        piece = self._pieces.get(rank) if rank is not None else None
        if piece is None:
            from ..._core.tensor import empty_tensor

            return empty_tensor((0,), self._dtype, None)
        out = piece.detach() if piece._requires_grad else piece
        return out

    def detach(self) -> GlobalTensor:
        """The same pieces in the same layout, out of the graph (the op has no SBP rule yet, and
        its broadcast fallback would gather)."""
        pieces = {r: p.detach() for r, p in self._pieces.items()}
        return make_global(pieces, self._shape, self._dtype, self._placement, self._sbp, self._world)

    def pieces(self) -> dict:
        """Every piece this process hosts, by global rank."""
        return dict(self._pieces)

    # -- the logical value (a collective: every rank must call it) -------------------

    def _logical_array(self) -> np.ndarray:
        return GATHER[0](self)

    def _numpy_view(self) -> np.ndarray:
        array = self._logical_array()
        array.setflags(write=False)  # the gathered copy: writing it would change nothing
        return array

    def _host_array(self) -> np.ndarray:
        return self._numpy_view()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The logical tensor, gathered on every rank (a collective: all ranks call it). A copy:
        writing it leaves the pieces alone."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._logical_array()

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"item(): a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self.numpy(force=True).reshape(-1)[0].item()

    def tolist(self):
        return from_numpy(self.numpy(force=True)).tolist()

    def __repr__(self) -> str:
        text = repr(from_numpy(self.numpy(force=True)))
        head, _, _ = text.rpartition(")")
        extras = [f"placement={self._placement!r}", f"sbp={self._sbp!r}"]
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        if not self._pieces and self._world.name == "mpi":
            extras.append("this rank holds no piece")
        return head + ", " + ", ".join(extras) + ")"

    __str__ = __repr__

    def __reduce_ex__(self, protocol: int):
        raise TypeError(
            "a global tensor cannot be pickled: save it with ember.distributed.tensor.save (sharded) or send to_local()"
        )

    def __copy__(self):
        return make_global(self._pieces, self._shape, self._dtype, self._placement, self._sbp, self._world)

    def __deepcopy__(self, memo: dict):
        copied = memo.get(id(self))
        if copied is None:
            pieces = {r: p.clone() for r, p in self._pieces.items()}
            copied = make_global(pieces, self._shape, self._dtype, self._placement, self._sbp, self._world)
            copied._requires_grad = self._requires_grad
            memo[id(self)] = copied
        return copied


def is_global(t) -> bool:
    return type(t) is GlobalTensor


def make_global(pieces: dict, shape, dtype: _dt.DType, placement: Placement, sbp: tuple, world=None, stride=None) -> GlobalTensor:
    """Wrap pieces (global rank -> local Tensor) already laid out for ``sbp``."""
    shape = tuple(shape)
    out = object.__new__(GlobalTensor)
    storage = object.__new__(Storage)  # Storage(0, device=META): a meta storage, inlined (every global op makes one)
    storage._nbytes = 0
    storage._device = META
    storage._allocator = None
    storage._data = None
    storage._readonly = False
    storage._holds_objects = False
    storage._version = 0
    out._storage = storage
    out._offset = 0
    out._shape = shape
    out._stride = contiguous_strides(shape) if stride is None else stride
    out._dtype = dtype
    out._base = None
    out._np = out._np_src = None
    out._requires_grad = False
    out.grad = None
    out.grad_fn = None
    out._pieces = pieces
    out._placement = placement
    out._sbp = sbp
    out._world = world if world is not None else current_world()
    return out


def check_placement(p, world, fn: str) -> Placement:
    if not isinstance(p, Placement):
        raise TypeError(f"{fn}(): placement must be an ember.placement, got {type(p).__name__}")
    p.check_world(world.size, fn)
    return p


def expected_piece_shapes(shape, sbp, p: Placement, world) -> dict:
    """The piece shape each hosted rank of the placement must hold."""
    out = {}
    for rank in world.hosted(p.rank_list()):
        out[rank] = layout.piece_shape(shape, sbp, p.mesh_shape, p.coordinate(rank))
    return out


def from_pieces(pieces: dict, shape, dtype, p: Placement, sbp, world, fn: str) -> GlobalTensor:
    """Check that the pieces have the shapes ``sbp`` lays out, then wrap them."""
    sbp = _sbp.normalize(sbp, p.ndim, len(shape), fn)
    expected = expected_piece_shapes(tuple(shape), sbp, p, world)
    for rank, want in expected.items():
        got = pieces.get(rank)
        if got is None:
            raise ValueError(f"{fn}(): rank {rank} of {p!r} has no piece")
        if tuple(got._shape) != want:
            raise ValueError(
                f"{fn}(): rank {rank}'s piece has shape {list(got._shape)}, but {sbp} of a {list(shape)} tensor "
                f"over {p!r} gives it {list(want)} (uneven splits put the larger pieces first)"
            )
        if got._dtype is not dtype:
            raise TypeError(f"{fn}(): rank {rank}'s piece is {got._dtype.name}, expected {dtype.name}")
    return make_global({r: pieces[r] for r in expected}, tuple(shape), dtype, p, sbp, world)
