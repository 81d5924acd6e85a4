"""What the linear-algebra kernels share: the dtype NumPy computes in, and a walk over the
matrices of a batch (for the error messages that name the batch element).
"""

from __future__ import annotations

import numpy as np

from ..common import HALF

_F32 = np.dtype(np.float32)


def compute(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The operands in a dtype NumPy computes in (half precision -> float32)."""
    return tuple(a.astype(_F32) if a.dtype in HALF else a for a in arrays)


def batches(A: np.ndarray):
    """(index, matrix) for each matrix of the batch ``(..., m, n)``."""
    for i, idx in enumerate(np.ndindex(A.shape[:-2])):
        yield i, A[idx]


def batch_prefix(A: np.ndarray, i: int) -> str:
    """PyTorch's "(Batch element i): " for a batched input, nothing for one matrix."""
    return f"(Batch element {i}): " if A.ndim > 2 else ""
