"""What the CPU kernels share: the dtype they compute in, and how a result reaches ``out``.

NumPy has few loops for float16 and none of its reductions or BLAS calls for bfloat16, so the
half types compute in float32 and are written back, as PyTorch accumulates them.
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt

__all__ = ["F32", "HALF", "compute_dtype", "store"]

F32 = np.dtype(np.float32)
HALF = (np.dtype(np.float16), _dt.bfloat16.numpy_dtype)


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a kernel computes (accumulates) in: float32 for the half types."""
    return F32 if dtype in HALF else dtype


def store(out: np.ndarray, value) -> None:
    """Write a computed result into the kernel's output (casting, as PyTorch's out=)."""
    if value is not out:
        np.copyto(out, value, casting="unsafe")
