"""Ordering: ``sort``/``argsort``, ``topk``, ``kthvalue``, the distinct values (``unique``,
``unique_consecutive``) and binary search in sorted values (``searchsorted``, ``bucketize``).

The values' derivative of sort and topk writes the gradient back where each value came from;
indices, argsort, unique and searchsorted are not differentiable.

>>> import ember
>>> ember.tensor([3, 1, 2]).sort(descending=True).indices.tolist()
[0, 2, 1]
"""

from __future__ import annotations

import collections

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ...dispatch.interpreter import EAGER
from ..args import scalar_tensor_like
from ..common import functional as _F
from ..functor import FUNCTORS, functor
from ..schema import schema_family
from ._common import check_index_dtype, run, zeros

declare = schema_family("indexing")

__all__ = ["kthvalue_result", "sort_result", "topk_result"]


sort_result = collections.namedtuple("sort", ("values", "indices"))
topk_result = collections.namedtuple("topk", ("values", "indices"))
kthvalue_result = collections.namedtuple("kthvalue", ("values", "indices"))


def _check_sortable(op: str, x: Tensor) -> None:
    if x._dtype is _dt.string:  # TensorFlow has no string sort either; its tf.sort raises TypeError too
        raise TypeError(f"{op}(): argument 'input' has dtype {x._dtype}, which {op}() does not support: strings have no "
                        "order here (supported: bool, integer and real floating dtypes)")
    if x._dtype.is_complex:
        raise RuntimeError(f"{op}(): {x._dtype} tensors are not supported (complex numbers have no order)")


def _value_selecting_grad(ctx, g, indices_grad=None):
    """sort/topk: the values' gradient written back where the values came from."""
    (_, indices) = ctx.outputs
    meta = ctx.input_meta[0]
    if not meta[0]:
        return (g.reshape(()),)
    return (_F().scatter(zeros(meta), ctx.attrs["dim"], indices, g),)


declare(
    "sort",
    "(Tensor values, Tensor indices) (Tensor input, Int dim=-1, Bool descending=False, *, Bool stable=False) => Sort",
    method=True,
    doc="""
    The values sorted along dim and their original indices (a named tuple); NaN sorts as the
    largest value. The sort is always stable.

    >>> ember.tensor([3, 1, 2]).sort(descending=True).indices.tolist()
    [0, 2, 1]
    """,
)
@functor("Sort")
def sort(input, dim=-1, descending=False, stable=False):
    values, indices = dispatch(_SORT, (input,), {"dim": dim, "descending": descending, "k": None})
    return sort_result(values, indices)


_SORT = OpExpr("sort", ("input",), ("values", "indices"))


@_SORT.shape_rule
def _infer_sort(attrs, x):
    _check_sortable("sort", x)
    wrap_dim(attrs["dim"], len(x._shape), "sort")
    return ((x._shape, x._dtype), (x._shape, _dt.int64))


_SORT.grad_rule(saves=("indices",))(_value_selecting_grad)


