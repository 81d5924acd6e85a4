"""CPU kernel of ``linalg.lstsq``, one routine per LAPACK driver PyTorch offers.

- ``gelsd``/``gelss``: the SVD; singular values at or below ``rcond`` times the largest are
  dropped (the minimum-norm solution).
- ``gelsy``: QR with column pivoting (LAPACK's geqp3 order: the remaining column of largest
  norm first); the rank is the largest r whose leading r x r block of R has a condition number
  below 1 / rcond (LAPACK estimates it incrementally; here it is computed), and the solution is
  the minimum-norm one of the rank-r problem (LAPACK's complete orthogonal factorization).
- ``gels``: QR (or LQ when m < n), A assumed of full rank.

The matrices of a batch are walked one by one for ``gelsy``; the others run batched. A NaN or an
infinity in A is refused (LAPACK's SVD may not return on one; torch refuses most such calls).
"""

from __future__ import annotations

import numpy as np

from ...._core.errors import LinAlgError
from ....dispatch.opexpr import register_kernel
from ..common import store
from ..elementwise.factories import quiet
from ._common import batch_prefix, non_finite_matrices, svd as _svd


def _rcond(attrs: dict, A: np.ndarray) -> float:
    if attrs["rcond"] is None:
        return float(np.finfo(A.dtype).eps) * max(A.shape[-2:], default=0)
    return attrs["rcond"]


def _svd_solve(A: np.ndarray, B: np.ndarray, rcond: float):
    """gelsd/gelss: the solution, the rank and the singular values of each matrix."""
    U, S, Vh = _svd(A, full_matrices=False)
    keep = rcond * np.max(S, axis=-1, keepdims=True, initial=0.0) < S
    s_inv = np.where(keep, 1 / np.where(keep, S, 1), 0)
    X = np.swapaxes(Vh, -1, -2).conj() @ (s_inv[..., None] * (np.swapaxes(U, -1, -2).conj() @ B))
    return X, np.count_nonzero(keep, axis=-1), S


def _householder_qr_pivoted(A: np.ndarray):
    """A[:, piv] = Q R with the remaining column of largest norm taken first (LAPACK's geqp3)."""
    R = np.array(A, dtype=A.dtype, copy=True)
    m, n = R.shape
    Q = np.eye(m, dtype=A.dtype)
    piv = np.arange(n)
    for j in range(min(m, n)):
        norms = np.linalg.norm(R[j:, j:], axis=0)
        p = j + int(np.argmax(norms))
        if p != j:
            R[:, [j, p]] = R[:, [p, j]]
            piv[[j, p]] = piv[[p, j]]
        x = R[j:, j]
        alpha = np.linalg.norm(x)
        if alpha == 0:
            continue
        phase = x[0] / abs(x[0]) if x[0] != 0 else 1
        v = x.copy()
        v[0] += phase * alpha
        v /= np.linalg.norm(v)
        R[j:, :] -= 2 * np.outer(v, v.conj() @ R[j:, :])
        Q[:, j:] -= 2 * np.outer(Q[:, j:] @ v, v.conj())
    return Q, np.triu(R), piv


