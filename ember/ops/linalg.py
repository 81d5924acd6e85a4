"""Linear algebra: matmul and friends, einsum, tensordot, and the ``linalg.`` namespace.

``matmul`` follows ``torch.matmul`` exactly (1-D operands are promoted and the added dimension
removed, batch dimensions broadcast) and its kernel is a single ``np.matmul(a, b, out=...)``
(BLAS for floats). ``mm``, ``bmm``, ``mv`` and ``dot`` check their stricter shapes and reuse
the same primitive. The decompositions run NumPy's LAPACK routines over batches
``(..., n, n)``; a singular or non positive-definite input raises :class:`LinAlgError` naming
the op, the batch element and the pivot, as PyTorch does. Kernels are in
``ember/kernels/cpu/linalg.py``.

>>> import ember
>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> (a @ a).tolist()
[[7.0, 10.0], [15.0, 22.0]]
"""

from __future__ import annotations

import collections
import math
import operator
import string

from .._core import dtype as _dt
from .._core.errors import LinAlgError
from .._core.shape import wrap_dim
from .._core.tensor import Tensor
from ..dispatch import NO_ATTRS, OpExpr, dispatch
from .common import broadcast_pair, sum_to
from .common import functional as _F
from .functor import functor
from .reduction import reduce_dims, reduced_shape, return_types, torch_name
from .schema import schema_family

declare = schema_family("linalg")

__all__ = ["LinAlgError", "matrix_norm_impl", "vector_norm_impl"]


def _named_tuple(name: str, fields: tuple[str, ...]) -> type:
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "ember.ops.reduction"
    cls.__qualname__ = f"return_types.{name}"
    setattr(return_types, name, cls)
    return cls


QRResult = _named_tuple("linalg_qr", ("Q", "R"))
SVDResult = _named_tuple("linalg_svd", ("U", "S", "Vh"))
EighResult = _named_tuple("linalg_eigh", ("eigenvalues", "eigenvectors"))
SlogdetResult = _named_tuple("linalg_slogdet", ("sign", "logabsdet"))


def _out(op: OpExpr, inputs: tuple, attrs: dict, out):
    if out is None:
        return dispatch(op, inputs, attrs)[0]
    return dispatch(op, inputs, attrs, (out,))[0]


def _fmt(shape: tuple) -> str:
    return "x".join(map(str, shape))


def _same_dtype_for_mm(a, b) -> _dt.DType:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a._dtype.name} != {b._dtype.name}")
    dtype = a._dtype
    if dtype is _dt.bool_ or dtype is _dt.string:
        raise RuntimeError(f"matmul: not implemented for '{torch_name(dtype)}'")
    return dtype


# ---------------------------------------------------------------------------------------
# matmul: one primitive for matmul, mm, bmm, mv, dot


def matmul_shape(sa: tuple, sb: tuple) -> tuple:
    """The shape of ``torch.matmul`` for operand shapes ``sa`` and ``sb``, with its errors."""
    na, nb = len(sa), len(sb)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if na == 1 and nb == 1:
        if sa[0] != sb[0]:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the same number of "
                f"elements, but got {sa[0]} and {sb[0]} elements respectively"
            )
        return ()
    if na == 2 and nb == 1:
        if sa[1] != sb[0]:
            raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({_fmt(sa)}), vec ({sb[0]})")
        return (sa[0],)
    if na == 1 and nb == 2:
        if sa[0] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{sa[0]} and {_fmt(sb)})")
        return (sb[1],)
    if na == 2 and nb == 2:
        if sa[1] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_fmt(sa)} and {_fmt(sb)})")
        return (sa[0], sb[1])
    if nb <= 2:  # a batch of matrices times a matrix or a vector: folded into one mm / mv, as PyTorch
        rows, k = math.prod(sa[:-1]), sa[-1]
        if sb[0] != k:
            if nb == 2:
                raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {_fmt(sb)})")
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({sb[0]})")
        return sa[:-1] + ((sb[1],) if nb == 2 else ())
    # batched: a 1-D first operand gains a row that the result loses; batch dims broadcast
    ma = (1, sa[0]) if na == 1 else sa
    batch = broadcast_pair(ma[:-2], sb[:-2])
    if sb[-2] != ma[-1]:
        b = math.prod(batch)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {ma[-1]}] but got: [{b}, {sb[-2]}]."
        )
    return batch + ((ma[-2],) if na > 1 else ()) + (sb[-1],)


MATMUL = OpExpr("matmul", ("input", "other"), ("out",))


@MATMUL.shape_rule
def _matmul_infer(attrs, a, b):
    dtype = _same_dtype_for_mm(a, b)
    return ((matmul_shape(a._shape, b._shape), dtype),)


def _matmul(a, b, out=None):
    if out is None:
        return dispatch(MATMUL, (a, b))[0]
    return dispatch(MATMUL, (a, b), NO_ATTRS, (out,))[0]


declare(
    "matmul",
    "Tensor (Tensor input, Tensor other) => Matmul",
    method=True, out=True, operators=("__matmul__", "__rmatmul__"),
    doc="""
    Matrix product with torch.matmul's rules: 1-D operands are promoted to matrices (and
    the added dimension removed), batch dimensions broadcast.

    >>> (ember.ones((2, 3)) @ ember.ones(3)).tolist()
    [3.0, 3.0]
    """,
)
declare(
    "linalg.matmul",
    "Tensor (Tensor input, Tensor other) => Matmul",
    out=True, op="matmul",
    doc="Same as :func:`ember.matmul`.",
)
@functor("Matmul")
def matmul(input, other, out=None):
    return _matmul(input, other, out)


declare(
    "mm",
    "Tensor (Tensor input, Tensor mat2) => Mm",
    method=True, out=True, op="matmul",
    doc="""
    The product of two matrices (2-D only; see :func:`matmul`).

    >>> ember.mm(ember.ones((2, 3)), ember.ones((3, 1))).tolist()
    [[3.0], [3.0]]
    """,
)
@functor("Mm")
def mm(input, mat2, out=None):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _matmul(input, mat2, out)


