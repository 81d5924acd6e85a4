"""TensorFlow 1's matrix products and linear algebra: ``tf.matmul`` (``MatMul``, or
``BatchMatMulV2`` above rank 2), ``tensordot``, ``einsum``, ``tf.norm``, ``tf.trace`` and the
``tf.linalg`` functions (TensorFlow's argument names and result order: ``svd`` gives
``(s, u, v)`` with ``v`` itself, not its adjoint).

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     p = tf.matmul([[1.0, 2.0]], [[3.0], [4.0]])
...     tf.Session().run(p).tolist(), p.op.type
([[11.0]], 'MatMul')
"""

from __future__ import annotations

import numbers

from ..._core import dtype as _dt
from ...ops import functional as F
from ...ops.functional import NAMESPACES
from ._common import FLOATS, as_pair, check_dtype, known_dims, static_axes, static_shape, tensor
from .framework import op_scope

__all__ = [
    "band_part", "cholesky", "det", "diag", "diag_part", "eigh", "eigvalsh", "einsum", "eye", "inv", "logdet", "matmul",
    "matrix_transpose", "norm", "qr", "slogdet", "solve", "svd", "tensordot", "trace",
]  # fmt: skip

_LINALG = NAMESPACES["linalg"]
_MATMUL_TYPES = (*FLOATS, _dt.int32, _dt.int64, _dt.int16, _dt.int8, _dt.uint8)


def _adjoint(x, conjugate: bool = True):
    x = F.transpose(x, -2, -1)
    return F.conj(x) if conjugate and x._dtype.is_complex else x


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False, b_is_sparse=False,
           output_type=None, name=None):  # fmt: skip
    """The matrix product ``a @ b`` of rank-2 tensors (node ``MatMul``), or of the last two axes
    with the batch axes broadcast (``BatchMatMulV2``); ``transpose_*``/``adjoint_*`` use the
    (conjugate) transpose of an operand."""
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    with op_scope(name, "MatMul", (a, b)) as scope:
        a, b = as_pair(a, b, "MatMul", "a", "b")
        check_dtype(a, _MATMUL_TYPES, "a")
        for arg, t in (("a", a), ("b", b)):
            known_dims(t, "matmul")  # a known rank
            if static_shape(t).rank < 2:
                raise ValueError(
                    f"Shape must be rank >= 2 but is rank {static_shape(t).rank} for 'MatMul' (op: 'MatMul') input '{arg}'"
                )
        batched = (static_shape(a).rank or 3) > 2 or (static_shape(b).rank or 3) > 2
        if transpose_a or adjoint_a:
            a = _adjoint(a, adjoint_a)
        if transpose_b or adjoint_b:
            b = _adjoint(b, adjoint_b)
        inner_a = static_shape(a).as_list()[-1] if static_shape(a).rank is not None else None
        inner_b = static_shape(b).as_list()[-2] if static_shape(b).rank is not None else None
        if inner_a is not None and inner_b is not None and inner_a != inner_b:
            raise ValueError(f"Dimensions must be equal, but are {inner_a} and {inner_b} for 'MatMul' with input shapes: "
                             f"{a.shape}, {b.shape}.")  # fmt: skip
        result = F.matmul(a, b)
        if output_type is not None:
            result = result.to(_dt.as_dtype(output_type, op="matmul", arg="output_type"))
        return scope.out(result, "BatchMatMulV2" if batched else "MatMul")


def tensordot(a, b, axes, name=None):
    """The sum of products over ``axes``: an int N (the last N axes of ``a`` with the first N of
    ``b``) or a pair of axis lists."""
    with op_scope(name, "Tensordot", (a, b)) as scope:
        a, b = as_pair(a, b, "MatMul", "a", "b")
        if isinstance(axes, numbers.Integral):
            if axes < 0:
                raise ValueError(f"'axes' must be at least 0, got {axes}.")
            dims = int(axes)
        else:
            if len(axes) != 2:
                raise ValueError(f"'axes' must be an integer or have length 2, got {axes!r}.")
            left, right = ([x] if isinstance(x, numbers.Integral) else list(x) for x in axes)
            if len(left) != len(right):
                raise ValueError(f"Different number of contraction axes 'a' and 'b', {len(left)} != {len(right)}.")
            dims = (left, right)
        return scope.out(F.tensordot(a, b, dims=dims), "Reshape")


def einsum(equation, *inputs, **kwargs):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b`` (node ``einsum/Einsum``)."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"einsum(): invalid keyword arguments for this function: {', '.join(sorted(kwargs))}")
    with op_scope(name, "einsum", inputs):
        tensors = [tensor(t, f"inputs_{i}") for i, t in enumerate(inputs)]
        with op_scope(None, "Einsum", tensors) as scope:
            return scope.out(F.einsum(equation, *tensors), "Einsum")


