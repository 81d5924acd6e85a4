"""Reading and writing tensors: TensorFlow's TensorProto, and checkpoints (``save``/``load``).

``to_proto`` fills a ``TensorProto`` the two ways TensorFlow's ``Tensor`` does, a new one or
the caller's (``proto=``, cleared first); ``from_proto`` reads either back. The bytes are
TensorFlow's, field for field. TensorFlow's C++ names and ember's:

=================================================  ==================================================
TensorFlow (``tensorflow/core/framework``)         ember
=================================================  ==================================================
``tensor.AsProtoTensorContent(&proto)``            ``to_proto(t, proto=proto)`` (``encoding="content"``)
``tensor.AsProtoField(&proto)``                    ``to_proto(t, "fields", proto=proto)``
``tensor.FromProto(proto)`` (false on bad input)   ``t = from_proto(proto)`` (ValueError naming the field)
``TensorShape(proto)``, ``shape.AsProto(&proto)``  ``TensorShape(proto)``, ``shape.as_proto()`` (``ember.graph``)
``tf.io.serialize_tensor`` / ``parse_tensor``      ``serialize_tensor`` / ``parse_tensor``
``tf.make_ndarray(proto)``                         ``from_proto(proto).numpy()``
=================================================  ==================================================

Every field of TensorFlow's messages is declared, ``resource_handle_val`` (``ResourceHandleProto``)
and ``variant_val`` (``VariantTensorDataProto``) included; a DT_RESOURCE or DT_VARIANT proto is
read as a message, and ``from_proto`` refuses it clearly: ember has no tensors of those dtypes.

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
    ResourceHandleProto,
    TensorProto,
    TensorShapeProto,
    VariantTensorDataProto,
    from_proto,
    parse_tensor,
    serialize_tensor,
    to_proto,
)

__all__ = [
    "MAX_EXPANDED_BYTES",
    "DataType",
    "ResourceHandleProto",
    "TensorProto",
    "TensorShapeProto",
    "VariantTensorDataProto",
    "from_proto",
    "load",
    "parse_tensor",
    "save",
    "serialize_tensor",
    "to_proto",
]
