"""The sparse functions, under TensorFlow 1's names (``tf.sparse_tensor_to_dense``...).

Each one checks its arguments, then dispatches the primitives of ``primitives.py`` (so graph
mode records them as nodes). The data-dependent ones (``from_dense``, ``sparse_retain``, and
``sparse_add`` of two SparseTensors: the number of results depends on values) are eager only;
their values still come out of differentiable primitives.
"""

from __future__ import annotations

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import (
    Tensor,
    tensor as _new,  # `tensor` is from_dense's argument name
)
from ..graph.sources import placeholder
from ..ops.common import functional as _F
from . import primitives as P
from .tensor import SparseTensor, as_sparse, graph_scope, lazy_interpreter

__all__ = [
    "from_dense",
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


def _tensor(x, dtype, op: str, arg: str) -> Tensor:
    if isinstance(x, SparseTensor):
        raise TypeError(f"{op}(): argument '{arg}' must be a dense tensor, got a SparseTensor")
    if isinstance(x, Tensor):
        return x
    return _new(x, dtype=dtype)


def _eager_only(op: str, why: str) -> None:
    if lazy_interpreter() is not None:
        raise NotImplementedError(f"{op}() is eager only: {why}; it cannot be recorded in a graph")


def _values_np(t: Tensor) -> np.ndarray:
    if P.is_symbolic(t):
        raise NotImplementedError("this sparse function needs the values of its inputs: eager SparseTensors only")
    return t._host_array()


# ---------------------------------------------------------------------------------------


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices: bool = True, name: str | None = None) -> Tensor:
    """The dense tensor ``sp_input`` represents; positions without a value hold ``default_value``.

    With ``validate_indices`` (default), the indices must be in TensorFlow's canonical order
    (row-major, no repeats; ``ember.sparse.reorder`` makes it); without it, repeated indices
    are summed. Differentiable with respect to the values and ``default_value``.

    >>> import ember
    >>> sp = ember.sparse.SparseTensor([[0, 1], [2, 0]], [7, 8], [3, 2])
    >>> sparse_tensor_to_dense(sp, default_value=-1).tolist()
    [[-1, 7], [-1, -1], [8, -1]]
    """
    sp = as_sparse(sp_input, "sparse_tensor_to_dense")
    dtype = sp.dtype
    if isinstance(default_value, Tensor):
        if default_value.ndim != 0:
            raise ValueError(f"sparse_tensor_to_dense(): default_value must be a scalar, got shape {list(default_value.shape)}")
        if default_value.dtype is not dtype:
            raise TypeError(f"sparse_tensor_to_dense(): default_value must have the values' dtype {dtype}, got {default_value.dtype}")
    else:
        default_value = _tensor(default_value, dtype, "sparse_tensor_to_dense", "default_value")
    with graph_scope(name, "SparseToDense"):
        return P.to_dense(sp.indices, sp.values, sp.dense_shape, default_value, validate_indices=validate_indices, shape=sp._static)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a: bool = False, adjoint_b: bool = False, name: str | None = None) -> Tensor:
    """``op(sp_a) @ op(b)``: a rank-2 SparseTensor times a dense matrix (``op`` = adjoint if asked).

    Repeated indices are summed. Differentiable with respect to ``sp_a.values`` and ``b``.

    >>> import ember
    >>> sp = ember.sparse.SparseTensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    >>> sparse_tensor_dense_matmul(sp, ember.tensor([[1.0, 0.0], [0.0, 1.0]])).tolist()
    [[0.0, 2.0], [3.0, 0.0]]
    """
    sp = as_sparse(sp_a, "sparse_tensor_dense_matmul", "sp_a")
    if sp.ndim != 2:
        raise ValueError(f"sparse_tensor_dense_matmul(): sp_a must be a rank-2 SparseTensor (a matrix), got rank {sp.ndim}")
    if sp.dtype is _dt.bool_ or sp.dtype is _dt.string:
        raise TypeError(f"sparse_tensor_dense_matmul(): sp_a must have a numeric dtype, got {sp.dtype}")
    b = _tensor(b, sp.dtype, "sparse_tensor_dense_matmul", "b")
    with graph_scope(name, "SparseTensorDenseMatMul"):
        return P.dense_matmul(sp.indices, sp.values, sp.dense_shape, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b, shape=sp._static)


