"""What the linear-algebra kernels share: the dtype NumPy computes in, and a walk over the
matrices of a batch (for the error messages that name the batch element).
"""

from __future__ import annotations

import numpy as np

from ...._core.errors import LinAlgError
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


def svd(A: np.ndarray, **kwargs):
    """``np.linalg.svd`` with PyTorch's error for a NaN in the input. LAPACK never sees a
    non-finite matrix: its SVD may loop forever on one, so a NaN is refused (as PyTorch refuses
    it) and a matrix holding an inf gets NaN factors (PyTorch's are unspecified there)."""
    bad = non_finite_matrices(A)
    if bad is None:
        try:
            return np.linalg.svd(A, **kwargs)
        except np.linalg.LinAlgError:
            raise svd_error(A) from None
    if np.isnan(A).any():
        raise svd_error(A)
    result = np.linalg.svd(np.where(bad[..., None, None], 0, A), **kwargs)
    for part in result if kwargs.get("compute_uv", True) else (result,):
        part[bad] = np.nan
    return result


def non_finite_matrices(A: np.ndarray) -> np.ndarray | None:
    """The (...) mask of the batch's matrices holding a NaN or an inf, None when none does."""
    if np.isfinite(A).all():
        return None
    return ~np.isfinite(A).all(axis=(-2, -1))


def svd_error(A: np.ndarray) -> LinAlgError:
    """PyTorch's message for the first matrix of the batch ``A`` holding a non-finite value."""
    bad = ~np.isfinite(A).all(axis=(-2, -1))
    first = int(np.argmax(bad.reshape(-1))) if bad.any() else 0
    return LinAlgError(
        f"linalg.svd: {batch_prefix(A, first)}The algorithm failed to converge because the input matrix contained non-finite values."
    )


def nan_matrices(A: np.ndarray) -> np.ndarray | None:
    """The (...) mask of the batch's matrices holding a NaN, None when none does: LAPACK's LU
    spreads a NaN over the whole inverse or solution, as PyTorch returns it."""
    if A.size == 0:
        return None
    has_nan = np.isnan(A).any(axis=(-2, -1))
    return has_nan if has_nan.any() else None
