"""CPU kernels of the linear-algebra ops: BLAS through ``np.matmul``, LAPACK through ``np.linalg``.

``matmul`` writes straight into the output with ``np.matmul(a, b, out=out)``: NumPy hands
transposed views to BLAS without copying them. float16/bfloat16 compute in float32 and are
written back. The ``np.linalg`` routines have no ``out=``: their results are copied in. On a
singular (or not positive-definite) input the kernel finds the pivot (leading minor) LAPACK
stopped at and raises PyTorch's message.
"""

from __future__ import annotations

import numpy as np

from ..._core.errors import LinAlgError
from ...dispatch.opexpr import register_kernel
from .common import HALF, compute_dtype, store

_F32 = np.dtype(np.float32)


def _compute(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The operands in a dtype NumPy computes in (half precision -> float32)."""
    return tuple(a.astype(_F32) if a.dtype in HALF else a for a in arrays)


# --- products ----------------------------------------------------------------------------


@register_kernel("matmul")
def matmul(outs, ins, attrs):
    out = outs[0]
    a, b = ins
    if a.dtype in HALF:
        store(out, np.matmul(*_compute(a, b)))
    elif out.dtype == a.dtype:
        np.matmul(a, b, out=out)
    else:
        store(out, np.matmul(a, b))


@register_kernel("vdot")
def vdot(outs, ins, attrs):
    store(outs[0], np.vdot(*_compute(*ins)))


@register_kernel("outer")
def outer(outs, ins, attrs):
    out = outs[0]
    a, b = ins
    if out.dtype in HALF:
        a, b = _compute(a.astype(out.dtype), b.astype(out.dtype))
        store(out, np.multiply(a[:, None], b[None, :]))
    else:
        np.multiply(a[:, None], b[None, :], out=out, dtype=out.dtype, casting="unsafe")


@register_kernel("einsum")
def einsum(outs, ins, attrs):
    out = outs[0]
    ops = _compute(*ins)
    if out.dtype == ops[0].dtype:
        np.einsum(attrs["equation"], *ops, out=out, optimize=attrs["optimize"])
    else:
        store(out, np.einsum(attrs["equation"], *ops, optimize=attrs["optimize"]))


@register_kernel("tensordot")
def tensordot(outs, ins, attrs):
    a, b = _compute(*ins)
    da, db = attrs["dims_a"], attrs["dims_b"]
    for i, j in zip(da, db, strict=True):  # a size-1 dim broadcasts: sum the other operand over it
        if a.shape[i] != b.shape[j]:
            if b.shape[j] == 1:
                a = np.sum(a, axis=i, keepdims=True)
            else:
                b = np.sum(b, axis=j, keepdims=True)
    store(outs[0], np.tensordot(a, b, axes=(da, db)))


@register_kernel("linalg_cross")
def cross(outs, ins, attrs):
    a, b = _compute(*ins)
    store(outs[0], np.cross(a, b, axis=attrs["dim"]))


@register_kernel("linalg_vecdot")
def vecdot(outs, ins, attrs):
    x, y = _compute(*ins)
    product = np.multiply(np.conj(x) if x.dtype.kind == "c" else x, y)
    if product.ndim:
        dim = attrs["dim"]
        product = np.sum(product, axis=dim if dim < 0 else dim - product.ndim)
    store(outs[0], product)


# --- errors of singular and indefinite matrices -------------------------------------------


def _batches(A: np.ndarray):
    for i, idx in enumerate(np.ndindex(A.shape[:-2])):
        yield i, A[idx]


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


def _batch_prefix(A: np.ndarray, i: int) -> str:
    return f"(Batch element {i}): " if A.ndim > 2 else ""


def singular_error(op: str, A: np.ndarray) -> LinAlgError:
    """PyTorch's message for the first singular matrix of the batch ``A``."""
    for i, M in _batches(A):
        try:
            np.linalg.inv(M)
        except np.linalg.LinAlgError:
            k = _zero_pivot(M)
            where = f"The diagonal element {k} is zero, the" if k is not None else "The"
            return LinAlgError(
                f"{op}: {_batch_prefix(A, i)}{where} inversion could not be completed because the input matrix is singular."
            )
    return LinAlgError(f"{op}: The inversion could not be completed because the input matrix is singular.")


def _not_pd_error(op: str, A: np.ndarray, upper: bool) -> LinAlgError:
    for i, M in _batches(A):
        try:
            np.linalg.cholesky(M, upper=upper)
            continue
        except np.linalg.LinAlgError:
            pass
        lo, hi = 1, M.shape[-1]  # the smallest failing leading minor: failure is monotone in k
        while lo < hi:
            mid = (lo + hi) // 2
            try:
                np.linalg.cholesky(M[:mid, :mid], upper=upper)
                lo = mid + 1
            except np.linalg.LinAlgError:
                hi = mid
        return LinAlgError(
            f"{op}: {_batch_prefix(A, i)}The factorization could not be completed because the input is not positive-definite "
            f"(the leading minor of order {lo} is not positive-definite)."
        )
    return LinAlgError(f"{op}: The factorization could not be completed because the input is not positive-definite.")


# --- decompositions and solvers ------------------------------------------------------------


@register_kernel("linalg_inv")
def inv(outs, ins, attrs):
    (A,) = _compute(ins[0])
    try:
        result = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        raise singular_error("linalg.inv", A) from None
    store(outs[0], result)


@register_kernel("linalg_det")
def det(outs, ins, attrs):
    store(outs[0], np.linalg.det(*_compute(ins[0])))


@register_kernel("linalg_slogdet")
def slogdet(outs, ins, attrs):
    sign, logabsdet = np.linalg.slogdet(*_compute(ins[0]))
    store(outs[0], sign)
    store(outs[1], logabsdet)


@register_kernel("linalg_solve")
def solve(outs, ins, attrs):
    A, B = _compute(*ins)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    if not attrs["left"]:  # X A = B  <=>  A^T X^T = B^T
        A = np.swapaxes(A, -1, -2)
        if not vector:
            B = np.swapaxes(B, -1, -2)
    try:
        X = np.linalg.solve(A, B[..., None] if vector else B)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.solve: The solver failed because the input matrix is singular.") from None
    if vector:
        X = X[..., 0]
    elif not attrs["left"]:
        X = np.swapaxes(X, -1, -2)
    store(outs[0], X)


@register_kernel("linalg_cholesky")
def cholesky(outs, ins, attrs):
    (A,) = _compute(ins[0])
    try:
        L = np.linalg.cholesky(A, upper=attrs["upper"])
    except np.linalg.LinAlgError:
        raise _not_pd_error("linalg.cholesky", A, attrs["upper"]) from None
    store(outs[0], L)


@register_kernel("linalg_qr")
def qr(outs, ins, attrs):
    (A,) = _compute(ins[0])
    if attrs["mode"] == "r":
        store(outs[1], np.linalg.qr(A, mode="r"))
        return
    Q, R = np.linalg.qr(A, mode=attrs["mode"])
    store(outs[0], Q)
    store(outs[1], R)


@register_kernel("linalg_svd")
def svd(outs, ins, attrs):
    U, S, Vh = np.linalg.svd(*_compute(ins[0]), full_matrices=attrs["full_matrices"])
    for out, value in zip(outs, (U, S, Vh), strict=True):
        store(out, value)


@register_kernel("linalg_svdvals")
def svdvals(outs, ins, attrs):
    store(outs[0], np.linalg.svd(*_compute(ins[0]), compute_uv=False))


@register_kernel("linalg_eigh")
def eigh(outs, ins, attrs):
    w, v = np.linalg.eigh(*_compute(ins[0]), UPLO=attrs["UPLO"])
    store(outs[0], w)
    store(outs[1], v)


@register_kernel("linalg_eigvalsh")
def eigvalsh(outs, ins, attrs):
    store(outs[0], np.linalg.eigvalsh(*_compute(ins[0]), UPLO=attrs["UPLO"]))


def _singular_values(A: np.ndarray, hermitian: bool) -> np.ndarray:
    if hermitian:
        return np.abs(np.linalg.eigvalsh(A))
    return np.linalg.svd(A, compute_uv=False)


def _tolerance(S: np.ndarray, shape: tuple, attrs: dict) -> np.ndarray:
    """max(atol, rtol * largest singular value), per matrix (PyTorch's pinv/matrix_rank rule)."""
    rtol = attrs["rtol"]
    if rtol is None:
        rtol = np.finfo(S.dtype).eps * max(shape[-2:], default=0)
    smax = np.max(S, axis=-1, keepdims=True, initial=0.0)
    return np.maximum(attrs["atol"], rtol * smax)


@register_kernel("linalg_pinv")
def pinv(outs, ins, attrs):
    (A,) = _compute(ins[0])
    U, S, Vh = np.linalg.svd(A, full_matrices=False)
    tol = _tolerance(S, A.shape, attrs)
    s_inv = np.zeros_like(S)
    np.divide(1, S, out=s_inv, where=tol < S)  # only the kept singular values are inverted
    V = np.swapaxes(Vh, -1, -2).conj()
    store(outs[0], np.matmul(V * s_inv[..., None, :], np.swapaxes(U, -1, -2).conj()))


@register_kernel("linalg_matrix_rank")
def matrix_rank(outs, ins, attrs):
    (A,) = _compute(ins[0])
    S = _singular_values(A, attrs["hermitian"])
    store(outs[0], np.count_nonzero(_tolerance(S, A.shape, attrs) < S, axis=-1))


@register_kernel("linalg_matrix_power")
def matrix_power(outs, ins, attrs):
    (A,) = _compute(ins[0])
    try:
        result = np.linalg.matrix_power(A, attrs["n"])
    except np.linalg.LinAlgError:
        raise singular_error("linalg.inv", A) from None
    store(outs[0], result)


# --- norms -------------------------------------------------------------------------------


def _norm_input(x: np.ndarray, attrs: dict) -> np.ndarray:
    dtype = attrs["dtype"]
    target = compute_dtype(dtype.numpy_dtype if dtype is not None else x.dtype)
    return x if x.dtype == target else x.astype(target)


@register_kernel("linalg_vector_norm")
def vector_norm(outs, ins, attrs):
    x = _norm_input(ins[0], attrs)
    p, dims, keep = attrs["ord"], attrs["dims"], attrs["keepdim"]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 2.0 and x.dtype.kind != "c":
            r = np.sqrt(np.sum(np.square(x), axis=dims, keepdims=keep))
        else:
            a = np.asarray(np.abs(x))
            if p == 2.0:
                r = np.sqrt(np.sum(np.square(a, out=a), axis=dims, keepdims=keep))
            elif p == np.inf:
                r = np.max(a, axis=dims, keepdims=keep)
            elif p == -np.inf:
                r = np.min(a, axis=dims, keepdims=keep)
            elif p == 0.0:
                r = np.sum(a != 0, axis=dims, keepdims=keep, dtype=a.dtype)
            elif p == 1.0:
                r = np.sum(a, axis=dims, keepdims=keep)
            else:
                r = np.power(np.sum(np.power(a, p), axis=dims, keepdims=keep), 1.0 / p)
    store(outs[0], r)


@register_kernel("linalg_matrix_norm")
def matrix_norm(outs, ins, attrs):
    out = outs[0]
    x = np.moveaxis(_norm_input(ins[0], attrs), attrs["matrix_dims"], (-2, -1))
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        out[...] = 0
        return
    r = np.linalg.norm(x, ord=attrs["ord"], axis=(-2, -1))
    store(out, np.reshape(r, out.shape))