def _gelsy_rank(R: np.ndarray, rcond: float) -> int:
    """The largest r with cond(R[:r, :r]) <= 1 / rcond, 0 when R[0, 0] is 0. The condition number
    of a leading block of a triangular R never falls as the block grows (singular values
    interlace), so r is found by bisection."""
    k = min(R.shape)
    if k == 0 or R[0, 0] == 0:
        return 0

    def well_conditioned(r: int) -> bool:
        s = np.linalg.svd(R[:r, :r], compute_uv=False)
        return s[0] * rcond <= s[-1]

    if well_conditioned(k):  # full rank, the common case: one SVD
        return k
    low, high = 1, k - 1  # well_conditioned(low) holds
    while low < high:
        mid = (low + high + 1) // 2
        if well_conditioned(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _gelsy_one(A: np.ndarray, B: np.ndarray, rcond: float):
    n = A.shape[1]
    X = np.zeros((n, B.shape[1]), dtype=np.result_type(A, B))
    if A.size == 0:
        return X, 0
    Q, R, piv = _householder_qr_pivoted(A)
    r = _gelsy_rank(R, rcond)
    if r == 0:
        return X, 0
    c = (Q.conj().T @ B)[:r]
    if r == n:  # full column rank: R11 alone
        X[piv] = np.linalg.solve(R[:r, :r], c)
        return X, r
    # the minimum-norm y with [R11 R12] y = c: through the QR of [R11 R12]^H = Q2 R2
    Q2, R2 = np.linalg.qr(R[:r].conj().T)
    X[piv] = Q2 @ np.linalg.solve(R2.conj().T, c)
    return X, r


def _gels(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    m, n = A.shape[-2:]
    try:
        if m >= n:
            Q, R = np.linalg.qr(A)
            return np.linalg.solve(R, np.swapaxes(Q, -1, -2).conj() @ B)
        Q, R = np.linalg.qr(np.swapaxes(A, -1, -2).conj())  # A = R^H Q^H
        return Q @ np.linalg.solve(np.swapaxes(R, -1, -2).conj(), B)
    except np.linalg.LinAlgError:  # A is rank-deficient: gels's result is unspecified, NaN says so
        return np.full((*np.broadcast_shapes(A.shape[:-2], B.shape[:-2]), n, B.shape[-1]), np.nan, dtype=A.dtype)


def _refuse_non_finite(A: np.ndarray) -> None:
    """LAPACK never sees a NaN or an infinity in A (its SVD may not end on one); torch refuses most."""
    bad = non_finite_matrices(A)
    if bad is not None:
        first = int(np.argmax(bad.reshape(-1)))
        raise LinAlgError(f"torch.linalg.lstsq: {batch_prefix(A, first)}The input matrix contains non-finite values.")


@register_kernel("linalg_lstsq")
@quiet
def lstsq(outs, ins, attrs):
    A, B = ins
    _refuse_non_finite(A)
    vector = B.ndim == A.ndim - 1
    if vector:
        B = B[..., None]
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    driver = attrs["driver"]
    rcond = _rcond(attrs, A)
    if 0 in A.shape[-2:] or 0 in B.shape[-2:] or 0 in batch:
        X = np.zeros((*batch, A.shape[-1], B.shape[-1]), dtype=A.dtype)
        ranks = np.zeros(A.shape[:-2], dtype=np.int64)
        S = np.zeros((*A.shape[:-2], min(A.shape[-2:])), dtype=outs[3].dtype)
    elif driver in ("gelsd", "gelss"):
        X, ranks, S = _svd_solve(A, B, rcond)
    elif driver == "gelsy":
        Ab, Bb = np.broadcast_to(A, (*batch, *A.shape[-2:])), np.broadcast_to(B, (*batch, *B.shape[-2:]))
        X = np.zeros((*batch, A.shape[-1], B.shape[-1]), dtype=A.dtype)
        solved_ranks = np.zeros(batch, dtype=np.int64)
        for idx in np.ndindex(batch):
            X[idx], solved_ranks[idx] = _gelsy_one(Ab[idx], Bb[idx], rcond)
        if A.shape[:-2] == batch:
            ranks = solved_ranks
        else:  # the rank follows A's own batch, as PyTorch's
            ranks = np.zeros(A.shape[:-2], dtype=np.int64)
            for idx in np.ndindex(A.shape[:-2]):
                ranks[idx] = _gelsy_rank(_householder_qr_pivoted(A[idx])[1], rcond)
        S = None
    else:
        X, ranks, S = _gels(A, B), None, None
    store(outs[0], X[..., 0] if vector else X)
    if outs[1].size:
        store(outs[1], np.sum(np.abs(A @ X - B) ** 2, axis=-2))
    if outs[2].size:
        store(outs[2], ranks)
    if outs[3].size:
        store(outs[3], S)