def trace(x, name=None):
    """The sum of the main diagonal of each matrix in ``x`` (the last two axes)."""
    with op_scope(name, "Trace", (x,)) as scope:
        x = tensor(x, "x")
        rows, cols = known_dims(x, "trace")[-2:]
        if (
            rows is not None and cols is not None
        ):  # a masked sum: graph mode differentiates it (diagonal's derivative is eager only)
            return scope.out(F.sum(F.mul(x, F.eye(rows, cols, dtype=x._dtype)), dim=(-2, -1)), "Sum")
        return scope.out(F.sum(F.diagonal(x, 0, -2, -1), dim=-1), "Sum")


def norm(tensor_, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None, tensor=None):  # noqa: A002 - TensorFlow's name
    """The vector norm over ``axis`` (every element when None; an int), or the matrix norm over a
    pair of axes: ``ord`` is "euclidean"/2, 1, inf or p > 0 for vectors, "fro"/"euclidean", 1 or
    inf for matrices."""
    if tensor is not None:
        tensor_ = tensor
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with op_scope(name, "norm", (tensor_,)) as scope:
        x = _as_tensor(tensor_)
        check_dtype(x, FLOATS, "tensor")
        matrix = axis is not None and not isinstance(axis, numbers.Integral) and len(axis) == 2
        dims = static_axes(axis, static_shape(x).rank, "norm")
        if (isinstance(ord, str) and ord not in ("euclidean", "fro")) or (ord == "fro" and not matrix):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}.")
        magnitude = F.abs(x)
        if matrix:
            rows, cols = dims
            if ord in ("euclidean", "fro"):
                result = F.sqrt(F.sum(F.square(magnitude), dim=dims, keepdim=keep))
            elif ord == 1:
                result = F.amax(F.sum(magnitude, dim=rows, keepdim=True), dim=cols, keepdim=True)
            elif ord == float("inf"):
                result = F.amax(F.sum(magnitude, dim=cols, keepdim=True), dim=rows, keepdim=True)
            else:
                raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, inf], got {ord!r}.")
            if matrix and not keep and ord in (1, float("inf")):
                result = F.squeeze(result, dim=tuple(sorted(dims)))
        elif ord in ("euclidean", 2):
            result = F.sqrt(F.sum(F.square(magnitude), dim=dims, keepdim=keep))
        elif ord == 1:
            result = F.sum(magnitude, dim=dims, keepdim=keep)
        elif ord == float("inf"):
            result = F.amax(magnitude, dim=dims, keepdim=keep)
        elif isinstance(ord, numbers.Real) and ord > 0:
            result = F.pow(F.sum(F.pow(magnitude, float(ord)), dim=dims, keepdim=keep), 1.0 / ord)
        else:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}.")
        return scope.out(result)


def _as_tensor(value):
    return tensor(value, "tensor")


def _matrix_fn(fn_name: str, op_type: str, compute, arg: str = "input", doc: str = ""):
    def fn(x, name=None):
        with op_scope(name, op_type, (x,)) as scope:
            x = tensor(x, arg)
            check_dtype(x, FLOATS, arg)
            if static_shape(x).rank is not None and static_shape(x).rank < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {static_shape(x).rank} for '{op_type}'")
            result = compute(x)
            first = result[0] if isinstance(result, tuple) else result
            scope.out(first, op_type)
            return result

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = doc
    return fn


inv = _matrix_fn("inv", "MatrixInverse", _LINALG["inv"], doc="The inverse of each square matrix (node ``MatrixInverse``).")
det = _matrix_fn("det", "MatrixDeterminant", _LINALG["det"], doc="The determinant of each square matrix (``MatrixDeterminant``).")
cholesky = _matrix_fn(
    "cholesky", "Cholesky", _LINALG["cholesky"], doc="The lower Cholesky factor of each positive-definite matrix."
)
slogdet = _matrix_fn("slogdet", "LogMatrixDeterminant", lambda x: tuple(_LINALG["slogdet"](x)),
                     doc="``(sign, log|det|)`` of each square matrix (``LogMatrixDeterminant``).")  # fmt: skip
eigvalsh = _matrix_fn("eigvalsh", "SelfAdjointEigV2", lambda x: _LINALG["eigvalsh"](x), "tensor",
                      doc="The eigenvalues of each self-adjoint matrix, ascending.")  # fmt: skip


