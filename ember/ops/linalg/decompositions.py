"""Decompositions and what is computed from them: ``linalg.cholesky``, ``linalg.qr``,
``linalg.svd``, ``linalg.svdvals``, ``linalg.eigh``, ``linalg.eigvalsh``, and from the singular
values ``linalg.pinv`` and ``linalg.matrix_rank``.

The kernels run NumPy's LAPACK routines over batches ``(..., m, n)``; a matrix that is not
positive-definite makes ``cholesky`` raise :class:`LinAlgError` naming the leading minor, as
PyTorch does. Factors are defined up to signs or phases; the derivatives are written and tested
for real inputs through gauge-invariant functions of them.

>>> import ember
>>> ember.linalg.svd(ember.tensor([[3.0, 0.0], [0.0, 4.0]])).S.tolist()
[4.0, 3.0]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import NO_ATTRS, OpExpr, dispatch
from ..common import broadcast_pair, functional as _F, sum_to
from ..functor import functor
from ..reduction import named_tuple
from ..schema import schema_family
from ._common import adjoint, check_float, check_matrix, check_square, linalg_functions, matrix_op, real_dtype, run

declare = schema_family("linalg")


# --- cholesky -----------------------------------------------------------------------------


CHOLESKY = matrix_op("linalg_cholesky", "linalg.cholesky", lambda s, d, a: ((s, d),))

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
    return run(CHOLESKY, (A,), {"upper": upper}, out)


@CHOLESKY.grad_rule(saves="outputs")
def _cholesky_grad(ctx, g):
    (L,) = ctx.outputs
    LA = linalg_functions()
    if ctx.attrs["upper"]:
        L, g = adjoint(L), adjoint(g)
    P = (adjoint(L) @ g).tril()
    P = 0.5 * (P + adjoint(P.tril(-1)))
    gA = LA.solve(adjoint(L), P)
    return (LA.solve(L, gA, left=False),)


# --- qr -----------------------------------------------------------------------------------


QRResult = named_tuple("linalg_qr", ("Q", "R"))


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


def _copyltu(M):
    """The lower triangle of M mirrored into the upper one (Hermitian)."""
    return M.tril() + adjoint(M.tril(-1))


def _qr_tall_grad(Q, R, gQ, gR):
    """m >= n, reduced: gA = (gQ + Q copyltu(R gR^H - gQ^H Q)) R^{-H}."""
    M = R @ adjoint(gR) - adjoint(gQ) @ Q
    b = gQ + Q @ _copyltu(M)
    return linalg_functions().solve(adjoint(R), b, left=False)


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
    gX = _qr_tall_grad(Q, U, gQ + Y @ adjoint(gV), gU)
    return (_F().cat([gX, Q @ gV], -1),)


# --- svd, svdvals -------------------------------------------------------------------------


SVDResult = named_tuple("linalg_svd", ("U", "S", "Vh"))

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
    return ((u, A._dtype), ((*batch, k), real_dtype(A._dtype)), (vh, A._dtype))


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


def _eye_like(t, n: int):
    return _F().eye(n, dtype=t._dtype)


def _skew(X):
    return X - adjoint(X)


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
    V, gV = adjoint(Vh), adjoint(gVh)
    eye = _eye_like(S, k)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    UhgU = _skew(adjoint(U) @ gU)
    VhgV = _skew(adjoint(V) @ gV)
    Sr = S.to(U._dtype) if U._dtype.is_complex else S
    gA = (UhgU * Sr.unsqueeze(-2) + Sr.unsqueeze(-1) * VhgV) / E + _F().diag_embed(gS.to(U._dtype) if U._dtype.is_complex else gS)
    if U._dtype.is_complex:
        gA = gA + _F().diag_embed((adjoint(U) @ gU).diagonal(0, -2, -1).imag.to(U._dtype) * 1j / (2 * Sr))
    if m > k:
        gA = U @ gA
        gUSinv = gU / Sr.unsqueeze(-2)
        gA = (gA + gUSinv - U @ (adjoint(U) @ gUSinv)) @ Vh
    elif n > k:
        gA = gA @ Vh
        SinvgVh = gVh / Sr.unsqueeze(-1)
        gA = U @ (gA + SinvgVh - (SinvgVh @ V) @ Vh)
    else:
        gA = U @ gA @ Vh
    return (gA,)


SVDVALS = matrix_op("linalg_svdvals", "linalg.svdvals", lambda s, d, a: (((*s[:-2], min(s[-2:])), real_dtype(d)),), square=False)

declare(
    "linalg.svdvals",
    "Tensor (Tensor A) => LinalgSvdvals",
    out=True, op="linalg_svdvals",
    doc="The singular values, descending.",
)
@functor("LinalgSvdvals")
def linalg_svdvals(A, out=None):
    return run(SVDVALS, (A,), NO_ATTRS, out)


@SVDVALS.grad_rule(saves="inputs")
def _svdvals_grad(ctx, gS):
    (A,) = ctx.inputs
    U, _, Vh = linalg_functions().svd(A, full_matrices=False)
    return ((U * gS.to(U._dtype).unsqueeze(-2)) @ Vh,)


# --- eigh, eigvalsh: Hermitian matrices, read from one triangle -----------------------------


EighResult = named_tuple("linalg_eigh", ("eigenvalues", "eigenvectors"))

EIGH = OpExpr("linalg_eigh", ("A",), ("eigenvalues", "eigenvectors"))


@EIGH.shape_rule
def _eigh_infer(attrs, A):
    check_square("linalg.eigh", A)
    if A.numel():  # PyTorch returns empty results of any dtype for an empty input
        check_float("linalg.eigh", A)
    return ((A._shape[:-1], real_dtype(A._dtype)), (A._shape, A._dtype))


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


@EIGH.grad_rule(saves="outputs")
def _eigh_grad(ctx, gL, gV):
    L, V = ctx.outputs
    n = L._shape[-1]
    eye = _eye_like(L, n)
    VhgV = adjoint(V) @ gV
    VhgV = 0.5 * (VhgV - adjoint(VhgV))
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
    inner = VhgV / (E.to(V._dtype) if V._dtype.is_complex else E) * (1 - eye) + _F().diag_embed(gL.to(V._dtype))
    return (V @ inner @ adjoint(V),)


EIGVALSH = OpExpr("linalg_eigvalsh", ("A",), ("out",))


@EIGVALSH.shape_rule
def _eigvalsh_infer(attrs, A):
    check_square("linalg.eigvalsh", A)
    if A.numel():
        check_float("linalg.eigvalsh", A)
    return ((A._shape[:-1], real_dtype(A._dtype)),)


declare(
    "linalg.eigvalsh",
    "Tensor (Tensor A, String UPLO='L') => LinalgEigvalsh",
    out=True, op="linalg_eigvalsh",
    doc="The eigenvalues (ascending) of a Hermitian matrix.",
)
@functor("LinalgEigvalsh")
def linalg_eigvalsh(A, UPLO="L", out=None):
    return run(EIGVALSH, (A,), {"UPLO": _uplo(UPLO)}, out)


@EIGVALSH.grad_rule(saves="inputs")
def _eigvalsh_grad(ctx, gL):
    (A,) = ctx.inputs
    _, V = linalg_functions().eigh(A, UPLO=ctx.attrs["UPLO"])
    return ((V * gL.to(V._dtype).unsqueeze(-2)) @ adjoint(V),)


# --- pinv, matrix_rank: singular values above a tolerance -----------------------------------


PINV = matrix_op("linalg_pinv", "linalg.pinv", lambda s, d, a: (((*s[:-2], s[-1], s[-2]), d),), square=False)


def _tolerances(atol, rtol) -> tuple[float, float | None]:
    """(atol, rtol); rtol None means eps(dtype) * max(m, n), PyTorch's default when neither is given."""
    atol = 0.0 if atol is None else float(atol)
    if rtol is None:
        return atol, (None if atol == 0.0 else 0.0)
    return atol, float(rtol)