def _axes(op: str, axis, rank: int) -> tuple:
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, (int, np.integer)):
        axis = [axis]
    out = set()
    for a in axis:
        a = int(a)
        if not -rank <= a < max(rank, 1):
            raise ValueError(f"{op}(): Invalid reduction dimension {a} for input with {rank} dimensions (expected to be in range of [{-rank}, {rank - 1}])")
        out.add(a % rank if rank else 0)
    return tuple(sorted(out))


def _reduce(op_name: str, prim, sp_input, axis, keepdims, reduction_axes, keep_dims, name, default_name):
    sp = as_sparse(sp_input, op_name)
    if reduction_axes is not None:
        if axis is not None:
            raise ValueError(f"{op_name}(): give either axis or reduction_axes, not both")
        axis = reduction_axes
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError(f"{op_name}(): give either keepdims or keep_dims, not both")
        keepdims = keep_dims
    axis = _axes(op_name, axis, sp.ndim)
    with graph_scope(name, default_name):
        return P.reduce(prim, sp.indices, sp.values, sp.dense_shape, axis=axis, keepdims=bool(keepdims), shape=sp._static)


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None) -> Tensor:
    """The sum of the dense tensor ``sp_input`` represents over ``axis`` (all by default), as a
    dense tensor of the values' dtype. Repeated indices are summed. Differentiable (values).

    >>> import ember
    >>> sp = ember.sparse.SparseTensor([[0, 0], [0, 2], [1, 1]], [1, 1, 1], [2, 3])
    >>> sparse_reduce_sum(sp).item(), sparse_reduce_sum(sp, 1).tolist(), sparse_reduce_sum(sp, 1, keepdims=True).tolist()
    (3, [2, 1], [[2], [1]])
    """
    sp = as_sparse(sp_input, "sparse_reduce_sum")
    if sp.dtype is _dt.bool_ or sp.dtype is _dt.string:
        raise TypeError(f"sparse_reduce_sum(): values must have a numeric dtype, got {sp.dtype}")
    return _reduce("sparse_reduce_sum", P.REDUCE_SUM, sp, axis, keepdims, reduction_axes, keep_dims, name, "SparseReduceSum")


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None) -> Tensor:
    """The maximum over ``axis`` of the EXPLICIT values only (TensorFlow's semantics: implicit
    zeros do not take part; an output position without any value is 0). Differentiable
    (values): the values equal to their cell's maximum share its gradient (PyTorch's amax rule;
    TensorFlow defines no gradient here).

    >>> import ember
    >>> sp = ember.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], [-7, 4, 3], [3, 2])
    >>> sparse_reduce_max(sp, 1).tolist()
    [-7, 4, 0]
    """
    sp = as_sparse(sp_input, "sparse_reduce_max")
    if sp.dtype.is_complex or sp.dtype is _dt.string:
        raise TypeError(f"sparse_reduce_max(): values must have a real dtype, got {sp.dtype}")
    return _reduce("sparse_reduce_max", P.REDUCE_MAX, sp, axis, keepdims, reduction_axes, keep_dims, name, "SparseReduceMax")


# ---------------------------------------------------------------------------------------


def from_dense(tensor, name: str | None = None) -> SparseTensor:
    """The SparseTensor of ``tensor``'s non-zero entries, in canonical order (eager only: the
    number of entries depends on the data). Differentiable with respect to ``tensor``.

    >>> import ember
    >>> sp = from_dense(ember.tensor([[0, 3], [4, 0]]))
    >>> sp.indices.tolist(), sp.values.tolist(), sp.dense_shape.tolist()
    ([[0, 1], [1, 0]], [3, 4], [2, 2])
    """
    _eager_only("from_dense", "the number of non-zero entries depends on the data")
    t = _tensor(tensor, None, "from_dense", "tensor")
    if t.dtype is _dt.string:
        raise TypeError("from_dense(): string tensors are not supported")
    array = _values_np(t)
    nz = np.argwhere(array != 0).astype(np.int64)
    indices = _new(nz)
    values = P.gather_nd(t, indices)
    return SparseTensor._from_parts(indices, values, _new(np.asarray(t.shape, np.int64)), tuple(t.shape))


