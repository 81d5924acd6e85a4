"""What every TensorFlow-semantics function of ``tf.nn``, ``tf.layers`` and ``tf.losses`` needs,
on the namespace's framework: TensorFlow's conversion of Python values to tensors
(``convert_to_tensor``), static shapes, and TensorFlow's naming: a function's nodes live in the
name scope ``name`` (or its default name) and its result node is renamed to that scope's name,
so ``tf.nn.relu(x, name="act")`` is the node ``act``. Eager results are ``EagerTensor``s."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from ...._core import dtype as _dt
from ...._core.tensor import Tensor
from ....graph.graph import in_graph_scope
from ....graph.tensor import GraphTensor
from .. import framework as _fw

__all__ = ["as_dtype", "convert", "convert_like", "named", "op_scope", "outputs", "rank_of", "static_shape"]


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
    if dtype is None and np.asarray(value).dtype.kind not in "biuf":
        raise TypeError(f"{op}(): {arg} must be a tensor or numbers, got {type(value).__name__}")
    try:
        return _fw.convert_to_tensor(value, dtype=dtype)
    except TypeError as error:
        raise TypeError(f"{op}(): {arg}: {error}") from None


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
def op_scope(name: str | None, default: str) -> Iterator:
    """TensorFlow's name scope of one function (``name``, else ``default``, made unique); yields
    the scope to hand the result to :func:`named`, or None eagerly (no names)."""
    if not in_graph_scope():
        yield None
        return
    with _fw.op_scope(name, default) as scope:
        yield scope


def named(result, scope, op_type: str | None = None):
    """``result`` as the function's result: in a graph its node is renamed to the scope's name
    (``op_type``, where given, is the TensorFlow type the node shows); eagerly, an ``EagerTensor``."""
    if scope is None:
        return _fw.EagerTensor._wrap(result)
    return scope.out(result, op_type)


def outputs(*results):
    """Several results of one function, as they are in a graph (named by their own nodes) and
    as ``EagerTensor``s eagerly; None stays None."""
    return tuple(r if r is None or isinstance(r, GraphTensor) else _fw.EagerTensor._wrap(r) for r in results)
