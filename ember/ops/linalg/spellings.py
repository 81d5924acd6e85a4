"""PyTorch's older top-level spellings of the ``linalg.`` routines, over the same primitives:
``inverse`` (``linalg.inv``), ``svd`` (V rather than Vh, ``some`` and ``compute_uv``), ``qr``
(``some`` rather than ``mode``) and ``cholesky`` (``upper``), each with its Tensor method.

>>> import ember
>>> ember.tensor([[2.0, 0.0], [0.0, 4.0]]).inverse().tolist()
[[0.5, 0.0], [0.0, 0.25]]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.errors import LinAlgError
from ...dispatch import NO_ATTRS, dispatch
from ..common import functional as _F
from ..functor import functor
from ..reduction import named_tuple, torch_name
from ..schema import schema_family
from ._common import adjoint, check_square, run
from .decompositions import CHOLESKY, QR, SVD, SVDVALS
from .inverses import INV

declare = schema_family("linalg")

SvdResult = named_tuple("svd", ("U", "S", "V"))
QrResult = named_tuple("qr", ("Q", "R"))


declare(
    "inverse",
    "Tensor (Tensor input) => Inverse",
    method=True, out=True, op="linalg_inv",
    doc="""
    The inverse of a (batch of) square matrices: :func:`ember.linalg.inv`.

    >>> ember.inverse(ember.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """,
)
@functor("Inverse")
def inverse(input, out=None):
    return run(INV, (input,), NO_ATTRS, out)


declare(
    "svd",
    "(Tensor U, Tensor S, Tensor V) (Tensor input, Bool some=True, Bool compute_uv=True) => Svd",
    method=True, op=("linalg_svd", "linalg_svdvals"),
    doc="""
    A = U diag(S) V^H (V, not V^H); ``some=False`` gives square U and V; with
    ``compute_uv=False`` U and V are square zero matrices and only S is computed.

    >>> ember.svd(ember.tensor([[3.0, 0.0], [0.0, 4.0]])).S.tolist()
    [4.0, 3.0]
    """,
)
@functor("Svd")
def svd(input, some=True, compute_uv=True):
    if not compute_uv:
        S = run(SVDVALS, (input,), NO_ATTRS, None)
        batch, (m, n) = input._shape[:-2], input._shape[-2:]
        zeros = _F().zeros
        return SvdResult(zeros((*batch, m, m), dtype=input._dtype), S, zeros((*batch, n, n), dtype=input._dtype))
    U, S, Vh = dispatch(SVD, (input,), {"full_matrices": not some})
    return SvdResult(U, S, adjoint(Vh))


declare(
    "qr",
    "(Tensor Q, Tensor R) (Tensor input, Bool some=True) => Qr",
    method=True, op="linalg_qr",
    doc="""
    QR decomposition: :func:`ember.linalg.qr` with mode 'reduced' (``some=True``) or 'complete'.

    >>> ember.qr(ember.tensor([[2.0, 0.0], [0.0, 3.0]])).R.abs().tolist()
    [[2.0, 0.0], [0.0, 3.0]]
    """,
)
@functor("Qr")
def qr(input, some=True):
    return QrResult(*dispatch(QR, (input,), {"mode": "reduced" if some else "complete"}))


declare(
    "cholesky",
    "Tensor (Tensor input, Bool upper=False) => Cholesky",
    method=True, out=True, op="linalg_cholesky",
    doc="""
    The Cholesky factor L (A = L L^H), or U = L^H with ``upper=True``: :func:`ember.linalg.cholesky`.

    >>> ember.cholesky(ember.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """,
)
@functor("Cholesky")
def cholesky(input, upper=False, out=None):
    # torch.cholesky's own checks, in its order: an empty input comes back as it is, of any dtype
    if input.numel() == 0:
        empty = _F().empty_like(input)
        return empty if out is None else out.copy_(empty)
    if input.ndim < 2:
        raise RuntimeError("cholesky: The input tensor A must have at least 2 dimensions.")
    check_square("cholesky", input)
    if not (input._dtype.is_floating_point or input._dtype.is_complex) or input._dtype in (_dt.float16, _dt.bfloat16):
        raise NotImplementedError(f'"cholesky_cpu" not implemented for \'{torch_name(input._dtype)}\'')
    try:
        return run(CHOLESKY, (input,), {"upper": upper}, out)
    except LinAlgError as error:
        raise LinAlgError(str(error).replace("linalg.cholesky:", "cholesky:", 1)) from None
