"""``tf.sparse``: TensorFlow's sparse namespace (``tf.sparse.to_dense``, ``tf.sparse.reduce_sum``...)."""

# ruff: noqa: F401 - a namespace of TensorFlow's names: every import is public (abs, round, math...)

from __future__ import annotations

from ...sparse.functions import from_dense
from .sparse_ops import (
    SparseTensor,
    SparseTensorValue,
    sparse_add as add,
    sparse_placeholder as placeholder,
    sparse_reduce_max as reduce_max,
    sparse_reduce_sum as reduce_sum,
    sparse_reorder as reorder,
    sparse_retain as retain,
    sparse_tensor_dense_matmul as matmul,
    sparse_tensor_dense_matmul as sparse_dense_matmul,
    sparse_tensor_to_dense as to_dense,
    sparse_transpose as transpose,
)
