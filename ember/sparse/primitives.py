"""The sparse primitives: OpExprs, inference rules, derivatives, and thin dispatch wrappers.

Every primitive takes the COO components as input tensors (``indices`` int64 [N, rank],
``values`` [N], ``dense_shape`` int64 [rank]), so graph mode records them as nodes with those
edges. An output whose shape depends on ``dense_shape``'s VALUES takes it from the ``shape``
attribute first: a tuple with one entry per dimension, an int where the size is known
statically, ``None`` where not. Only for the ``None`` entries does the rule read the values,
through :func:`dims_from_values` (concrete ints for an eager tensor, fresh unknown sizes for a
graph tensor). Eager SparseTensors always know their full shape, so the eager inference cache
(keyed on attributes, not values) is always right.

Kernels: ``ember/kernels/cpu/sparse.py``.

>>> import ember, ember.sparse
>>> sp = ember.sparse.SparseTensor([[0, 1]], [5.0], [2, 2])
>>> dispatch(TO_DENSE, (sp.indices, sp.values, sp.dense_shape, ember.tensor(0.0)),
...          {"validate_indices": True, "shape": (2, 2)})[0].tolist()
[[0.0, 5.0], [0.0, 0.0]]
"""

from __future__ import annotations

from .._core import dtype as _dt
from ..dispatch import OpExpr, dispatch
from ..graph.symbolic import SymInt, unknown_dim
from ..graph.tensor import GraphTensor
from ..ops.common import functional as _F, wants_grad

__all__ = [
    "DENSE_MATMUL",
    "GATHER_ND",
    "LEXSORT",
    "REDUCE_MAX",
    "REDUCE_SUM",
    "SCATTER_ND_ADD",
    "TO_DENSE",
    "dense_matmul",
    "dims_from_values",
    "gather_nd",
    "is_symbolic",
    "lexsort",
    "reduce",
    "scatter_nd_add",
    "to_dense",
]


# ---------------------------------------------------------------------------------------
# graph-mode helpers


def is_symbolic(t) -> bool:
    """Whether ``t`` is a graph tensor (no value until a Session runs it)."""
    return isinstance(t, GraphTensor)


def is_known(d) -> bool:
    """A size known statically: an int that is not an unknown (symbolic) size."""
    return d is not None and not isinstance(d, SymInt)


def dims_from_values(t, rank: int) -> tuple:
    """``t``'s values (a 1-D int tensor of ``rank`` sizes) as a shape tuple: ints for an eager
    tensor; for a graph tensor, a Const node's value or fresh unknown sizes, which a Session
    binds when the op has run."""
    if is_symbolic(t):
        op = t.op
        if op.kind == "Const":
            return tuple(int(v) for v in op.attrs["value"]._host_array())
        return tuple(unknown_dim() for _ in range(rank))
    return tuple(int(v) for v in t._host_array())


def _dense_dims(static, dense_shape, rank: int) -> tuple:
    if static is not None and all(is_known(d) for d in static):
        return tuple(static)
    values = dims_from_values(dense_shape, rank)
    if static is None:
        return values
    return tuple(s if is_known(s) else v for s, v in zip(static, values, strict=True))


def _attr_key(attrs):
    """The eager inference cache's key for a value-dependent op: its attributes when the static
    shape is complete; else an unhashable one, so the rule runs (and reads dense_shape) every
    time (a Session runs graph ops on the eager interpreter with the fed dense_shape)."""
    static = attrs["shape"]
    if static is not None and all(is_known(d) for d in static):
        return tuple(attrs.values())
    return [None]


def _rank(attrs, indices) -> int:
    static = attrs.get("shape")
    if static is not None:
        return len(static)
    rank = indices._shape[1]
    if not is_known(rank):
        raise ValueError("sparse op: the rank of a SparseTensor must be known statically (indices' second dimension)")
    return int(rank)