def _tolerance_tensors(op: str, A, atol, rtol):
    """PyTorch's tensor tolerances (one per matrix, broadcasting against the batch), as the
    cut-off max(atol, rtol * largest) of each matrix's singular values, with a trailing dim."""
    for name, t in (("atol", atol), ("rtol", rtol)):
        if t is not None and t._dtype.is_complex:
            raise RuntimeError(f"{op}: {name} tensor of complex type is not supported.")
    if A._dtype.is_complex or not A._dtype.is_floating_point:
        check_float(op, A)
    F = _F()
    m, n = A._shape[-2:]
    real = real_dtype(A._dtype)
    atol = F.zeros((), dtype=real) if atol is None else atol.to(real)
    if rtol is None:  # eps * max(m, n) where atol is not above zero, 0 where it is (per matrix)
        return atol, F.where(atol > 0, 0.0, _dt.finfo(real).eps * max(m, n)).to(real)
    return atol, rtol.to(real)


def _cutoff(S, atol, rtol):
    smax = S.amax(-1, keepdim=True) if S._shape[-1] else _F().zeros((*S._shape[:-1], 1), dtype=S._dtype)
    return _F().maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * smax)


# pinv with tolerance tensors: the tolerances are inputs (not differentiated), the derivative is pinv's
PINV_TOL = OpExpr("linalg_pinv_tol", ("A", "atol", "rtol"), ("out",))


