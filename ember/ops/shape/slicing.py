"""Views of parts of the input: ``narrow``, ``select``, ``unbind``, ``split``/``chunk``/
``tensor_split``, ``diagonal``, sliding windows (``unfold``) and any layout (``as_strided``).

A part taken once goes back by padding the gradient with zeros (``narrow``, ``select``) or
joining the pieces' gradients (``split``); views that may read an element several times add the
gradient back at the positions they read.

>>> import ember
>>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).split(2)]
[[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

import operator

import numpy as np

from ..._core import views as _views
from ..._core.shape import wrap_dim
from ..._core.tensor import Tensor
from ..._core.tensor_numpy import from_numpy
from .. import sbp_rules
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import in_shape, scatter_back
from .view_op import run_view, simple_view, view_op, view_scatter_grad

declare = schema_family("shape")

__all__: list[str] = []


def _pad_dim(g, ndim: int, d: int, before: int, after: int):
    """``g`` padded with zeros (or narrowed, for negative amounts) along ``d``."""
    return _F().pad(g, (0, 0) * (ndim - 1 - d) + (before, after))


declare(
    "narrow",
    "Tensor (Tensor input, Int dim, Int start, Int length) => Narrow",
    method=True,
    doc="""
    Elements start..start+length of dimension dim (a view).

    >>> ember.tensor([0, 1, 2, 3]).narrow(0, 1, 2).tolist()
    [1, 2]
    """,
    tf="StridedSlice:strided_slice",
)
_NARROW = simple_view("Narrow", "narrow", _views.narrow, ("dim", "start", "length")).tag(sbp=sbp_rules.shape.narrow)


@_NARROW.grad_rule(saves="none")
def _narrow_grad(ctx, g):
    shape = in_shape(ctx)
    d = wrap_dim(ctx.attrs["dim"], len(shape), "narrow")
    start, length = ctx.attrs["start"], ctx.attrs["length"]
    if start < 0:
        start += shape[d]
    return (_pad_dim(g, len(shape), d, start, shape[d] - start - length),)


declare(
    "select",
    "Tensor (Tensor input, Int dim, Int index) => Select",
    method=True,
    doc="""
    The slice at index of dimension dim, that dimension removed (a view).

    >>> ember.tensor([[1, 2], [3, 4]]).select(1, 0).tolist()
    [1, 3]
    """,
    tf="StridedSlice:strided_slice",
)
_SELECT = simple_view("Select", "select", _views.select, ("dim", "index")).tag(sbp=sbp_rules.shape.select)


@_SELECT.grad_rule(saves="none")
def _select_grad(ctx, g):
    shape = in_shape(ctx)
    d = wrap_dim(ctx.attrs["dim"], len(shape), "select")
    i = ctx.attrs["index"]
    if i < 0:
        i += shape[d]
    return (_pad_dim(g.unsqueeze(d), len(shape), d, i, shape[d] - i - 1),)


declare(
    "unbind",
    "TensorList (Tensor input, Int dim=0) => Unbind",
    method=True,
    doc="""
    Every slice along dim, as a tuple of views.

    >>> [t.tolist() for t in ember.tensor([[1, 2], [3, 4]]).unbind(1)]
    [[1, 3], [2, 4]]
    """,
    tf="Unpack:unstack",
)
_UNBIND = simple_view("Unbind", "unbind", _views.unbind, ("dim",), multi=True).tag(sbp=sbp_rules.shape.unbind)


@_UNBIND.grad_rule(saves="none")
def _unbind_grad(ctx, *grads):
    return (_F().stack(grads, wrap_dim(ctx.attrs["dim"], len(in_shape(ctx)), "unbind")),)


def _cat_grads(ctx, *grads):
    """The derivative of split, tensor_split and chunk: the pieces' gradients joined."""
    d = wrap_dim(ctx.attrs["dim"], len(in_shape(ctx)), "split")
    return (_F().cat(grads, d) if len(grads) > 1 else grads[0].reshape(in_shape(ctx)),)


declare(
    "chunk",
    "TensorList (Tensor input, Int chunks, Int dim=0) => Chunk",
    method=True,
    doc="""
    At most chunks views of equal size (the last may be smaller) along dim.

    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).chunk(2)]
    [[0, 1, 2], [3, 4]]
    """,
)
simple_view("Chunk", "chunk", _views.chunk, ("chunks", "dim"), multi=True).tag(sbp=sbp_rules.shape.split_along).grad_rule(saves="none")(_cat_grads)


def _int_or_ints(value, op: str, arg: str):
    """An int, or a tuple of ints (lists and 1-d tensors too), for split-like arguments."""
    if type(value) is int:
        return value
    if isinstance(value, Tensor):
        if value.ndim == 0:
            return operator.index(value)
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return tuple(_views._index(v, op, arg) for v in value)
    return _views._index(value, op, arg)