def sparse_reorder(sp_input, name: str | None = None) -> SparseTensor:
    """The same sparse tensor with its entries in canonical (row-major) order. Graph-capable.

    >>> import ember
    >>> sp = sparse_reorder(ember.sparse.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2]))
    >>> sp.indices.tolist(), sp.values.tolist()
    ([[0, 1], [1, 0]], [2.0, 1.0])
    """
    sp = as_sparse(sp_input, "sparse_reorder")
    with graph_scope(name, "SparseReorder"):
        perm = P.lexsort(sp.indices).reshape(-1, 1)
        indices = P.gather_nd(sp.indices, perm)
        values = P.gather_nd(sp.values, perm)
    return SparseTensor._from_parts(indices, values, sp.dense_shape, sp._static)


def sparse_transpose(sp_input, perm=None, name: str | None = None) -> SparseTensor:
    """The transposed sparse tensor (dimensions permuted by ``perm``, reversed by default), in
    canonical order. Graph-capable.

    >>> import ember
    >>> sp = sparse_transpose(ember.sparse.SparseTensor([[0, 2]], [5], [2, 3]))
    >>> sp.indices.tolist(), sp.dense_shape.tolist()
    ([[2, 0]], [3, 2])
    """
    sp = as_sparse(sp_input, "sparse_transpose")
    rank = sp.ndim
    perm = tuple(range(rank - 1, -1, -1)) if perm is None else tuple(int(p) for p in perm)
    if sorted(perm) != list(range(rank)):
        raise ValueError(f"sparse_transpose(): perm must be a permutation of 0..{rank - 1}, got {list(perm)}")
    F = _F()
    with graph_scope(name, "SparseTranspose"):
        p = _new(list(perm), dtype=_dt.int64)
        indices = F.index_select(sp.indices, 1, p)
        dense_shape = F.index_select(sp.dense_shape, 0, p)
        static = tuple(sp._static[d] for d in perm)
        return sparse_reorder(SparseTensor._from_parts(indices, sp.values, dense_shape, static))


def sparse_retain(sp_input, to_retain) -> SparseTensor:
    """The entries of ``sp_input`` where the bool vector ``to_retain`` [N] is True (eager only).

    >>> import ember
    >>> sp = sparse_retain(ember.sparse.SparseTensor([[0], [2]], [1.0, 2.0], [3]), [False, True])
    >>> sp.indices.tolist(), sp.values.tolist()
    ([[2]], [2.0])
    """
    _eager_only("sparse_retain", "the number of entries kept depends on the data")
    sp = as_sparse(sp_input, "sparse_retain")
    keep = np.asarray(_values_np(_tensor(to_retain, _dt.bool_, "sparse_retain", "to_retain")))
    n = sp.values.shape[0]
    if keep.dtype != np.bool_ or keep.shape != (n,):
        raise ValueError(f"sparse_retain(): to_retain must be a bool vector of length {n}, got a {keep.dtype} array of shape {list(keep.shape)}")
    rows = _new(np.flatnonzero(keep).astype(np.int64).reshape(-1, 1))
    return SparseTensor._from_parts(P.gather_nd(sp.indices, rows), P.gather_nd(sp.values, rows), sp.dense_shape, sp._static)


