"""What the indexing kernels share: the bounds check every index goes through before NumPy sees
it (out-of-bounds indices raise ``IndexError`` with PyTorch's message: never wrap around, never
read outside memory; negative ones count from the end), and the small conversions around it.

>>> import numpy as np
>>> check_bounds(np.array([0, -3]), 3, 0)
>>> check_bounds(np.array([3]), 3, 1)
Traceback (most recent call last):
IndexError: index 3 is out of bounds for dimension 1 with size 3
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_intp", "at_least_1d", "check_bounds", "copy_input", "index_key", "real_part_for", "same_memory"]

OUT_OF_BOUNDS = "index {index} is out of bounds for dimension {dim} with size {size}"


def check_bounds(idx: np.ndarray, size: int, dim: int = 0, message: str = OUT_OF_BOUNDS) -> None:
    """Refuse any index outside [-size, size) with ``message`` (formatted with the first bad
    ``index``, ``dim`` and ``size``): by default ``index 5 is out of bounds for dimension 0 with size 3``."""
    if idx.size == 0:
        return
    lo, hi = idx.min(), idx.max()
    if lo < -size or hi >= size:
        bad = int(hi) if hi >= size else int(lo)
        raise IndexError(message.format(index=bad, dim=dim, size=size))


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
        check_bounds(idx, x.shape[d], d)
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
