"""What every TensorFlow-semantics function of ``tf.nn``, ``tf.layers`` and ``tf.losses`` needs:
TensorFlow's conversion of Python values to tensors, static shapes, and TensorFlow's naming
(``name=`` names the result; a composite's inner nodes live under that name's scope)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from ...._core import dtype as _dt
from ...._core.tensor import Tensor
from ....graph.graph import get_default_graph, in_graph_scope
from ....graph.sources import constant, identity

__all__ = ["as_dtype", "convert", "named", "op_scope", "rank_of", "static_shape"]


def as_dtype(dtype, op: str, arg: str = "dtype"):
    """An ember dtype from anything TensorFlow accepts as one (``tf.float32``, ``"int32"``, NumPy's)."""
    return _dt.as_dtype(dtype, op=op, arg=arg)


def convert(value, op: str, arg: str, dtype=None) -> Tensor:
    """``value`` as a tensor, as ``tf.convert_to_tensor`` does: tensors pass through (checked
    against ``dtype`` if one is asked for), Python floats become float32 and Python ints int32,
    NumPy arrays keep their dtype; in a graph the value becomes a ``Const`` node."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtype:
            raise ValueError(
                f"{op}(): Tensor conversion requested dtype {dtype.name} for {arg}, a Tensor with dtype {value.dtype.name}"
            )
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        raise TypeError(f"{op}(): {arg} is a list holding tensors; stack them first (tf.stack)")
    array = np.asarray(value)
    if dtype is not None:
        array = array.astype(dtype.numpy_dtype)
    elif not isinstance(value, np.ndarray | np.generic):
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            array = array.astype(np.int32)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{op}(): {arg} must be a tensor or numbers, got {type(value).__name__} of dtype {array.dtype}")
    return constant(array)


def convert_like(value, like: Tensor, op: str, arg: str) -> Tensor:
    """``value`` as a tensor of ``like``'s dtype (a Python number is made that dtype, as TensorFlow
    does for the second operand of an op)."""
    if isinstance(value, Tensor):
        return convert(value, op, arg, like.dtype)
    return convert(np.asarray(value, dtype=like.dtype.numpy_dtype), op, arg)


def static_shape(x: Tensor) -> list:
    """The shape known when the graph is built, None for an unknown dimension."""
    shape = x.shape
    return shape.as_list() if hasattr(shape, "as_list") else list(shape)


def rank_of(x: Tensor) -> int:
    return len(static_shape(x))


@contextlib.contextmanager
def op_scope(name: str | None, default: str) -> Iterator[str]:
    """TensorFlow's ``name_scope(name, default)`` for a composite: in a graph, the nodes made
    inside are named ``<name>/...`` and the scope's name (ending in "/") is returned for the
    result; eagerly there are no names and "" is returned."""
    if not in_graph_scope():
        yield ""
        return
    with get_default_graph().name_scope(name or default) as scope:
        yield scope


def named(result: Tensor, name: str | None) -> Tensor:
    """``result`` under ``name`` in a graph (an Identity node of that exact name; a name ending
    in "/", a scope's, is taken as is); the tensor itself when no name is given or eagerly."""
    if not name or not in_graph_scope():
        return result
    return identity(result, name=name)
