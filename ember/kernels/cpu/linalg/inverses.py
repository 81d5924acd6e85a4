"""CPU kernels of the inverses, determinants and solvers (LAPACK through ``np.linalg``).

The ``np.linalg`` routines have no ``out=``: their results are copied in. On a singular input
the kernel finds the pivot LAPACK stopped at (the first zero pivot of an LU with partial
pivoting) and raises PyTorch's message.
"""

from __future__ import annotations

import numpy as np

from ...._core.errors import LinAlgError
from ....dispatch.opexpr import register_kernel
from ..common import store
from ._common import batch_prefix, batches, compute, nan_matrices


def _zero_pivot(M: np.ndarray) -> int | None:
    """The 1-based column where LU with partial pivoting (LAPACK's getrf) meets a zero pivot."""
    a = np.array(M, copy=True)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        if p != k:
            a[[k, p]] = a[[p, k]]
        a[k + 1 :, k] /= a[k, k]
        a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    return None


def singular_error(op: str, A: np.ndarray) -> LinAlgError:
    """PyTorch's message for the first singular matrix of the batch ``A``."""
    for i, M in batches(A):
        try:
            np.linalg.inv(M)
        except np.linalg.LinAlgError:
            k = _zero_pivot(M)
            where = f"The diagonal element {k} is zero, the" if k is not None else "The"
            return LinAlgError(
                f"{op}: {batch_prefix(A, i)}{where} inversion could not be completed because the input matrix is singular."
            )
    return LinAlgError(f"{op}: The inversion could not be completed because the input matrix is singular.")


@register_kernel("linalg_inv")
def inv(outs, ins, attrs):
    (A,) = compute(ins[0])
    try:
        result = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        raise singular_error("linalg.inv", A) from None
    _spread_nan(result, A)
    store(outs[0], result)


def _spread_nan(result: np.ndarray, A: np.ndarray) -> None:
    """NaN over each result whose matrix holds a NaN (NumPy may leave rows of it finite)."""
    has_nan = nan_matrices(A)
    if has_nan is not None:
        result[has_nan] = np.nan


@register_kernel("linalg_det")
def det(outs, ins, attrs):
    with np.errstate(invalid="ignore"):  # a NaN determinant is the answer, not a warning
        store(outs[0], np.linalg.det(*compute(ins[0])))


@register_kernel("linalg_slogdet")
def slogdet(outs, ins, attrs):
    with np.errstate(invalid="ignore"):
        sign, logabsdet = np.linalg.slogdet(*compute(ins[0]))
    sign = np.where(np.isnan(logabsdet), 0, sign)  # PyTorch's sign of a NaN determinant
    store(outs[0], sign)
    store(outs[1], logabsdet)


@register_kernel("linalg_solve")
def solve(outs, ins, attrs):
    A, B = compute(*ins)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    if not attrs["left"]:  # X A = B  <=>  A^T X^T = B^T
        A = np.swapaxes(A, -1, -2)
        if not vector:
            B = np.swapaxes(B, -1, -2)
    try:
        X = np.linalg.solve(A, B[..., None] if vector else B)
    except np.linalg.LinAlgError:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
    has_nan = nan_matrices(A)
    if has_nan is not None:
        X[np.broadcast_to(has_nan, X.shape[:-2])] = np.nan
    if vector:
        X = X[..., 0]
    elif not attrs["left"]:
        X = np.swapaxes(X, -1, -2)
    store(outs[0], X)


@register_kernel("linalg_matrix_power")
def matrix_power(outs, ins, attrs):
    (A,) = compute(ins[0])
    try:
        result = np.linalg.matrix_power(A, attrs["n"])
    except np.linalg.LinAlgError:
        raise singular_error("linalg.inv", A) from None
    store(outs[0], result)
