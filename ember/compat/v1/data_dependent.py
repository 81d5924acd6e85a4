"""An op whose result size depends on the values: ``tf.where(condition)``, the coordinates of
the true elements (node ``Where``; ``tf.boolean_mask`` gathers at them).

ember fixes sizes when a graph is built, so the count of true elements is an unknown size (a
fresh ``SymInt``) that the Session binds when the node has run. The primitive lives here, above
graph mode, because its inference rule makes that unknown size for a graph tensor and counts
the values for a real one (a Session runs the node on the eager interpreter); its inference is
never cached, since the count changes from run to run.

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
from ._common import tensor
from .framework import op_scope

__all__ = ["WHERE", "where_coordinates"]

WHERE = OpExpr("tf_where", ("condition",), ("index",))
WHERE.differentiable = False
WHERE.attr_key = lambda attrs: [None]  # an unhashable key: the rule runs (and counts) every time


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
        if c._static.rank is None:
            raise ValueError(f"Where: {c.name} has an unknown rank")
        return scope.out(dispatch(WHERE, (c,), {})[0], "Where")
