"""What the indexing kernels share: the key of advanced indexing (its indices checked) and the
small conversions around the checked indices. Every index goes through its op's range check
(``ember.ops.indexing._common.check_index_range``) before NumPy sees it: never wrap around,
never read outside memory.

>>> import numpy as np
>>> index_key(np.zeros((2, 3)), (1,), (np.array([3]),))
Traceback (most recent call last):
IndexError: index 3 is out of bounds for dimension 1 with size 3
"""

from __future__ import annotations

import numpy as np

from ....ops.indexing._common import check_index_range

__all__ = ["as_intp", "at_least_1d", "copy_input", "index_key", "real_part_for", "same_memory"]


def as_intp(idx: np.ndarray) -> np.ndarray:
    """Index arrays NumPy takes without a cast warning (uint64 is not safely intp)."""
    return idx if idx.dtype.kind == "i" else idx.astype(np.intp)


def real_part_for(src: np.ndarray, dst_dtype: np.dtype) -> np.ndarray:
    """PyTorch drops the imaginary part when a complex value goes into a real tensor."""
    if src.dtype.kind == "c" and dst_dtype.kind != "c":
        return src.real
    return src


def index_key(x: np.ndarray, dims: tuple, indices: tuple) -> tuple:
    """The NumPy key of the index/index_put primitives: each index array at its dim (checked)."""
    key = [slice(None)] * x.ndim
    for d, idx in zip(dims, indices, strict=True):
        check_index_range("index", idx, x.shape[d], d)
        key[d] = as_intp(idx)
    return tuple(key)


def same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """The same elements at the same addresses (an in-place op's input and output)."""
    return a.ctypes.data == b.ctypes.data and a.strides == b.strides and a.shape == b.shape


def copy_input(out: np.ndarray, x: np.ndarray) -> None:
    """The out-of-place result starts as a copy of the input (in place, it already is)."""
    if not same_memory(x, out):
        np.copyto(out, x, casting="unsafe")


def at_least_1d(a: np.ndarray) -> np.ndarray:
    """0-d arrays take part as 1-d ones (as the ops' rules read them)."""
    return a.reshape(1) if a.ndim == 0 else a