@PINV_TOL.shape_rule
def _pinv_tol_infer(attrs, A, atol, rtol):
    check_matrix("linalg.pinv", A)
    check_float("linalg.pinv", A)
    batch = broadcast_pair(broadcast_pair(A._shape[:-2], atol._shape), rtol._shape)
    return (((*batch, A._shape[-1], A._shape[-2]), A._dtype),)


@PINV_TOL.grad_rule(saves="both")
def _pinv_tol_grad(ctx, g):
    A = ctx.inputs[0]
    (P,) = ctx.outputs
    return sum_to(pinv_backward(g, P, A), A._shape), None, None


def _pinv_tensor(A, atol, rtol, hermitian, out):
    atol, rtol = _tolerance_tensors("linalg.pinv", A, atol, rtol)
    return run(PINV_TOL, (A, atol, rtol), {"hermitian": hermitian}, out)


declare(
    "linalg.pinv",
    [
        "Tensor (Tensor A, *, Tensor? atol=None, Tensor? rtol=None, Bool hermitian=False) => LinalgPinvTensor",
        "Tensor (Tensor A, *, Float? atol=None, Float? rtol=None, Bool hermitian=False) => LinalgPinv",
        "Tensor (Tensor A, Tensor rcond, *, Bool hermitian=False) => LinalgPinvRcondTensor",
        "Tensor (Tensor A, Float rcond, *, Bool hermitian=False) => LinalgPinvRcond",
    ],
    out=True, op=("linalg_pinv", "linalg_pinv_tol"),
    doc="""
    The Moore-Penrose pseudo-inverse (singular values below max(atol, rtol * largest) are dropped);
    the tolerances may be tensors (one per matrix), ``rcond`` is ``rtol``.

    >>> ember.linalg.pinv(ember.tensor([[2.0, 0.0], [0.0, 1e-9]]), atol=1e-6).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """,
)
@functor("LinalgPinv")
def linalg_pinv(A, atol=None, rtol=None, hermitian=False, out=None):
    atol, rtol = _tolerances(atol, rtol)
    return run(PINV, (A,), {"atol": atol, "rtol": rtol, "hermitian": hermitian}, out)


@functor("LinalgPinvTensor")
def linalg_pinv_tensor(A, atol=None, rtol=None, hermitian=False, out=None):
    if atol is None and rtol is None:  # the call without tolerances: the primitive
        return linalg_pinv(A, hermitian=hermitian, out=out)
    return _pinv_tensor(A, atol, rtol, hermitian, out)


@functor("LinalgPinvRcond")
def linalg_pinv_rcond(A, rcond, hermitian=False, out=None):
    return run(PINV, (A,), {"atol": 0.0, "rtol": float(rcond), "hermitian": hermitian}, out)


@functor("LinalgPinvRcondTensor")
def linalg_pinv_rcond_tensor(A, rcond, hermitian=False, out=None):
    return _pinv_tensor(A, _F().zeros((), dtype=rcond._dtype), rcond, hermitian, out)


