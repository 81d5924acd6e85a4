"""Ops driven by a boolean mask: ``masked_fill``, ``masked_select`` and ``masked_scatter``, and
``nonzero``/``argwhere`` (where a tensor is nonzero, as indices). ``masked_select`` and
``nonzero`` have a result size that depends on the data: their functors count on the host (a
sync point) and pass the count to the primitive's inference rule.

>>> import ember
>>> ember.tensor([1, 2, 3]).masked_fill(ember.tensor([True, False, True]), 0).tolist()
[0, 2, 0]
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor, scalar_for
from ...dispatch import NO_ATTRS, OpExpr
from .. import sbp_rules
from ..common import broadcast_pair, functional as _F, sum_to
from ..functor import FUNCTORS, functor
from ..schema import schema_family
from ._common import run

declare = schema_family("indexing")

__all__ = ["nonzero"]


def _check_mask(op: str, mask: Tensor) -> None:
    if mask._dtype is _dt.bool_:
        return
    if op == "masked_select":  # PyTorch words this one differently
        raise RuntimeError(f"masked_select(): expected BoolTensor for mask, but got mask with dtype {mask._dtype}")
    raise RuntimeError(f"{op}(): only supports boolean masks, but got mask with dtype {mask._dtype}")


declare(
    "masked_fill",
    [
        "Tensor (Tensor input, Tensor mask, Tensor value) => MaskedFillTensor",
        "Tensor (Tensor input, Tensor mask, Scalar value) => MaskedFill",
    ],
    method=True, inplace="masked_fill_", out=True, op=("masked_fill_tensor", "masked_fill"),
    doc="""
    A copy of input with value (a number or 0-d tensor) where the boolean mask (broadcast) is True.

    >>> ember.tensor([1, 2, 3]).masked_fill(ember.tensor([True, False, True]), 0).tolist()
    [0, 2, 0]
    """,
)
@functor("MaskedFillTensor")
def masked_fill_tensor(input, mask, value, out=None):
    return run(_MASKED_FILL_TENSOR, (input, mask, value), NO_ATTRS, out)[0]


@functor("MaskedFill")
def masked_fill(input, mask, value, out=None):
    value = scalar_for(value, input._dtype, "masked_fill")
    return run(_MASKED_FILL, (input, mask), {"value": value}, out)[0]


_MASKED_FILL = OpExpr("masked_fill", ("input", "mask"), ("out",)).tag(sbp=sbp_rules.elementwise)
_MASKED_FILL_TENSOR = OpExpr("masked_fill_tensor", ("input", "mask", "value"), ("out",)).tag(sbp=sbp_rules.elementwise)


@_MASKED_FILL.shape_rule
def _infer_masked_fill(attrs, x, mask):
    _check_mask("masked_fill", mask)
    return ((broadcast_pair(x._shape, mask._shape), x._dtype),)


@_MASKED_FILL_TENSOR.shape_rule
def _infer_masked_fill_tensor(attrs, x, mask, value):
    if value._shape:
        raise RuntimeError(
            f"masked_fill_(): only supports a 0-dimensional value tensor, but got tensor with {len(value._shape)} dimension(s)."
        )
    return _infer_masked_fill(attrs, x, mask)


@_MASKED_FILL.grad_rule(saves=("mask",))
def _masked_fill_grad(ctx, g):
    mask = ctx.inputs[1]
    return sum_to(_F().masked_fill(g, mask, 0), ctx.input_meta[0][0]), None


@_MASKED_FILL_TENSOR.grad_rule(saves=("mask",))
def _masked_fill_tensor_grad(ctx, g):
    F = _F()
    mask = ctx.inputs[1]
    grad_value = F.masked_fill(g, F.logical_not(mask), 0).sum()
    value_dtype = ctx.input_meta[2][1]
    grad_value = grad_value if value_dtype is g.dtype else grad_value.to(value_dtype)
    return sum_to(F.masked_fill(g, mask, 0), ctx.input_meta[0][0]), None, grad_value


def _host_count(op: str, mask: Tensor, shape: tuple | None = None) -> int:
    """The number of True elements of ``mask`` broadcast to ``shape`` (a VM sync point)."""
    if mask.is_meta:
        raise NotImplementedError(f"{op}(): meta tensors are not supported (the result's shape depends on data)")
    array = mask._host_array()
    if shape is not None and array.shape != tuple(shape):
        array = np.broadcast_to(array, shape)
    return int(np.count_nonzero(array))


declare(
    "masked_select",
    "Tensor (Tensor input, Tensor mask) => MaskedSelect",
    method=True, out=True,
    doc="""
    The elements of input where the boolean mask (broadcast) is True, as a 1-d tensor.

    >>> ember.tensor([[1, 2], [3, 4]]).masked_select(ember.tensor([True, False])).tolist()
    [1, 3]
    """,
)
@functor("MaskedSelect")
def masked_select(input, mask, out=None):
    _check_mask("masked_select", mask)
    shape = broadcast_pair(input._shape, mask._shape)
    return run(_MASKED_SELECT, (input, mask), {"count": _host_count("masked_select", mask, shape)}, out)[0]


_MASKED_SELECT = OpExpr("masked_select", ("input", "mask"), ("out",))


@_MASKED_SELECT.shape_rule
def _infer_masked_select(attrs, x, mask):
    _check_mask("masked_select", mask)
    broadcast_pair(x._shape, mask._shape)
    return (((attrs["count"],), x._dtype),)


@_MASKED_SELECT.grad_rule(saves="inputs")
def _masked_select_grad(ctx, g):
    F = _F()
    mask = ctx.inputs[1]
    shape, dtype = ctx.input_meta[0]
    full = broadcast_pair(shape, tuple(mask.shape))
    if tuple(mask.shape) != full:
        mask = mask.expand(full)
    return sum_to(F.masked_scatter(F.zeros(full, dtype=dtype), mask, g), shape), None


declare(
    "masked_scatter",
    "Tensor (Tensor input, Tensor mask, Tensor source) => MaskedScatter",
    method=True, inplace="masked_scatter_", out=True,
    doc="""
    A copy of input with source's first elements written, in order, where mask is True.

    >>> ember.zeros(3).masked_scatter(ember.tensor([True, False, True]), ember.tensor([1.0, 2.0])).tolist()
    [1.0, 0.0, 2.0]
    """,
)
@functor("MaskedScatter")
def masked_scatter(input, mask, source, out=None):
    return run(_MASKED_SCATTER, (input, mask, source), NO_ATTRS, out)[0]


_MASKED_SCATTER = OpExpr("masked_scatter", ("input", "mask", "source"), ("out",))


@_MASKED_SCATTER.shape_rule
def _infer_masked_scatter(attrs, x, mask, source):
    _check_mask("masked_scatter", mask)
    if source._dtype is not x._dtype:
        raise RuntimeError(
            f"masked_scatter(): expected self and source to have same dtypes but got {x._dtype} and {source._dtype}"
        )
    return ((broadcast_pair(x._shape, mask._shape), x._dtype),)


@_MASKED_SCATTER.grad_rule(saves="inputs")
def _masked_scatter_grad(ctx, g):
    F = _F()
    mask = ctx.inputs[1]
    source_shape = ctx.input_meta[2][0]
    n = 1
    for s in source_shape:
        n *= s
    selected = F.masked_select(g, mask)
    rest = n - selected.shape[0]
    if rest:
        selected = F.cat([selected, F.zeros(rest, dtype=g.dtype)])
    return sum_to(F.masked_fill(g, mask, 0), ctx.input_meta[0][0]), None, selected.reshape(source_shape)


# -- nonzero: where the tensor is nonzero ----------------------------------------------------------

declare(
    "nonzero",
    "Tensor (Tensor input, *, Bool as_tuple=False) => Nonzero",
    method=True, out=True, differentiable=False,
    doc="""
    The indices of the nonzero elements, one row each (an (n, ndim) int64 tensor); with
    as_tuple=True, one 1-d tensor per dimension.

    >>> ember.tensor([[0, 1], [2, 0]]).nonzero().tolist()
    [[0, 1], [1, 0]]
    """,
    tf="Where",
)
@functor("Nonzero")
def nonzero(input, as_tuple=False, out=None):
    if input.is_meta:
        raise NotImplementedError("nonzero(): meta tensors are not supported (the result's shape depends on data)")
    count = int(np.count_nonzero(input._host_array()))
    if not as_tuple:
        return run(_NONZERO, (input,), {"count": count}, out)[0]
    x = input if input._shape else FUNCTORS["Reshape"](input, (1,))
    result = run(_NONZERO, (x,), {"count": count})[0]
    return (
        FUNCTORS["Unbind"](FUNCTORS["Transpose"](result, 0, 1), 0)
        if count
        else tuple(FUNCTORS["Reshape"](c, (0,)) for c in FUNCTORS["Unbind"](result, 1))
    )


_NONZERO = OpExpr("nonzero", ("input",), ("out",))


@_NONZERO.shape_rule
def _infer_nonzero(attrs, x):
    if x._dtype is _dt.string:
        raise TypeError("nonzero(): string tensors are not supported")
    return (((attrs["count"], len(x._shape)), _dt.int64),)


declare("argwhere", "Tensor (Tensor input) => Argwhere", method=True, differentiable=False, op="nonzero", doc="nonzero(input).")
@functor("Argwhere")
def argwhere(input):
    return nonzero(input)
