"""Sparse tensors: TensorFlow's ``SparseTensor`` (COO) and its ops, eagerly and in graph mode.

A ``SparseTensor(indices, values, dense_shape)`` holds three tensors: ``indices`` int64
[N, rank], ``values`` [N] and ``dense_shape`` int64 [rank]. Its ops are primitives
(``primitives.py``: OpExpr + inference rule + derivative; kernels in
``ember/kernels/cpu/sparse.py``) taking those three as inputs, so a graph records them as
nodes with edges to the components, and a Session runs the same kernels.

The dense shape, static and dynamic. An op's output shape (``to_dense``, ``reduce_sum``,
``matmul``) depends on ``dense_shape``'s values, which an inference rule cannot read from a
graph tensor. So a SparseTensor also keeps its *static* dense shape (``sp._static``: a tuple
with an int per known size, None per unknown one), and passes it to each op as the ``shape``
attribute. Eagerly it is always fully known (read once, at construction). In graph mode it is
known when ``dense_shape`` was given as a Python list / NumPy array / eager tensor, or is a
Const node's output; otherwise (a placeholder, a computed tensor) the unknown entries are
None and the rules make fresh unknown sizes for them (``primitives.dims_from_values``; a
Session binds them from the kernel's output). A Session runs each node on the eager
interpreter, whose rule then reads the fed ``dense_shape``; a partial ``shape`` attribute
therefore turns the inference cache off for that op (``primitives._attr_key``).
Kernels check at run time that the fed ``dense_shape`` agrees with the static one.

Semantics follow TensorFlow: ``to_dense`` with ``validate_indices`` wants canonical
(row-major, no repeats) order; matmul, reduce_sum and ``to_dense(validate_indices=False)``
sum repeated indices; ``reduce_max`` is over the explicit values only (an output cell with
none is 0); bounds are checked in every kernel. Derivatives: to_dense (values,
default_value), matmul (values, b), reduce_sum and reduce_max (values; the values equal to
their cell's maximum share its gradient, PyTorch's amax rule; TensorFlow defines none), and
the helpers gather/scatter; indices and dense_shape get none.

Two namespaces: TensorFlow 1's names (``sparse_tensor_to_dense``...; this module's
``__all__``, for the top level ``ember`` namespace) and TensorFlow 2's ``tf.sparse`` names
(``ember.sparse.to_dense``, ``ember.sparse.sparse_dense_matmul``, ``ember.sparse.reduce_sum``...).

>>> import ember
>>> sp = ember.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
>>> ember.sparse.reduce_sum(sp, axis=1).tolist()
[1.0, 2.0, 0.0]
"""

from __future__ import annotations

from . import primitives as primitives  # isort: skip - the OpExprs, before their kernels
from ..kernels.cpu import sparse as _kernels  # noqa: F401 isort: skip - registers the CPU kernels of the primitives
from .functions import (
    from_dense as from_dense,  # TensorFlow 2's name only (tf.sparse.from_dense)
    sparse_add,
    sparse_placeholder,
    sparse_reduce_max,
    sparse_reduce_sum,
    sparse_reorder,
    sparse_retain,
    sparse_tensor_dense_matmul,
    sparse_tensor_to_dense,
    sparse_transpose,
)
from .tensor import SparseTensor, SparseTensorValue

# TensorFlow 2's tf.sparse names (module attributes, not exported to the top level)
to_dense = sparse_tensor_to_dense
sparse_dense_matmul = sparse_tensor_dense_matmul
matmul = sparse_tensor_dense_matmul
reduce_sum = sparse_reduce_sum
reduce_max = sparse_reduce_max
add = sparse_add
retain = sparse_retain
reorder = sparse_reorder
transpose = sparse_transpose
placeholder = sparse_placeholder

__all__ = [
    "SparseTensor",
    "SparseTensorValue",
    "sparse_add",
    "sparse_placeholder",
    "sparse_reduce_max",
    "sparse_reduce_sum",
    "sparse_reorder",
    "sparse_retain",
    "sparse_tensor_dense_matmul",
    "sparse_tensor_to_dense",
    "sparse_transpose",
]
