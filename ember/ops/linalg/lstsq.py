"""``linalg.lstsq``: the least-squares solution of A X = B, with PyTorch's CPU drivers.

The result is the named tuple (solution, residuals, rank, singular_values). Which fields a
driver fills follows PyTorch: ``gelsy`` (the default; QR with column pivoting) gives the rank;
``gelsd`` and ``gelss`` (SVD) give the rank and the singular values; ``gels`` (QR, A assumed of
full rank) neither. The residuals (squared norms of the columns of A X - B) come for m > n from
every driver but ``gelsy``, and from ``gelsd``/``gelss`` only when every matrix has full rank;
a field a driver does not fill is an empty tensor. B is a vector (batch) when it has one
dimension fewer than A (and A's shape without its last); batch dimensions broadcast; rank and
singular values follow A's batch.

>>> import ember
>>> A = ember.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
>>> ember.linalg.lstsq(A, ember.tensor([1.0, 2.0, 3.0]), driver="gelsd").solution.tolist()
[1.0, 2.0]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..common import broadcast_pair, functional as _F, sum_to
from ..functor import functor
from ..reduction import named_tuple, torch_name
from ..schema import schema_family
from ._common import adjoint, check_float, linalg_functions, real_dtype
from .decompositions import pinv_backward

declare = schema_family("linalg")

LstsqResult = named_tuple("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))

DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_OP = "torch.linalg.lstsq"


def is_vector_rhs(A_shape: tuple, B_shape: tuple) -> bool:
    """B is a (batch of) vector(s) when it is A's shape without the last dimension (no broadcasting)."""
    return tuple(B_shape) == tuple(A_shape[:-1])


def residuals_shape(A_shape: tuple, B_shape: tuple, driver: str) -> tuple | None:
    """The residuals' shape, or None where the driver leaves them empty whatever the data."""
    m, n = A_shape[-2:]
    if driver == "gelsy" or m <= n:
        return None
    vector = is_vector_rhs(A_shape, B_shape)
    batch = broadcast_pair(A_shape[:-2], B_shape[:-1] if vector else B_shape[:-2])
    return (*batch, 1 if vector else B_shape[-1])


LSTSQ = OpExpr("linalg_lstsq", ("A", "B"), ("solution", "residuals", "rank", "singular_values"))


@LSTSQ.shape_rule
def _lstsq_infer(attrs, A, B):
    if A.ndim < 2:
        raise RuntimeError(f"{_OP}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{_OP}: other must have at least 1 dimension.")
    if A._dtype in (_dt.float16, _dt.bfloat16):
        raise RuntimeError(f"{_OP}: Low precision dtypes not supported. Got {torch_name(A._dtype)}")
    check_float(_OP, A)
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"{_OP}: Expected input and other to have the same dtype, but got input's dtype {torch_name(A._dtype)} "
            f"and other's dtype {torch_name(B._dtype)}"
        )
    if not 0 <= A.ndim - B.ndim <= 1:
        raise RuntimeError(f"{_OP}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1")
    vector = is_vector_rhs(A._shape, B._shape)
    if not vector and (B.ndim != A.ndim or B._shape[-2] != A._shape[-2]):
        raise RuntimeError(f"{_OP}: input.size(-2) should match other.size(-2)")
    driver = attrs["driver"]
    m, n = A._shape[-2:]
    real = real_dtype(A._dtype)
    batch = broadcast_pair(A._shape[:-2], B._shape[:-1] if vector else B._shape[:-2])
    solution = (*batch, n) if vector else (*batch, n, B._shape[-1])
    residuals = residuals_shape(A._shape, B._shape, driver)
    rank = A._shape[:-2] if driver != "gels" else (0,)
    singular_values = (*A._shape[:-2], min(m, n)) if driver in ("gelsd", "gelss") else (0,)
    return ((solution, A._dtype), (residuals or (0,), real), (rank, _dt.int64), (singular_values, real))


declare(
    "linalg.lstsq",
    "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values) (Tensor A, Tensor B, Float? rcond=None, *, String? driver=None) => LinalgLstsq",
    op="linalg_lstsq",
    doc="""
    The least-squares solution X minimizing ||A X - B|| (the minimum-norm one for a rank-deficient A
    with ``gelsy``, ``gelsd`` or ``gelss``). ``rcond`` sets the effective rank: singular values (or
    the R factor's condition) below ``rcond`` times the largest count as zero; None means
    eps(dtype) * max(m, n). ``driver`` is one of 'gelsy' (default), 'gels', 'gelsd', 'gelss'.

    >>> r = ember.linalg.lstsq(ember.tensor([[1.0], [1.0]]), ember.tensor([[1.0], [3.0]]), driver="gels")
    >>> r.solution.tolist(), r.residuals.tolist(), r.rank.shape
    ([[2.0]], [2.0], ember.Size([0]))
    """,
)
@functor("LinalgLstsq")
def linalg_lstsq(A, B, rcond=None, driver=None):
    driver = "gelsy" if driver is None else driver
    if driver not in DRIVERS:
        raise RuntimeError(f"{_OP}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    solution, residuals, rank, singular_values = dispatch(LSTSQ, (A, B), {"rcond": rcond, "driver": driver})
    if driver in ("gelsd", "gelss") and residuals.numel() and not bool((rank == A._shape[-1]).all().item()):
        residuals = _F().empty((0,), dtype=residuals._dtype)  # PyTorch's rule: none unless every matrix has full rank
    return LstsqResult(solution, residuals.detach(), rank, singular_values.detach())  # only the solution is differentiable


@LSTSQ.grad_rule(saves="inputs")
def _lstsq_grad(ctx, gX, g_residuals, g_rank, g_singular_values):
    """X = pinv(A) B: gA = pinv_backward(gX B^H, pinv(A), A), gB = pinv(A)^H gX (PyTorch's rule)."""
    A, B = ctx.inputs
    vector = is_vector_rhs(A._shape, B._shape)
    G = gX.unsqueeze(-1) if vector else gX
    Bm = B.unsqueeze(-1) if vector else B
    P = linalg_functions().pinv(A)
    gA = sum_to(pinv_backward(G @ adjoint(Bm), P, A), A._shape)
    gB = adjoint(P) @ G
    gB = sum_to(gB.squeeze(-1) if vector else gB, B._shape)
    return gA, gB
