"""Whole slices along a dimension picked by a vector of indices: ``index_select`` reads them;
``index_add``, ``index_copy`` and ``index_fill`` write them (into a copy, or in place with the
trailing-underscore methods).

>>> import ember
>>> ember.tensor([[1, 2], [3, 4]]).index_select(0, ember.tensor([1, 1, 0])).tolist()
[[3, 4], [3, 4], [1, 2]]
"""

from __future__ import annotations

import numpy as np

from ..._core.shape import wrap_dim
from ..._core.tensor import Tensor, scalar_for
from ..._core.tensor_numpy import from_numpy
from ...dispatch import OpExpr
from .. import sbp_rules
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import check_index_dtype, ndim1, run, zeros

declare = schema_family("indexing")

__all__: list[str] = []


def _check_vector_index(op: str, index: Tensor) -> None:
    check_index_dtype(op, index)
    ndim = len(index._shape)
    if ndim <= 1:
        return
    if op == "index_fill":  # PyTorch's words and type differ by op
        raise RuntimeError(f"index_fill(): Index has to be a vector/scalar, got a tensor of {ndim} dimensions")
    if op == "index_copy":
        raise IndexError(f"index_copy(): Index should have dimension 1 or 0 (got {ndim})")
    raise IndexError(f"{op}(): Index is supposed to be a vector, got a tensor of {ndim} dimensions")


declare(
    "index_select",
    "Tensor (Tensor input, Int dim, Tensor index) => IndexSelect",
    method=True, out=True,
    doc="""
    The slices of input at the positions index (a vector) along dim.

    >>> ember.tensor([[1, 2], [3, 4]]).index_select(0, ember.tensor([1, 1, 0])).tolist()
    [[3, 4], [3, 4], [1, 2]]
    """,
    tf="GatherV2",
)
@functor("IndexSelect")
def index_select(input, dim, index, out=None):
    return run(_INDEX_SELECT, (input, index), {"dim": dim}, out)[0]


_INDEX_SELECT = OpExpr("index_select", ("input", "index"), ("out",)).tag(sbp=sbp_rules.shape.index_select)


@_INDEX_SELECT.shape_rule
def _infer_index_select(attrs, x, index):
    _check_vector_index("index_select", index)
    d = wrap_dim(attrs["dim"], len(x._shape), "index_select")
    if not x._shape:
        if index.numel() != 1:
            raise IndexError("index_select(): Index to scalar can have only 1 value")
        return (((), x._dtype),)
    n = index.numel()
    return (((*x._shape[:d], n, *x._shape[d + 1 :]), x._dtype),)


@_INDEX_SELECT.grad_rule(saves="inputs")
def _index_select_grad(ctx, g):
    index = ctx.inputs[1]
    meta = ctx.input_meta[0]
    if not meta[0]:  # a 0-d input: the one element, selected once
        return g.reshape(()), None
    return _F().index_add(zeros(meta), ctx.attrs["dim"], index, g), None


# -- the writing ones --------------------------------------------------------------------------------


def _check_source(op: str, x: Tensor, d: int, index: Tensor, source: Tensor) -> None:
    xs, ss = ndim1(x._shape), ndim1(source._shape)
    n = index.numel()
    expected = (*xs[:d], n, *xs[d + 1 :])
    # a size unknown while a graph is built (an int subclass) is checked when the graph runs
    if len(ss) != len(xs) or any(a != b and type(a) is int and type(b) is int for a, b in zip(ss, expected, strict=True)):
        raise RuntimeError(
            f"{op}(): Source/destination tensor must have same slice shapes (source {list(source._shape)}, expected {list(expected)})"
        )
    if source._dtype is not x._dtype:
        raise RuntimeError(f"{op}(): self ({x._dtype}) and source ({source._dtype}) must have the same scalar type")


def _index_source_rule(op: OpExpr):
    """The inference rule of index_add and index_copy (the same checks, named after the op)."""

    @op.shape_rule
    def infer(attrs, x, index, source):
        _check_vector_index(op.name, index)
        d = wrap_dim(attrs["dim"], len(x._shape), op.name)
        _check_source(op.name, x, d, index, source)
        return ((x._shape, x._dtype),)

    return op


def _select_source(g, dim: int, index, source_shape: tuple):
    """The gradient of a written ``source``: the gradient's slices at ``index``."""
    if not g.shape:
        return g.reshape(source_shape)
    return _F().index_select(g, dim, index).reshape(source_shape)


def _fill_zero(g, dim: int, index):
    """The gradient of an input whose slices at ``index`` were overwritten: zero there."""
    return _F().index_fill(g, dim, index, 0) if g.shape else _F().zeros_like(g)


