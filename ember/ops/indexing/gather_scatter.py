"""Gathers and scatters along a dimension (``gather``, ``scatter``, ``scatter_add``,
``scatter_reduce``, ``take_along_dim``) and over the flattened tensor (``take``, ``put``).

Each gather's derivative is a scatter-add of the gradient into zeros, and each scatter's reads
the gradient back with a gather; where a scatter overwrites positions, the input's gradient has
them zeroed. Index inputs get no gradient.

>>> import ember
>>> ember.tensor([[1, 2], [3, 4]]).gather(1, ember.tensor([[1, 0], [0, 0]])).tolist()
[[2, 1], [3, 3]]
"""

from __future__ import annotations

from ..._core.shape import broadcast_shapes, wrap_dim
from ..._core.tensor import Tensor, scalar_for
from ...dispatch import NO_ATTRS, OpExpr
from ..common import functional as _F
from ..functor import FUNCTORS, functor
from ..schema import schema_family
from ._common import check_index_dtype, ndim1, run, zeros

declare = schema_family("indexing")

__all__ = ["gather"]


def _check_gather_shapes(op: str, x: Tensor, dim: int, index: Tensor, src: Tensor | None = None) -> int:
    xs, ids = ndim1(x._shape), ndim1(index._shape)
    d = wrap_dim(dim, len(x._shape), op)
    if len(ids) != len(xs) and index.numel() != 0:
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as self tensor")
    if index.numel() == 0:
        return d
    for k in range(len(xs)):
        if k != d and ids[k] > xs[k]:
            raise RuntimeError(
                f"{op}(): Size does not match at dimension {k} expected index {list(index._shape)} to be smaller than self "
                f"{list(x._shape)} apart from dimension {d}"
            )
    if src is not None:
        ss = ndim1(src._shape)
        if len(ss) != len(ids):
            raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as src tensor")
        for k in range(len(ids)):
            if ids[k] > ss[k]:
                raise RuntimeError(
                    f"{op}(): Expected index {list(index._shape)} to be smaller than self {list(x._shape)} apart from dimension "
                    f"{d} and to be smaller size than src {list(src._shape)}"
                )
    return d


declare(
    "gather",
    "Tensor (Tensor input, Int dim, Tensor index, *, Bool sparse_grad=False) => Gather",
    method=True, out=True,
    doc="""
    out[i][j] = input[index[i][j]][j] for dim 0 (index picks along dim; same number of dims).

    >>> ember.tensor([[1, 2], [3, 4]]).gather(1, ember.tensor([[1, 0], [0, 0]])).tolist()
    [[2, 1], [3, 3]]
    """,
)
@functor("Gather")
def gather(input, dim, index, sparse_grad=False, out=None):
    return run(_GATHER, (input, index), {"dim": dim}, out)[0]


_GATHER = OpExpr("gather", ("input", "index"), ("out",))


@_GATHER.shape_rule
def _infer_gather(attrs, x, index):
    check_index_dtype("gather", index)
    _check_gather_shapes("gather", x, attrs["dim"], index)
    return ((index._shape, x._dtype),)


@_GATHER.grad_rule(saves="inputs")
def _gather_grad(ctx, g):
    index = ctx.inputs[1]
    return _F().scatter_add(zeros(ctx.input_meta[0]), ctx.attrs["dim"], index, g), None


def _check_reduce(reduce, allowed: tuple, op: str):
    if reduce not in allowed:
        raise RuntimeError(f"{op}(): reduce argument must be one of {', '.join(str(r) for r in allowed if r)}, got {reduce!r}")


declare(
    "scatter",
    [
        "Tensor (Tensor input, Int dim, Tensor index, Tensor src, *, String? reduce=None) => Scatter",
        "Tensor (Tensor input, Int dim, Tensor index, Scalar src, *, String? reduce=None) => ScatterValue",
        "Tensor (Tensor input, Int dim, Tensor index, *, Scalar value, String? reduce=None) => ScatterValue",
    ],
    method=True, inplace="scatter_", out=True, op=("scatter", "scatter_value"),
    doc="""
    A copy of input with src (a tensor or a number) written at index along dim; reduce 'add'
    or 'multiply' combines instead of overwriting.

    >>> ember.zeros(2, 3).scatter(1, ember.tensor([[2], [0]]), 5.0).tolist()
    [[0.0, 0.0, 5.0], [5.0, 0.0, 0.0]]
    """,
)
@functor("Scatter")
def scatter(input, dim, index, src, reduce=None, out=None):
    _check_reduce(reduce, (None, "add", "multiply"), "scatter")
    return run(_SCATTER, (input, index, src), {"dim": dim, "reduce": reduce, "include_self": True, "op": "scatter"}, out)[0]


