"""Global tensors made from nothing: the factories' ``placement=``/``sbp=`` forms and the
``*_like`` forms of a global tensor.

A factory gives the same logical value as the local factory, whatever the layout. Constant
fills (``zeros``, ``ones``, ``full``, ``empty``) make only each hosted rank's piece; ``arange``
and the random factories make the whole logical tensor and keep each rank's slice: a random
factory must draw the whole stream on every process anyway, so that the generator stays in step
on every rank and the values are the local factory's for the same ``ember.manual_seed``.

A partial-sum entry holds the value on the first rank of that mesh dim and zeros on the others
(their sum is the value); a partial max/min holds it everywhere.

A ``*_like`` keeps the input's placement and layout, except that a partial entry becomes
broadcast: ones laid out as a partial sum would add up to n.

>>> import ember
>>> from ember.distributed.tensor import simulated_world
>>> with simulated_world(2):
...     p = ember.placement("cpu", [0, 1])
...     x = ember.arange(5, placement=p, sbp=ember.sbp.split(0))
...     x.to_local(rank=1).tolist(), x.tolist()
([3, 4], [0, 1, 2, 3, 4])
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor import Tensor
from ..._core.tensor_numpy import from_numpy
from ...dispatch import sbp as _sbp
from ...dispatch.sbp import broadcast
from ...ops.creation import _common as _creation_common, factories as _creation
from . import layout
from .comm import current_world
from .global_tensor import GlobalTensor, check_placement, make_global
from .interpreter import activate

__all__ = ["factory", "like"]


def _zeroed(sbp: tuple, coord: tuple) -> bool:
    """Whether a rank holds zeros: it is not the first along a partial-sum mesh dim."""
    return any(e.is_partial and e.reduce == "sum" and c != 0 for e, c in zip(sbp, coord, strict=True))


def factory(op: str, placement, sbp, shape: tuple, dtype, build=None, whole: Tensor | None = None) -> GlobalTensor:
    """A global tensor of logical ``shape`` on ``placement`` laid out as ``sbp``: each hosted rank's
    piece is ``build(piece_shape)``, or its slice of ``whole`` (the logical value, made locally)."""
    world = current_world()
    activate()
    placement = check_placement(placement, world, op)
    sbp = _sbp.normalize(sbp, placement.ndim, len(shape), op)
    if whole is not None:
        dtype = whole._dtype
        array = whole._numpy_view()
    pieces = {}
    for rank in world.hosted(placement.rank_list()):
        coord = placement.coordinate(rank)
        where = layout.piece_slices(shape, sbp, placement.mesh_shape, coord)
        piece_shape = tuple(s.stop - s.start for s in where)
        if _zeroed(sbp, coord):
            pieces[rank] = from_numpy(np.zeros(piece_shape, dtype.numpy_dtype))
        elif whole is not None:
            pieces[rank] = from_numpy(np.array(array[where]))  # a copy: ranks never share memory
        else:
            pieces[rank] = build(piece_shape)
    return make_global(pieces, shape, dtype, placement, sbp, world)


def like(tensor: GlobalTensor, value, dtype, op: str) -> GlobalTensor:
    """``zeros_like``/``ones_like``/``full_like``/``empty_like`` (value None) of a global tensor."""
    p = tensor._placement
    sbp = tuple(broadcast if e.is_partial else e for e in tensor._sbp)
    pieces = {}
    for rank in tensor._world.hosted(p.rank_list()):
        shape = layout.piece_shape(tensor._shape, sbp, p.mesh_shape, p.coordinate(rank))
        array = np.empty(shape, dtype.numpy_dtype) if value is None else np.full(shape, value, dtype.numpy_dtype)
        pieces[rank] = from_numpy(array)
    return make_global(pieces, tensor._shape, dtype, p, sbp, tensor._world)


_creation.GLOBAL_LIKE[0] = like
_creation_common.GLOBAL_FACTORY[0] = factory
