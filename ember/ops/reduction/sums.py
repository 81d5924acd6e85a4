"""Sums and products, whole and cumulative: ``sum``, ``prod``, ``mean``, ``cumsum``, ``cumprod``.

bool and integer inputs sum and multiply in int64 (PyTorch's result dtype), ``mean`` needs a
floating or complex input or ``dtype=``; float16/bfloat16 accumulate in float32 (the kernel).

>>> import ember
>>> ember.tensor([[1, 2], [3, 4]]).sum(1).tolist(), ember.tensor([1.0, 2.0]).cumprod(0).tolist()
([3, 7], [1.0, 2.0])
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ...dispatch import OpExpr
from .. import sbp_rules
from ..common import check_dtype, functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import NUMERIC, count, float_input, reduce_dims, reduction_op, run, torch_name, unreduce

declare = schema_family("reduction")


def _integral_to_long(dtype: _dt.DType) -> _dt.DType:
    """sum/prod/cumsum of bool and integers accumulate and return int64, as PyTorch."""
    return _dt.int64 if dtype is _dt.bool_ or dtype.kind in "iu" else dtype


def _sum_result(dtype, requested):
    return requested if requested is not None else _integral_to_long(dtype)


def _simple(op):
    def run_reduction(input, dim, keepdim, dtype, out=None):
        return run(op, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim, "dtype": dtype}, out)

    return run_reduction


def _as_input_dtype(g, ctx, i: int = 0):
    dtype = ctx.input_meta[i][1]
    return g if g._dtype is dtype else g.to(dtype)


def _expand_grad(ctx, g):
    shape = ctx.input_meta[0][0]
    return unreduce(g, shape, ctx.attrs["dims"], ctx.attrs["keepdim"]).expand(shape)


def _has_zero(x) -> bool:
    return bool((x == 0).any().item())


def exclusive_cumprod(x, dim: int, reverse: bool = False):
    """prod of the elements strictly before (after, when ``reverse``) each one along ``dim``,
    exact with zeros (the derivatives of prod, cumprod and a singular det use it)."""
    F = _F()
    if reverse:
        return exclusive_cumprod(x.flip((dim,)), dim).flip((dim,))
    n = x._shape[dim]
    ones = F.ones_like(x.narrow(dim, 0, 1))
    return F.cat([ones, x.narrow(dim, 0, n - 1)], dim).cumprod(dim)


# --- sum ---------------------------------------------------------------------------------

SUM = reduction_op("sum", NUMERIC, _sum_result).tag(sbp=sbp_rules.reduction.sum_rule)

declare(
    "sum",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Sum",
    method=True, out=True,
    doc="""
    Sum over ``dim`` (all dimensions when None); bool and integers sum to int64.

    >>> ember.tensor([[1, 2], [3, 4]]).sum(0).tolist()
    [4, 6]
    """,
    tf="Sum",
)
functor("Sum")(_simple(SUM))


@SUM.grad_rule(saves="none")
def _sum_grad(ctx, g):
    if not float_input(ctx):
        return (None,)
    return (_as_input_dtype(_expand_grad(ctx, g), ctx),)


# --- prod --------------------------------------------------------------------------------

PROD = reduction_op("prod", NUMERIC, _sum_result).tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "prod",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Prod",
    method=True, out=True,
    doc="""
    Product over ``dim``; bool and integers multiply in int64. Empty: 1.

    >>> ember.tensor([2, 3, 4]).prod().item()
    24
    """,
    tf="Prod",
)
functor("Prod")(_simple(PROD))


@PROD.grad_rule(saves="both")
def _prod_grad(ctx, g):
    if not float_input(ctx):
        return (None,)
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    shape, dims, keepdim = x._shape, ctx.attrs["dims"], ctx.attrs["keepdim"]
    g = unreduce(g, shape, dims, keepdim)
    out = _as_input_dtype(unreduce(out, shape, dims, keepdim), ctx)
    g = _as_input_dtype(g, ctx)
    if x.numel() == 0:
        return (g.expand(shape) * 0,)
    if not _has_zero(x):
        return (g * out.conj() / x.conj(),)
    # zeros: the product of the others, as products of the elements before and after each one
    if not dims:
        return (g.expand(shape),)
    rest = [d for d in range(x.ndim) if d not in dims]
    perm = tuple(rest) + tuple(dims)
    xp = x.permute(perm)
    flat = xp.reshape((*xp._shape[: len(rest)], -1))
    others = exclusive_cumprod(flat, -1) * exclusive_cumprod(flat, -1, reverse=True)
    others = others.reshape(xp._shape).permute(tuple(perm.index(i) for i in range(x.ndim)))
    return (g * others.conj(),)


# --- mean --------------------------------------------------------------------------------


def _mean_result(dtype, requested):
    if requested is not None:
        if not (requested.is_floating_point or requested.is_complex):
            raise RuntimeError(
                f"mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {torch_name(requested)}"
            )
        return requested
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {torch_name(dtype)}"
        )
    return dtype


MEAN = reduction_op("mean", NUMERIC, _mean_result).tag(sbp=sbp_rules.reduction.mean_rule)

declare(
    "mean",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Mean",
    method=True, out=True,
    doc="""
    Mean over ``dim``; needs a floating or complex input (or ``dtype=``). Empty: nan.

    >>> ember.tensor([[1.0, 2.0], [3.0, 5.0]]).mean(1, keepdim=True).tolist()
    [[1.5], [4.0]]
    """,
    tf="Mean",
)
functor("Mean")(_simple(MEAN))


@MEAN.grad_rule(saves="none")
def _mean_grad(ctx, g):
    if not float_input(ctx):
        return (None,)
    n = count(ctx.input_meta[0][0], ctx.attrs["dims"])
    return (_as_input_dtype(_expand_grad(ctx, g) / n, ctx),)


# --- cumsum and cumprod: along one dim, the input's shape ----------------------------------


def _scan(name: str) -> OpExpr:
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        check_dtype(name, "input", x._dtype, NUMERIC)
        return ((x._shape, _sum_result(x._dtype, attrs["dtype"])),)

    return op


def _cumulative(op: OpExpr):
    def run_scan(input, dim, dtype=None, out=None):
        d = wrap_dim(dim, input.ndim) if input.ndim else (wrap_dim(dim, 0), 0)[1]
        return run(op, input, {"dim": d, "dtype": dtype}, out)

    return run_scan


CUMSUM = _scan("cumsum").tag(sbp=sbp_rules.shape.cumsum)

declare(
    "cumsum",
    "Tensor (Tensor input, Int dim, *, DType? dtype=None) => Cumsum",
    method=True, inplace="cumsum_", out=True,
    doc="""
    Cumulative sum along ``dim``; bool and integers accumulate in int64.

    >>> ember.tensor([1, 2, 3]).cumsum(0).tolist()
    [1, 3, 6]
    """,
    tf="Cumsum",
)
functor("Cumsum")(_cumulative(CUMSUM))


@CUMSUM.grad_rule(saves="none")
def _cumsum_grad(ctx, g):
    if not float_input(ctx):
        return (None,)
    if g.ndim == 0:
        return (_as_input_dtype(g, ctx),)
    d = ctx.attrs["dim"]
    return (_as_input_dtype(g.flip((d,)).cumsum(d).flip((d,)), ctx),)


CUMPROD = _scan("cumprod").tag(sbp=sbp_rules.shape.cumprod)

declare(
    "cumprod",
    "Tensor (Tensor input, Int dim, *, DType? dtype=None) => Cumprod",
    method=True, inplace="cumprod_", out=True,
    doc="""
    Cumulative product along ``dim``; bool and integers accumulate in int64.

    >>> ember.tensor([1, 2, 3]).cumprod(0).tolist()
    [1, 2, 6]
    """,
    tf="Cumprod",
)
functor("Cumprod")(_cumulative(CUMPROD))


@CUMPROD.grad_rule(saves="both")
def _cumprod_grad(ctx, g):
    if not float_input(ctx):
        return (None,)
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    g = _as_input_dtype(g, ctx)
    if x.ndim == 0 or x.numel() == 0:
        return (g,)
    out = _as_input_dtype(out, ctx)
    d = ctx.attrs["dim"]
    if not _has_zero(x):
        return ((g * out.conj()).flip((d,)).cumsum(d).flip((d,)) / x.conj(),)
    # zeros: dy_k/dx_i = prod_{j<i} x_j * prod_{i<j<=k} x_j (k >= i), as an n x n triangle along a new dim
    F = _F()
    n = x._shape[d]
    xm = x.movedim(d, -1)
    gm = g.movedim(d, -1)
    i = F.arange(n).reshape((n, 1))
    j = F.arange(n).reshape((1, n))
    after = F.where(j > i, xm.unsqueeze(-2), F.ones_like(xm).unsqueeze(-2))  # (..., i, j)
    partial = after.cumprod(-1) * (j >= i).to(x._dtype)  # prod_{i<j'<=k} x_j' at (i, k), k >= i
    before = exclusive_cumprod(xm, -1)
    grad = before.conj() * (partial.conj() * gm.unsqueeze(-2)).sum(-1)
    return (grad.movedim(-1, d),)