@functor("ScatterValue")
def scatter_value(input, dim, index, value, reduce=None, out=None):
    _check_reduce(reduce, (None, "add", "multiply"), "scatter")
    value = scalar_for(value, input._dtype, "scatter")
    return run(_SCATTER_VALUE, (input, index), {"dim": dim, "value": value, "reduce": reduce}, out)[0]


_SCATTER = OpExpr("scatter", ("input", "index", "src"), ("out",))
_SCATTER_VALUE = OpExpr("scatter_value", ("input", "index"), ("out",))


@_SCATTER.shape_rule
def _infer_scatter(attrs, x, index, src):
    op = attrs["op"]
    check_index_dtype(op, index)
    _check_gather_shapes(op, x, attrs["dim"], index, src)
    if src._dtype is not x._dtype:
        raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype (got {x._dtype} and {src._dtype})")
    return ((x._shape, x._dtype),)


@_SCATTER_VALUE.shape_rule
def _infer_scatter_value(attrs, x, index):
    check_index_dtype("scatter", index)
    _check_gather_shapes("scatter", x, attrs["dim"], index)
    return ((x._shape, x._dtype),)


def _pad_to(g, shape: tuple):
    """``g`` padded with zeros at the end of each dimension up to ``shape`` (scatter's ``src``
    may be larger than ``index``; the elements beyond it are not read)."""
    if tuple(g.shape) == tuple(shape):
        return g
    if not shape:
        return g.reshape(())
    pad = ()
    for have, want in zip(reversed(ndim1(tuple(g.shape))), reversed(shape), strict=True):
        pad += (0, want - have)
    return _F().pad(g.reshape(ndim1(tuple(g.shape))), pad)


@_SCATTER.grad_rule(saves="inputs")
def _scatter_grad(ctx, g):
    F = _F()
    index = ctx.inputs[1]
    x_shape = ctx.input_meta[0][0]
    dim, reduce, include_self = ctx.attrs["dim"], ctx.attrs["reduce"], ctx.attrs["include_self"]
    src_shape = ctx.input_meta[2][0]
    if reduce is None:
        return F.scatter(g, dim, index, 0), None, _pad_to(F.gather(g, dim, index), src_shape)
    if reduce in ("add", "sum"):
        grad_input = g if include_self else F.scatter(g, dim, index, 0)
        return grad_input, None, _pad_to(F.gather(g, dim, index), src_shape)
    if reduce == "mean":
        ones = F.ones(index.shape, dtype=g.dtype)
        touched = F.scatter_add(F.zeros(x_shape, dtype=g.dtype), dim, index, ones)
        count = touched + 1 if include_self else touched
        touched = touched > 0
        count = F.where(count == 0, F.ones_like(count), count)
        scaled = g / count
        grad_input = scaled if include_self else F.where(touched, F.zeros_like(g), g)
        return grad_input, None, _pad_to(F.gather(scaled, dim, index), src_shape)
    raise NotImplementedError(f"the derivative of scatter with reduce={reduce!r} is not implemented (only None, add, sum, mean)")


@_SCATTER_VALUE.grad_rule(saves="inputs")
def _scatter_value_grad(ctx, g):
    index = ctx.inputs[1]
    reduce = ctx.attrs["reduce"]
    if reduce is None:
        return _F().scatter(g, ctx.attrs["dim"], index, 0), None
    if reduce == "add":
        return g, None
    raise NotImplementedError(f"the derivative of scatter with a value and reduce={reduce!r} is not implemented")


declare(
    "scatter_add",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor src) => ScatterAdd",
    method=True, inplace="scatter_add_", out=True, op="scatter",
    doc="""
    scatter with the values at repeated indices summed.

    >>> ember.zeros(3).scatter_add(0, ember.tensor([0, 0, 2]), ember.tensor([1.0, 2.0, 3.0])).tolist()
    [3.0, 0.0, 3.0]
    """,
)
@functor("ScatterAdd")
def scatter_add(input, dim, index, src, out=None):
    return run(_SCATTER, (input, index, src), {"dim": dim, "reduce": "add", "include_self": True, "op": "scatter_add"}, out)[0]


declare(
    "scatter_reduce",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor src, String reduce, *, Bool include_self=True) => ScatterReduce",
    method=True, inplace="scatter_reduce_", out=True, op="scatter",
    doc="""
    scatter with reduce 'sum', 'prod', 'mean', 'amax' or 'amin' over the values meeting at one
    place (and the input's value there unless include_self=False).

    >>> ember.tensor([5.0, 5.0]).scatter_reduce(0, ember.tensor([0, 0]), ember.tensor([1.0, 9.0]), "amax").tolist()
    [9.0, 5.0]
    """,
)
@functor("ScatterReduce")
def scatter_reduce(input, dim, index, src, reduce, include_self=True, out=None):
    _check_reduce(reduce, ("sum", "prod", "mean", "amax", "amin"), "scatter_reduce")
    return run(
        _SCATTER, (input, index, src), {"dim": dim, "reduce": reduce, "include_self": include_self, "op": "scatter_reduce"}, out
    )[0]


