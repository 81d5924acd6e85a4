"""TensorFlow 1's shapes as tensors: ``tf.shape`` (a run-time ``Shape`` node), ``shape_n``,
``size``, ``rank``, and reading a shape argument back into sizes (:func:`dims_of`).

A shape argument may be computed from ``tf.shape``: ``tf.reshape(x, [tf.shape(x)[0], -1])``
is the TensorFlow 1 idiom for a batch of unknown size. ember fixes a node's sizes when the graph
is built, as expressions of the unknown sizes (``symbolic.py``), so such a shape tensor is read
back into those expressions; a shape computed any other way is refused.

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, (None, 2, 3))
...     y = tf.reshape(x, [tf.shape(x)[0], -1])
...     y.shape.as_list(), tf.Session().run(tf.shape(y), {x: [[[0.0] * 3] * 2] * 4}).tolist()
([None, 6], [4, 6])
"""

from __future__ import annotations

import numbers
import weakref

import numpy as np

from ..._core import dtype as _dt
from ...graph.tensor import GraphTensor
from ...ops import functional as F
from ...ops.shape.shape_of import shape_of
from ._common import known_dims, static_shape, static_value, tensor
from .framework import constant, op_scope

__all__ = ["dims_of", "rank", "scalar_of", "shape", "shape_n", "size"]

# Shape nodes -> the tensor whose shape they give (to read `tf.shape(x)[0]` back as x's size)
_SHAPE_OF: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _symbolic_shape(x) -> tuple:
    return tuple(x.size())


def _known(x) -> bool:
    return static_shape(x).rank is not None and static_shape(x).is_fully_defined()


# -- shapes as tensors ---------------------------------------------------------------------------


def shape(input, name=None, out_type=_dt.int32):  # noqa: A002 - TensorFlow's name
    """``input``'s shape as a 1-d tensor of ``out_type``: a ``Const`` when it is fully known
    when the graph is built (as TensorFlow 1 folds it), else a ``Shape`` node read at run time."""
    out_type = _dt.as_dtype(out_type, op="shape", arg="out_type")
    if hasattr(input, "dense_shape") and not isinstance(input, GraphTensor):  # a SparseTensor
        with op_scope(name, "Shape", ()) as scope:
            return scope.out(F.clone(input.dense_shape) if out_type is _dt.int64 else input.dense_shape.to(out_type), "Cast")
    with op_scope(name, "Shape", (input,)) as scope:
        x = tensor(input, "input")
        if static_shape(x).rank is None:
            raise ValueError(f"shape(): {x.name} has an unknown rank, which ember's graph mode does not run")
        if _known(x):
            result = scope.out(constant(list(known_dims(x, "shape")), dtype=out_type))
        else:
            result = scope.out(shape_of(x, out_type), "Shape")
        if isinstance(result, GraphTensor):
            _SHAPE_OF[result.op] = x
        return result


def shape_n(input, out_type=_dt.int32, name=None):  # noqa: A002 - TensorFlow's name
    """The shapes of a list of tensors (one 1-d tensor each)."""
    with op_scope(name, "ShapeN", input):
        return [shape(t, out_type=out_type) for t in input]


def size(input, name=None, out_type=_dt.int32):  # noqa: A002 - TensorFlow's name
    """The number of elements of ``input`` (a scalar of ``out_type``)."""
    out_type = _dt.as_dtype(out_type, op="size", arg="out_type")
    with op_scope(name, "Size", (input,)) as scope:
        x = tensor(input, "input")
        if _known(x):
            return scope.out(constant(int(np.prod(known_dims(x, "size"), dtype=np.int64)), dtype=out_type))
        return scope.out(F.prod(shape_of(x, out_type), dim=0, dtype=out_type), "Size")


def rank(input, name=None):  # noqa: A002 - TensorFlow's name
    """The number of axes of ``input``, an int32 scalar (a ``Const``: ember's graphs know every rank)."""
    with op_scope(name, "Rank", (input,)) as scope:
        x = tensor(input, "input")
        if static_shape(x).rank is None:
            raise ValueError(f"rank(): {x.name} has an unknown rank")
        return scope.out(constant(static_shape(x).rank, dtype=_dt.int32))


def scalar_of(t, what: str):
    """A scalar size argument: a number, a constant, or an element of ``tf.shape(x)`` (x's size)."""
    if not isinstance(t, GraphTensor):
        value = static_value(t, what)
        if not isinstance(value, numbers.Integral):
            raise TypeError(f"{what}: expected an integer, got {value!r}")
        return int(value)
    op = t.op
    if op.type == "Const":
        return int(op.get_attr("value").item())
    if op.kind == "getitem" and isinstance(op.attrs.get("key"), int) and op.inputs:
        return dims_of(op.inputs[0], what)[op.attrs["key"]]
    if op.type in ("Cast", "ExpandDims") and op.inputs:  # tf.stack of scalars packs them as [1]-shaped parts
        return scalar_of(op.inputs[0], what)
    raise NotImplementedError(
        f"{what}: the size {t.name} must be known when the graph is built or come from tf.shape(); "
        f"ember's graph mode fixes sizes as expressions of the unknown dimensions"
    )


def dims_of(value, what: str) -> tuple:
    """A shape argument as sizes (ints, or expressions of unknown sizes): a list of ints and
    scalar tensors, a ``Const``, ``tf.shape(x)``, its elements, ``tf.stack``/``tf.concat`` of those."""
    if isinstance(value, GraphTensor):
        op = value.op
        if op.type == "Const":
            return tuple(int(v) for v in np.ravel(op.get_attr("value").numpy()))
        if op in _SHAPE_OF:
            return _symbolic_shape(_SHAPE_OF[op])
        if op.type == "Pack":
            return tuple(scalar_of(t, what) for t in op.inputs)
        if op.type == "ConcatV2":
            return tuple(d for t in op.inputs for d in dims_of(t, what))
        if op.type == "Cast" and op.inputs:
            return dims_of(op.inputs[0], what)
        raise NotImplementedError(
            f"{what}: the shape {value.name} must be known when the graph is built or come from tf.shape(); "
            f"ember's graph mode fixes sizes as expressions of the unknown dimensions"
        )
    if hasattr(value, "as_list"):  # a TensorShape
        value = value.as_list()
    value = static_value(value, what)
    if isinstance(value, numbers.Integral):
        return (int(value),)
    return tuple(scalar_of(v, what) for v in value)
