"""``tf.io``: files (``tf.io.gfile``), graphs (``write_graph``) and tensors as serialized
``TensorProto`` bytes, the latter as graph nodes (``SerializeTensor``, ``ParseTensor``) whose
values are computed when a Session runs them, as TensorFlow's.

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default() as g:
...     data = tf.io.serialize_tensor(tf.constant([5, 6]))
...     back = tf.io.parse_tensor(data, tf.int32)
>>> tf.Session(graph=g).run(back).tolist()
[5, 6]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.tensor import tensor
from ...graph import gfile
from ...graph.export import write_graph
from ...graph.lazy import LazyInterpreter
from ...graph.run.plan import register_graph_kernel
from ...graph.symbolic import TensorShape
from ...graph.tensor import GraphTensor
from ...interop.proto.convert import parse_tensor as _parse, serialize_tensor as _serialize
from .framework import EagerTensor, convert_to_tensor, op_scope

__all__ = ["gfile", "parse_tensor", "serialize_tensor", "write_graph"]


def serialize_tensor(tensor_value, name: str | None = None):
    """A 0-d string tensor holding ``tensor_value`` as a serialized ``TensorProto``."""
    x = convert_to_tensor(tensor_value)
    if not isinstance(x, GraphTensor):  # eager: the bytes now
        return EagerTensor._wrap(tensor(_serialize(x), dtype=_dt.string))
    with op_scope(name, "SerializeTensor", [x]) as scope:  # the node takes the scope's own name
        op = x.graph.create_op(
            "SerializeTensor", (x,), {"T": x.dtype}, [((), TensorShape(()), _dt.string)], name=scope.name[:-1] + "/"
        )
    return op.outputs[0]


def parse_tensor(serialized, out_type, name: str | None = None):
    """The tensor serialized in ``serialized`` (a string tensor); ``out_type`` is its dtype."""
    dtype = _dt.as_dtype(out_type, op="parse_tensor", arg="out_type")
    s = convert_to_tensor(serialized, dtype=_dt.string)
    if not isinstance(s, GraphTensor):  # eager
        value = s.item()
        return EagerTensor._wrap(_parse(value.encode() if isinstance(value, str) else value, dtype))
    graph = s.graph
    s = LazyInterpreter(graph).capture(s)
    with op_scope(name, "ParseTensor", [s]) as scope:
        op = graph.create_op(
            "ParseTensor", (s,), {"out_type": dtype}, [((), TensorShape(None), dtype)], name=scope.name[:-1] + "/"
        )
    return op.outputs[0]


def _serialize_kernel(op, inputs) -> tuple:
    return (tensor(_serialize(inputs[0]), dtype=_dt.string),)


def _parse_kernel(op, inputs) -> tuple:
    value = inputs[0].item()
    return (_parse(value.encode() if isinstance(value, str) else value, op.attrs["out_type"]),)


register_graph_kernel("SerializeTensor", _serialize_kernel)
register_graph_kernel("ParseTensor", _parse_kernel)