def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b`` where one or both are SparseTensors (TensorFlow 1's ``tf.sparse_add``).

    SparseTensor + dense (either order) -> dense (repeated indices add up; graph-capable).
    SparseTensor + SparseTensor -> SparseTensor in canonical order, entries at the same index
    summed, and those of magnitude below ``threshold`` dropped (eager only). Differentiable.

    >>> import ember
    >>> sp = ember.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])
    >>> sparse_add(sp, ember.ones((2, 2))).tolist()
    [[2.0, 1.0], [1.0, 1.0]]
    """
    if threshold is not None and thresh is not None:
        raise ValueError("sparse_add(): give either threshold or thresh, not both")
    threshold = thresh if threshold is None else threshold
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not a_sp and not b_sp:
        raise TypeError(f"sparse_add(): at least one of a and b must be a SparseTensor, got {type(a).__name__} and {type(b).__name__}")
    if a_sp and b_sp:
        return _add_sparse(a, b, 0 if threshold is None else threshold)
    sp, dense = (a, b) if a_sp else (b, a)
    dense = _tensor(dense, sp.dtype, "sparse_add", "b" if a_sp else "a")
    if dense.dtype is not sp.dtype:
        raise TypeError(f"sparse_add(): the SparseTensor's values ({sp.dtype}) and the dense tensor ({dense.dtype}) must have the same dtype")
    _check_same_shape("sparse_add", sp._static, tuple(dense.shape) if not P.is_symbolic(dense) else tuple(dense.shape.dims or ()))
    return P.scatter_nd_add(sp.indices, sp.values, dense)


def _check_same_shape(op: str, a: tuple, b: tuple) -> None:
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b, strict=False)):
        raise ValueError(
            f"{op}(): the operands must have the same shape, got {['?' if d is None else d for d in a]} "
            f"and {['?' if d is None else d for d in b]}"
        )


def _add_sparse(a: SparseTensor, b: SparseTensor, threshold) -> SparseTensor:
    _eager_only("sparse_add", "the sum of two SparseTensors has a number of entries that depends on the data")
    if a.dtype is not b.dtype:
        raise TypeError(f"sparse_add(): both SparseTensors must have the same dtype, got {a.dtype} and {b.dtype}")
    _check_same_shape("sparse_add", a._static, b._static)
    F = _F()
    idx = np.concatenate([_values_np(a.indices), _values_np(b.indices)]).reshape(-1, a.ndim)
    unique, segment = np.unique(idx, axis=0, return_inverse=True) if len(idx) else (idx, np.zeros(0, np.int64))
    segment = _new(segment.reshape(-1, 1).astype(np.int64))
    values = P.scatter_nd_add(segment, F.cat([a.values, b.values]), F.zeros(len(unique), dtype=a.dtype))
    keep = np.abs(_values_np(values)) >= threshold if threshold else None
    if keep is not None and not keep.all():
        rows = np.flatnonzero(keep).astype(np.int64)
        unique = unique[rows]
        values = P.gather_nd(values, _new(rows.reshape(-1, 1)))
    indices = _new(np.ascontiguousarray(unique, dtype=np.int64).reshape(-1, a.ndim))
    return SparseTensor._from_parts(indices, values, a.dense_shape, a._static)


# ---------------------------------------------------------------------------------------


def sparse_placeholder(dtype, shape=None, name: str | None = None) -> SparseTensor:
    """A SparseTensor of placeholders (graph mode; fed with a ``SparseTensorValue``).

    ``shape``: the dense shape, possibly partial (``[None, 3]``); its rank must be known. A
    fully known shape becomes a constant dense_shape, else dense_shape is a placeholder too.
    """
    if lazy_interpreter() is None:
        raise RuntimeError("sparse_placeholder() is only meaningful in graph mode (inside `with ember.Graph().as_default():`)")
    if shape is None:
        raise ValueError("sparse_placeholder(): ember needs the rank of the dense shape: give shape=[...] (None for unknown sizes)")
    dims = tuple(None if d is None or d == -1 else int(d) for d in shape)
    rank = len(dims)
    prefix = name or "Placeholder"
    indices = placeholder(_dt.int64, shape=(None, rank), name=f"{prefix}/indices")
    values = placeholder(dtype, shape=(None,), name=f"{prefix}/values")
    if None in dims:
        dense_shape = placeholder(_dt.int64, shape=(rank,), name=f"{prefix}/shape")
    else:
        dense_shape = lazy_interpreter().capture(_new(list(dims), dtype=_dt.int64))
    return SparseTensor._from_parts(indices, values, dense_shape, dims)
