"""Global tensors made from nothing: the ``*_like`` forms of a global tensor (and, through
``placement=``/``sbp=``, the factories).

A ``*_like`` keeps the input's placement and layout, except that a partial entry becomes
broadcast: ones laid out as a partial sum would add up to n.
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor_numpy import from_numpy
from ...dispatch.sbp import broadcast
from ...ops.creation import factories as _creation
from . import layout
from .global_tensor import GlobalTensor, make_global

__all__ = ["like"]


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