declare(
    "argsort",
    "Tensor (Tensor input, Int dim=-1, Bool descending=False, *, Bool stable=False) => Argsort",
    method=True, differentiable=False, op="sort",
    doc="""
    The indices that sort input along dim.

    >>> ember.argsort(ember.tensor([3, 1, 2])).tolist()
    [1, 2, 0]
    """,
)
@functor("Argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    return dispatch(_SORT, (input,), {"dim": dim, "descending": descending, "k": None})[1]


declare(
    "topk",
    "(Tensor values, Tensor indices) (Tensor input, Int k, Int dim=-1, Bool largest=True, Bool sorted=True) => Topk",
    method=True,
    doc="""
    The k largest (or smallest) values along dim, sorted, and their indices (a named tuple).

    >>> ember.tensor([1, 5, 3, 4]).topk(2).values.tolist()
    [5, 4]
    """,
    tf="TopKV2",
)
@functor("Topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    values, indices = dispatch(_TOPK, (input,), {"dim": dim, "descending": largest, "k": k})
    return topk_result(values, indices)


_TOPK = OpExpr("topk", ("input",), ("values", "indices"))


@_TOPK.shape_rule
def _infer_topk(attrs, x):
    _check_sortable("topk", x)
    d = wrap_dim(attrs["dim"], len(x._shape), "topk")
    k = attrs["k"]
    size = x._shape[d] if x._shape else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"topk(): selected index k out of range (k = {k}, dimension {d} has size {size})")
    shape = (*x._shape[:d], k, *x._shape[d + 1 :]) if x._shape else ()
    return ((shape, x._dtype), (shape, _dt.int64))


_TOPK.grad_rule(saves=("indices",))(_value_selecting_grad)


declare(
    "kthvalue",
    "(Tensor values, Tensor indices) (Tensor input, Int k, Int dim=-1, Bool keepdim=False) => Kthvalue",
    method=True, op="sort",
    doc="""
    The k-th smallest value along dim (k counts from 1) and its index (a named tuple).

    >>> ember.tensor([4, 1, 3]).kthvalue(2).values.item()
    3
    """,
)
@functor("Kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, len(input._shape), "kthvalue")
    size = input._shape[d] if input._shape else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} (k = {k}, size {size})")
    values, indices = dispatch(_SORT, (input,), {"dim": d, "descending": False, "k": None})
    if not input._shape:
        return kthvalue_result(values, indices)
    select = FUNCTORS["Narrow"] if keepdim else FUNCTORS["Select"]
    args = (d, k - 1, 1) if keepdim else (d, k - 1)
    return kthvalue_result(select(values, *args), select(indices, *args))


# -- unique: a data-dependent size, counted by a primitive of its own --------------------------------

declare(
    "unique",
    "Tensor (Tensor input, Bool sorted=True, Bool return_inverse=False, Bool return_counts=False, Int? dim=None) => Unique",
    method=True, differentiable=False, op=("unique", "unique_count"),
    doc="""
    The distinct values (or slices along dim), sorted; with return_inverse / return_counts, also
    where each element went and how often each value occurs (a tuple).

    >>> ember.unique(ember.tensor([3, 1, 3, 2]), return_counts=True)[1].tolist()
    [1, 1, 2]
    """,
)
@functor("Unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique(_UNIQUE, "unique", input, return_inverse, return_counts, dim)


declare(
    "unique_consecutive",
    "Tensor (Tensor input, Bool return_inverse=False, Bool return_counts=False, Int? dim=None) => UniqueConsecutive",
    method=True, differentiable=False, op=("unique_consecutive", "unique_count"),
    doc="""
    Runs of equal consecutive values (or slices along dim) collapsed to one.

    >>> ember.tensor([1, 1, 2, 1]).unique_consecutive().tolist()
    [1, 2, 1]
    """,
)
@functor("UniqueConsecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    return _unique(_UNIQUE_CONSECUTIVE, "unique_consecutive", input, return_inverse, return_counts, dim)


def _unique(op: OpExpr, name: str, input, return_inverse, return_counts, dim):
    if input.is_meta:
        raise NotImplementedError(f"{name}(): meta tensors are not supported (the result's shape depends on data)")
    if input._dtype is _dt.string:
        raise TypeError(f"{name}(): string tensors are not supported")
    if dim is not None:
        if not input._shape:  # torch's words: a 0-d tensor has no dim to take unique slices along
            raise IndexError(f"{name}(): Dimension specified as {dim} but tensor has no dimensions")
        dim = wrap_dim(dim, len(input._shape), name)
        if any(n == 0 for d, n in enumerate(input._shape) if d != dim):
            raise RuntimeError(f"{name}(): There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    # The count is read now (a sync point, as nonzero's): it runs on the eager interpreter in any
    # mode, so building a graph still refuses the data-dependent size naming the input's tensor.
    attrs = {"dim": dim, "consecutive": op is _UNIQUE_CONSECUTIVE}
    count = int(EAGER.apply(_UNIQUE_COUNT, (input,), attrs)[0]._host_array())
    values, inverse, counts = dispatch(op, (input,), {"count": count, "dim": dim})
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


_UNIQUE = OpExpr("unique", ("input",), ("values", "inverse", "counts"))
_UNIQUE_CONSECUTIVE = OpExpr("unique_consecutive", ("input",), ("values", "inverse", "counts"))


def _unique_shapes(attrs, x):
    n, dim = attrs["count"], attrs["dim"]
    if dim is None:
        return (((n,), x._dtype), (x._shape, _dt.int64), ((n,), _dt.int64))
    d = wrap_dim(dim, len(x._shape), "unique")
    return (((*x._shape[:d], n, *x._shape[d + 1 :]), x._dtype), ((x._shape[d],), _dt.int64), ((n,), _dt.int64))


_UNIQUE.shape_rule(_unique_shapes)
_UNIQUE_CONSECUTIVE.shape_rule(_unique_shapes)


# How many values unique (or, with consecutive, unique_consecutive) finds: a 0-d int64 tensor.
_UNIQUE_COUNT = OpExpr("unique_count", ("input",), ("out",))


@_UNIQUE_COUNT.shape_rule
def _infer_unique_count(attrs, x):
    return (((), _dt.int64),)


# -- searchsorted / bucketize ----------------------------------------------------------------------------

declare(
    "searchsorted",
    [
        "Tensor (Tensor sorted_sequence, Tensor input, *, Bool out_int32=False, Bool right=False, String? side=None, Tensor? sorter=None) => Searchsorted",
        "Tensor (Tensor sorted_sequence, Scalar input, *, Bool out_int32=False, Bool right=False, String? side=None, Tensor? sorter=None) => SearchsortedScalar",
    ],
    out=True, differentiable=False, op="searchsorted",
    doc="""
    Where each value of input would be inserted into the sorted last dim of sorted_sequence
    (before equal values, or after them with right=True / side="right").

    >>> ember.searchsorted(ember.tensor([1, 3, 5]), ember.tensor([3, 6])).tolist()
    [1, 3]
    """,
)
@functor("Searchsorted")
def searchsorted(sorted_sequence, input, out_int32=False, right=False, side=None, sorter=None, out=None):
    inputs = (sorted_sequence, input) if sorter is None else (sorted_sequence, input, sorter)
    return run(_SEARCHSORTED, inputs, {"out_int32": out_int32, "right": _side(right, side)}, out)[0]


@functor("SearchsortedScalar")
def searchsorted_scalar(sorted_sequence, input, out_int32=False, right=False, side=None, sorter=None, out=None):
    return searchsorted(sorted_sequence, scalar_tensor_like(input, sorted_sequence), out_int32, right, side, sorter, out)


def _side(right, side) -> bool:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right' but got {side!r}")
        if right and side == "left":
            raise RuntimeError("searchsorted(): side and right can't be set to opposites, got side of left while right was True")
        return side == "right"
    return bool(right)


_SEARCHSORTED = OpExpr("searchsorted", ("sorted_sequence", "input", "sorter"), ("out",))


@_SEARCHSORTED.shape_rule
def _infer_searchsorted(attrs, seq, x, *sorter):
    if seq._dtype.is_complex or x._dtype.is_complex:
        raise RuntimeError("searchsorted(): complex tensors are not supported")
    if not seq._shape:
        raise RuntimeError("searchsorted(): boundaries tensor should have at least 1 dimension, but got a 0-d tensor")
    if len(seq._shape) > 1 and (len(x._shape) != len(seq._shape) or x._shape[:-1] != seq._shape[:-1]):
        raise RuntimeError(
            "searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input "
            f"value tensor must match, but we got boundaries tensor {list(seq._shape)} and input value tensor {list(x._shape)}"
        )
    if sorter:
        (s,) = sorter
        if s._shape != seq._shape:
            raise RuntimeError(
                f"searchsorted(): boundary and sorter must have the same size, but got boundary tensor {list(seq._shape)} and got sorter tensor {list(s._shape)}"
            )
        check_index_dtype("searchsorted", s)
    return ((x._shape, _dt.int32 if attrs["out_int32"] else _dt.int64),)


declare(
    "bucketize",
    [
        "Tensor (Tensor input, Tensor boundaries, *, Bool out_int32=False, Bool right=False) => Bucketize",
        "Tensor (Scalar input, Tensor boundaries, *, Bool out_int32=False, Bool right=False) => BucketizeScalar",
    ],
    out=True, differentiable=False, op="searchsorted",
    doc="""
    The bucket of each value of input among the sorted 1-d boundaries.

    >>> ember.bucketize(ember.tensor([1, 4, 9]), ember.tensor([2, 4, 8])).tolist()
    [0, 1, 3]
    """,
)
@functor("Bucketize")
def bucketize(input, boundaries, out_int32=False, right=False, out=None):
    if len(boundaries._shape) != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim({len(boundaries._shape)})")
    return searchsorted(boundaries, input, out_int32, right, None, None, out)


@functor("BucketizeScalar")
def bucketize_scalar(input, boundaries, out_int32=False, right=False, out=None):
    return bucketize(scalar_tensor_like(input, boundaries), boundaries, out_int32, right, out)