def logdet(matrix, name=None):
    """``log(det(matrix))`` of Hermitian positive-definite matrices, from their Cholesky factor."""
    with op_scope(name, "logdet", (matrix,)) as scope:
        chol = cholesky(tensor(matrix, "matrix"))
        return scope.out(
            F.mul(
                F.sum(
                    F.log(F.real(F.diagonal(chol, 0, -2, -1)) if chol._dtype.is_complex else F.diagonal(chol, 0, -2, -1)), dim=-1
                ),
                2.0,
            )
        )


def eigh(tensor, name=None):
    """``(e, v)``: the ascending eigenvalues and the eigenvectors (columns) of self-adjoint matrices."""
    return _matrix_fn("eigh", "SelfAdjointEigV2", lambda x: tuple(_LINALG["eigh"](x)), "tensor")(tensor, name)


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TensorFlow's name
    """``(q, r)`` of each matrix (reduced unless ``full_matrices``)."""
    mode = "complete" if full_matrices else "reduced"
    return _matrix_fn("qr", "Qr", lambda x: tuple(_LINALG["qr"](x, mode=mode)))(input, name)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``(s, u, v)`` with ``tensor = u @ diag(s) @ adjoint(v)`` (``s`` alone without ``compute_uv``)."""

    def compute(x):
        if not compute_uv:
            return _LINALG["svdvals"](x)
        u, s, vh = _LINALG["svd"](x, full_matrices=full_matrices)
        return s, u, _adjoint(vh)

    return _matrix_fn("svd", "Svd", compute, "tensor")(tensor, name)


def solve(matrix, rhs, adjoint=False, name=None):
    """``x`` with ``matrix @ x = rhs`` (``adjoint(matrix) @ x = rhs`` with ``adjoint``) for each square matrix."""
    with op_scope(name, "MatrixSolve", (matrix, rhs)) as scope:
        matrix, rhs = as_pair(matrix, rhs, "MatrixSolve", "matrix", "rhs")
        check_dtype(matrix, FLOATS, "matrix")
        if adjoint:
            matrix = _adjoint(matrix)
        return scope.out(_LINALG["solve"](matrix, rhs), "MatrixSolve")


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Each matrix of ``a`` transposed (its last two axes swapped; conjugated with ``conjugate``)."""
    with op_scope(name, "matrix_transpose", (a,)) as scope:
        a = tensor(a, "a")
        if static_shape(a).rank is not None and static_shape(a).rank < 2:
            raise ValueError(f"Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: {a.shape}")
        return scope.out(_adjoint(a, conjugate), "Transpose")


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices whose main diagonal is the last axis of ``diagonal`` (``MatrixDiagV3``)."""
    with op_scope(name, "diag", (diagonal,)) as scope:
        d = tensor(diagonal, "diagonal")
        if (num_rows, num_cols, padding_value) != (-1, -1, 0):
            raise NotImplementedError("tf.linalg.diag: num_rows, num_cols and padding_value are not supported")
        return scope.out(F.diag_embed(d, offset=k), "MatrixDiagV3")


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002 - TensorFlow's name
    """The main diagonal (``k``: another one) of each matrix of ``input`` (``MatrixDiagPartV3``)."""
    with op_scope(name, "diag_part", (input,)) as scope:
        x = tensor(input, "input")
        return scope.out(F.diagonal(x, k, -2, -1), "MatrixDiagPartV3")


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TensorFlow's name
    """Each matrix with the elements outside the band zeroed: ``num_lower`` diagonals below the
    main one and ``num_upper`` above it are kept (a negative count keeps that whole triangle)."""
    with op_scope(name, "MatrixBandPart", (input,)) as scope:
        x = tensor(input, "input")
        lower, upper = int(num_lower), int(num_upper)
        if upper >= 0:
            x = F.tril(x, upper)
        if lower >= 0:
            x = F.triu(x, -lower)
        if lower < 0 and upper < 0:
            x = F.clone(x)
        return scope.out(x, "MatrixBandPart")


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dt.float32, name=None):
    """Identity matrices: ``num_rows`` x ``num_columns`` (square by default), ``batch_shape`` of them."""
    dtype = _dt.as_dtype(dtype, op="eye", arg="dtype")
    with op_scope(name, "eye", ()) as scope:
        cols = num_rows if num_columns is None else num_columns
        for what, n in (("num_rows", num_rows), ("num_columns", cols)):
            if not isinstance(n, numbers.Integral) or n < 0:
                raise ValueError(f"eye(): {what} must be a non-negative integer, got {n!r}")
        result = F.eye(int(num_rows), int(cols), dtype=dtype)
        if batch_shape is not None:
            batch = tuple(int(b) for b in batch_shape)
            result = F.broadcast_to(result, (*batch, int(num_rows), int(cols))).contiguous()
        return scope.out(result, "MatrixDiagV3")