declare(
    "bmm",
    "Tensor (Tensor input, Tensor mat2) => Bmm",
    method=True, out=True, op="matmul",
    doc="Batched matrix product of two 3-D tensors with the same batch size.",
)
@functor("Bmm")
def bmm(input, mat2, out=None):
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, _, k = input._shape
    if mat2._shape[:2] != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: [{mat2._shape[0]}, {mat2._shape[1]}]."
        )
    return _matmul(input, mat2, out)


declare(
    "mv",
    "Tensor (Tensor input, Tensor vec) => Mv",
    method=True, out=True, op="matmul",
    doc="Matrix-vector product (a 2-D and a 1-D tensor).",
)
@functor("Mv")
def mv(input, vec, out=None):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    return _matmul(input, vec, out)


declare(
    "dot",
    "Tensor (Tensor input, Tensor other) => Dot",
    method=True, out=True, op="matmul",
    doc="""
    The dot product of two 1-D tensors of the same dtype (no conjugation).

    >>> ember.dot(ember.tensor([1, 2]), ember.tensor([3, 4])).item()
    11
    """,
)
@functor("Dot")
def dot(input, other, out=None):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input._dtype is not other._dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {torch_name(input._dtype)} and {torch_name(other._dtype)}"
        )
    return _matmul(input, other, out)


VDOT = OpExpr("vdot", ("input", "other"), ("out",))


@VDOT.shape_rule
def _vdot_infer(attrs, a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"vdot : expected both vectors to have same dtype, but found {torch_name(a._dtype)} and {torch_name(b._dtype)}"
        )
    matmul_shape(a._shape, b._shape)
    _same_dtype_for_mm(a, b)
    return (((), a._dtype),)


declare(
    "vdot",
    "Tensor (Tensor input, Tensor other) => Vdot",
    method=True, out=True,
    doc="The dot product of two 1-D tensors, conjugating the first.",
)
@functor("Vdot")
def vdot(input, other, out=None):
    return _out(VDOT, (input, other), NO_ATTRS, out)


OUTER = OpExpr("outer", ("input", "vec2"), ("out",))


