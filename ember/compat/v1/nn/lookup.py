"""``tf.nn``'s lookups and rankings: ``embedding_lookup`` (one table or a list of shards, split
"mod" or "div" as TensorFlow does), ``top_k`` (int32 indices) and ``in_top_k``; and the two
layer-shaped helpers ``xw_plus_b`` and ``relu_layer``."""

from __future__ import annotations

import collections

import numpy as np

from ...._core import dtype as _dt
from ...._core.tensor import Tensor
from ....graph.sources import constant
from ....ops import functional as F
from ._common import convert, convert_like, named, op_scope, outputs, rank_of, static_shape

__all__ = ["embedding_lookup", "in_top_k", "relu_layer", "top_k", "xw_plus_b"]

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _mod_rows(sizes: list[int]) -> np.ndarray:
    """For "mod" sharding: row of id i in the shards concatenated (id i is row i // n of shard i % n)."""
    n = len(sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    ids = np.arange(sum(sizes))
    return offsets[ids % n] + ids // n


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows of ``params`` picked by ``ids``: the result has shape ids.shape + params.shape[1:].

    ``params`` may be a list of shards of one table: with "mod", id i is in shard i % n; with
    "div", the ids are split into contiguous ranges. With ``max_norm``, rows longer than that
    (l2) are scaled down to it.

    >>> import numpy as np, ember.compat.v1 as tf
    >>> tf.nn.embedding_lookup(np.arange(6.0).reshape(3, 2), [[2], [0]]).tolist()
    [[[4.0, 5.0]], [[0.0, 1.0]]]
    """
    op = "embedding_lookup"
    shards = list(params) if isinstance(params, (list, tuple)) else [params]
    if not shards:
        raise ValueError(f"{op}(): params must not be empty")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"{op}(): partition_strategy must be 'mod' or 'div', got {partition_strategy!r}")
    tables = [convert(p, op, "params") for p in shards]
    index = convert(ids, op, "ids")
    if index.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"{op}(): ids must be int32 or int64, got {index.dtype.name}")
    with op_scope(name, "embedding_lookup") as scope:
        flat = F.reshape(index, (-1,)).to(_dt.int64)
        if len(tables) == 1:
            table = tables[0]
        else:
            table = F.cat(tables, 0)
            sizes = [static_shape(t)[0] for t in tables]
            if partition_strategy == "mod":
                if None in sizes:
                    raise ValueError(f"{op}(): sharded params need their first dimensions known when the graph is built")
                flat = F.index_select(constant(_mod_rows(sizes)), 0, flat)
        rows = F.index_select(table, 0, flat)
        if max_norm is not None:
            norms = F.sqrt(F.sum(F.square(rows), list(range(1, rank_of(rows))), True))
            rows = F.mul(rows, F.mul(F.reciprocal(F.clamp_min(norms, float(max_norm))), float(max_norm)))
        out_shape = _lookup_shape(index, tables[0])
        return named(F.reshape(rows, out_shape), scope)


def _lookup_shape(index: Tensor, table: Tensor):
    """ids.shape + params.shape[1:], from static sizes where known (one unknown id dimension
    becomes -1)."""
    id_shape = static_shape(index)
    tail = static_shape(table)[1:]
    if None in tail or id_shape.count(None) > 1:
        raise ValueError(
            f"embedding_lookup(): cannot infer the result's shape from ids {id_shape} and params {static_shape(table)}"
        )
    return tuple(-1 if d is None else d for d in id_shape) + tuple(tail)


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TensorFlow's names
    """The ``k`` largest entries along the last axis and their int32 indices (the lower index
    first among equal values)."""
    t = convert(input, "top_k", "input")
    if isinstance(k, Tensor):
        raise TypeError("top_k(): k must be a Python int (a tensor k is not supported)")
    depth = static_shape(t)[-1] if rank_of(t) else None
    if rank_of(t) < 1:
        raise ValueError("top_k(): input must have rank >= 1")
    if depth is not None and not 0 <= k <= depth:
        raise ValueError(f"top_k(): input must have at least k={k} columns, got {depth}")
    with op_scope(name, "TopKV2") as scope:
        values, indices = F.topk(t, int(k), -1, True, bool(sorted))
        values = named(values, scope)
        return TopKV2(*outputs(values, indices.to(_dt.int32)))


def in_top_k(predictions, targets, k, name=None):
    """Whether each target class is among the ``k`` highest predictions of its row; classes tied
    with the k-th value count as in, a non-finite prediction never does."""
    p = convert(predictions, "in_top_k", "predictions")
    z = convert(targets, "in_top_k", "targets")
    if rank_of(p) != 2 or rank_of(z) != 1:
        raise ValueError(f"in_top_k(): predictions must be 2-D and targets 1-D, got {static_shape(p)} and {static_shape(z)}")
    with op_scope(name, "in_top_k") as scope:
        target = F.gather(p, 1, F.unsqueeze(z.to(_dt.int64), 1))
        above = F.sum(F.gt(p, target).to(_dt.int32), 1)
        result = F.logical_and(F.lt(above, int(k)), F.squeeze(F.isfinite(target), 1))
        return named(result, scope, "InTopKV2")


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases."""
    t = convert(x, "xw_plus_b", "x")
    with op_scope(name, "xw_plus_b") as scope:
        w = convert_like(weights, t, "xw_plus_b", "weights")
        return named(F.add(F.matmul(t, w), convert_like(biases, t, "xw_plus_b", "biases")), scope)


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases)."""
    with op_scope(name, "relu_layer") as scope:
        return named(F.relu(xw_plus_b(x, weights, biases)), scope)
