"""The eigendecomposition of general (non-Hermitian) square matrices: ``linalg.eig`` and
``linalg.eigvals``, always complex (complex64 for float32 input, complex128 for float64).

The kernel runs LAPACK's geev through ``np.linalg.eig``, as PyTorch does on the CPU, so the
eigenvalues come in the same order and each eigenvector has unit norm and its largest
component real (eigenvectors are defined up to that phase only). The derivative is PyTorch's
``linalg_eig_backward``; a loss that depends on the eigenvectors' phases is refused.

>>> import ember
>>> ember.linalg.eigvals(ember.tensor([[0.0, -1.0], [1.0, 0.0]])).tolist()
[1j, -1j]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import NO_ATTRS, OpExpr, dispatch
from ..common import functional as _F
from ..functor import functor
from ..reduction import named_tuple, torch_name
from ..schema import schema_family
from ._common import adjoint, check_float, check_square, linalg_functions, run

declare = schema_family("linalg")

EigResult = named_tuple("linalg_eig", ("eigenvalues", "eigenvectors"))


def _complex_dtype(op: str, A) -> _dt.DType:
    """The complex dtype of the results; LAPACK's geev has no half precision and no integers."""
    check_square(op, A)
    if A._dtype in (_dt.float16, _dt.bfloat16):
        raise NotImplementedError(f"{op}: not implemented for '{torch_name(A._dtype)}'")
    check_float(op, A)
    return A._dtype if A._dtype.is_complex else A._dtype.to_complex()


EIG = OpExpr("linalg_eig", ("A",), ("eigenvalues", "eigenvectors"))


@EIG.shape_rule
def _eig_infer(attrs, A):
    dtype = _complex_dtype("linalg.eig", A)
    return ((A._shape[:-1], dtype), (A._shape, dtype))


declare(
    "linalg.eig",
    "(Tensor eigenvalues, Tensor eigenvectors) (Tensor A) => LinalgEig",
    op="linalg_eig",
    doc="""
    Eigenvalues and eigenvectors (columns, unit norm, largest component real) of a square matrix,
    as complex tensors; a NaN or an infinity in the input is refused.

    >>> L, V = ember.linalg.eig(ember.tensor([[2.0, 0.0], [0.0, 3.0]]))
    >>> L.tolist(), V.dtype
    ([(2+0j), (3+0j)], ember.complex64)
    """,
)
@functor("LinalgEig")
def linalg_eig(A):
    return EigResult(*dispatch(EIG, (A,), NO_ATTRS))


def eig_backward(gL, gV, L, V, real_input: bool):
    """PyTorch's linalg_eig_backward: gA = V^-H (diag(gL) + (V^H gV - V^H V diag(re(V^H gV))) / conj(E)) V^H,
    E_ij = L_j - L_i off the diagonal; the real part for a real input."""
    F = _F()
    n = L._shape[-1]
    if gV is None:
        inner = F.diag_embed(gL)
    else:
        VhgV = adjoint(V) @ gV
        diag = VhgV.diagonal(0, -2, -1)
        if diag.numel() and not bool((diag.imag.abs() <= 1e-2 * (1 + diag.abs())).all().item()):
            raise RuntimeError(
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. "
                "The specified loss function depends on this quantity, so it is ill-defined."
            )
        Lc = L.conj()
        eye = F.eye(n, dtype=_dt.bool_)
        Econj = F.where(eye, 1, Lc.unsqueeze(-2) - Lc.unsqueeze(-1))
        inner = (VhgV - adjoint(V) @ (V * diag.real.to(V._dtype).unsqueeze(-2))) / Econj
        inner = F.where(eye, F.diag_embed(gL), inner)
    gA = linalg_functions().solve(adjoint(V), inner @ adjoint(V))
    return gA.real if real_input else gA


@EIG.grad_rule(saves="both")
def _eig_grad(ctx, gL, gV):
    (A,) = ctx.inputs
    L, V = ctx.outputs
    return (eig_backward(gL, gV, L, V, not A._dtype.is_complex),)


EIGVALS = OpExpr("linalg_eigvals", ("A",), ("out",))


@EIGVALS.shape_rule
def _eigvals_infer(attrs, A):
    return ((A._shape[:-1], _complex_dtype("linalg.eigvals", A)),)


declare(
    "linalg.eigvals",
    "Tensor (Tensor A) => LinalgEigvals",
    out=True, op="linalg_eigvals",
    doc="""
    The eigenvalues of a square matrix, complex, in the order :func:`ember.linalg.eig` gives them.

    >>> ember.linalg.eigvals(ember.tensor([[1.0, 1.0], [0.0, 2.0]])).tolist()
    [(1+0j), (2+0j)]
    """,
)
@functor("LinalgEigvals")
def linalg_eigvals(A, out=None):
    return run(EIGVALS, (A,), NO_ATTRS, out)


@EIGVALS.grad_rule(saves="inputs")
def _eigvals_grad(ctx, gL):
    (A,) = ctx.inputs
    L, V = linalg_functions().eig(A)
    return (eig_backward(gL, None, L, V, not A._dtype.is_complex),)
