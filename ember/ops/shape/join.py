"""Tensors joined into one: ``cat`` (``concat``) is the primitive, with a kernel; ``stack``,
``hstack``, ``vstack``, ``dstack`` and ``column_stack`` are composites over it.

>>> import ember
>>> ember.stack([ember.tensor([1, 2]), ember.tensor([3, 4])], dim=1).tolist()
[[1, 3], [2, 4]]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..._core.tensor import Tensor
from ...dispatch import OpExpr
from .. import sbp_rules
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import run
from .reshape import UNSQUEEZE, reshape
from .view_op import run_view

declare = schema_family("shape")

__all__ = ["cat"]


def _is_legacy_empty(t) -> bool:
    return len(t._shape) == 1 and t._shape[0] == 0


declare(
    "cat",
    "Tensor (TensorList tensors, Int dim=0) => Cat",
    out=True, aliases=("concat", "concatenate"),
    doc="""
    Tensors joined along dim (sizes must match elsewhere; dtypes promote; 1-d empty tensors
    are skipped, as in PyTorch).

    >>> ember.cat([ember.tensor([[1, 2]]), ember.tensor([[3.5, 4]])]).tolist()
    [[1.0, 2.0], [3.5, 4.0]]
    """,
    tf="ConcatV2:concat",
)
@functor("Cat")
def cat(tensors, dim=0, out=None):
    return run(_CAT, tuple(tensors), {"dim": dim}, out)


_CAT = OpExpr("cat", ("tensors",), ("out",)).tag(sbp=sbp_rules.shape.cat)


@_CAT.shape_rule
def _infer_cat(attrs, *tensors):
    if not tensors:
        raise RuntimeError("cat(): expected a non-empty list of Tensors")
    dtype = tensors[0]._dtype
    for i, t in enumerate(tensors):
        if not t._shape:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be concatenated")
        if t._dtype is not dtype:
            dtype = _dt.promote_types(dtype, t._dtype)
    # PyTorch skips 1-d empty tensors (the legacy "no tensor" shape) whatever the others' shapes
    kept = [(i, t) for i, t in enumerate(tensors) if not _is_legacy_empty(t)]
    if not kept:
        return (((0,), dtype),)
    ref = kept[0][1]._shape
    ndim = len(ref)
    d = wrap_dim(attrs["dim"], ndim, "cat")
    total = 0
    for i, t in kept:
        shape = t._shape
        if len(shape) != ndim:
            raise RuntimeError(f"cat(): Tensors must have same number of dimensions: got {ndim} and {len(shape)}")
        for k in range(ndim):
            if k != d and shape[k] != ref[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref[k]} but got size {shape[k]} "
                    f"for tensor number {i} in the list."
                )
        total += shape[d]
    return (((*ref[:d], total, *ref[d + 1 :]), dtype),)


@_CAT.grad_rule(saves="none")
def _cat_grad(ctx, g):
    kept = [i for i, (shape, _) in enumerate(ctx.input_meta) if not (len(shape) == 1 and shape[0] == 0)]
    grads = [None] * len(ctx.input_meta)
    for i, (shape, dtype) in enumerate(ctx.input_meta):
        if i not in kept:
            grads[i] = _F().zeros(shape, dtype=dtype)
    if kept:
        ndim = len(ctx.input_meta[kept[0]][0])
        d = wrap_dim(ctx.attrs["dim"], ndim, "cat")
        start = 0
        for i in kept:
            shape, dtype = ctx.input_meta[i]
            gi = g.narrow(d, start, shape[d])
            start += shape[d]
            grads[i] = gi if dtype is g.dtype else gi.to(dtype)
    return tuple(grads)


def _check_stack(tensors, op: str) -> None:
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    first = tensors[0]._shape
    for i, t in enumerate(tensors):
        if t._shape != first:
            raise RuntimeError(
                f"{op} expects each tensor to be equal size, but got {list(first)} at entry 0 and {list(t._shape)} at entry {i}"
            )


declare(
    "stack",
    "Tensor (TensorList tensors, Int dim=0) => Stack",
    out=True, composite=True,
    doc="""
    Tensors of one shape joined along a new dimension dim.

    >>> ember.stack([ember.tensor([1, 2]), ember.tensor([3, 4])], dim=1).tolist()
    [[1, 3], [2, 4]]
    """,
)
@functor("Stack")
def stack(tensors, dim=0, out=None):
    _check_stack(tensors, "stack")
    d = wrap_dim(dim, len(tensors[0]._shape) + 1, "stack")
    return cat([run_view(UNSQUEEZE, t, {"dim": d})[0] for t in tensors], d, out)


def _atleast(t: Tensor, n: int) -> Tensor:
    """NumPy's atleast_1d/2d/3d: 0-d -> (1,)*n; (k,) -> (1, k) or (1, k, 1); (m, k) -> (m, k, 1)."""
    shape = t._shape
    if len(shape) >= n:
        return t
    if not shape:
        return reshape(t, (1,) * n)
    if len(shape) == 1:
        return reshape(t, (1, shape[0]) if n == 2 else (1, shape[0], 1))
    return reshape(t, (*shape, 1))


declare(
    "hstack",
    "Tensor (TensorList tensors) => Hstack",
    out=True, composite=True,
    doc="Tensors joined column-wise (along dim 0 for 1-d tensors, dim 1 otherwise).",
)
@functor("Hstack")
def hstack(tensors, out=None):
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    ts = [_atleast(t, 1) for t in tensors]
    return cat(ts, 0 if len(ts[0]._shape) == 1 else 1, out)


declare(
    "vstack",
    "Tensor (TensorList tensors) => Vstack",
    out=True, composite=True, aliases=("row_stack",),
    doc="""
    Tensors joined row-wise (1-d tensors become rows).

    >>> ember.vstack([ember.tensor([1, 2]), ember.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """,
)
@functor("Vstack")
def vstack(tensors, out=None):
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat([_atleast(t, 2) for t in tensors], 0, out)


declare(
    "dstack",
    "Tensor (TensorList tensors) => Dstack",
    out=True, composite=True,
    doc="Tensors joined depth-wise (along dim 2, after making each at least 3-d).",
)
@functor("Dstack")
def dstack(tensors, out=None):
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_atleast(t, 3) for t in tensors], 2, out)


declare(
    "column_stack",
    "Tensor (TensorList tensors) => ColumnStack",
    out=True, composite=True,
    doc="1-d tensors as columns (and 2-d ones as they are) joined along dim 1.",
)
@functor("ColumnStack")
def column_stack(tensors, out=None):
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    ts = [reshape(t, (-1, 1)) if len(t._shape) <= 1 else t for t in tensors]
    return cat(ts, 1, out)