@OUTER.shape_rule
def _outer_infer(attrs, a, b):
    for name, t in (("self", a), ("vec2", b)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return (((a._shape[0], b._shape[0]), _dt.promote_types(a._dtype, b._dtype)),)


declare(
    "outer",
    "Tensor (Tensor input, Tensor vec2) => Outer",
    method=True, out=True, aliases=("ger",),
    doc="""
    The outer product of two 1-D tensors (with type promotion).

    >>> ember.outer(ember.tensor([1, 2]), ember.tensor([1, 10])).tolist()
    [[1, 10], [2, 20]]
    """,
)
declare("linalg.outer", "Tensor (Tensor input, Tensor vec2) => Outer", out=True, op="outer", doc="Same as :func:`ember.outer`.")
@functor("Outer")
def outer(input, vec2, out=None):
    return _out(OUTER, (input, vec2), NO_ATTRS, out)


# ---------------------------------------------------------------------------------------
# einsum and tensordot


def _einsum_parse(equation: str, shapes: list[tuple]) -> tuple[str, tuple]:
    """Check an einsum equation against the operand shapes; returns the equation with every
    ellipsis spelled out in letters (so '...' summed away works as in PyTorch) and the output
    shape."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = {c for c in eq if c.isalpha()}
    for c in eq:
        if not (c.isalpha() and c.isascii()) and c not in ".,->":
            raise RuntimeError(f"einsum(): invalid subscript given in the equation string: {c!r}")
    free = [c for c in string.ascii_letters if c not in used]
    sizes: dict[str, int] = {}
    ell_ndim = 0
    ell_shape: tuple = ()
    parsed = []
    for k, (term, shape) in enumerate(zip(terms, shapes, strict=True)):
        if term.count("...") > 1 or term.replace("...", "").count(".") > 0:
            raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of any ellipsis")
        if "..." in term:
            before, after = term.split("...")
            n = len(shape) - len(before) - len(after)
            if n < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(before) + len(after)}) is more than the number "
                    f"of dimensions ({len(shape)}) for operand {k}"
                )
            ell_ndim = max(ell_ndim, n)
            ell_shape = broadcast_pair(ell_shape, shape[len(before) : len(before) + n])
            labels = before + after
            label_sizes = shape[: len(before)] + shape[len(before) + n :]
            parsed.append((before, n, after))
        else:
            if len(term) != len(shape):
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(term)}) does not match the number of "
                    f"dimensions ({len(shape)}) for operand {k} and no ellipsis was given"
                )
            labels, label_sizes = term, shape
            parsed.append((term, None, ""))
        for c, s in zip(labels, label_sizes, strict=True):
            seen = sizes.get(c)
            if seen is None or seen == 1:
                sizes[c] = s
            elif s != seen and s != 1:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {s} for operand {k} which does not broadcast with previously seen size {seen}"
                )
    if len(free) < ell_ndim:
        raise RuntimeError("einsum(): too many subscripts in the equation")
    ell = "".join(free[:ell_ndim])
    if not arrow:
        once = sorted(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    out_shape: list[int] = []
    if rhs.count("...") > 1 or rhs.replace("...", "").count(".") > 0:
        raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis")
    for c in rhs.replace("...", "*"):
        if c == "*":
            out_shape.extend(ell_shape)
            continue
        if c not in sizes:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
        if rhs.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        out_shape.append(sizes[c])
    new_terms = [before + (ell[ell_ndim - n :] if n is not None else "") + after for before, n, after in parsed]
    return ",".join(new_terms) + "->" + rhs.replace("...", ell), tuple(out_shape)


EINSUM = OpExpr("einsum", ("operands",), ("out",))


@EINSUM.shape_rule
def _einsum_infer(attrs, *operands):
    dtype = operands[0]._dtype if operands else _dt.get_default_dtype()
    for t in operands[1:]:
        if t._dtype is not dtype:
            raise RuntimeError(
                f"einsum(): expected all operands to have the same dtype, but got {dtype.name} and {t._dtype.name}"
            )
    if dtype is _dt.bool_ or dtype is _dt.string:
        raise RuntimeError(f"einsum(): not implemented for '{torch_name(dtype)}'")
    _, shape = _einsum_parse(attrs["user_equation"], [t._shape for t in operands])
    return ((shape, dtype),)


declare(
    "einsum",
    "Tensor (String equation, TensorList operands) => Einsum",
    out=True,
    doc="""
    Einstein summation (``...`` broadcasts; implicit outputs as in NumPy and PyTorch).

    >>> ember.einsum("ij,j->i", [ember.ones((2, 3)), ember.ones(3)]).tolist()
    [3.0, 3.0]
    """,
)
@functor("Einsum")
def einsum(equation, operands, out=None):
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    normalized, _ = _einsum_parse(equation, [t._shape for t in operands])
    attrs = {"user_equation": equation, "equation": normalized, "optimize": len(operands) > 1}
    return _out(EINSUM, tuple(operands), attrs, out)


TENSORDOT = OpExpr("tensordot", ("a", "b"), ("out",))


@TENSORDOT.shape_rule
def _tensordot_infer(attrs, a, b):
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    da, db = attrs["dims_a"], attrs["dims_b"]
    for i, j in zip(da, db, strict=True):
        if a._shape[i] != b._shape[j] and a._shape[i] != 1 and b._shape[j] != 1:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a._shape[i]} in dim {i} and second has size {b._shape[j]} in dim {j}"
            )
    shape = tuple(s for i, s in enumerate(a._shape) if i not in da) + tuple(s for j, s in enumerate(b._shape) if j not in db)
    return ((shape, a._dtype),)


def _dims_list(value, ndim: int, which: str) -> tuple[int, ...]:
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, int):
        value = [value]
    try:
        dims = tuple(wrap_dim(operator.index(d), ndim) for d in value)
    except TypeError:
        raise TypeError(f"tensordot(): expected dims_{which} to be a list of ints, got {value!r}") from None
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"tensordot(): dim appears multiple times in dims_{which}: {list(dims)}")
    return dims


declare(
    "tensordot",
    "Tensor (Tensor a, Tensor b, Object dims=2) => Tensordot",
    out=True,
    doc="""
    Contract the last ``dims`` dims of ``a`` with the first of ``b``, or the dims named
    by a pair of lists.

    >>> ember.tensordot(ember.ones((2, 3)), ember.ones((3, 4)), dims=([1], [0])).shape
    ember.Size([2, 4])
    """,
)
@functor("Tensordot")
def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int,)) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da = tuple(range(a.ndim - dims, a.ndim))
        db = tuple(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        da = _dims_list(dims[0], a.ndim, "a")
        db = _dims_list(dims[1], b.ndim, "b")
        if len(da) != len(db):
            raise RuntimeError(f"both dimension lists should have same length, got {len(da)} and {len(db)}")
    else:
        raise TypeError(f"tensordot(): argument 'dims' must be an int or a pair of lists of ints, not {dims!r}")
    return _out(TENSORDOT, (a, b), {"dims_a": da, "dims_b": db}, out)


# ---------------------------------------------------------------------------------------
# checks shared by the linalg routines


def check_float(op: str, A, *, low_precision: bool = False) -> None:
    dtype = A._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {torch_name(dtype)}")
    if not low_precision and dtype in (_dt.float16, _dt.bfloat16) and 0 not in A._shape:  # torch checks in the kernel, after empties return
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {torch_name(dtype)}")


def check_matrix(op: str, A, name: str = "A") -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")


def check_square(op: str, A, name: str = "A") -> None:
    check_matrix(op, A, name)
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{op}: {name} must be batches of square matrices, but they are {A._shape[-2]} by {A._shape[-1]} matrices"
        )


def _real(dtype: _dt.DType) -> _dt.DType:
    return dtype.to_real() if dtype.is_complex else dtype


def _unary(name: str, public: str, shape_fn, *, square: bool = True, low_precision: bool = False) -> OpExpr:
    """A one-matrix linalg primitive: float/complex (..., m, n) in; ``shape_fn(shape, dtype, attrs)``
    gives the ((shape, dtype), ...) of its outputs."""
    op = OpExpr(name, ("A",), ("out",))

    @op.shape_rule
    def infer(attrs, A):
        (check_square if square else check_matrix)(public, A)
        check_float(public, A, low_precision=low_precision)
        return shape_fn(A._shape, A._dtype, attrs)

    return op


INV = _unary("linalg_inv", "linalg.inv", lambda s, d, a: ((s, d),))
DET = _unary("linalg_det", "linalg.det", lambda s, d, a: ((s[:-2], d),))
SLOGDET = OpExpr("linalg_slogdet", ("A",), ("sign", "logabsdet"))


@SLOGDET.shape_rule
def _slogdet_infer(attrs, A):
    check_square("linalg.slogdet", A)
    check_float("linalg.slogdet", A)
    return ((A._shape[:-2], A._dtype), (A._shape[:-2], _real(A._dtype)))


CHOLESKY = _unary("linalg_cholesky", "linalg.cholesky", lambda s, d, a: ((s, d),))


def _qr_shapes(s, d, attrs):
    m, n = s[-2:]
    k = min(m, n)
    mode = attrs["mode"]
    batch = s[:-2]
    if mode == "complete":
        return (((*batch, m, m), d), ((*batch, m, n), d))
    if mode == "r":
        return (((0,), d), ((*batch, k, n), d))
    return (((*batch, m, k), d), ((*batch, k, n), d))


QR = OpExpr("linalg_qr", ("A",), ("Q", "R"))


@QR.shape_rule
def _qr_infer(attrs, A):
    check_matrix("linalg.qr", A)
    check_float("linalg.qr", A)
    return _qr_shapes(A._shape, A._dtype, attrs)


SVD = OpExpr("linalg_svd", ("A",), ("U", "S", "Vh"))


@SVD.shape_rule
def _svd_infer(attrs, A):
    check_matrix("linalg.svd", A)
    check_float("linalg.svd", A)
    batch, (m, n) = A._shape[:-2], A._shape[-2:]
    k = min(m, n)
    full = attrs["full_matrices"]
    u = batch + ((m, m) if full else (m, k))
    vh = batch + ((n, n) if full else (k, n))
    return ((u, A._dtype), ((*batch, k), _real(A._dtype)), (vh, A._dtype))


SVDVALS = _unary("linalg_svdvals", "linalg.svdvals", lambda s, d, a: (((*s[:-2], min(s[-2:])), _real(d)),), square=False)
EIGH = OpExpr("linalg_eigh", ("A",), ("eigenvalues", "eigenvectors"))


@EIGH.shape_rule
def _eigh_infer(attrs, A):
    check_square("linalg.eigh", A)
    if A.numel():  # PyTorch returns empty results of any dtype for an empty input
        check_float("linalg.eigh", A)
    return ((A._shape[:-1], _real(A._dtype)), (A._shape, A._dtype))


EIGVALSH = OpExpr("linalg_eigvalsh", ("A",), ("out",))


@EIGVALSH.shape_rule
def _eigvalsh_infer(attrs, A):
    check_square("linalg.eigvalsh", A)
    if A.numel():
        check_float("linalg.eigvalsh", A)
    return ((A._shape[:-1], _real(A._dtype)),)


PINV = _unary("linalg_pinv", "linalg.pinv", lambda s, d, a: (((*s[:-2], s[-1], s[-2]), d),), square=False)
MATRIX_RANK = _unary("linalg_matrix_rank", "linalg.matrix_rank", lambda s, d, a: ((s[:-2], _dt.int64),), square=False)
MATRIX_POWER = OpExpr("linalg_matrix_power", ("A",), ("out",))


@MATRIX_POWER.shape_rule
def _matrix_power_infer(attrs, A):
    check_square("linalg.matrix_power", A)
    if attrs["n"] < 0:
        check_float("linalg.inv", A)
    elif A._dtype is _dt.bool_ or A._dtype is _dt.string:
        raise RuntimeError(f"linalg.matrix_power: not implemented for '{torch_name(A._dtype)}'")
    return ((A._shape, A._dtype),)


SOLVE = OpExpr("linalg_solve", ("A", "B"), ("out",))


def _solve_is_vector(a_shape: tuple, b_shape: tuple) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) if 1-D, or if it is A's shape without the last dim."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and b_shape == a_shape[:-1])


@SOLVE.shape_rule
def _solve_infer(attrs, A, B):
    check_square("linalg.solve", A)
    check_float("linalg.solve", A)
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {torch_name(A._dtype)} "
            f"and B of type {torch_name(B._dtype)} instead"
        )
    n = A._shape[-1]
    if _solve_is_vector(A._shape, B._shape):
        if B._shape[-1] != n:
            raise RuntimeError(
                f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {B._shape[-1]}x1)"
            )
        return (((*broadcast_pair(A._shape[:-2], B._shape[:-1]), n), A._dtype),)
    check_matrix("linalg.solve", B, "B")
    rows = B._shape[-1] if not attrs["left"] else B._shape[-2]
    if rows != n:
        shape_b = B._shape[-2:]
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {'AX = B' if attrs['left'] else 'XA = B'} ({n}x{n} and {_fmt(shape_b)})"
        )
    return ((broadcast_pair(A._shape[:-2], B._shape[:-2]) + B._shape[-2:], A._dtype),)


# ---------------------------------------------------------------------------------------
# linalg functors


declare(
    "linalg.inv",
    "Tensor (Tensor A) => LinalgInv",
    out=True, op="linalg_inv",
    doc="""
    The inverse of a (batch of) square matrices; singular input raises LinAlgError.

    >>> ember.linalg.inv(ember.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """,
)
@functor("LinalgInv")
def linalg_inv(A, out=None):
    return _out(INV, (A,), NO_ATTRS, out)


declare(
    "linalg.det",
    "Tensor (Tensor A) => LinalgDet",
    out=True, op="linalg_det",
    doc="""
    The determinant of a (batch of) square matrices.

    >>> ember.linalg.det(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0000000000000004
    """,
)
@functor("LinalgDet")
def linalg_det(A, out=None):
    return _out(DET, (A,), NO_ATTRS, out)


declare(
    "linalg.slogdet",
    "(Tensor sign, Tensor logabsdet) (Tensor A) => LinalgSlogdet",
    op="linalg_slogdet",
    doc="The sign and the log of the absolute value of the determinant.",
)
@functor("LinalgSlogdet")
def linalg_slogdet(A):
    return SlogdetResult(*dispatch(SLOGDET, (A,), NO_ATTRS))


declare(
    "linalg.solve",
    "Tensor (Tensor A, Tensor B, *, Bool left=True) => LinalgSolve",
    out=True, op="linalg_solve",
    doc="""
    X with A X = B (or X A = B when ``left=False``); B is a vector or a batch of matrices.

    >>> ember.linalg.solve(ember.tensor([[2.0, 0.0], [0.0, 4.0]]), ember.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """,
)
@functor("LinalgSolve")
def linalg_solve(A, B, left=True, out=None):
    return _out(SOLVE, (A, B), {"left": left}, out)


declare(
    "linalg.cholesky",
    "Tensor (Tensor A, *, Bool upper=False) => LinalgCholesky",
    out=True, op="linalg_cholesky",
    doc="""
    The Cholesky factor L (A = L L^H), or U = L^H with ``upper=True``.

    >>> ember.linalg.cholesky(ember.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """,
)
@functor("LinalgCholesky")
def linalg_cholesky(A, upper=False, out=None):
    return _out(CHOLESKY, (A,), {"upper": upper}, out)


declare(
    "linalg.qr",
    "(Tensor Q, Tensor R) (Tensor A, String mode='reduced') => LinalgQr",
    op="linalg_qr",
    doc="QR decomposition; ``mode`` 'reduced', 'complete', or 'r' (Q is then empty).",
)
@functor("LinalgQr")
def linalg_qr(A, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    return QRResult(*dispatch(QR, (A,), {"mode": mode}))


declare(
    "linalg.svd",
    "(Tensor U, Tensor S, Tensor Vh) (Tensor A, Bool full_matrices=True) => LinalgSvd",
    op="linalg_svd",
    doc="""
    Singular value decomposition A = U diag(S) Vh, singular values descending.

    >>> ember.linalg.svd(ember.tensor([[3.0, 0.0], [0.0, 4.0]])).S.tolist()
    [4.0, 3.0]
    """,
)
@functor("LinalgSvd")
def linalg_svd(A, full_matrices=True):
    return SVDResult(*dispatch(SVD, (A,), {"full_matrices": full_matrices}))


declare(
    "linalg.svdvals",
    "Tensor (Tensor A) => LinalgSvdvals",
    out=True, op="linalg_svdvals",
    doc="The singular values, descending.",
)
@functor("LinalgSvdvals")
def linalg_svdvals(A, out=None):
    return _out(SVDVALS, (A,), NO_ATTRS, out)


def _uplo(UPLO: str) -> str:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO


declare(
    "linalg.eigh",
    "(Tensor eigenvalues, Tensor eigenvectors) (Tensor A, String UPLO='L') => LinalgEigh",
    op="linalg_eigh",
    doc="""
    Eigenvalues (ascending) and eigenvectors of a Hermitian matrix, read from the ``UPLO`` triangle.

    >>> ember.linalg.eigh(ember.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """,
)
@functor("LinalgEigh")
def linalg_eigh(A, UPLO="L"):
    return EighResult(*dispatch(EIGH, (A,), {"UPLO": _uplo(UPLO)}))


declare(
    "linalg.eigvalsh",
    "Tensor (Tensor A, String UPLO='L') => LinalgEigvalsh",
    out=True, op="linalg_eigvalsh",
    doc="The eigenvalues (ascending) of a Hermitian matrix.",
)
@functor("LinalgEigvalsh")
def linalg_eigvalsh(A, UPLO="L", out=None):
    return _out(EIGVALSH, (A,), {"UPLO": _uplo(UPLO)}, out)


def _tolerances(atol, rtol) -> tuple[float, float | None]:
    """(atol, rtol); rtol None means eps(dtype) * max(m, n), PyTorch's default when neither is given."""
    atol = 0.0 if atol is None else float(atol)
    if rtol is None:
        return atol, (None if atol == 0.0 else 0.0)
    return atol, float(rtol)


declare(
    "linalg.pinv",
    "Tensor (Tensor A, *, Float? atol=None, Float? rtol=None, Bool hermitian=False) => LinalgPinv",
    out=True, op="linalg_pinv",
    doc="""
    The Moore-Penrose pseudo-inverse (singular values below max(atol, rtol * largest) are dropped).
    """,
)
@functor("LinalgPinv")
def linalg_pinv(A, atol=None, rtol=None, hermitian=False, out=None):
    atol, rtol = _tolerances(atol, rtol)
    return _out(PINV, (A,), {"atol": atol, "rtol": rtol, "hermitian": hermitian}, out)


declare(
    "linalg.matrix_rank",
    "Tensor (Tensor A, *, Float? atol=None, Float? rtol=None, Bool hermitian=False) => LinalgMatrixRank",
    out=True, differentiable=False, op="linalg_matrix_rank",
    doc="The number of singular values above max(atol, rtol * largest), as int64.",
)
@functor("LinalgMatrixRank")
def linalg_matrix_rank(A, atol=None, rtol=None, hermitian=False, out=None):
    atol, rtol = _tolerances(atol, rtol)
    return _out(MATRIX_RANK, (A,), {"atol": atol, "rtol": rtol, "hermitian": hermitian}, out)


declare(
    "matrix_power",
    "Tensor (Tensor A, Int n) => LinalgMatrixPower",
    method=True, out=True, op="linalg_matrix_power",
    doc="The ``n``-th power of a (batch of) square matrices; negative ``n`` inverts first.",
)
declare(
    "linalg.matrix_power",
    "Tensor (Tensor A, Int n) => LinalgMatrixPower",
    out=True, op="linalg_matrix_power",
    doc="Same as :func:`ember.matrix_power`.",
)
@functor("LinalgMatrixPower")
def linalg_matrix_power(A, n, out=None):
    return _out(MATRIX_POWER, (A,), {"n": n}, out)


# --- norms -----------------------------------------------------------------------------

VECTOR_NORM = OpExpr("linalg_vector_norm", ("x",), ("out",))


def _norm_dtype(op: str, x, dtype) -> _dt.DType:
    """The dtype the norm computes in (input cast to ``dtype`` when given)."""
    check_float(op, x, low_precision=True)
    if dtype is None:
        return x._dtype
    if not (dtype.is_floating_point or dtype.is_complex) or _dt.promote_types(x._dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{op}: the dtype of the input ({torch_name(x._dtype)}) should be convertible without narrowing to the specified dtype ({torch_name(dtype)})"
        )
    return dtype


@VECTOR_NORM.shape_rule
def _vector_norm_infer(attrs, x):
    dtype = _norm_dtype(attrs["op"], x, attrs["dtype"])
    return ((reduced_shape(x._shape, attrs["dims"], attrs["keepdim"]), _real(dtype)),)


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
    return _out(VECTOR_NORM, (x,), {"op": op, "ord": ord, "dims": dims, "keepdim": keepdim, "dtype": dtype}, out)


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


MATRIX_NORM = OpExpr("linalg_matrix_norm", ("A",), ("out",))
_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1.0, -1.0, 2.0, -2.0)


@MATRIX_NORM.shape_rule
def _matrix_norm_infer(attrs, A):
    dtype = _norm_dtype("linalg.matrix_norm", A, attrs["dtype"])
    return ((reduced_shape(A._shape, attrs["dims"], attrs["keepdim"]), _real(dtype)),)


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
    return _out(MATRIX_NORM, (A,), attrs, out)


declare(
    "linalg.matrix_norm",
    "Tensor (Tensor A, Object ord='fro', IntList dim=[-2, -1], Bool keepdim=False, *, DType? dtype=None) => LinalgMatrixNorm",
    out=True, op="linalg_matrix_norm",
    doc="A matrix norm over the two dims ``dim``; ord 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2.",
)
@functor("LinalgMatrixNorm")
def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None, out=None):
    return matrix_norm_impl(A, ord, dim, keepdim, dtype, out)


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


# --- array API extras ------------------------------------------------------------------

CROSS = OpExpr("linalg_cross", ("input", "other"), ("out",))


@CROSS.shape_rule
def _cross_infer(attrs, a, b):
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_pair(a._shape, b._shape)
    d = attrs["dim"]
    if a._shape[d] != 3 or b._shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {attrs['user_dim']} must have length 3. Got {a._shape[d]} and {b._shape[d]}"
        )
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"linalg.cross: expected both inputs to have the same dtype, but got {a._dtype.name} and {b._dtype.name}"
        )
    if a._dtype is _dt.bool_:
        raise RuntimeError("linalg.cross: not implemented for 'Bool'")
    return ((shape, a._dtype),)


declare(
    "linalg.cross",
    "Tensor (Tensor input, Tensor other, *, Int dim=-1) => LinalgCross",
    out=True, op="linalg_cross",
    doc="""
    The cross product of 3-vectors along ``dim`` (broadcasting).

    >>> ember.linalg.cross(ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """,
)
@functor("LinalgCross")
def linalg_cross(input, other, dim=-1, out=None):
    d = wrap_dim(dim, max(input.ndim, other.ndim, 1))
    return _out(CROSS, (input, other), {"dim": d, "user_dim": dim}, out)


VECDOT = OpExpr("linalg_vecdot", ("x", "y"), ("out",))


@VECDOT.shape_rule
def _vecdot_infer(attrs, x, y):
    check_float("linalg.vecdot", x, low_precision=True)
    if x._dtype is not y._dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type {torch_name(x._dtype)} "
            f"and y of type {torch_name(y._dtype)} instead"
        )
    shape = broadcast_pair(x._shape, y._shape)  # dim broadcasts too: (conj(x) * y).sum(dim)
    if not shape:
        wrap_dim(attrs["dim"], 0)
        return (((), x._dtype),)
    d = wrap_dim(attrs["dim"], len(shape))
    return ((shape[:d] + shape[d + 1 :], x._dtype),)


declare(
    "vecdot",
    "Tensor (Tensor x, Tensor y, *, Int dim=-1) => LinalgVecdot",
    out=True, op="linalg_vecdot",
    doc="The dot product along ``dim`` (conjugating ``x``), broadcasting the other dims.",
)
declare(
    "linalg.vecdot",
    "Tensor (Tensor x, Tensor y, *, Int dim=-1) => LinalgVecdot",
    out=True, op="linalg_vecdot",
    doc="The dot product along ``dim`` (conjugating ``x``), broadcasting the other dims.",
)
@functor("LinalgVecdot")
def linalg_vecdot(x, y, dim=-1, out=None):
    return _out(VECDOT, (x, y), {"dim": dim}, out)


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
    The sum of a matrix's diagonal (integers sum to int64). A method and ``ember.linalg.trace``
    only: ``ember.trace()`` is the op-journey recorder.

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


# ---------------------------------------------------------------------------------------
# derivatives (PyTorch's formulas: derivatives.yaml and FunctionsManual.cpp), written with
# ember's ops so they differentiate again. Complex inputs follow the conjugate Wirtinger
# convention where the formula is a plain matrix identity; the decompositions are written and
# tested for real inputs.


def _LA():
    from .. import linalg

    return linalg


def _sum_to(g, shape: tuple):
    return sum_to(g, shape)


def _H(t):
    """The conjugate transpose of the last two dims (``mH``)."""
    return t.mT.conj()


def _cast(g, dtype):
    return g if g._dtype is dtype else g.to(dtype)


def _eye_like(t, n: int):
    return _F().eye(n, dtype=t._dtype)


@MATMUL.grad_rule()
def _matmul_grad(ctx, g):
    a, b = ctx.inputs
    sa, sb = a._shape, b._shape
    if len(sa) == 1 and len(sb) == 1:
        return g * b.conj(), g * a.conj()
    a2 = a.unsqueeze(0) if len(sa) == 1 else a
    b2 = b.unsqueeze(-1) if len(sb) == 1 else b
    g2 = g.unsqueeze(-2) if len(sa) == 1 else (g.unsqueeze(-1) if len(sb) == 1 else g)
    ga = _sum_to(g2 @ _H(b2), a2._shape).reshape(sa)
    gb = _sum_to(_H(a2) @ g2, b2._shape).reshape(sb)
    return ga, gb


@VDOT.grad_rule()
def _vdot_grad(ctx, g):
    a, b = ctx.inputs
    return g.conj() * b, g * a


@OUTER.grad_rule()
def _outer_grad(ctx, g):
    a, b = ctx.inputs
    ga = (g * b.conj().unsqueeze(0)).sum(1)
    gb = (g * a.conj().unsqueeze(1)).sum(0)
    return _cast(ga, a._dtype), _cast(gb, b._dtype)


def _einsum_grads(equation: str, operands: tuple, g) -> tuple:
    """The gradient of each operand of ``einsum(equation, operands)`` (an equation with an
    explicit output and no ellipsis), each one an einsum of ``g`` and the other operands: letters
    only the operand has are broadcast with a ones vector, a repeated letter (a diagonal) is tied
    to a fresh letter by an identity matrix, and broadcast size-1 dims are summed back."""
    F = _F()
    lhs, rhs = equation.split("->")
    terms = lhs.split(",")
    free = [c for c in string.ascii_letters if c not in equation]
    grads = []
    for k, (term, x) in enumerate(zip(terms, operands, strict=True)):
        in_terms, ops = [rhs], [g]
        for j, (t, y) in enumerate(zip(terms, operands, strict=True)):
            if j != k:
                in_terms.append(t)
                ops.append(y.conj())
        available = set("".join(in_terms))
        out, seen = [], set()
        for pos, c in enumerate(term):
            size = x._shape[pos]
            if c not in available:  # summed within this operand only: broadcast back
                in_terms.append(c)
                ops.append(F.ones(size, dtype=g._dtype))
                available.add(c)
            if c in seen:  # a diagonal: the gradient lies on it
                f = free.pop(0)
                in_terms.append(c + f)
                ops.append(F.eye(size, dtype=g._dtype))
                out.append(f)
            else:
                seen.add(c)
                out.append(c)
        grad = F.einsum(",".join(in_terms) + "->" + "".join(out), *ops)
        grads.append(_sum_to(grad, x._shape))
    return tuple(grads)


@EINSUM.grad_rule()
def _einsum_grad(ctx, g):
    return _einsum_grads(ctx.attrs["equation"], ctx.inputs, g)


@TENSORDOT.grad_rule()
def _tensordot_grad(ctx, g):
    a, b = ctx.inputs
    da, db = ctx.attrs["dims_a"], ctx.attrs["dims_b"]
    letters = iter(string.ascii_letters)
    ta = [next(letters) for _ in range(a.ndim)]
    tb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(da, db, strict=True):
        tb[j] = ta[i]
    out = [c for i, c in enumerate(ta) if i not in da] + [c for j, c in enumerate(tb) if j not in db]
    return _einsum_grads("".join(ta) + "," + "".join(tb) + "->" + "".join(out), (a, b), g)


# --- decompositions and inverses --------------------------------------------------------


@INV.grad_rule(saves="outputs")
def _inv_grad(ctx, g):
    (Ainv,) = ctx.outputs
    AinvH = _H(Ainv)
    return (-(AinvH @ g @ AinvH),)


def _others_product(S):
    """prod_{j != i} S_j along the last dim (exact with zeros)."""
    from .reduction import _exclusive_cumprod

    return _exclusive_cumprod(S, -1) * _exclusive_cumprod(S, -1, reverse=True)


@DET.grad_rule(saves="both")
def _det_grad(ctx, g):
    (A,) = ctx.inputs
    (det,) = ctx.outputs
    LA = _LA()
    scale = (g * det.conj()).unsqueeze(-1).unsqueeze(-1)
    if A.numel() == 0 or not bool((det == 0).any().item()):
        return (scale * _H(LA.inv(A)),)
    # singular: the cofactor matrix through the SVD, A = U S Vh: cof(A) = det(U) det(Vh) U diag(prod_{j!=i} S_j) Vh
    U, S, Vh = LA.svd(A, full_matrices=False)
    phase = (LA.det(U) * LA.det(Vh)).conj().unsqueeze(-1).unsqueeze(-1)
    cof = phase * ((U * _others_product(S).to(A._dtype).unsqueeze(-2)) @ Vh).conj()
    return ((g.unsqueeze(-1).unsqueeze(-1) * cof),)


@SLOGDET.grad_rule(saves="both")
def _slogdet_grad(ctx, g_sign, g_logabsdet):
    (A,) = ctx.inputs
    sign, _ = ctx.outputs
    gl = g_logabsdet
    if A._dtype.is_complex:
        gl = gl.to(A._dtype) - 1j * (sign.conj() * g_sign).imag
    return (gl.unsqueeze(-1).unsqueeze(-1) * _H(_LA().inv(A)),)


@SOLVE.grad_rule(saves="both")
def _solve_grad(ctx, g):
    A, B = ctx.inputs
    (X,) = ctx.outputs
    LA = _LA()
    if _solve_is_vector(A._shape, B._shape):
        gB = LA.solve(_H(A), g.unsqueeze(-1))
        gA = -(gB @ _H(X.unsqueeze(-1)))
        gB = gB.squeeze(-1)
    elif ctx.attrs["left"]:
        gB = LA.solve(_H(A), g)
        gA = -(gB @ _H(X))
    else:
        gB = LA.solve(_H(A), g, left=False)
        gA = -(_H(X) @ gB)
    return _sum_to(gA, A._shape), _sum_to(gB, B._shape)


@CHOLESKY.grad_rule(saves="outputs")
def _cholesky_grad(ctx, g):
    (L,) = ctx.outputs
    LA = _LA()
    if ctx.attrs["upper"]:
        L, g = _H(L), _H(g)
    P = (_H(L) @ g).tril()
    P = 0.5 * (P + _H(P.tril(-1)))
    gA = LA.solve(_H(L), P)
    return (LA.solve(L, gA, left=False),)


def _copyltu(M):
    """The lower triangle of M mirrored into the upper one (Hermitian)."""
    return M.tril() + _H(M.tril(-1))


def _qr_tall_grad(Q, R, gQ, gR):
    """m >= n, reduced: gA = (gQ + Q copyltu(R gR^H - gQ^H Q)) R^{-H}."""
    M = R @ _H(gR) - _H(gQ) @ Q
    b = gQ + Q @ _copyltu(M)
    return _LA().solve(_H(R), b, left=False)


@QR.grad_rule(saves="both")
def _qr_grad(ctx, gQ, gR):
    (A,) = ctx.inputs
    Q, R = ctx.outputs
    m, n = A._shape[-2:]
    mode = ctx.attrs["mode"]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if m >= n:
        return (_qr_tall_grad(Q, R, gQ, gR),)
    # wide: A = [X | Y], R = [U | V] with U square: X = Q U is a square QR, Y = Q V
    Y = A.narrow(-1, m, n - m)
    U = R.narrow(-1, 0, m)
    gU, gV = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    gX = _qr_tall_grad(Q, U, gQ + Y @ _H(gV), gU)
    return (_F().cat([gX, Q @ gV], -1),)


def _skew(X):
    return X - _H(X)


@SVD.grad_rule(saves="outputs")
def _svd_grad(ctx, gU, gS, gVh):
    U, S, Vh = ctx.outputs
    m, n = ctx.input_meta[0][0][-2:]
    k = S._shape[-1]
    if ctx.attrs["full_matrices"] and m != n:  # the extra columns are arbitrary: only the first k count
        U, gU = U.narrow(-1, 0, k), gU.narrow(-1, 0, k)
        Vh, gVh = Vh.narrow(-2, 0, k), gVh.narrow(-2, 0, k)
    if k == 0:
        return (_F().zeros(ctx.input_meta[0][0], dtype=ctx.input_meta[0][1]),)
    V, gV = _H(Vh), _H(gVh)
    eye = _eye_like(S, k)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    UhgU = _skew(_H(U) @ gU)
    VhgV = _skew(_H(V) @ gV)
    Sr = S.to(U._dtype) if U._dtype.is_complex else S
    gA = (UhgU * Sr.unsqueeze(-2) + Sr.unsqueeze(-1) * VhgV) / E + _F().diag_embed(gS.to(U._dtype) if U._dtype.is_complex else gS)
    if U._dtype.is_complex:
        gA = gA + _F().diag_embed((_H(U) @ gU).diagonal(0, -2, -1).imag.to(U._dtype) * 1j / (2 * Sr))
    if m > k:
        gA = U @ gA
        gUSinv = gU / Sr.unsqueeze(-2)
        gA = (gA + gUSinv - U @ (_H(U) @ gUSinv)) @ Vh
    elif n > k:
        gA = gA @ Vh
        SinvgVh = gVh / Sr.unsqueeze(-1)
        gA = U @ (gA + SinvgVh - (SinvgVh @ V) @ Vh)
    else:
        gA = U @ gA @ Vh
    return (gA,)


@SVDVALS.grad_rule(saves="inputs")
def _svdvals_grad(ctx, gS):
    (A,) = ctx.inputs
    U, _, Vh = _LA().svd(A, full_matrices=False)
    return ((U * gS.to(U._dtype).unsqueeze(-2)) @ Vh,)


@EIGH.grad_rule(saves="outputs")
def _eigh_grad(ctx, gL, gV):
    L, V = ctx.outputs
    n = L._shape[-1]
    eye = _eye_like(L, n)
    VhgV = _H(V) @ gV
    VhgV = 0.5 * (VhgV - _H(VhgV))
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
    inner = VhgV / (E.to(V._dtype) if V._dtype.is_complex else E) * (1 - eye) + _F().diag_embed(gL.to(V._dtype))
    return (V @ inner @ _H(V),)


@EIGVALSH.grad_rule(saves="inputs")
def _eigvalsh_grad(ctx, gL):
    (A,) = ctx.inputs
    _, V = _LA().eigh(A, UPLO=ctx.attrs["UPLO"])
    return ((V * gL.to(V._dtype).unsqueeze(-2)) @ _H(V),)


@PINV.grad_rule(saves="both")
def _pinv_grad(ctx, g):
    (A,) = ctx.inputs
    (P,) = ctx.outputs
    m, n = A._shape[-2:]
    Ph, gh = _H(P), _H(g)
    if m <= n:
        K = gh @ P
        KPh = K @ Ph
        return (-_H(P @ K) + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A),)
    K = P @ gh
    PhK = Ph @ K
    return (-_H(K @ P) + (gh - A @ K) @ P @ Ph + PhK - PhK @ P @ A,)


