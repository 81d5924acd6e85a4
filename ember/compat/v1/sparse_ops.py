"""TensorFlow 1's sparse tensors: ``tf.SparseTensor`` (TensorFlow's dtypes for Python values),
``tf.sparse_placeholder`` and the sparse ops, on ember's ``ember.sparse`` (whose primitives
record graph nodes and differentiate with respect to the values).

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     sp = tf.SparseTensor(indices=[[0, 1], [1, 0]], values=[7, 8], dense_shape=[2, 2])
...     sp.dtype, tf.Session().run(tf.sparse_tensor_to_dense(sp)).tolist()
(ember.int32, [[0, 7], [8, 0]])
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor import Tensor as _EmberTensor
from ...graph import graph as _graph
from ...graph.symbolic import TensorShape
from ...sparse import functions as _sp, tensor as _sparse_tensor
from ...sparse.tensor import SparseTensorValue
from ._common import tensor
from .framework import binary_op, infer_dtype as _infer_dtype

__all__ = [
    "SparseTensor", "SparseTensorValue", "sparse_add", "sparse_placeholder", "sparse_reduce_max", "sparse_reduce_sum",
    "sparse_reorder", "sparse_retain", "sparse_tensor_dense_matmul", "sparse_tensor_to_dense", "sparse_transpose",
]  # fmt: skip


def _tf_array(value):
    """A Python value as a NumPy array of TensorFlow's dtype for it (a Python int is int32)."""
    if isinstance(value, _EmberTensor | np.ndarray | np.generic):
        return value
    return np.asarray(value, dtype=_infer_dtype(value).numpy_dtype)


class SparseTensor(_sparse_tensor.SparseTensor):
    """``tf.SparseTensor(indices, values, dense_shape)``: ember's SparseTensor, with Python
    values given TensorFlow's dtypes (``values=[1, 2]`` is int32, ``[1.0]`` float32)."""

    __slots__ = ()

    def __init__(self, indices, values, dense_shape) -> None:
        if not _graph.in_graph_scope():
            super().__init__(indices, _tf_array(values), dense_shape)
            return
        with _graph.get_default_graph().as_default():  # (the implicit default graph captures the parts as Const nodes)
            super().__init__(indices, _tf_array(values), dense_shape)

    def __mul__(self, other):
        """The values scaled by a scalar (TensorFlow's ``sp * 2.0``), a SparseTensor again."""
        return _scaled(self, other, "mul")

    __rmul__ = __mul__

    def __truediv__(self, other):
        """The values divided by a scalar, a SparseTensor again."""
        return _scaled(self, other, "truediv")


def _scaled(sp, other, kind: str):
    if (
        isinstance(other, _sparse_tensor.SparseTensor)
        or np.ndim(other) != 0
        or (isinstance(other, _EmberTensor) and other.ndim != 0)
    ):
        return NotImplemented  # a dense operand: tf.sparse ops (ember has no element-wise sparse-dense product yet)
    values = binary_op(kind, sp.values, other)
    return SparseTensor._from_parts(sp.indices, values, sp.dense_shape, sp._static)


class _UnknownShapeSparseTensor(SparseTensor):
    """A sparse placeholder made without a shape: built as a matrix (ember needs the rank), but
    its static shape is reported unknown, as TensorFlow reports it."""

    __slots__ = ()

    def get_shape(self):
        return TensorShape(None)

    @property
    def shape(self):
        return TensorShape(None)


def _named(result, op_type: str):
    """``result``'s node named after the function's scope ("SparseToDense", not
    "SparseToDense/sparse_to_dense") and typed as TensorFlow types it, as ``op_scope`` does."""
    op = getattr(result, "op", None)
    if op is not None and "/" in op.name:
        target = op.name.rsplit("/", 1)[0]
        if target not in op.graph._by_name:
            op.graph._rename(op, target)
        op._tf_type = op_type
    return result


def _dense(value, sp, arg: str):
    if isinstance(value, _EmberTensor):
        return value
    return tensor(value, arg, dtype_hint=sp.dtype)


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor ``sp_input`` represents, ``default_value`` (0) where it has no value."""
    sp = _sparse_tensor.as_sparse(sp_input, "sparse_tensor_to_dense")
    default = _dense(0 if default_value is None else default_value, sp, "default_value")
    return _named(_sp.sparse_tensor_to_dense(sp, default, validate_indices=validate_indices, name=name), "SparseToDense")


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` for a rank-2 SparseTensor and a dense matrix (``adjoint_*`` of either)."""
    sp = _sparse_tensor.as_sparse(sp_a, "sparse_tensor_dense_matmul", "sp_a")
    result = _sp.sparse_tensor_dense_matmul(sp, _dense(b, sp, "b"), adjoint_a=adjoint_a, adjoint_b=adjoint_b, name=name)
    return _named(result, "SparseTensorDenseMatMul")


def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b`` where one or both are SparseTensors (dense result when one is dense)."""
    if isinstance(a, _sparse_tensor.SparseTensor) and not isinstance(b, _sparse_tensor.SparseTensor):
        b = _dense(b, a, "b")
    elif isinstance(b, _sparse_tensor.SparseTensor) and not isinstance(a, _sparse_tensor.SparseTensor):
        a = _dense(a, b, "a")
    return _sp.sparse_add(a, b, threshold=threshold, thresh=thresh)


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor fed with a ``SparseTensorValue`` (or an ``(indices, values, dense_shape)``
    tuple). ``shape`` is its dense shape, possibly partial (``[None, 3]``). ember builds a
    graph's nodes with known ranks, so without ``shape`` the placeholder is a matrix of unknown
    size (``[None, None]``, TensorFlow 1's common case: feature and adjacency matrices); a value
    of another rank is refused when fed. Give ``shape=[None] * k`` for rank k."""
    if not _graph.in_graph_scope():
        raise RuntimeError(
            "tf.sparse_placeholder() is not compatible with eager execution (call tf.disable_eager_execution() first)"
        )
    with _graph.get_default_graph().as_default():  # (the implicit default graph records only once entered)
        sp = _sp.sparse_placeholder(dtype, shape=[None, None] if shape is None else shape, name=name)
    if shape is not None:
        return sp
    sp.__class__ = _UnknownShapeSparseTensor  # (the same slots: only what it reports of its shape differs)
    return sp


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    """The sum of a SparseTensor's values over ``axis`` (every axis when None), a dense tensor."""
    result = _sp.sparse_reduce_sum(
        sp_input, axis=axis, keepdims=keepdims, reduction_axes=reduction_axes, keep_dims=keep_dims, name=name
    )
    return _named(result, "SparseReduceSum")


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    """The maximum of a SparseTensor's explicit values over ``axis``, a dense tensor."""
    result = _sp.sparse_reduce_max(
        sp_input, axis=axis, keepdims=keepdims, reduction_axes=reduction_axes, keep_dims=keep_dims, name=name
    )
    return _named(result, "SparseReduceMax")


sparse_reorder = _sp.sparse_reorder
sparse_retain = _sp.sparse_retain
sparse_transpose = _sp.sparse_transpose
