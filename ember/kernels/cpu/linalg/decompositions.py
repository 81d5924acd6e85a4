"""CPU kernels of the decompositions (LAPACK through ``np.linalg``) and of what the singular
values give: ``pinv`` and ``matrix_rank``.

On a matrix that is not positive-definite, ``cholesky`` finds the smallest leading minor that
fails and raises PyTorch's message; a NaN pivot fails as LAPACK's potrf has it (NumPy's
factorization lets it through).
"""

from __future__ import annotations

import numpy as np

from ...._core.errors import LinAlgError
from ....dispatch.opexpr import register_kernel
from ..common import store
from ._common import batch_prefix, batches, compute, non_finite_matrices, svd as _svd


def _failing_minor(M: np.ndarray, upper: bool) -> int | None:
    """The order of the first leading minor where the unblocked Cholesky (LAPACK's potf2) meets
    a pivot that is not > 0 (NaN included), reading only the triangle ``upper`` names."""
    a = np.tril(M.T.conj() if upper else M).astype(np.result_type(M.dtype, np.float64))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for j in range(a.shape[0]):
            pivot = (a[j, j] - np.vdot(a[j, :j], a[j, :j])).real
            if not pivot > 0:
                return j + 1
            a[j, j] = np.sqrt(pivot)
            a[j + 1 :, j] = (a[j + 1 :, j] - a[j + 1 :, :j] @ a[j, :j].conj()) / a[j, j]
    return None


def _not_pd_error(op: str, A: np.ndarray, upper: bool) -> LinAlgError | None:
    """PyTorch's message for the first matrix of the batch that is not positive-definite."""
    for i, M in batches(A):
        order = _failing_minor(M, upper)
        if order is not None:
            return LinAlgError(
                f"{op}: {batch_prefix(A, i)}The factorization could not be completed because the input is not "
                f"positive-definite (the leading minor of order {order} is not positive-definite)."
            )
    return None


@register_kernel("linalg_cholesky")
def cholesky(outs, ins, attrs):
    (A,) = compute(ins[0])
    try:
        L = np.linalg.cholesky(A, upper=attrs["upper"])
    except np.linalg.LinAlgError:
        error = _not_pd_error("linalg.cholesky", A, attrs["upper"])
        raise error or LinAlgError(
            "linalg.cholesky: The factorization could not be completed because the input is not positive-definite."
        ) from None
    if L.size and not np.isfinite(L).all():  # a NaN pivot NumPy let through, or an infinity LAPACK may keep
        error = _not_pd_error("linalg.cholesky", A, attrs["upper"])
        if error is not None:
            raise error
    store(outs[0], L)


@register_kernel("linalg_qr")
def qr(outs, ins, attrs):
    (A,) = compute(ins[0])
    if attrs["mode"] == "r":
        store(outs[1], np.linalg.qr(A, mode="r"))
        return
    Q, R = np.linalg.qr(A, mode=attrs["mode"])
    store(outs[0], Q)
    store(outs[1], R)


@register_kernel("linalg_svd")
def svd(outs, ins, attrs):
    U, S, Vh = _svd(*compute(ins[0]), full_matrices=attrs["full_matrices"])
    for out, value in zip(outs, (U, S, Vh), strict=True):
        store(out, value)


@register_kernel("linalg_svdvals")
def svdvals(outs, ins, attrs):
    store(outs[0], _svd(*compute(ins[0]), compute_uv=False))


def _eigh(A: np.ndarray, UPLO: str, vectors: bool):
    """``np.linalg.eigh``; LAPACK never sees a matrix holding a NaN or an inf (it may not
    converge, or not end): those get NaN eigenvalues and vectors, the others their own
    (PyTorch's values there are unspecified; NumPy's error names no op)."""
    fn = np.linalg.eigh if vectors else np.linalg.eigvalsh
    bad = non_finite_matrices(A)
    if bad is None:
        return fn(A, UPLO=UPLO)
    result = fn(np.where(bad[..., None, None], np.eye(A.shape[-1], dtype=A.dtype), A), UPLO=UPLO)
    for part in result if vectors else (result,):
        part[bad] = np.nan
    return result


@register_kernel("linalg_eigh")
def eigh(outs, ins, attrs):
    w, v = _eigh(*compute(ins[0]), attrs["UPLO"], vectors=True)
    store(outs[0], w)
    store(outs[1], v)


@register_kernel("linalg_eigvalsh")
def eigvalsh(outs, ins, attrs):
    store(outs[0], _eigh(*compute(ins[0]), attrs["UPLO"], vectors=False))


def _singular_values(A: np.ndarray, hermitian: bool) -> np.ndarray:
    if hermitian:
        return np.abs(_eigh(A, "L", vectors=False))
    return _svd(A, compute_uv=False)


def _tolerance(S: np.ndarray, shape: tuple, attrs: dict) -> np.ndarray:
    """max(atol, rtol * largest singular value), per matrix (PyTorch's pinv/matrix_rank rule)."""
    rtol = attrs["rtol"]
    if rtol is None:
        rtol = np.finfo(S.dtype).eps * max(shape[-2:], default=0)
    smax = np.max(S, axis=-1, keepdims=True, initial=0.0)
    return np.maximum(attrs["atol"], rtol * smax)


@register_kernel("linalg_pinv")
def pinv(outs, ins, attrs):
    (A,) = compute(ins[0])
    U, S, Vh = _svd(A, full_matrices=False)
    tol = _tolerance(S, A.shape, attrs)
    s_inv = np.zeros_like(S)
    np.divide(1, S, out=s_inv, where=tol < S)  # only the kept singular values are inverted
    V = np.swapaxes(Vh, -1, -2).conj()
    store(outs[0], np.matmul(V * s_inv[..., None, :], np.swapaxes(U, -1, -2).conj()))


@register_kernel("linalg_pinv_tol")
def pinv_tol(outs, ins, attrs):
    """pinv with one (atol, rtol) per matrix, broadcasting against the batch."""
    A, atol, rtol = compute(*ins)
    U, S, Vh = _svd(A, full_matrices=False)
    smax = np.max(S, axis=-1, keepdims=True, initial=0.0)
    keep = np.maximum(atol[..., None], rtol[..., None] * smax) < S
    s_inv = np.where(keep, 1 / np.where(keep, S, 1), 0)
    V = np.swapaxes(Vh, -1, -2).conj()
    store(outs[0], np.matmul(V * s_inv[..., None, :], np.swapaxes(U, -1, -2).conj()))


@register_kernel("linalg_matrix_rank")
def matrix_rank(outs, ins, attrs):
    (A,) = compute(ins[0])
    S = _singular_values(A, attrs["hermitian"])
    store(outs[0], np.count_nonzero(_tolerance(S, A.shape, attrs) < S, axis=-1))