@MATRIX_POWER.grad_rule(saves="inputs")
def _matrix_power_grad(ctx, g):
    (A,) = ctx.inputs
    n = ctx.attrs["n"]
    if n == 0:
        return (g * 0,)
    B = A if n > 0 else _LA().inv(A)
    p = abs(n)
    Bh = _H(B)
    powers = [None, Bh]  # (B^H)^k
    for _ in range(2, p):
        powers.append(powers[-1] @ Bh)
    acc = None  # sum_k (B^H)^k g (B^H)^(p-1-k)
    for k in range(p):
        term = g if k == 0 else powers[k] @ g
        if p - 1 - k > 0:
            term = term @ powers[p - 1 - k]
        acc = term if acc is None else acc + term
    if n > 0:
        return (acc,)
    return (-(Bh @ acc @ Bh),)


# --- norms and products -----------------------------------------------------------------


def _keep(t, shape: tuple, dims: tuple, keepdim: bool):
    kept = reduced_shape(shape, dims, True)
    return t if keepdim or t._shape == kept else t.reshape(kept)


def _spread_ties(values, target, g):
    """g shared evenly among the positions where ``values`` equals ``target`` (amax/amin's rule)."""
    mask = (values == target).to(g._dtype)
    return g * mask / mask.sum(-1, keepdim=True)