declare(
    "pinverse",
    "Tensor (Tensor input, Float rcond=1e-15) => Pinverse",
    method=True, op="linalg_pinv",
    doc="""
    The pseudo-inverse dropping singular values below ``rcond`` times the largest (``linalg.pinv`` with ``rtol=rcond``).

    >>> ember.pinverse(ember.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """,
)
@functor("Pinverse")
def pinverse(input, rcond=1e-15):
    return run(PINV, (input,), {"atol": 0.0, "rtol": float(rcond), "hermitian": False}, None)


@PINV.grad_rule(saves="both")
def _pinv_grad(ctx, g):
    (A,) = ctx.inputs
    (P,) = ctx.outputs
    return (pinv_backward(g, P, A),)


def pinv_backward(g, P, A):
    """The gradient of A given the gradient ``g`` of its pseudo-inverse ``P`` (PyTorch's pinv_backward)."""
    m, n = A._shape[-2:]
    Ph, gh = adjoint(P), adjoint(g)
    if m <= n:
        K = gh @ P
        KPh = K @ Ph
        return -adjoint(P @ K) + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A)
    K = P @ gh
    PhK = Ph @ K
    return -adjoint(K @ P) + (gh - A @ K) @ P @ Ph + PhK - PhK @ P @ A


MATRIX_RANK = matrix_op("linalg_matrix_rank", "linalg.matrix_rank", lambda s, d, a: ((s[:-2], _dt.int64),), square=False)

declare(
    "linalg.matrix_rank",
    [
        "Tensor (Tensor A, *, Tensor? atol=None, Tensor? rtol=None, Bool hermitian=False) => LinalgMatrixRankTensor",
        "Tensor (Tensor A, *, Float? atol=None, Float? rtol=None, Bool hermitian=False) => LinalgMatrixRank",
        "Tensor (Tensor A, Tensor tol, *, Bool hermitian=False) => LinalgMatrixRankTolTensor",
        "Tensor (Tensor A, Float tol, *, Bool hermitian=False) => LinalgMatrixRankTol",
    ],
    out=True, differentiable=False, op="linalg_matrix_rank",
    doc="""
    The number of singular values above max(atol, rtol * largest), as int64; the tolerances may be
    tensors (one per matrix, broadcasting against the batch), ``tol`` is ``atol``.

    >>> ember.linalg.matrix_rank(ember.eye(3), rtol=ember.tensor([0.5, 2.0])).tolist()
    [3, 0]
    """,
)
@functor("LinalgMatrixRank")
def linalg_matrix_rank(A, atol=None, rtol=None, hermitian=False, out=None):
    atol, rtol = _tolerances(atol, rtol)
    _check_hermitian_square(A, hermitian)
    return run(MATRIX_RANK, (A,), {"atol": atol, "rtol": rtol, "hermitian": hermitian}, out)


def _check_hermitian_square(A, hermitian: bool) -> None:
    if hermitian and A.ndim >= 2 and A._shape[-1] != A._shape[-2]:  # hermitian ranks come from eigh
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are {A._shape[-2]} by {A._shape[-1]} matrices")


@functor("LinalgMatrixRankTensor")
def linalg_matrix_rank_tensor(A, atol=None, rtol=None, hermitian=False, out=None):
    if atol is None and rtol is None:  # the call without tolerances: the primitive
        return linalg_matrix_rank(A, hermitian=hermitian, out=out)
    check_matrix("linalg.matrix_rank", A)
    _check_hermitian_square(A, hermitian)
    atol, rtol = _tolerance_tensors("linalg.matrix_rank", A, atol, rtol)
    LA = linalg_functions()
    S = LA.eigvalsh(A).abs() if hermitian else LA.svdvals(A)
    return _F().sum(_cutoff(S, atol, rtol) < S, -1, out=out)


@functor("LinalgMatrixRankTol")
def linalg_matrix_rank_tol(A, tol, hermitian=False, out=None):
    return linalg_matrix_rank(A, atol=tol, rtol=0.0, hermitian=hermitian, out=out)


@functor("LinalgMatrixRankTolTensor")
def linalg_matrix_rank_tol_tensor(A, tol, hermitian=False, out=None):
    return linalg_matrix_rank_tensor(A, atol=tol, rtol=_F().zeros((), dtype=tol._dtype), hermitian=hermitian, out=out)
