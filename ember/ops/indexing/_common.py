"""What the indexing modules share: dispatching with ``out=``, the index-dtype check, PyTorch's
"0-d takes part as 1-d" rule, and the derivatives' zeros.

>>> ndim1(()), ndim1((2, 3))
((1,), (2, 3))
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ..common import functional as _F

__all__ = ["check_index_dtype", "ndim1", "run", "zeros"]


def run(op: OpExpr, inputs: tuple, attrs: dict, out=None):
    """Dispatch ``op``; its outputs are written into ``out`` when given."""
    return dispatch(op, inputs, attrs, None if out is None else (out,))


def check_index_dtype(op: str, index: Tensor, arg: str = "index") -> None:
    """Refuse a non-integer index tensor (an empty one of any dtype selects nothing)."""
    if (index._dtype is _dt.string or index._dtype.kind not in "iu") and index.numel():
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for {arg}, but got {index._dtype}")


def ndim1(shape: tuple) -> tuple:
    """0-d tensors take part as 1-d ones (PyTorch's ensure_nonempty_dim)."""
    return shape if shape else (1,)


def zeros(meta):
    """Zeros of an input's (shape, dtype): where a derivative adds its gradient into."""
    shape, dtype = meta
    return _F().zeros(shape, dtype=dtype)