@VECTOR_NORM.grad_rule(saves="both")
def _vector_norm_grad(ctx, g):
    (x,) = ctx.inputs
    (norm,) = ctx.outputs
    F = _F()
    in_dtype = x._dtype
    if ctx.attrs["dtype"] is not None:
        x = _cast(x, ctx.attrs["dtype"])
    shape, dims, keepdim, p = x._shape, ctx.attrs["dims"], ctx.attrs["keepdim"], ctx.attrs["ord"]
    g = _keep(g, shape, dims, keepdim)
    norm = _keep(norm, shape, dims, keepdim)
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
    return (_cast(grad, in_dtype),)


def _extreme(s, ord):
    """amax (positive ord) or amin of ``s`` over its last dim, kept (recomputed, so ties compare exactly)."""
    return s.amax(-1, keepdim=True) if ord > 0 else s.amin(-1, keepdim=True)


@MATRIX_NORM.grad_rule(saves="both")
def _matrix_norm_grad(ctx, g):
    (A,) = ctx.inputs
    (norm,) = ctx.outputs
    F, LA = _F(), _LA()
    in_dtype = A._dtype
    if ctx.attrs["dtype"] is not None:
        A = _cast(A, ctx.attrs["dtype"])
    ord, dims, keepdim = ctx.attrs["ord"], ctx.attrs["dims"], ctx.attrs["keepdim"]
    d0, d1 = ctx.attrs["matrix_dims"]
    shape = A._shape
    g = _keep(g, shape, dims, keepdim).movedim((d0, d1), (-2, -1))
    norm = _keep(norm, shape, dims, keepdim).movedim((d0, d1), (-2, -1))
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
    return (_cast(grad.movedim((-2, -1), (d0, d1)), in_dtype),)


@VECDOT.grad_rule()
def _vecdot_grad(ctx, g):
    x, y = ctx.inputs
    shape = broadcast_pair(x._shape, y._shape)
    if not shape:
        return g.conj() * y, g * x
    g = g.unsqueeze(wrap_dim(ctx.attrs["dim"], len(shape)))
    return _sum_to(y * g.conj(), x._shape), _sum_to(x * g, y._shape)


@CROSS.grad_rule()
def _cross_grad(ctx, g):
    a, b = ctx.inputs
    LA = _LA()
    d = ctx.attrs["dim"]
    return _sum_to(LA.cross(b.conj(), g, dim=d), a._shape), _sum_to(LA.cross(g, a.conj(), dim=d), b._shape)
