"""Inverses, determinants and solvers of square matrices: ``linalg.inv``, ``linalg.det``,
``linalg.slogdet``, ``linalg.solve`` and ``matrix_power`` (negative powers invert first).

They run NumPy's LAPACK routines over batches ``(..., n, n)``; a singular input raises
:class:`LinAlgError` naming the op, the batch element and the pivot, as PyTorch does.

>>> import ember
>>> A = ember.tensor([[2.0, 0.0], [0.0, 4.0]])
>>> ember.linalg.inv(A).tolist(), ember.linalg.det(A).item()
([[0.5, 0.0], [0.0, 0.25]], 8.0)
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ...dispatch import NO_ATTRS, OpExpr, dispatch
from ..common import broadcast_pair, functional as _F, sum_to
from ..functor import functor
from ..reduction import exclusive_cumprod, named_tuple, torch_name
from ..schema import schema_family
from ._common import adjoint, check_float, check_matrix, check_square, fmt_shape, linalg_functions, matrix_op, real_dtype, run

declare = schema_family("linalg")


# --- inv ----------------------------------------------------------------------------------


INV = matrix_op("linalg_inv", "linalg.inv", lambda s, d, a: ((s, d),))

declare(
    "linalg.inv",
    "Tensor (Tensor A) => LinalgInv",
    out=True, op="linalg_inv",
    doc="""
    The inverse of a (batch of) square matrices; singular input raises LinAlgError.

    >>> ember.linalg.inv(ember.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """,
    tf="MatrixInverse",
)
@functor("LinalgInv")
def linalg_inv(A, out=None):
    return run(INV, (A,), NO_ATTRS, out)


@INV.grad_rule(saves="outputs")
def _inv_grad(ctx, g):
    (Ainv,) = ctx.outputs
    AinvH = adjoint(Ainv)
    return (-(AinvH @ g @ AinvH),)


# --- det, slogdet ---------------------------------------------------------------------------


DET = matrix_op("linalg_det", "linalg.det", lambda s, d, a: ((s[:-2], d),))

declare(
    "linalg.det",
    "Tensor (Tensor A) => LinalgDet",
    out=True, op="linalg_det",
    doc="""
    The determinant of a (batch of) square matrices.

    >>> ember.linalg.det(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0000000000000004
    """,
    tf="MatrixDeterminant",
)
@functor("LinalgDet")
def linalg_det(A, out=None):
    return run(DET, (A,), NO_ATTRS, out)


def _others_product(S):
    """prod_{j != i} S_j along the last dim (exact with zeros)."""
    return exclusive_cumprod(S, -1) * exclusive_cumprod(S, -1, reverse=True)


@DET.grad_rule(saves="both")
def _det_grad(ctx, g):
    (A,) = ctx.inputs
    (det,) = ctx.outputs
    LA = linalg_functions()
    scale = (g * det.conj()).unsqueeze(-1).unsqueeze(-1)
    if A.numel() == 0 or not bool((det == 0).any().item()):
        return (scale * adjoint(LA.inv(A)),)
    # singular: the cofactor matrix through the SVD, A = U S Vh: cof(A) = det(U) det(Vh) U diag(prod_{j!=i} S_j) Vh
    U, S, Vh = LA.svd(A, full_matrices=False)
    phase = (LA.det(U) * LA.det(Vh)).conj().unsqueeze(-1).unsqueeze(-1)
    cof = phase * ((U * _others_product(S).to(A._dtype).unsqueeze(-2)) @ Vh).conj()
    return ((g.unsqueeze(-1).unsqueeze(-1) * cof),)


SlogdetResult = named_tuple("linalg_slogdet", ("sign", "logabsdet"))
SLOGDET = OpExpr("linalg_slogdet", ("A",), ("sign", "logabsdet"))


@SLOGDET.shape_rule
def _slogdet_infer(attrs, A):
    check_square("linalg.slogdet", A)
    check_float("linalg.slogdet", A)
    return ((A._shape[:-2], A._dtype), (A._shape[:-2], real_dtype(A._dtype)))


declare(
    "linalg.slogdet",
    "(Tensor sign, Tensor logabsdet) (Tensor A) => LinalgSlogdet",
    op="linalg_slogdet",
    doc="The sign and the log of the absolute value of the determinant.",
)
@functor("LinalgSlogdet")
def linalg_slogdet(A):
    return SlogdetResult(*dispatch(SLOGDET, (A,), NO_ATTRS))


# torch.slogdet, torch.det and torch.logdet: the top-level spellings over the same primitives
TopSlogdetResult = named_tuple("slogdet", ("sign", "logabsdet"))

declare(
    "det",
    "Tensor (Tensor input) => Det",
    method=True, op="linalg_det",
    doc="""
    The determinant of a (batch of) square matrices: :func:`ember.linalg.det`.

    >>> ember.det(ember.tensor([[2.0, 1.0], [0.0, 3.0]])).item()
    6.0
    """,
)
@functor("Det")
def det(input):
    return dispatch(DET, (input,), NO_ATTRS)[0]


declare(
    "slogdet",
    "(Tensor sign, Tensor logabsdet) (Tensor input) => Slogdet",
    method=True, op="linalg_slogdet",
    doc="""
    The sign and the log of the absolute value of the determinant: :func:`ember.linalg.slogdet`.

    >>> ember.slogdet(ember.tensor([[-2.0, 0.0], [0.0, 1.0]])).sign.item()
    -1.0
    """,
)
@functor("Slogdet")
def slogdet(input):
    return TopSlogdetResult(*dispatch(SLOGDET, (input,), NO_ATTRS))


declare(
    "logdet",
    "Tensor (Tensor input) => Logdet",
    method=True, composite=True,
    doc="""
    The log of the determinant: nan where a real determinant is negative, -inf where it is zero;
    for complex input log(sign) + log|det|.

    >>> round(ember.logdet(ember.tensor([[2.0, 0.0], [0.0, 3.0]])).item(), 4)
    1.7918
    >>> ember.logdet(ember.tensor([[-1.0, 0.0], [0.0, 1.0]])).item()
    nan
    """,
)
@functor("Logdet")
def logdet(input):
    check_square("logdet", input)
    check_float("logdet", input)
    sign, logabsdet = dispatch(SLOGDET, (input,), NO_ATTRS)
    if input._dtype.is_complex:  # a singular matrix gives -inf + nan j, as PyTorch's does
        return _F().where(logabsdet == -math.inf, complex(-math.inf, math.nan), sign.log() + logabsdet)
    return _F().where(sign < 0, math.nan, logabsdet)


@SLOGDET.grad_rule(saves="both")
def _slogdet_grad(ctx, g_sign, g_logabsdet):
    (A,) = ctx.inputs
    sign, _ = ctx.outputs
    gl = g_logabsdet
    if A._dtype.is_complex:
        gl = gl.to(A._dtype) - 1j * (sign.conj() * g_sign).imag
    return (gl.unsqueeze(-1).unsqueeze(-1) * adjoint(linalg_functions().inv(A)),)


# --- solve --------------------------------------------------------------------------------


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
            f"linalg.solve: Incompatible shapes of A and B for the equation {'AX = B' if attrs['left'] else 'XA = B'} ({n}x{n} and {fmt_shape(shape_b)})"
        )
    return ((broadcast_pair(A._shape[:-2], B._shape[:-2]) + B._shape[-2:], A._dtype),)


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
    return run(SOLVE, (A, B), {"left": left}, out)


@SOLVE.grad_rule(saves=("A", "out"))  # B is not needed: PyTorch keeps A, its LU and the result
def _solve_grad(ctx, g):
    A, _ = ctx.inputs
    b_shape = ctx.input_meta[1][0]
    (X,) = ctx.outputs
    LA = linalg_functions()
    if _solve_is_vector(A._shape, b_shape):
        gB = LA.solve(adjoint(A), g.unsqueeze(-1))
        gA = -(gB @ adjoint(X.unsqueeze(-1)))
        gB = gB.squeeze(-1)
    elif ctx.attrs["left"]:
        gB = LA.solve(adjoint(A), g)
        gA = -(gB @ adjoint(X))
    else:
        gB = LA.solve(adjoint(A), g, left=False)
        gA = -(adjoint(X) @ gB)
    return sum_to(gA, A._shape), sum_to(gB, b_shape)


# --- matrix_power -------------------------------------------------------------------------


MATRIX_POWER = OpExpr("linalg_matrix_power", ("A",), ("out",))


@MATRIX_POWER.shape_rule
def _matrix_power_infer(attrs, A):
    check_square("linalg.matrix_power", A)
    if attrs["n"] < 0:
        check_float("linalg.inv", A)
    elif A._dtype is _dt.bool_ or A._dtype is _dt.string:
        raise RuntimeError(f"linalg.matrix_power: not implemented for '{torch_name(A._dtype)}'")
    return ((A._shape, A._dtype),)


declare(
    "matrix_power",
    "Tensor (Tensor input, Int n) => LinalgMatrixPower",  # (linalg.matrix_power names it A)
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
    return run(MATRIX_POWER, (A,), {"n": n}, out)


@MATRIX_POWER.grad_rule(saves="inputs")
def _matrix_power_grad(ctx, g):
    (A,) = ctx.inputs
    n = ctx.attrs["n"]
    if n == 0:
        return (g * 0,)
    B = A if n > 0 else linalg_functions().inv(A)
    p = abs(n)
    Bh = adjoint(B)
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