def _check_components(op: str, indices, values, dense_shape=None) -> None:
    if indices.ndim != 2 or indices._dtype is not _dt.int64:
        raise TypeError(f"{op}(): indices must be a 2-D int64 tensor, got a {indices.ndim}-D {indices._dtype} tensor")
    if values.ndim != 1:
        raise ValueError(f"{op}(): values must be a 1-D tensor, got shape {list(values._shape)}")
    if dense_shape is not None and (dense_shape.ndim != 1 or dense_shape._dtype is not _dt.int64):
        raise TypeError(f"{op}(): dense_shape must be a 1-D int64 tensor, got a {dense_shape.ndim}-D {dense_shape._dtype} tensor")


_wants = wants_grad


def _cj(t):
    return t.conj() if t._dtype.is_complex else t


# ---------------------------------------------------------------------------------------
# sparse_to_dense(indices, values, dense_shape, default_value)

TO_DENSE = OpExpr("sparse_to_dense", ("indices", "values", "dense_shape", "default_value"), ("dense",))


TO_DENSE.attr_key = _attr_key


@TO_DENSE.shape_rule
def _to_dense_infer(attrs, indices, values, dense_shape, default):
    _check_components("sparse_to_dense", indices, values, dense_shape)
    if default.ndim != 0:
        raise ValueError(f"sparse_to_dense(): default_value must be a scalar, got shape {list(default._shape)}")
    return ((_dense_dims(attrs["shape"], dense_shape, _rank(attrs, indices)), values._dtype),)


def to_dense(indices, values, dense_shape, default, *, validate_indices: bool, shape: tuple):
    return dispatch(TO_DENSE, (indices, values, dense_shape, default), {"validate_indices": bool(validate_indices), "shape": shape})[0]


@TO_DENSE.grad_rule(saves="inputs")
def _to_dense_grad(ctx, g):
    indices, values, dense_shape, _ = ctx.inputs
    gv = gather_nd(g, indices) if _wants(ctx, 1) else None
    gd = None
    if _wants(ctx, 3):
        F = _F()
        hit = to_dense(
            indices, F.ones_like(values, dtype=_dt.bool_), dense_shape, F.zeros((), dtype=_dt.bool_), validate_indices=False, shape=ctx.attrs["shape"]
        )
        gd = F.where(hit, F.zeros_like(g), g).sum()
    return None, gv, None, gd


# ---------------------------------------------------------------------------------------
# gather_nd(params, indices) -> params[indices[:, cols]]: [N] + params.shape[k:]

GATHER_ND = OpExpr("sparse_gather_nd", ("params", "indices"), ("out",))


def _k(attrs, indices) -> int:
    cols = attrs["cols"]
    return len(cols) if cols is not None else indices._shape[1]


@GATHER_ND.shape_rule
def _gather_infer(attrs, params, indices):
    if indices.ndim != 2 or indices._dtype is not _dt.int64:
        raise TypeError(f"sparse_gather_nd(): indices must be a 2-D int64 tensor, got a {indices.ndim}-D {indices._dtype} tensor")
    k = _k(attrs, indices)
    if k > params.ndim:
        raise ValueError(f"sparse_gather_nd(): indices address {k} dimensions but params has {params.ndim}")
    return (((indices._shape[0], *params._shape[k:]), params._dtype),)


def gather_nd(params, indices, cols: tuple | None = None):
    return dispatch(GATHER_ND, (params, indices), {"cols": cols})[0]


@GATHER_ND.grad_rule(saves="inputs")
def _gather_grad(ctx, g):
    params, indices = ctx.inputs
    if not _wants(ctx, 0):
        return None, None
    return scatter_nd_add(indices, g, _F().zeros_like(params), ctx.attrs["cols"]), None


# ---------------------------------------------------------------------------------------
# scatter_nd_add(indices, updates, base) -> base with updates added at indices[:, cols]

SCATTER_ND_ADD = OpExpr("sparse_scatter_nd_add", ("indices", "updates", "base"), ("out",))


