"""Norms and the trace, what reduces a vector or a matrix to a number: ``linalg.vector_norm``,
``linalg.matrix_norm``, ``linalg.norm``, ``norm`` (torch.norm), ``linalg.diagonal`` and the
traces (composites).

``torch.norm`` lives here, beside the norms it calls, so reductions and linear algebra do not
import each other.

>>> import ember
>>> x = ember.tensor([[3.0, 4.0]])
>>> ember.linalg.vector_norm(x, ord=1).item(), x.norm().item()
(7.0, 5.0)
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ...dispatch import OpExpr
from ..common import functional as _F
from ..functor import functor
from ..reduction import reduce_dims, reduced_shape, torch_name, unreduce
from ..schema import schema_family
from ._common import cast, check_float, check_matrix, linalg_functions, real_dtype, run

declare = schema_family("linalg")


# --- vector_norm ---------------------------------------------------------------------------


VECTOR_NORM = OpExpr("linalg_vector_norm", ("x",), ("out",))


def _norm_dtype(op: str, x, dtype) -> _dt.DType:
    """The dtype the norm computes in (input cast to ``dtype`` when given)."""
    check_float(op, x, low_precision=True)
    if dtype is None:
        return x._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got {torch_name(dtype)}")
    if dtype.is_complex != x._dtype.is_complex:  # the norm of a real input is real, of a complex one computed in complex
        kind = "complex for complex" if x._dtype.is_complex else "real for real"
        raise RuntimeError(f"{op}: dtype should be {kind} inputs, but got {torch_name(dtype)}")
    if _dt.promote_types(x._dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{op}: the dtype of the input ({torch_name(x._dtype)}) should be convertible without narrowing to the specified dtype ({torch_name(dtype)})"
        )
    return dtype


@VECTOR_NORM.shape_rule
def _vector_norm_infer(attrs, x):
    dtype = _norm_dtype(attrs["op"], x, attrs["dtype"])
    return ((reduced_shape(x._shape, attrs["dims"], attrs["keepdim"]), real_dtype(dtype)),)


def vector_norm_impl(x, ord, dim, keepdim, dtype, out, op="linalg.vector_norm"):
    """The vector ``ord``-norm of ``x`` over ``dim`` (all when None): torch.linalg.vector_norm."""
    if isinstance(ord, (bool, complex, str)) or not isinstance(ord, (int, float)):
        raise RuntimeError(f"{op}: ord must be a real number, got {ord!r}")
    ord = float(ord)
    dims = reduce_dims(dim, x.ndim)
    if ord < 0 or ord == math.inf:
        empty = x.numel() == 0 if dim is None or x.ndim == 0 else any(x._shape[d] == 0 for d in dims)
        if empty:
            name = "inf" if ord == math.inf else ("-inf" if ord == -math.inf else f"{ord:g}")
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because the operation does not have an identity"
            )
    return run(VECTOR_NORM, (x,), {"op": op, "ord": ord, "dims": dims, "keepdim": keepdim, "dtype": dtype}, out)


declare(
    "linalg.vector_norm",
    "Tensor (Tensor x, Scalar ord=2, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => LinalgVectorNorm",
    out=True, op="linalg_vector_norm",
    doc="""
    (sum |x|^ord)^(1/ord) over ``dim`` (all when None); ord inf/-inf: max/min |x|, 0: the count of nonzeros.

    >>> ember.linalg.vector_norm(ember.tensor([3.0, -4.0]), ord=1).item()
    7.0
    """,
)
@functor("LinalgVectorNorm")
def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None, out=None):
    return vector_norm_impl(x, ord, dim, keepdim, dtype, out)


@VECTOR_NORM.grad_rule(saves="both")
def _vector_norm_grad(ctx, g):
    (x,) = ctx.inputs
    (norm,) = ctx.outputs
    F = _F()
    in_dtype = x._dtype
    if ctx.attrs["dtype"] is not None:
        x = cast(x, ctx.attrs["dtype"])
    shape, dims, keepdim, p = x._shape, ctx.attrs["dims"], ctx.attrs["keepdim"], ctx.attrs["ord"]
    g = unreduce(g, shape, dims, keepdim)
    norm = unreduce(norm, shape, dims, keepdim)
    if p == 0.0:
        grad = x * 0
    elif p == 1.0:
        grad = x.sgn() * g
    elif math.isinf(p):
        ax = x.abs()
        mask = (ax == norm).to(g._dtype)
        count = mask.sum(dim=dims, keepdim=True) if dims else mask
        grad = x.sgn() * (g * mask / count)
    elif p == 2.0:
        grad = x * F.where(norm == 0, 0.0, g / norm)
    else:
        scaled = x.sgn() * x.abs().pow(p - 1)
        if p < 1:
            scaled = F.where(x == 0, 0.0, scaled)
        grad = scaled * F.where(norm == 0, 0.0, g / norm.pow(p - 1))
    return (cast(grad, in_dtype),)


# --- matrix_norm ---------------------------------------------------------------------------


MATRIX_NORM = OpExpr("linalg_matrix_norm", ("A",), ("out",))
_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1.0, -1.0, 2.0, -2.0)


@MATRIX_NORM.shape_rule
def _matrix_norm_infer(attrs, A):
    dtype = _norm_dtype("linalg.matrix_norm", A, attrs["dtype"])
    return ((reduced_shape(A._shape, attrs["dims"], attrs["keepdim"]), real_dtype(dtype)),)


def matrix_norm_impl(A, ord, dim, keepdim, dtype, out):
    """torch.linalg.matrix_norm: 'fro', 'nuc', +-inf, +-1, +-2 over the two dims ``dim``."""
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif isinstance(ord, bool) or not isinstance(ord, (int, float)) or float(ord) not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    else:
        ord = float(ord)
    check_matrix("linalg.matrix_norm", A)
    if dim is None or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim or ()))}")
    d0, d1 = wrap_dim(dim[0], A.ndim), wrap_dim(dim[1], A.ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    m, n = A._shape[d0], A._shape[d1]
    if (ord == -1.0 and n == 0) or (ord == -math.inf and m == 0) or (ord == -2.0 and min(m, n) == 0):
        raise RuntimeError(
            f"linalg.matrix_norm: the norm of order {ord:g} of an empty matrix is not defined (the minimum has no identity)"
        )
    attrs = {"ord": ord, "dims": tuple(sorted((d0, d1))), "matrix_dims": (d0, d1), "keepdim": keepdim, "dtype": dtype}
    return run(MATRIX_NORM, (A,), attrs, out)


declare(
    "linalg.matrix_norm",
    "Tensor (Tensor A, Object ord='fro', IntList dim=[-2, -1], Bool keepdim=False, *, DType? dtype=None) => LinalgMatrixNorm",
    out=True, op="linalg_matrix_norm",
    doc="A matrix norm over the two dims ``dim``; ord 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2.",
)
@functor("LinalgMatrixNorm")
def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None, out=None):
    return matrix_norm_impl(A, ord, dim, keepdim, dtype, out)


def _spread_ties(values, target, g):
    """g shared evenly among the positions where ``values`` equals ``target`` (amax/amin's rule)."""
    mask = (values == target).to(g._dtype)
    return g * mask / mask.sum(-1, keepdim=True)


def _extreme(s, ord):
    """amax (positive ord) or amin of ``s`` over its last dim, kept (recomputed, so ties compare exactly)."""
    return s.amax(-1, keepdim=True) if ord > 0 else s.amin(-1, keepdim=True)


@MATRIX_NORM.grad_rule(saves="both")
def _matrix_norm_grad(ctx, g):
    (A,) = ctx.inputs
    (norm,) = ctx.outputs
    F, LA = _F(), linalg_functions()
    in_dtype = A._dtype
    if ctx.attrs["dtype"] is not None:
        A = cast(A, ctx.attrs["dtype"])
    ord, dims, keepdim = ctx.attrs["ord"], ctx.attrs["dims"], ctx.attrs["keepdim"]
    d0, d1 = ctx.attrs["matrix_dims"]
    shape = A._shape
    g = unreduce(g, shape, dims, keepdim).movedim((d0, d1), (-2, -1))
    norm = unreduce(norm, shape, dims, keepdim).movedim((d0, d1), (-2, -1))
    M = A.movedim((d0, d1), (-2, -1))
    if ord == "fro":
        grad = M * F.where(norm == 0, 0.0, g / norm)
    elif ord == "nuc":
        U, _, Vh = LA.svd(M, full_matrices=False)
        grad = g * (U @ Vh)
    elif ord in (2.0, -2.0):
        U, S, Vh = LA.svd(M, full_matrices=False)
        target = _extreme(S, ord).detach()
        w = _spread_ties(S, target, F.ones_like(S))
        grad = g * ((U * w.to(U._dtype).unsqueeze(-2)) @ Vh)
    elif ord in (1.0, -1.0):  # max/min over columns of the column sums of |A|
        s = M.abs().sum(-2)  # (..., n)
        w = _spread_ties(s, _extreme(s, ord).detach(), g.squeeze(-1))
        grad = M.sgn() * w.unsqueeze(-2)
    else:  # +-inf: over rows of the row sums
        s = M.abs().sum(-1)  # (..., m)
        w = _spread_ties(s, _extreme(s, ord).detach(), g.squeeze(-1))
        grad = M.sgn() * w.unsqueeze(-1)
    return (cast(grad.movedim((-2, -1), (d0, d1)), in_dtype),)


# --- linalg.norm and torch.norm: a vector or a matrix norm, by the arguments ------------------


declare(
    "linalg.norm",
    "Tensor (Tensor A, Object ord=None, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => LinalgNorm",
    out=True, op=("linalg_vector_norm", "linalg_matrix_norm"),
    doc="""
    A vector norm (1 dim, or a 1-D input) or a matrix norm (2 dims, or a 2-D input with ``ord``).

    >>> ember.linalg.norm(ember.tensor([3.0, 4.0])).item()
    5.0
    """,
)
@functor("LinalgNorm")
def linalg_norm(A, ord=None, dim=None, keepdim=False, dtype=None, out=None):
    if dim is not None:
        if len(dim) == 1:
            return vector_norm_impl(A, 2.0 if ord is None else ord, dim, keepdim, dtype, out)
        if len(dim) == 2:
            return matrix_norm_impl(A, "fro" if ord is None else ord, dim, keepdim, dtype, out)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    if ord is None:
        return vector_norm_impl(A, 2.0, None, keepdim, dtype, out)
    if A.ndim == 2 or isinstance(ord, str):
        return matrix_norm_impl(A, ord, (-2, -1), keepdim, dtype, out)
    if A.ndim == 1:
        return vector_norm_impl(A, ord, None, keepdim, dtype, out)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.")


declare(
    "norm",
    "Tensor (Tensor input, Object p='fro', IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Norm",
    method=True, out=True, op=("linalg_vector_norm", "linalg_matrix_norm"),
    doc="""
    torch.norm: p a number (vector p-norm over ``dim``), 'fro' (2-norm), or 'nuc' (nuclear norm of matrices).

    >>> ember.tensor([[3.0, 4.0]]).norm().item()
    5.0
    """,
)
@functor("Norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None, out=None):
    """torch.norm: 'fro' and numbers are vector norms over ``dim``; 'nuc' is a matrix norm."""
    if p is None:
        p = "fro"
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            return vector_norm_impl(input, 2.0, dim, keepdim, dtype, out)
        if p in ("fro", "nuc"):
            dims = tuple(range(input.ndim)) if dim is None else dim
            return matrix_norm_impl(input, p, dims, keepdim, dtype, out)
        raise RuntimeError(f"norm(): unsupported p {p!r} (expected a number, 'fro' or 'nuc')")
    return vector_norm_impl(input, p, dim, keepdim, dtype, out, op="norm")


# --- diagonal and trace: composites ----------------------------------------------------------


declare(
    "linalg.diagonal",
    "Tensor (Tensor A, *, Int offset=0, Int dim1=-2, Int dim2=-1) => LinalgDiagonal",
    composite=True,
    doc="The diagonals of a batch of matrices (a view).",
)
@functor("LinalgDiagonal")
def linalg_diagonal(A, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


declare(
    "linalg.trace",
    "Tensor (Tensor x, *, Int offset=0, DType? dtype=None) => LinalgTrace",
    composite=True,
    doc="The sum of each matrix's ``offset`` diagonal over the last two dims (batched).",
)
@functor("LinalgTrace")
def linalg_trace(A, offset=0, dtype=None):
    F = _F()
    check_matrix("linalg.trace", A, "x")
    return F.sum(A.diagonal(offset, -2, -1), -1, dtype=dtype)


declare(
    "Tensor.trace",
    "Tensor (Tensor input) => Trace",
    method=True, composite=True,
    doc="""
    The sum of a matrix's diagonal (integers sum to int64). ``ember.trace(matrix)`` gives it too;
    ``ember.trace()`` with no argument is the op-journey recorder.

    >>> ember.tensor([[1, 2], [3, 4]]).trace().item()
    5
    """,
)
@functor("Trace")
def trace(input):
    F = _F()
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return F.sum(input.diagonal())
