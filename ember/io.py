"""Reading and writing tensors: TensorFlow's TensorProto, and checkpoints (``save``/``load``).

``to_proto`` fills a ``TensorProto`` the two ways TensorFlow's ``Tensor`` does:
``encoding="content"`` is ``AsProtoTensorContent`` (the values as compact bytes in
``tensor_content``), ``encoding="fields"`` is ``AsProtoField`` (the dtype's typed repeated
field). ``from_proto`` reads either back; the bytes are TensorFlow's, field for field.

>>> import ember
>>> t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> to_proto(t).tensor_content
b'\\x00\\x00\\x80?\\x00\\x00\\x00@\\x00\\x00@@\\x00\\x00\\x80@'
>>> p = to_proto(t, encoding="fields")
>>> DataType.Name(p.dtype), [d.size for d in p.tensor_shape.dim], list(p.float_val)
('DT_FLOAT', [2, 2], [1.0, 2.0, 3.0, 4.0])
>>> from_proto(p).tolist()
[[1.0, 2.0], [3.0, 4.0]]

``serialize_tensor`` and ``parse_tensor`` are ``tf.io.serialize_tensor`` and
``tf.io.parse_tensor``. A typed field with fewer values than the shape repeats its last one:

>>> parse_tensor(serialize_tensor(t), out_type=ember.float32).equal(t)
True
>>> from_proto(TensorProto(dtype=DataType.DT_INT32, tensor_shape={"dim": [{"size": 3}]}, int_val=[7])).tolist()
[7, 7, 7]

``save`` and ``load`` (also ``ember.save`` / ``ember.load``) write and read checkpoints of
tensors and nested containers without pickle; the file format is safetensors' (see
``docs/checkpoint-format.md``).
"""

from .interop.checkpoint import load, save
from .interop.proto import (
    MAX_EXPANDED_BYTES,
    DataType,
    TensorProto,
    TensorShapeProto,
    from_proto,
    parse_tensor,
    serialize_tensor,
    to_proto,
)

__all__ = [
    "MAX_EXPANDED_BYTES",
    "DataType",
    "TensorProto",
    "TensorShapeProto",
    "from_proto",
    "load",
    "parse_tensor",
    "save",
    "serialize_tensor",
    "to_proto",
]
