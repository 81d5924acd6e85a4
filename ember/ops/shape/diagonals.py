"""Triangles and diagonals of matrices, as copies: ``tril``/``triu`` (the last two dims, zeros
outside the triangle), ``diag`` (a vector to a diagonal matrix, or a matrix's diagonal),
``diagflat`` and ``diag_embed``. (``diagonal``, the view, is in ``slicing.py``.)

>>> import ember
>>> ember.tensor([[1, 2], [3, 4]]).tril().tolist()
[[1, 0], [3, 4]]
"""

from __future__ import annotations

from ..._core.shape import wrap_dim
from ...dispatch import OpExpr
from .. import sbp_rules
from ..functor import FUNCTORS, functor
from ..schema import schema_family
from ._common import in_shape, named, positions, run, scatter_back
from .reshape import reshape
from .slicing import DIAGONAL

declare = schema_family("shape")

__all__: list[str] = []


def _triangle(name: str, functor_name: str) -> OpExpr:
    """The tril/triu primitive, its rule and its functor ``Name(input, diagonal=0, out=None)``."""
    op = OpExpr(name, ("input",), ("out",)).tag(sbp=sbp_rules.shape.triangle)

    @op.shape_rule
    def infer(attrs, x):
        if len(x._shape) < 2:
            raise RuntimeError(f"{name}(): input tensor must have at least 2 dimensions")
        return ((x._shape, x._dtype),)

    def run_triangle(input, diagonal=0, out=None):
        return run(op, (input,), {"diagonal": diagonal}, out)

    FUNCTORS[functor_name] = named(run_triangle, functor_name)
    return op


declare(
    "tril",
    "Tensor (Tensor input, Int diagonal=0) => Tril",
    method=True, inplace="tril_", out=True,
    doc="""
    The lower triangle of the last two dims (on and below diagonal), zeros elsewhere.

    >>> ember.tensor([[1, 2], [3, 4]]).tril().tolist()
    [[1, 0], [3, 4]]
    """,
)
_TRIL = _triangle("tril", "Tril")


@_TRIL.grad_rule(saves="none")
def _tril_grad(ctx, g):
    return (g.tril(ctx.attrs["diagonal"]),)


declare(
    "triu",
    "Tensor (Tensor input, Int diagonal=0) => Triu",
    method=True, inplace="triu_", out=True,
    doc="""
    The upper triangle of the last two dims (on and above diagonal), zeros elsewhere.

    >>> ember.tensor([[1, 2], [3, 4]]).triu(1).tolist()
    [[0, 2], [0, 0]]
    """,
)
_TRIU = _triangle("triu", "Triu")


@_TRIU.grad_rule(saves="none")
def _triu_grad(ctx, g):
    return (g.triu(ctx.attrs["diagonal"]),)


declare(
    "diag",
    "Tensor (Tensor input, Int diagonal=0) => Diag",
    method=True, out=True,
    doc="""
    A 1-d tensor as the diagonal of a square matrix, or a matrix's diagonal as a 1-d copy.

    >>> ember.diag(ember.tensor([1, 2])).tolist()
    [[1, 0], [0, 2]]
    """,
    tf="Diag",
)
@functor("Diag")
def diag(input, diagonal=0, out=None):
    return run(_DIAG, (input,), {"diagonal": diagonal}, out)


_DIAG = OpExpr("diag", ("input",), ("out",))


@_DIAG.shape_rule
def _infer_diag(attrs, x):
    k = attrs["diagonal"]
    if len(x._shape) == 1:
        n = x._shape[0] + abs(k)
        return (((n, n), x._dtype),)
    if len(x._shape) == 2:
        rows, cols = x._shape
        n = max(min(rows, cols - k), 0) if k >= 0 else max(min(rows + k, cols), 0)
        return (((n,), x._dtype),)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {len(x._shape)}D")


@_DIAG.grad_rule(saves="none")
def _diag_grad(ctx, g):
    shape = in_shape(ctx)
    k = ctx.attrs["diagonal"]
    if len(shape) == 1:
        return (g.diagonal(k, 0, 1),)
    (pos,) = positions(DIAGONAL, {"offset": k, "dim1": 0, "dim2": 1}, shape)
    return (scatter_back(g, pos, shape),)


declare(
    "diagflat",
    "Tensor (Tensor input, Int offset=0) => Diagflat",
    method=True, op="diag",
    doc="The flattened input as the diagonal of a square matrix.",
)
@functor("Diagflat")
def diagflat(input, offset=0):
    return run(_DIAG, (reshape(input, (-1,)),), {"diagonal": offset})


declare(
    "diag_embed",
    "Tensor (Tensor input, Int offset=0, Int dim1=-2, Int dim2=-1) => DiagEmbed",
    method=True,
    doc="""
    The last dim of input as diagonals of new matrices in dims dim1 and dim2.

    >>> ember.diag_embed(ember.tensor([[1, 2]])).tolist()
    [[[1, 0], [0, 2]]]
    """,
)
@functor("DiagEmbed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    return run(_DIAG_EMBED, (input,), {"offset": offset, "dim1": dim1, "dim2": dim2})


_DIAG_EMBED = OpExpr("diag_embed", ("input",), ("out",))


@_DIAG_EMBED.shape_rule
def _infer_diag_embed(attrs, x):
    offset, d1, d2 = attrs["offset"], attrs["dim1"], attrs["dim2"]
    if not x._shape:
        raise RuntimeError("diag_embed(): input must be at least 1-dimensional")
    ndim = len(x._shape) + 1
    a = wrap_dim(d1, ndim, "diag_embed", "dim1")
    b = wrap_dim(d2, ndim, "diag_embed", "dim2")
    if a == b:
        raise RuntimeError(f"diag_embed(): diagonal dimensions cannot be identical {d1}, {d2}")
    n = x._shape[-1] + abs(offset)
    rest = iter(x._shape[:-1])
    shape = tuple(n if d in (a, b) else next(rest) for d in range(ndim))
    return ((shape, x._dtype),)


@_DIAG_EMBED.grad_rule(saves="none")
def _diag_embed_grad(ctx, g):
    a = ctx.attrs
    return (g.diagonal(a["offset"], a["dim1"], a["dim2"]),)