declare(
    "take_along_dim",
    "Tensor (Tensor input, Tensor indices, Int? dim=None) => TakeAlongDim",
    method=True, composite=True,
    doc="""
    gather with input and indices broadcast (except along dim); without dim, over the flattened input.

    >>> ember.take_along_dim(ember.tensor([[10, 30, 20]]), ember.tensor([[0, 2]]), dim=1).tolist()
    [[10, 20]]
    """,
)
@functor("TakeAlongDim")
def take_along_dim(input, indices, dim=None):
    if dim is None:  # PyTorch's own spelling: a gather over the flattened input (no negatives)
        return gather(FUNCTORS["Reshape"](input, (-1,)), 0, FUNCTORS["Reshape"](indices, (-1,)))
    check_index_dtype("take_along_dim", indices)
    ndim = len(input._shape)
    if len(indices._shape) != ndim:
        raise RuntimeError(
            f"take_along_dim(): input and indices should have the same number of dimensions, but got {ndim} dimensions for input, and {len(indices._shape)} dimensions for indices"
        )
    d = wrap_dim(dim, ndim, "take_along_dim")
    a, b = list(input._shape), list(indices._shape)
    a[d] = b[d] = 1
    shape = broadcast_shapes(a, b, op="take_along_dim")
    xs, ids = list(shape), list(shape)
    xs[d], ids[d] = input._shape[d], indices._shape[d]
    expand = FUNCTORS["Expand"]
    return gather(expand(input, tuple(xs)), d, expand(_count_from_end(indices, input._shape[d]), tuple(ids)))


def _count_from_end(indices, size: int):
    """take_along_dim's negative indices in [-size, 0) count from the end (as PyTorch's); any
    other index is left for gather to refuse (PyTorch wraps those modulo size, a silent wrong
    answer ember does not copy)."""
    return _F().where((indices < 0) & (indices >= -size), indices + size, indices)


# -- over the flattened tensor ----------------------------------------------------------------------

declare(
    "take",
    "Tensor (Tensor input, Tensor index) => Take",
    method=True, out=True,
    doc="""
    The elements of the flattened input at index (the result has index's shape).

    >>> ember.take(ember.tensor([[1, 2], [3, 4]]), ember.tensor([[0, 3]])).tolist()
    [[1, 4]]
    """,
)
@functor("Take")
def take(input, index, out=None):
    return run(_TAKE, (input, index), NO_ATTRS, out)[0]


_TAKE = OpExpr("take", ("input", "index"), ("out",))


@_TAKE.shape_rule
def _infer_take(attrs, x, index):
    check_index_dtype("take", index)
    if x.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    return ((index._shape, x._dtype),)


@_TAKE.grad_rule(saves="inputs")
def _take_grad(ctx, g):
    index = ctx.inputs[1]
    return _F().put(zeros(ctx.input_meta[0]), index, g, accumulate=True), None


declare(
    "put",
    "Tensor (Tensor input, Tensor index, Tensor source, Bool accumulate=False) => Put",
    method=True, inplace="put_", out=True,
    doc="""
    A copy of input with source written at the flat positions index (summed with accumulate).

    >>> ember.zeros(2, 2).put(ember.tensor([3, 0]), ember.tensor([5.0, 6.0])).tolist()
    [[6.0, 0.0], [0.0, 5.0]]
    """,
)
@functor("Put")
def put(input, index, source, accumulate=False, out=None):
    return run(_PUT, (input, index, source), {"accumulate": accumulate}, out)[0]


_PUT = OpExpr("put", ("input", "index", "source"), ("out",))


@_PUT.shape_rule
def _infer_put(attrs, x, index, source):
    check_index_dtype("put_", index)
    if index.numel() != source.numel():
        raise RuntimeError(
            f"put_(): Expected source and index to have the same number of elements, but got source.numel() = {source.numel()}, "
            f"index.numel() = {index.numel()}"
        )
    if source._dtype is not x._dtype:
        raise RuntimeError(f"put_(): self ({x._dtype}) and source ({source._dtype}) must have the same scalar type")
    return ((x._shape, x._dtype),)


@_PUT.grad_rule(saves="inputs")
def _put_grad(ctx, g):
    F = _F()
    index = ctx.inputs[1]
    source_shape = ctx.input_meta[2][0]
    grad_input = g if ctx.attrs["accumulate"] else F.put(g, index, F.zeros(source_shape, dtype=g.dtype))
    return grad_input, None, F.take(g, index).reshape(source_shape)