@SCATTER_ND_ADD.shape_rule
def _scatter_infer(attrs, indices, updates, base):
    if indices.ndim != 2 or indices._dtype is not _dt.int64:
        raise TypeError(f"sparse_scatter_nd_add(): indices must be a 2-D int64 tensor, got a {indices.ndim}-D {indices._dtype} tensor")
    k = _k(attrs, indices)
    expected = (indices._shape[0], *base._shape[k:])
    if k > base.ndim or len(updates._shape) != len(expected) or any(
        is_known(a) and is_known(b) and a != b for a, b in zip(updates._shape, expected, strict=True)
    ):
        raise ValueError(f"sparse_scatter_nd_add(): updates must have shape {list(expected)}, got {list(updates._shape)}")
    if updates._dtype is not base._dtype:
        raise TypeError(f"sparse_scatter_nd_add(): updates ({updates._dtype}) and the dense tensor ({base._dtype}) must have the same dtype")
    return ((base._shape, base._dtype),)


def scatter_nd_add(indices, updates, base, cols: tuple | None = None):
    return dispatch(SCATTER_ND_ADD, (indices, updates, base), {"cols": cols})[0]


@SCATTER_ND_ADD.grad_rule(saves="inputs")
def _scatter_grad(ctx, g):
    indices = ctx.inputs[0]
    gu = gather_nd(g, indices, ctx.attrs["cols"]) if _wants(ctx, 1) else None
    return None, gu, g if _wants(ctx, 2) else None


# ---------------------------------------------------------------------------------------
# lexsort(indices) -> the permutation putting the rows in row-major order

LEXSORT = OpExpr("sparse_lexsort", ("indices",), ("perm",))
LEXSORT.differentiable = False


@LEXSORT.shape_rule
def _lexsort_infer(attrs, indices):
    if indices.ndim != 2:
        raise ValueError(f"sparse_lexsort(): indices must be 2-D, got shape {list(indices._shape)}")
    return (((indices._shape[0],), _dt.int64),)


def lexsort(indices):
    return dispatch(LEXSORT, (indices,))[0]


# ---------------------------------------------------------------------------------------
# dense_matmul(indices, values, dense_shape, b) -> op(A) @ op(B)

DENSE_MATMUL = OpExpr("sparse_dense_matmul", ("indices", "values", "dense_shape", "b"), ("product",))


DENSE_MATMUL.attr_key = _attr_key


@DENSE_MATMUL.shape_rule
def _matmul_infer(attrs, indices, values, dense_shape, b):
    _check_components("sparse_tensor_dense_matmul", indices, values, dense_shape)
    if b.ndim != 2:
        raise ValueError(f"sparse_tensor_dense_matmul(): b must be a matrix (2-D), got shape {list(b._shape)}")
    if values._dtype is not b._dtype:
        raise TypeError(
            f"sparse_tensor_dense_matmul(): sp_a's values and b must have the same dtype, got {values._dtype} and {b._dtype}"
        )
    rows, inner = _dense_dims(attrs["shape"], dense_shape, 2)
    if attrs["adjoint_a"]:
        rows, inner = inner, rows
    b_rows, cols = b._shape
    if attrs["adjoint_b"]:
        b_rows, cols = cols, b_rows
    if is_known(inner) and is_known(b_rows) and inner != b_rows:
        raise ValueError(
            f"sparse_tensor_dense_matmul(): Cannot multiply A and B because inner dimension does not match: {inner} vs. {b_rows}. "
            f"Did you forget a transpose? Dimensions of A: [{rows}, {inner}). Dimensions of B: {list(b._shape)}"
        )
    return (((rows, cols), values._dtype),)


def dense_matmul(indices, values, dense_shape, b, *, adjoint_a: bool, adjoint_b: bool, shape: tuple):
    attrs = {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b), "shape": shape}
    return dispatch(DENSE_MATMUL, (indices, values, dense_shape, b), attrs)[0]


def _adjoint(t):
    return _cj(t).mT


