"""CPU kernels of the sparse (COO, TensorFlow's SparseTensor) primitives of ``ember/sparse.py``.

Every kernel checks the indices against the dense shape before NumPy sees them (never wrap
around, never read outside memory): a run-time check, because in graph mode the indices are
fed or computed. Messages follow TensorFlow's: ``indices[1] = [0,5] is out of bounds: need
0 <= index < [3,4]``. Duplicated indices are summed (np.add.at); the half types accumulate in
float32 and are written back.
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel
from .common import compute_dtype, store

__all__ = ["check_indices", "lexsort_perm"]


def _fmt(row) -> str:
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def check_indices(op: str, idx: np.ndarray, shape: tuple, *, name: str = "indices") -> None:
    """Refuse indices outside ``[0, shape)`` (TensorFlow's message: the first offending row)."""
    if idx.shape[0] == 0 or idx.shape[1] == 0:
        return
    bound = np.asarray(shape[: idx.shape[1]], dtype=np.int64)
    bad = (idx < 0) | (idx >= bound)
    if bad.any():
        i = int(np.flatnonzero(bad.any(axis=1))[0])
        raise IndexError(f"{op}(): {name}[{i}] = {_fmt(idx[i])} is out of bounds: need 0 <= index < {_fmt(bound)}")


def check_dense_shape(op: str, dense_shape: np.ndarray, out_shape: tuple, dims: tuple | None = None) -> None:
    """The dense_shape fed or computed at run time must agree with the shape the op was built for."""
    got = tuple(int(v) for v in dense_shape)
    expected = tuple(out_shape) if dims is None else tuple(out_shape[d] for d in dims)
    got_cmp = got if dims is None else tuple(got[d] for d in dims)
    if got_cmp != expected:
        raise ValueError(f"{op}(): dense_shape {list(got)} does not match the static shape {list(out_shape)} the op was built with")


def lexsort_perm(idx: np.ndarray) -> np.ndarray:
    """The permutation sorting the rows of ``idx`` lexicographically (row-major order); stable."""
    n, rank = idx.shape
    if rank == 0 or n == 0:
        return np.arange(n, dtype=np.int64)
    return np.lexsort(idx.T[::-1]).astype(np.int64)


def _validate_order(op: str, idx: np.ndarray) -> None:
    """TensorFlow's ``validate_indices``: rows strictly increasing in row-major order."""
    n = idx.shape[0]
    if n < 2:
        return
    prev, cur = idx[:-1], idx[1:]
    diff = cur != prev
    repeated = ~diff.any(axis=1)
    # first differing column decides the order
    first = np.argmax(diff, axis=1)
    rows = np.arange(n - 1)
    decreasing = diff.any(axis=1) & (cur[rows, first] < prev[rows, first])
    bad = repeated | decreasing
    if bad.any():
        i = int(np.flatnonzero(bad)[0]) + 1
        if repeated[i - 1]:
            raise ValueError(f"{op}(): indices[{i}] = {_fmt(idx[i])} is repeated")
        raise ValueError(
            f"{op}(): indices[{i}] = {_fmt(idx[i])} is out of order. Many sparse ops require sorted indices. "
            "Use `ember.sparse.reorder` to create a correctly ordered copy."
        )


def _key(idx: np.ndarray) -> tuple:
    return tuple(idx.T.astype(np.intp, copy=False))


def _add_at(acc: np.ndarray, idx: np.ndarray, updates: np.ndarray) -> None:
    """``acc[idx[i]] += updates[i]`` for every row, repeated rows adding up (bool: or)."""
    if idx.shape[1] == 0:  # every row addresses the whole array
        if len(updates):
            acc[...] += updates.sum(axis=0, dtype=acc.dtype) if acc.dtype != np.bool_ else updates.any(axis=0)
        return
    np.add.at(acc, _key(idx), updates.astype(acc.dtype, copy=False))


def _mark(hit: np.ndarray, idx: np.ndarray) -> None:
    if idx.shape[1] == 0:
        hit[...] = len(idx) > 0
    else:
        hit[_key(idx)] = True


@register_kernel("sparse_to_dense")
def sparse_to_dense(outs, ins, attrs):
    idx, values, dense_shape, default = ins
    out = outs[0]
    check_dense_shape("sparse_to_dense", dense_shape, out.shape)
    check_indices("sparse_to_dense", idx, out.shape)
    if attrs["validate_indices"]:
        _validate_order("sparse_to_dense", idx)
    if out.dtype == object:  # strings: assigned (a repeated index keeps its last value)
        out[...] = default[()]
        if idx.shape[1] == 0:
            if len(values):
                out[...] = values[-1]
        else:
            out[_key(idx)] = values
        return
    acc = np.zeros(out.shape, compute_dtype(out.dtype)) if out.dtype != np.bool_ else np.zeros(out.shape, np.bool_)
    hit = np.zeros(out.shape, np.bool_)
    _mark(hit, idx)
    _add_at(acc, idx, values)
    store(out, np.where(hit, acc, default.astype(acc.dtype)))


@register_kernel("sparse_gather_nd")
def sparse_gather_nd(outs, ins, attrs):
    params, idx = ins
    cols = attrs["cols"]
    if cols is not None:
        idx = idx[:, list(cols)]
    check_indices("sparse_gather_nd", idx, params.shape)
    np.copyto(outs[0], params[_key(idx)], casting="unsafe")


@register_kernel("sparse_scatter_nd_add")
def sparse_scatter_nd_add(outs, ins, attrs):
    idx, updates, base = ins
    out = outs[0]
    cols = attrs["cols"]
    if cols is not None:
        idx = idx[:, list(cols)]
    check_indices("sparse_scatter_nd_add", idx, base.shape)
    acc = base.astype(compute_dtype(out.dtype), copy=True)
    _add_at(acc, idx, updates)
    store(out, acc)


@register_kernel("sparse_lexsort")
def sparse_lexsort(outs, ins, attrs):
    outs[0][...] = lexsort_perm(ins[0])


@register_kernel("sparse_dense_matmul")
def sparse_dense_matmul(outs, ins, attrs):
    idx, values, dense_shape, b = ins
    out = outs[0]
    if attrs["adjoint_a"]:
        rows, cols = idx[:, 1], idx[:, 0]
        values = values.conj() if values.dtype.kind == "c" else values
        a_shape = (int(dense_shape[1]), int(dense_shape[0]))
    else:
        rows, cols = idx[:, 0], idx[:, 1]
        a_shape = (int(dense_shape[0]), int(dense_shape[1]))
    check_indices("sparse_dense_matmul", idx, tuple(int(v) for v in dense_shape), name="sp_a.indices")
    if attrs["adjoint_b"]:
        b = b.T.conj() if b.dtype.kind == "c" else b.T
    if a_shape[1] != b.shape[0] or a_shape[0] != out.shape[0]:
        raise ValueError(
            f"sparse_dense_matmul(): Cannot multiply A and B because inner dimension does not match: {a_shape[1]} vs. {b.shape[0]}"
            if a_shape[1] != b.shape[0]
            else f"sparse_dense_matmul(): dense_shape {list(dense_shape)} does not match the static shape the op was built with"
        )
    acc_dtype = compute_dtype(out.dtype)
    acc = np.zeros(out.shape, acc_dtype)
    if len(values):
        contrib = values.astype(acc_dtype, copy=False)[:, None] * b[cols.astype(np.intp)].astype(acc_dtype, copy=False)
        np.add.at(acc, rows.astype(np.intp), contrib)
    store(out, acc)


def _reduce_target(out: np.ndarray, idx: np.ndarray, attrs) -> tuple[tuple, tuple]:
    """The kept dims' shape and the index key into an array of that shape."""
    axis = attrs["axis"]
    rank = idx.shape[1]
    kept = tuple(d for d in range(rank) if d not in axis)
    return kept, _key(idx[:, list(kept)])


@register_kernel("sparse_reduce_sum")
def sparse_reduce_sum(outs, ins, attrs):
    idx, values, dense_shape = ins
    out = outs[0]
    shape = tuple(int(v) for v in dense_shape)
    check_indices("sparse_reduce_sum", idx, shape)
    kept, key = _reduce_target(out, idx, attrs)
    acc = np.zeros(tuple(shape[d] for d in kept), compute_dtype(out.dtype))
    if kept:
        np.add.at(acc, key, values.astype(acc.dtype, copy=False))
    else:
        acc[...] = values.astype(acc.dtype, copy=False).sum(dtype=acc.dtype)
    store(out, acc.reshape(out.shape))


@register_kernel("sparse_reduce_max")
def sparse_reduce_max(outs, ins, attrs):
    idx, values, dense_shape = ins
    out = outs[0]
    shape = tuple(int(v) for v in dense_shape)
    check_indices("sparse_reduce_max", idx, shape)
    kept, key = _reduce_target(out, idx, attrs)
    kept_shape = tuple(shape[d] for d in kept)
    dtype = compute_dtype(out.dtype)
    if not kept:
        acc = np.zeros((), dtype)
        if len(values):
            acc[...] = values.astype(dtype, copy=False).max()
    elif dtype.kind == "b":
        acc = np.zeros(kept_shape, dtype)
        np.logical_or.at(acc, key, values)
    else:
        low = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
        acc = np.full(kept_shape, low, dtype)
        np.maximum.at(acc, key, values.astype(dtype, copy=False))
        hit = np.zeros(kept_shape, np.bool_)
        hit[key] = True
        acc[~hit] = 0  # TensorFlow: an output without any explicit value is 0
    store(out, acc.reshape(out.shape))