declare(
    "index_add",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor source, *, Scalar alpha=1) => IndexAdd",
    method=True, inplace="index_add_", out=True,
    doc="""
    A copy of input with alpha * source's slices added at the positions index along dim.

    >>> ember.zeros(3).index_add(0, ember.tensor([0, 2, 0]), ember.tensor([1.0, 2.0, 3.0])).tolist()
    [4.0, 0.0, 2.0]
    """,
)
@functor("IndexAdd")
def index_add(input, dim, index, source, alpha=1, out=None):
    if isinstance(alpha, float) and not (input._dtype.is_floating_point or input._dtype.is_complex):
        raise RuntimeError("index_add(): For integral input tensors, argument alpha must not be a floating point number.")
    return run(_INDEX_ADD, (input, index, source), {"dim": dim, "alpha": alpha}, out)[0]


_INDEX_ADD = _index_source_rule(OpExpr("index_add", ("input", "index", "source"), ("out",)))


@_INDEX_ADD.grad_rule(saves="inputs")
def _index_add_grad(ctx, g):
    index = ctx.inputs[1]
    alpha = ctx.attrs["alpha"]
    grad_source = _select_source(g, ctx.attrs["dim"], index, ctx.input_meta[2][0])
    return g, None, grad_source if alpha == 1 else grad_source * alpha


declare(
    "index_copy",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor source) => IndexCopy",
    method=True, inplace="index_copy_", out=True,
    doc="A copy of input with source's slices written at the positions index along dim.",
)
@functor("IndexCopy")
def index_copy(input, dim, index, source, out=None):
    return run(_INDEX_COPY, (input, index, source), {"dim": dim}, out)[0]


_INDEX_COPY = _index_source_rule(OpExpr("index_copy", ("input", "index", "source"), ("out",)))


@_INDEX_COPY.grad_rule(saves="inputs")
def _index_copy_grad(ctx, g):
    index = ctx.inputs[1]
    dim = ctx.attrs["dim"]
    return _fill_zero(g, dim, index), None, _select_source(g, dim, index, ctx.input_meta[2][0])


declare(
    "index_fill",
    [
        "Tensor (Tensor input, Int dim, Tensor index, Tensor value) => IndexFillTensor",
        "Tensor (Tensor input, Int dim, Tensor index, Scalar value) => IndexFill",
    ],
    method=True, inplace="index_fill_", out=True, op=("index_fill_tensor", "index_fill"),
    doc="""
    A copy of input with the slices at index along dim set to value (a number or 0-d tensor).

    >>> ember.zeros(2, 2).index_fill(1, ember.tensor([1]), 7).tolist()
    [[0.0, 7.0], [0.0, 7.0]]
    """,
)
@functor("IndexFillTensor")
def index_fill_tensor(input, dim, index, value, out=None):
    return run(_INDEX_FILL_TENSOR, (input, index, value), {"dim": dim}, out)[0]


@functor("IndexFill")
def index_fill(input, dim, index, value, out=None):
    value = scalar_for(value, input._dtype, "index_fill")
    return run(_INDEX_FILL, (input, index), {"dim": dim, "value": value}, out)[0]


_INDEX_FILL = OpExpr("index_fill", ("input", "index"), ("out",))
_INDEX_FILL_TENSOR = OpExpr("index_fill_tensor", ("input", "index", "value"), ("out",))


@_INDEX_FILL.shape_rule
def _infer_index_fill(attrs, x, index):
    _check_vector_index("index_fill", index)
    wrap_dim(attrs["dim"], len(x._shape), "index_fill")
    return ((x._shape, x._dtype),)


@_INDEX_FILL_TENSOR.shape_rule
def _infer_index_fill_tensor(attrs, x, index, value):
    if value._shape:
        raise RuntimeError(
            f"index_fill_(): only supports a 0-dimensional value tensor, but got tensor with {len(value._shape)} dimension(s)."
        )
    return _infer_index_fill(attrs, x, index)


@_INDEX_FILL.grad_rule(saves="inputs")
def _index_fill_grad(ctx, g):
    return _fill_zero(g, ctx.attrs["dim"], ctx.inputs[1]), None


@_INDEX_FILL_TENSOR.grad_rule(saves="inputs")
def _index_fill_tensor_grad(ctx, g):
    index = ctx.inputs[1]
    dim = ctx.attrs["dim"]
    index_values = index._host_array().reshape(-1)
    if g.shape:  # index_fill counts negative indices from the end; index_select takes them as counted
        index_values = np.where(index_values < 0, index_values + g.shape[wrap_dim(dim, len(g.shape), "index_fill")], index_values)
    unique_index = from_numpy(np.unique(index_values).astype(np.int64))
    grad_value = _select_source(g, dim, unique_index, (-1,)).sum() if g.shape else g.reshape(())
    value_dtype = ctx.input_meta[2][1]
    return _fill_zero(g, dim, index), None, grad_value if value_dtype is g.dtype else grad_value.to(value_dtype)
