"""Products and solvers written with other ops (autograd comes with them, as in PyTorch, where
they are composite too): ``inner``, ``kron``, ``linalg.multi_dot`` and ``chain_matmul``,
``linalg.vander``, ``linalg.solve_triangular`` with ``cholesky_solve`` and ``cholesky_inverse``
over it, ``matrix_exp`` (Padé with scaling and squaring), ``linalg.tensorinv`` and ``linalg.tensorsolve``.

>>> import ember
>>> ember.kron(ember.tensor([1, 2]), ember.tensor([1, 10])).tolist()
[1, 10, 2, 20]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..common import functional as _F
from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family
from ._common import check_float, check_matrix, check_square, fmt_shape, linalg_functions

declare = schema_family("linalg")


declare(
    "inner",
    "Tensor (Tensor input, Tensor other) => Inner",
    method=True, out=True, composite=True,
    doc="""
    Sums of products over the last dimension of both (a product when either is 0-d).

    >>> ember.inner(ember.tensor([[1.0, 2.0], [3.0, 4.0]]), ember.tensor([1.0, 1.0])).tolist()
    [3.0, 7.0]
    """,
)
@functor("Inner")
def inner(input, other, out=None):
    F = _F()
    if input.ndim == 0 or other.ndim == 0:
        return F.mul(input, other, out=out)
    if input._shape[-1] != other._shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes {list(input._shape)} and {list(other._shape)}"
        )
    if input._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    return F.tensordot(input, other, ([-1], [-1]), out=out)


declare(
    "kron",
    "Tensor (Tensor input, Tensor other) => Kron",
    method=True, out=True, composite=True,
    doc="""
    The Kronecker product: block (i, j, ...) of the result is ``input[i, j, ...] * other`` (the
    shorter shape is padded with leading 1s; dtypes promote).

    >>> ember.kron(ember.eye(2), ember.ones((1, 2))).tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    """,
)
@functor("Kron")
def kron(input, other, out=None):
    F = _F()
    ndim = max(input.ndim, other.ndim)
    a_shape = (1,) * (ndim - input.ndim) + input._shape
    b_shape = (1,) * (ndim - other.ndim) + other._shape
    a = input.reshape(tuple(n for s in a_shape for n in (s, 1)))  # a0, 1, a1, 1, ...
    b = other.reshape(tuple(n for s in b_shape for n in (1, s)))  # 1, b0, 1, b1, ...
    result = F.mul(a, b).reshape(tuple(x * y for x, y in zip(a_shape, b_shape, strict=True)))
    if out is None:
        return result
    return out.copy_(result)


def _multi_dot(tensors, op: str):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"{op}(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"{op}(): the first tensor must be 1D or 2D but got {first.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.ndim != 2:
            raise RuntimeError(f"{op}(): tensor {i} must be 2D but got {t.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"{op}(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:], 1):
        if t._dtype is not first._dtype:
            raise RuntimeError(
                f"{op}(): all tensors must have be the same dtype but tensor 0 is {torch_name(first._dtype).lower()} "
                f"and tensor {i} {torch_name(t._dtype).lower()}"
            )
    mats = [first.unsqueeze(0) if first.ndim == 1 else first, *tensors[1:-1], last.unsqueeze(-1) if last.ndim == 1 else last]
    for i in range(n - 1):
        if mats[i]._shape[1] != mats[i + 1]._shape[0]:
            a, b = tensors[i]._shape, tensors[i + 1]._shape
            raise RuntimeError(f"{op}(): tensors {i} and {i + 1} with shapes {list(a)} and {list(b)} cannot be multiplied")
    result = mats[0]
    for m in mats[1:]:
        result = result @ m
    if first.ndim == 1:
        result = result.squeeze(0)
    if last.ndim == 1:
        result = result.squeeze(-1)
    return result


declare(
    "linalg.multi_dot",
    "Tensor (TensorList tensors) => LinalgMultiDot",
    out=True, composite=True,
    doc="""
    The product of two or more matrices; the first may be a row vector, the last a column vector.

    >>> ember.linalg.multi_dot([ember.ones(2), ember.ones((2, 3)), ember.ones(3)]).item()
    6.0
    """,
)
@functor("LinalgMultiDot")
def linalg_multi_dot(tensors, out=None):
    result = _multi_dot(list(tensors), "multi_dot")
    return result if out is None else out.copy_(result)


declare(
    "chain_matmul",
    "Tensor (TensorList matrices) => ChainMatmul",
    out=True, composite=True,
    doc="""
    The product of 2-D matrices (one matrix is returned as a copy): :func:`ember.linalg.multi_dot`.

    >>> ember.chain_matmul(ember.ones((2, 3)), ember.ones((3, 1))).tolist()
    [[3.0], [3.0]]
    """,
)
@functor("ChainMatmul")
def chain_matmul(matrices, out=None):
    matrices = list(matrices)
    for t in matrices:
        if t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.ndim}, expected 2 instead.")
    result = _F().clone(matrices[0]) if len(matrices) == 1 else _multi_dot(matrices, "multi_dot")
    return result if out is None else out.copy_(result)


declare(
    "linalg.vander",
    "Tensor (Tensor x, *, Int? N=None) => LinalgVander",
    composite=True,
    doc="""
    The Vandermonde matrix of each vector: columns ``x**0, x**1, ..., x**(N-1)`` (N defaults to the length).

    >>> ember.linalg.vander(ember.tensor([1, 2, 3])).tolist()
    [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    """,
)
@functor("LinalgVander")
def linalg_vander(x, N=None):
    if x._dtype in (_dt.bool_, _dt.string, _dt.float16, _dt.bfloat16):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got {torch_name(x._dtype)}")
    if x.ndim == 0:
        raise RuntimeError("N must be greater than 1.")
    n = x._shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    F = _F()
    dtype = x._dtype if x._dtype.is_floating_point or x._dtype.is_complex else _dt.int64
    x = x.to(dtype).unsqueeze(-1)
    powers = F.cumprod(x.expand(*x._shape[:-1], n - 1), -1)
    return F.cat([F.ones_like(x), powers], -1)


declare(
    "linalg.solve_triangular",
    "Tensor (Tensor A, Tensor B, *, Bool upper, Bool left=True, Bool unitriangular=False) => LinalgSolveTriangular",
    out=True, composite=True,
    doc="""
    X with A X = B (or X A = B when ``left=False``) for a triangular A, read from its upper or lower
    triangle (its diagonal taken as ones with ``unitriangular=True``). B is a (batch of) matrices.

    >>> ember.linalg.solve_triangular(ember.tensor([[2.0, 1.0], [9.0, 4.0]]), ember.tensor([[3.0], [4.0]]), upper=True).tolist()
    [[1.0], [1.0]]
    """,
)
@functor("LinalgSolveTriangular")
def linalg_solve_triangular(A, B, upper, left=True, unitriangular=False, out=None):
    op = "linalg.solve_triangular"
    check_matrix(op, B, "B")
    check_square(op, A)
    check_float(op, A)
    n = A._shape[-1]
    rows = B._shape[-2] if left else B._shape[-1]
    if rows != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and {fmt_shape(B._shape[-2:])})")
    T = A.triu() if upper else A.tril()
    if unitriangular:
        F = _F()
        T = T - F.diag_embed(T.diagonal(0, -2, -1)) + F.eye(n, dtype=A._dtype)
    X = linalg_functions().solve(T, B, left=left)
    return X if out is None else out.copy_(X)


# --- through a Cholesky factor ------------------------------------------------------------


declare(
    "cholesky_solve",
    "Tensor (Tensor input, Tensor input2, Bool upper=False) => CholeskySolve",
    method=True, out=True, composite=True,
    doc="""
    X with A X = B given the Cholesky factor of A (``input2``: L, or U with ``upper=True``) and B (``input``).

    >>> ember.cholesky_solve(ember.tensor([[4.0], [8.0]]), ember.tensor([[2.0, 0.0], [0.0, 2.0]])).tolist()
    [[1.0], [2.0]]
    """,
)
@functor("CholeskySolve")
def cholesky_solve(input, input2, upper=False, out=None):
    B, L = input, input2
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead")
    if L.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.ndim} dimensions instead")
    check_square("cholesky_solve", L)
    if B._shape[-2] != L._shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L._shape[-1]} by {L._shape[-1]} but each b "
            f"matrix is {B._shape[-2]} by {B._shape[-1]}"
        )
    if B._dtype is not L._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {torch_name(B._dtype)} and A of type "
            f"{torch_name(L._dtype)} instead."
        )
    # the factor's other triangle is not read, but torch differentiates the factor as a full matrix:
    # subtracting that triangle detached keeps the value triangular and the gradient whole
    F = L - (L.tril(-1) if upper else L.triu(1)).detach()
    if upper:  # A = U^H U
        F = F.mT.conj()
    solve = linalg_functions().solve
    X = solve(F.mT.conj(), solve(F, B))
    return X if out is None else out.copy_(X)


declare(
    "cholesky_inverse",
    "Tensor (Tensor input, Bool upper=False) => CholeskyInverse",
    method=True, out=True, composite=True,
    doc="""
    The inverse of A given its Cholesky factor (L, or U with ``upper=True``).

    >>> ember.cholesky_inverse(ember.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.25, 0.0], [0.0, 0.0625]]
    """,
)
@functor("CholeskyInverse")
def cholesky_inverse(input, upper=False, out=None):
    check_matrix("cholesky_inverse", input, "input")
    check_square("cholesky_inverse", input)
    check_float("cholesky_inverse", input)
    n = input._shape[-1]
    eye = _F().eye(n, dtype=input._dtype).expand(*input._shape)
    return cholesky_solve(eye, input, upper, out)


# --- matrix_exp: scaling and squaring with the degree-13 Padé approximant (Higham 2005) ------

_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
    10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)  # fmt: skip
_THETA13 = 5.371920351148152


declare(
    "matrix_exp",
    "Tensor (Tensor input) => MatrixExp",
    method=True, composite=True,
    doc="""
    The matrix exponential of a (batch of) square matrices.

    >>> ember.matrix_exp(ember.zeros((2, 2))).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """,
)
declare(
    "linalg.matrix_exp",
    "Tensor (Tensor A) => MatrixExp",
    composite=True,
    doc="Same as :func:`ember.matrix_exp`.",
)
@functor("MatrixExp")
def matrix_exp(A):
    op = "linalg.matrix_exp"
    check_square(op, A)
    check_float(op, A, low_precision=A.numel() == 0)  # torch's half loop overflows to nan; ember refuses half
    if A.numel() == 0:
        return A.clone()
    F = _F()
    work = A
    norm1 = float(work.detach().abs().sum(-2).amax().item())  # the largest 1-norm of the batch
    s = max(0, math.ceil(math.log2(norm1 / _THETA13))) if norm1 > 0 and math.isfinite(norm1) else 0
    X = work / (2**s) if s else work
    n = A._shape[-1]
    b = _PADE13
    eye = F.eye(n, dtype=work._dtype)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    R = linalg_functions().solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R.to(A._dtype) if R._dtype is not A._dtype else R


# --- tensorinv, tensorsolve: inv and solve of tensors read as matrices -------------------------


declare(
    "linalg.tensorinv",
    "Tensor (Tensor A, Int ind=2) => LinalgTensorinv",
    out=True, composite=True,
    doc="""
    The inverse of A read as a matrix with prod(shape[:ind]) rows; the result has shape shape[ind:] + shape[:ind].

    >>> ember.linalg.tensorinv(ember.eye(4).reshape(4, 2, 2), ind=1).shape
    ember.Size([2, 2, 4])
    """,
)
@functor("LinalgTensorinv")
def linalg_tensorinv(A, ind=2, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.ndim:
        raise RuntimeError(f"linalg.tensorinv: ind ({ind}) is more than the number of dimensions of A ({A.ndim})")
    rows, cols = math.prod(A._shape[:ind]), math.prod(A._shape[ind:])
    if rows != cols:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {cols} != {rows}"
        )
    result = linalg_functions().inv(A.reshape(rows, cols)).reshape(A._shape[ind:] + A._shape[:ind])
    return result if out is None else out.copy_(result)


declare(
    "linalg.tensorsolve",
    "Tensor (Tensor A, Tensor B, IntList? dims=None) => LinalgTensorsolve",
    out=True, composite=True,
    doc="""
    X with tensordot(A, X, X.ndim) = B; ``dims`` moves those dims of A to its end first.

    >>> ember.linalg.tensorsolve(ember.eye(6).reshape(2, 3, 6), ember.ones((2, 3))).shape
    ember.Size([6])
    """,
)
@functor("LinalgTensorsolve")
def linalg_tensorsolve(A, B, dims=None, out=None):
    if dims is not None:
        moved = [wrap_dim(d, A.ndim, "linalg.tensorsolve", "dims") for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in moved], *moved)
    result_shape = A._shape[B.ndim :]
    rows = math.prod(B._shape)
    A2 = A.reshape(rows, math.prod(result_shape))
    result = linalg_functions().solve(A2, B.reshape(rows)).reshape(result_shape)
    return result if out is None else out.copy_(result)