declare(
    "split",
    "TensorList (Tensor input, Object split_size_or_sections, Int dim=0) => Split",
    method=True,
    doc="""
    Views of pieces of split_size elements along dim (the last may be shorter), or of the
    given list of sizes.

    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).split(2)]
    [[0, 1], [2, 3], [4]]
    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).split([1, 4])]
    [[0], [1, 2, 3, 4]]
    """,
)
@functor("Split")
def split(input, split_size_or_sections, dim=0):
    arg = _int_or_ints(split_size_or_sections, "split", "split_size_or_sections")
    return run_view(_SPLIT, input, {"split_size_or_sections": arg, "dim": dim})


_SPLIT = view_op("split", _views.split, ("split_size_or_sections", "dim"), multi=True).tag(sbp=sbp_rules.shape.split_along)
_SPLIT.grad_rule(saves="none")(_cat_grads)


declare(
    "tensor_split",
    "TensorList (Tensor input, Object indices_or_sections, Int dim=0) => TensorSplit",
    method=True,
    doc="""
    Views split into n nearly equal sections, or at the given indices (NumPy's array_split).

    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).tensor_split([1, 3])]
    [[0], [1, 2], [3, 4]]
    """,
)
@functor("TensorSplit")
def tensor_split(input, indices_or_sections, dim=0):
    arg = _int_or_ints(indices_or_sections, "tensor_split", "indices_or_sections")
    return run_view(_TENSOR_SPLIT, input, {"indices_or_sections": arg, "dim": dim})


_TENSOR_SPLIT = view_op("tensor_split", _views.tensor_split, ("indices_or_sections", "dim"), multi=True).tag(sbp=sbp_rules.shape.split_along)
_TENSOR_SPLIT.grad_rule(saves="none")(_cat_grads)


declare(
    "diagonal",
    "Tensor (Tensor input, Int offset=0, Int dim1=0, Int dim2=1) => Diagonal",
    method=True,
    doc="""
    The diagonal of dims dim1 and dim2 as the last dimension (a view).

    >>> ember.tensor([[1, 2], [3, 4]]).diagonal().tolist()
    [1, 4]
    """,
)
DIAGONAL = view_scatter_grad(simple_view("Diagonal", "diagonal", _views.diagonal, ("offset", "dim1", "dim2")))


declare(
    "unfold",
    "Tensor (Tensor input, Int dimension, Int size, Int step) => Unfold",
    method=True,
    doc="""
    Sliding windows of size elements, step apart, along dimension, as a new last dimension (a view).

    >>> ember.tensor([0, 1, 2, 3]).unfold(0, 2, 1).tolist()
    [[0, 1], [1, 2], [2, 3]]
    """,
)
view_scatter_grad(simple_view("Unfold", "unfold", _views.unfold, ("dimension", "size", "step")))


declare(
    "as_strided",
    "Tensor (Tensor input, IntList size, IntList stride, Int? storage_offset=None) => AsStrided",
    method=True,
    doc="Any layout over the input's storage (checked against the storage's bounds).",
)
_AS_STRIDED = simple_view("AsStrided", "as_strided", _views.as_strided, ("size", "stride", "storage_offset"))


def _flat_positions(shape, strides, start):
    """The storage position of every element of the layout (shape, strides, start)."""
    pos = np.full(tuple(shape), start, dtype=np.int64)
    for k, (n, s) in enumerate(zip(shape, strides, strict=True)):
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape([n if j == k else 1 for j in range(len(shape))])
    return pos


@_AS_STRIDED.grad_rule(saves="inputs")
def _as_strided_grad(ctx, g):
    """``g`` added into zeros over the storage extent through the output's strides, then read
    back through the input's (which must not overlap itself)."""
    (x,) = ctx.inputs
    size, stride, offset = ctx.attrs["size"], ctx.attrs["stride"], ctx.attrs["storage_offset"]
    if offset is None:
        offset = x._offset
    pos_in = _flat_positions(x._shape, x._stride, x._offset)
    if np.unique(pos_in).size != pos_in.size:
        raise NotImplementedError("as_strided(): the derivative for an input whose elements overlap in memory is not supported")
    pos_out = _flat_positions(size, stride, offset)
    lo = int(min(pos_in.min(initial=0), pos_out.min(initial=0)))
    extent = int(max(pos_in.max(initial=0), pos_out.max(initial=0))) - lo + 1
    storage = scatter_back(g, from_numpy(pos_out - lo), (extent,))
    return (_F().take(storage, from_numpy(pos_in - lo)),)
