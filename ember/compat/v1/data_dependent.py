"""Ops whose result size depends on the values: ``tf.where(condition)``, the coordinates of
the true elements (node ``Where``; ``tf.boolean_mask`` gathers at them), and ``tf.unique``.

ember fixes sizes when a graph is built, so such a count is an unknown size (a fresh
``SymInt``) that the Session binds when the node has run. The primitives live here, above
graph mode, because their inference rules make that unknown size for a graph tensor and count
the values for a real one (a Session runs the node on the eager interpreter); their inference
is never cached, since the count changes from run to run.

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, (None,))
...     coords = tf.where(x > 0)
...     coords.shape.as_list(), tf.Session().run(coords, {x: [1.0, -1.0, 2.0]}).tolist()
([None, 1], [[0], [2]])
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ...dispatch.opexpr import register_kernel
from ...graph.symbolic import unknown_dim
from ...graph.tensor import GraphTensor
from ._common import static_shape, tensor
from .framework import op_scope

__all__ = ["UNIQUE", "WHERE", "unique", "where_coordinates"]

WHERE = OpExpr("tf_where", ("condition",), ("index",))
WHERE.differentiable = False
WHERE.attr_key = lambda attrs: [None]  # an unhashable key (with an attribute to key): the rule runs (and counts) every time


@WHERE.shape_rule
def _infer_where(attrs, condition):
    if isinstance(condition, GraphTensor):
        count = unknown_dim()
    else:
        count = int(np.count_nonzero(condition._host_array()))
    return (((count, len(condition._shape)), _dt.int64),)


@register_kernel("tf_where")
def _where_kernel(outs, ins, attrs):
    outs[0][...] = np.argwhere(ins[0])


def where_coordinates(condition, name=None):
    """The int64 coordinates (one row each, row-major order) of the true elements of a bool
    tensor, or the non-zero elements of a numeric one (node ``Where``)."""
    with op_scope(name, "Where", (condition,)) as scope:
        c = tensor(condition, "input")
        if c._dtype is _dt.string:
            raise TypeError("Where: a string tensor has no truth value; compare it first")
        if static_shape(c).rank is None:
            raise ValueError(f"Where: {c.name} has an unknown rank")
        return scope.out(dispatch(WHERE, (c,), {"values": "counted"})[0], "Where")


UNIQUE = OpExpr("tf_unique", ("x",), ("y", "idx"))
UNIQUE.differentiable = False
UNIQUE.attr_key = lambda attrs: [None]


@UNIQUE.shape_rule
def _infer_unique(attrs, x):
    count = unknown_dim() if isinstance(x, GraphTensor) else len(np.unique(x._host_array()))
    return (((count,), x._dtype), (x._shape, attrs["out_idx"]))


@register_kernel("tf_unique")
def _unique_kernel(outs, ins, attrs):
    # TensorFlow's order: the values as they first occur (NumPy's unique sorts them)
    values, first, inverse = np.unique(ins[0], return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    outs[0][...] = values[order]
    outs[1][...] = position[inverse.reshape(-1)]


def unique(x, out_idx=_dt.int32, name=None):
    """``(y, idx)``: the distinct values of the 1-d ``x`` in the order they first occur, and for
    each element of ``x`` the position of its value in ``y`` (``x == y[idx]``; node ``Unique``)."""
    out_idx = _dt.as_dtype(out_idx, op="unique", arg="out_idx")
    if out_idx not in (_dt.int32, _dt.int64):
        raise TypeError(f"unique(): out_idx must be int32 or int64, got {out_idx.name}")
    with op_scope(name, "Unique", (x,)) as scope:
        t = tensor(x, "x")
        if static_shape(t).rank != 1:
            raise ValueError(f"unique expects a 1D vector, got {t.shape}")
        y, idx = dispatch(UNIQUE, (t,), {"out_idx": out_idx})
        scope.out(y, "Unique")
        return y, idx
