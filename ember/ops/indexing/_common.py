"""What the indexing modules share: dispatching with ``out=``, the index checks (each op's
rule for its index tensor's dtype and range, in one table), PyTorch's "0-d takes part as 1-d"
rule, and the derivatives' zeros.

Every op that takes an index tensor has a row in ``INDEX_RULES``: the dtypes it takes, whether
negative indices count from the end, and the errors PyTorch raises for a wrong dtype or an index
out of range (in PyTorch's words). ``check_index_dtype`` runs in the op's inference rule (once
per signature); ``check_index_range`` runs in the kernel, where the values are (eager and graph
mode alike), as one min/max over the index.

>>> ndim1(()), ndim1((2, 3))
((1,), (2, 3))
>>> import numpy as np
>>> check_index_range("index_fill", np.array([0, -3]), 3)
>>> check_index_range("gather", np.array([-1, 0]), 3, 1)
Traceback (most recent call last):
RuntimeError: gather(): index -1 is out of bounds for dimension 1 with size 3
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ..common import functional as _F

__all__ = ["INDEX_RULES", "IndexRule", "check_index_dtype", "check_index_range", "ndim1", "run", "zeros"]


def run(op: OpExpr, inputs: tuple, attrs: dict, out=None):
    """Dispatch ``op``; its outputs are written into ``out`` when given."""
    return dispatch(op, inputs, attrs, None if out is None else (out,))


class IndexRule(NamedTuple):
    """How one op treats its index tensor (the messages are PyTorch's, with the op named)."""

    dtypes: tuple  # the index dtypes it takes
    dtype_error: type
    dtype_message: str  # formatted with the dtype that came
    negative: bool  # True: [-size, size) with negatives counting from the end; False: [0, size)
    range_error: type
    range_message: str  # formatted with the first bad index, its dim and the size there
    empty_any_dtype: bool = False  # an empty index of any dtype selects nothing (gather, scatter)


_INT32_64 = (_dt.int32, _dt.int64)
_INT64 = (_dt.int64,)
_OUT_OF_BOUNDS = "{op}(): index {index} is out of bounds for dimension {dim} with size {size}"
_OUT_OF_RANGE_IN_SELF = "{op}(): index out of range in self (index {index} for dimension {dim} with size {size})"
_FLAT_OUT_OF_RANGE = "{op}(): out of range: tried to access index {index} on a tensor of {size} elements."


def _along_dim(op: str) -> IndexRule:
    """gather and the scatters: int32/int64, no negatives, RuntimeError (as PyTorch)."""
    message = f"{op}(): Expected dtype int32/int64 for index, but got {{dtype}}"
    return IndexRule(_INT32_64, RuntimeError, message, False, RuntimeError, _OUT_OF_BOUNDS, True)


INDEX_RULES: dict[str, IndexRule] = {
    "gather": _along_dim("gather"),
    "scatter": _along_dim("scatter"),
    "scatter_add": _along_dim("scatter_add"),
    "scatter_reduce": _along_dim("scatter_reduce"),
    "index_select": IndexRule(
        _INT32_64, RuntimeError, "index_select(): Expected dtype int32 or int64 for index, but got {dtype}",
        False, IndexError, _OUT_OF_RANGE_IN_SELF,
    ),
    "index_add": IndexRule(
        _INT32_64, RuntimeError, "index_add(): Expected dtype int32/int64 for index, but got {dtype}",
        False, IndexError, _OUT_OF_RANGE_IN_SELF,
    ),
    "index_copy": IndexRule(
        _INT64, RuntimeError, "index_copy(): Expected a long tensor for index, but got {dtype}",
        False, IndexError, _OUT_OF_BOUNDS,
    ),
    "index_fill": IndexRule(
        _INT64, IndexError, "index_fill(): Expected dtype int64 for index, but got {dtype}", True, IndexError, _OUT_OF_BOUNDS
    ),
    "take": IndexRule(
        _INT64, RuntimeError, "take(): Expected a long tensor for index, but got {dtype}", True, IndexError, _FLAT_OUT_OF_RANGE
    ),
    "put_": IndexRule(
        _INT64, RuntimeError, "put_(): Expected a long tensor for index, but got {dtype}", True, IndexError, _FLAT_OUT_OF_RANGE
    ),
    # take_along_dim(dim=d) counts negatives from the end, then gathers (gather checks the range)
    "take_along_dim": IndexRule(
        _INT64, RuntimeError, "take_along_dim(): dtype of indices should be Long but got {dtype}",
        True, RuntimeError, _OUT_OF_BOUNDS,
    ),
    "embedding": IndexRule(
        _INT32_64, RuntimeError,
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {dtype} "
        "instead (while checking arguments for embedding)",
        False, IndexError, _OUT_OF_RANGE_IN_SELF,
    ),
    # t[idx], t[idx] = v, index_put_: the dtype is checked where the key is read (keys.py)
    "index": IndexRule((), IndexError, "", True, IndexError, "index {index} is out of bounds for dimension {dim} with size {size}"),
    "searchsorted": IndexRule(
        _INT64, RuntimeError, "searchsorted(): sorter must be a tensor of long dtype but got dtype {dtype}",
        False, RuntimeError, "searchsorted(): sorter index out of range (index {index} for dimension {dim} with size {size})",
    ),
}  # fmt: skip


def check_index_dtype(op: str, index: Tensor) -> None:
    """Refuse an index tensor of a dtype ``op`` does not take (its ``INDEX_RULES`` row)."""
    rule = INDEX_RULES[op]
    if index._dtype in rule.dtypes or (rule.empty_any_dtype and index.numel() == 0):
        return
    raise rule.dtype_error(rule.dtype_message.format(dtype=index._dtype))


def check_index_range(op: str, index: np.ndarray, size: int, dim: int = 0) -> None:
    """Refuse any index ``op`` cannot use for a dimension of ``size``: outside [0, size), or
    [-size, size) where the op counts negatives from the end. One min/max over the index."""
    if index.size == 0:
        return
    rule = INDEX_RULES[op]
    low = -size if rule.negative else 0
    lo, hi = index.min(), index.max()
    if lo < low or hi >= size:
        bad = int(lo) if lo < low else int(hi)
        raise rule.range_error(rule.range_message.format(op=op, index=bad, dim=dim, size=size))


def ndim1(shape: tuple) -> tuple:
    """0-d tensors take part as 1-d ones (PyTorch's ensure_nonempty_dim)."""
    return shape if shape else (1,)


def zeros(meta):
    """Zeros of an input's (shape, dtype): where a derivative adds its gradient into."""
    shape, dtype = meta
    return _F().zeros(shape, dtype=dtype)
