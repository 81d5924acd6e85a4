"""TensorFlow 1's reductions and scans: ``reduce_sum`` and its kin (``axis``, ``keepdims``, the
deprecated ``keep_dims`` and ``reduction_indices``), ``count_nonzero``, ``argmax``/``argmin``,
``cumsum``/``cumprod`` (``exclusive``, ``reverse``).

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([[1, 2], [3, 4]])
...     tf.Session().run([tf.reduce_sum(x, 1), tf.reduce_mean(x), tf.argmax(x, 1)])
[array([3, 7], dtype=int32), np.int32(2), array([1, 1])]
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ...graph.graph import in_graph_scope
from ...graph.tensor import GraphTensor
from ...ops import functional as F
from ._common import FLOATS, REALS, check_dtype, is_int, static_axes, static_shape, static_value, tensor
from .framework import constant, op_scope

__all__ = [
    "argmax", "argmin", "count_nonzero", "cumprod", "cumsum", "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max",
    "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum",
]  # fmt: skip


def _keep(keepdims, keep_dims) -> bool:
    if keepdims is not None and keep_dims is not None and bool(keepdims) != bool(keep_dims):
        raise ValueError("The `keep_dims` and `keepdims` arguments are aliases; specify only one (keepdims)")
    return bool(keepdims if keepdims is not None else keep_dims)


def _axis(axis, reduction_indices):
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
    return axis if axis is not None else reduction_indices


def _reduction(fn_name: str, op_type: str, compute, allowed=None, doc: str = "", node_type: str | None = None):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        keep = _keep(keepdims, keep_dims)
        axis = _axis(axis, reduction_indices)
        if node_type is None and axis is None and isinstance(input_tensor, GraphTensor) and input_tensor.shape.rank is not None:
            # TensorFlow makes the reduced axes a "Const" node beside the reduction (numbering later constants)
            constant(np.arange(input_tensor.shape.rank, dtype=np.int32))
        with op_scope(name, op_type, (input_tensor,)) as scope:
            if node_type is None and axis is not None and in_graph_scope() and not isinstance(axis, Tensor):
                constant(np.asarray(axis, dtype=np.int32), name="reduction_indices")  # TensorFlow's "Sum/reduction_indices"
            x = tensor(input_tensor, "input_tensor")
            if allowed is not None:
                check_dtype(x, allowed, "input")
            dims = static_axes(axis, static_shape(x).rank, fn_name)
            if not dims:  # TensorFlow reduces nothing over an empty axis list (PyTorch would reduce all)
                return scope.out(F.clone(x), op_type)
            return scope.out(compute(x, dims, keep), node_type or op_type)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (
        f"{doc} over ``axis`` (every axis when None; an int, a list or a constant tensor), keeping the reduced "
        f"axes as size 1 with ``keepdims`` (node ``{op_type}``)."
    )
    return fn


def _mean(x, dims, keep):
    if not is_int(x._dtype):
        return F.mean(x, dim=dims, keepdim=keep)
    # TensorFlow's mean of integers divides the integer sum, rounding toward zero
    count = 1
    for d in dims:
        count = count * x.size(d)
    total = F.sum(x, dim=dims, keepdim=keep, dtype=x._dtype)
    return F.div(total, count, rounding_mode="trunc")


def _bool_or_not(x, dims, keep, fn):
    check_dtype(x, (_dt.bool_,), "input")
    return fn(x, dim=dims, keepdim=keep)


def _logsumexp(x, dims, keep):
    return F.logsumexp(x, dim=dims, keepdim=keep)


reduce_sum = _reduction("reduce_sum", "Sum", lambda x, d, k: F.sum(x, dim=d, keepdim=k, dtype=x._dtype), doc="The sum")
reduce_mean = _reduction("reduce_mean", "Mean", _mean, doc="The mean (integers: the integer sum divided, toward zero)")
reduce_max = _reduction("reduce_max", "Max", lambda x, d, k: F.amax(x, dim=d, keepdim=k), doc="The maximum")
reduce_min = _reduction("reduce_min", "Min", lambda x, d, k: F.amin(x, dim=d, keepdim=k), doc="The minimum")
reduce_prod = _reduction("reduce_prod", "Prod", lambda x, d, k: _prod(x, d, k), doc="The product")
reduce_any = _reduction("reduce_any", "Any", lambda x, d, k: _bool_or_not(x, d, k, F.any), doc="Whether any element is true")
reduce_all = _reduction("reduce_all", "All", lambda x, d, k: _bool_or_not(x, d, k, F.all), doc="Whether every element is true")
reduce_logsumexp = _reduction(
    "reduce_logsumexp", "ReduceLogSumExp", _logsumexp, FLOATS, doc="``log(sum(exp(x)))``, computed stably,", node_type="AddV2"
)


def _prod(x, dims, keep):
    for d in sorted(dims, reverse=True):
        x = F.prod(x, dim=d, keepdim=keep, dtype=x._dtype)
    return x


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=_dt.int64, name=None, reduction_indices=None, keep_dims=None,
                  input=None):  # noqa: A002 - TensorFlow's name  # fmt: skip
    """The number of non-zero elements over ``axis`` (every axis when None), as ``dtype`` (int64)."""
    if input is not None:
        input_tensor = input
    keep = _keep(keepdims, keep_dims)
    axis = _axis(axis, reduction_indices)
    dtype = _dt.as_dtype(dtype, op="count_nonzero", arg="dtype")
    with op_scope(name, "count_nonzero", (input_tensor,)) as scope:
        x = tensor(input_tensor, "input")
        dims = static_axes(axis, static_shape(x).rank, "count_nonzero")
        nonzero = F.ne(x, "" if x._dtype is _dt.string else 0).to(dtype)
        if not dims:
            return scope.out(nonzero, "Cast")
        return scope.out(F.sum(nonzero, dim=dims, keepdim=keep, dtype=dtype), "Sum")


def _arg(fn_name: str, op_type: str, compute):
    def fn(input, axis=None, name=None, dimension=None, output_type=_dt.int64):  # noqa: A002 - TensorFlow's name
        if axis is not None and dimension is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = axis if axis is not None else dimension
        out = _dt.as_dtype(output_type, op=fn_name, arg="output_type")
        if out not in (_dt.int32, _dt.int64):
            raise TypeError(f"{fn_name}: output_type must be int32 or int64, got {out.name}")
        with op_scope(name, op_type, (input,)) as scope:
            x = tensor(input, "input")
            check_dtype(
                x,
                tuple(d for d in (*REALS, _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.bool_)),
                "input",
            )
            (dim,) = static_axes(0 if axis is None else axis, static_shape(x).rank, fn_name)
            result = compute(x, dim=dim)
            return scope.out(result if out is _dt.int64 else result.to(out), op_type)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (
        f"The index of the {fn_name[3:]}imum along ``axis`` (0 by default; ``dimension`` is the old name), as ``output_type``."
    )
    return fn


argmax = _arg("argmax", "ArgMax", F.argmax)
argmin = _arg("argmin", "ArgMin", F.argmin)


def _scan(fn_name: str, op_type: str, compute, fill):
    def fn(x, axis=0, exclusive=False, reverse=False, name=None):
        with op_scope(name, op_type, (x,)) as scope:
            x = tensor(x, "x")
            check_dtype(x, tuple(d for d in _dt_numeric() if d is not _dt.bool_), "x")
            (dim,) = static_axes(static_value(axis, f"{fn_name}: axis"), static_shape(x).rank, fn_name)
            if reverse:
                x = F.flip(x, (dim,))
            if exclusive:  # shift by one along dim, filling with the operation's identity
                pad = [0, 0] * (x.ndim - 1 - dim) + [1, 0]
                x = F.narrow(F.pad(x, pad, value=fill), dim, 0, x.size(dim))
            result = compute(x, dim, dtype=x._dtype)
            if reverse:
                result = F.flip(result, (dim,))
            return scope.out(result, op_type)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (
        f"The running {fn_name[3:]} along ``axis``; ``exclusive`` leaves each element out of its own result, "
        f"``reverse`` runs from the end (node ``{op_type}``)."
    )
    return fn


def _dt_numeric():
    return (*FLOATS, _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)


cumsum = _scan("cumsum", "Cumsum", F.cumsum, 0)
cumprod = _scan("cumprod", "Cumprod", F.cumprod, 1)
