"""Where a global tensor lives: a device type and a mesh of ranks (OneFlow's ``placement``).

``ranks`` is a list (a 1-D mesh) or a nested list (an N-D mesh: ``[[0, 1], [2, 3]]`` is two rows
of two). A global tensor carries one SBP entry per mesh dimension. Placements compare by value.

>>> p = placement("cpu", [[0, 1], [2, 3]])
>>> p, p.mesh_shape, p.ranks_along(1, 2)
(placement(type='cpu', ranks=[[0, 1], [2, 3]]), (2, 2), [2, 3])
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["placement"]

_DEVICE_TYPES = ("cpu",)
_CHECK_WORLD = [True]  # off while placement.recorded() builds one


class placement:  # OneFlow's spelling
    """A device type and an N-D array of distinct global ranks."""

    __slots__ = ("_coords", "_key", "_mesh", "type")

    def __init__(self, type: str = "cpu", ranks=None) -> None:  # noqa: A002 - OneFlow's argument name
        if not isinstance(type, str) or type not in _DEVICE_TYPES:
            raise ValueError(f"placement(): type must be one of {list(_DEVICE_TYPES)}, got {type!r}")
        if ranks is None:
            raise TypeError("placement(): ranks is required: a list of ranks, or a nested list for an N-D mesh")
        try:
            mesh = np.array(ranks, dtype=object)
        except ValueError:
            raise ValueError(f"placement(): ranks must be a rectangular (nested) list of ints, got {ranks!r}") from None
        if mesh.ndim == 0 or mesh.size == 0:
            raise ValueError(f"placement(): ranks must be a non-empty list of ints, got {ranks!r}")
        if not all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) and r >= 0 for r in mesh.flat):
            raise ValueError(f"placement(): ranks must be non-negative ints in a rectangular (nested) list, got {ranks!r}")
        mesh = mesh.astype(np.int64)
        if len(set(mesh.flat.__iter__())) != mesh.size:
            raise ValueError(f"placement(): ranks must be distinct, got {ranks!r}")
        mesh.setflags(write=False)
        self.type = type
        self._mesh = mesh
        self._key = (type, mesh.shape, tuple(int(r) for r in mesh.flat))
        self._coords = None  # rank -> mesh coordinate, made on first use
        if _CHECK_WORLD[0]:
            world = _start_world()
            if world is not None:
                self.check_world(world.size)

    @classmethod
    def recorded(cls, type: str, ranks) -> placement:  # noqa: A002
        """A placement as a record describes it (a checkpoint's, saved by another world): checked
        in itself but not against this world, and starting none."""
        _CHECK_WORLD[0] = False
        try:
            return cls(type, ranks)
        finally:
            _CHECK_WORLD[0] = True

    @property
    def ranks(self) -> np.ndarray:
        """The mesh as a read-only array of global ranks."""
        return self._mesh

    @property
    def mesh_shape(self) -> tuple[int, ...]:
        return self._mesh.shape

    @property
    def ndim(self) -> int:
        return self._mesh.ndim

    @property
    def size(self) -> int:
        return self._mesh.size

    def rank_list(self) -> list[int]:
        """Every rank of the mesh, in row-major order."""
        return list(self._key[2])

    def coordinate(self, rank: int) -> tuple[int, ...] | None:
        """Where ``rank`` sits in the mesh, or None when it is not part of it."""
        coords = self._coords
        if coords is None:
            coords = self._coords = {int(r): tuple(int(i) for i in c) for c, r in np.ndenumerate(self._mesh)}
        return coords.get(rank)

    def ranks_along(self, mesh_dim: int, rank: int) -> list[int]:
        """The ranks that share ``rank``'s coordinates except along ``mesh_dim``: the sub-group
        that a collective over that mesh dimension runs on, in order."""
        coord = self.coordinate(rank)
        if coord is None:
            raise ValueError(f"rank {rank} is not part of {self!r}")
        index = list(coord)
        index[mesh_dim] = slice(None)
        return [int(r) for r in self._mesh[tuple(index)]]

    def groups_along(self, mesh_dim: int) -> list[list[int]]:
        """Every sub-group along ``mesh_dim`` (each a list of ranks in mesh order)."""
        moved = np.moveaxis(self._mesh, mesh_dim, -1).reshape(-1, self._mesh.shape[mesh_dim])
        return [[int(r) for r in row] for row in moved]

    def check_world(self, world_size: int, fn: str = "placement") -> None:
        """Every rank must exist in a world of ``world_size`` processes."""
        outside = [r for r in self._key[2] if r >= world_size]
        if outside:
            raise ValueError(
                f"{fn}(): {self!r} names rank(s) {outside}, but the world has {world_size} process(es) (ranks 0-{world_size - 1})"
            )

    def __eq__(self, other) -> bool:
        return isinstance(other, placement) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"placement(type={self.type!r}, ranks={self._mesh.tolist()})"


def _start_world():
    """Under the launcher (``ember-run`` sets EMBER_RUN_ID) the first placement starts the
    default process group, OneFlow's way; an explicit ``init_process_group`` before it is
    honoured. In a plain ``python`` the first global tensor starts a world of one instead, so
    that making a placement never starts MPI by itself. Returns the world when there is one to
    check the ranks against."""
    from .comm import current_world, simulated_active

    if simulated_active() or "EMBER_RUN_ID" in os.environ:
        return current_world()
    return None
