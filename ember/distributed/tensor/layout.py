"""Where each rank's piece of a logical tensor lies, for a placement and an nd-SBP.

Splits nest in mesh order: a tensor dim split by mesh dims 0 and 1 is first cut over dim 0's
ranks, then each piece over dim 1's (OneFlow's rule), every cut balanced (``sbp.split_sizes``).

>>> from ember.dispatch.sbp import split, broadcast
>>> piece_slices((10, 3), (split(0), split(0)), (2, 2), (1, 0))
(slice(5, 8, None), slice(0, 3, None))
"""

from __future__ import annotations

from ...dispatch import sbp as _sbp

__all__ = ["piece_shape", "piece_slices", "size_above"]


def piece_slices(shape: tuple, sbp: tuple, mesh_shape: tuple, coord: tuple) -> tuple[slice, ...]:
    """The slice of the logical tensor that the rank at mesh ``coord`` holds (a P or B entry
    holds the whole extent of every dim)."""
    starts = [0] * len(shape)
    sizes = list(shape)
    for d, entry in enumerate(sbp):
        if entry.is_split:
            k = entry.dim
            start, stop = _sbp.split_range(sizes[k], mesh_shape[d], coord[d])
            starts[k] += start
            sizes[k] = stop - start
    return tuple(slice(s, s + n) for s, n in zip(starts, sizes, strict=True))


def piece_shape(shape: tuple, sbp: tuple, mesh_shape: tuple, coord: tuple) -> tuple[int, ...]:
    """The shape of that piece."""
    return tuple(s.stop - s.start for s in piece_slices(shape, sbp, mesh_shape, coord))


def size_above(shape: tuple, sbp: tuple, mesh_shape: tuple, coord: tuple, mesh_dim: int, dim: int) -> int:
    """The extent of tensor dim ``dim`` that mesh dim ``mesh_dim``'s split cuts: what the mesh
    dims before it left of the logical size."""
    size = shape[dim]
    for d in range(mesh_dim):
        entry = sbp[d]
        if entry.is_split and entry.dim == dim:
            start, stop = _sbp.split_range(size, mesh_shape[d], coord[d])
            size = stop - start
    return size