@DENSE_MATMUL.grad_rule(saves="inputs")
def _matmul_grad(ctx, g):
    indices, values, dense_shape, b = ctx.inputs
    adjoint_a, adjoint_b = ctx.attrs["adjoint_a"], ctx.attrs["adjoint_b"]
    gv = gb = None
    if _wants(ctx, 1):
        op_b = _adjoint(b) if adjoint_b else b
        # out[r] += v * op_b[c] (adjoint_a: out[c] += conj(v) * op_b[r])
        if adjoint_a:
            gv = _cj(gather_nd(g, indices, (1,)) * _cj(gather_nd(op_b, indices, (0,)))).sum(-1)
        else:
            gv = (gather_nd(g, indices, (0,)) * _cj(gather_nd(op_b, indices, (1,)))).sum(-1)
    if _wants(ctx, 3):
        # d op_b = op(A)^H @ g
        g_op_b = dense_matmul(indices, values, dense_shape, g, adjoint_a=not adjoint_a, adjoint_b=False, shape=ctx.attrs["shape"])
        gb = _adjoint(g_op_b) if adjoint_b else g_op_b
    return None, gv, None, gb


# ---------------------------------------------------------------------------------------
# reduce_sum / reduce_max(indices, values, dense_shape) over ``axis`` (sorted non-negative dims)

REDUCE_SUM = OpExpr("sparse_reduce_sum", ("indices", "values", "dense_shape"), ("out",))
REDUCE_MAX = OpExpr("sparse_reduce_max", ("indices", "values", "dense_shape"), ("out",))


def _reduce_rule(name: str):
    def infer(attrs, indices, values, dense_shape):
        _check_components(name, indices, values, dense_shape)
        dims = _dense_dims(attrs["shape"], dense_shape, _rank(attrs, indices))
        axis = attrs["axis"]
        if attrs["keepdims"]:
            shape = tuple(1 if d in axis else n for d, n in enumerate(dims))
        else:
            shape = tuple(n for d, n in enumerate(dims) if d not in axis)
        return ((shape, values._dtype),)

    return infer


REDUCE_SUM.attr_key = REDUCE_MAX.attr_key = _attr_key
REDUCE_SUM.shape_rule(_reduce_rule("sparse_reduce_sum"))
REDUCE_MAX.shape_rule(_reduce_rule("sparse_reduce_max"))


def reduce(op: OpExpr, indices, values, dense_shape, *, axis: tuple, keepdims: bool, shape: tuple):
    return dispatch(op, (indices, values, dense_shape), {"axis": axis, "keepdims": bool(keepdims), "shape": shape})[0]


def _kept(ctx) -> tuple:
    axis = ctx.attrs["axis"]
    return tuple(d for d in range(len(ctx.attrs["shape"])) if d not in axis)


def _per_value(ctx, t):
    """An output-shaped tensor read at each value's output cell: [N]."""
    axis = ctx.attrs["axis"]
    if ctx.attrs["keepdims"] and axis:
        t = t.squeeze(axis)
    return gather_nd(t, ctx.inputs[0], _kept(ctx))


@REDUCE_SUM.grad_rule(saves="inputs")
def _reduce_sum_grad(ctx, g):
    if not _wants(ctx, 1):
        return None, None, None
    return None, _per_value(ctx, g), None


@REDUCE_MAX.grad_rule(saves="both")
def _reduce_max_grad(ctx, g):
    """PyTorch's amax convention: the values equal to their cell's maximum share its gradient."""
    if not _wants(ctx, 1):
        return None, None, None
    indices, values, dense_shape = ctx.inputs
    (out,) = ctx.outputs
    hit = values == _per_value(ctx, out)
    attrs = ctx.attrs
    ties = reduce(REDUCE_SUM, indices, hit.to(values._dtype), dense_shape, axis=attrs["axis"], keepdims=attrs["keepdims"], shape=attrs["shape"])
    return None, _per_value(ctx, g) * hit / _per_value(ctx, ties), None
