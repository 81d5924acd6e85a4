"""TensorFlow-compatible TensorProto: ember's own ``tensor.proto`` and the conversions.

``tensor.proto`` declares ``DataType``, ``TensorShapeProto``, ``TensorProto`` (and the
``ResourceHandleProto`` and ``VariantTensorDataProto`` its fields 14 and 15 hold) with
TensorFlow's field numbers and enum values under the package ``ember``; `compiler` turns it
into a descriptor at import (no ``protoc``), `messages` into protobuf classes, `convert` moves
tensors in and out, and `wire` holds the bits of the wire format the fast paths write
directly. The public face is `ember.io`.
"""

from .convert import MAX_EXPANDED_BYTES, from_proto, parse_tensor, serialize_tensor, to_proto
from .messages import DataType, ResourceHandleProto, TensorProto, TensorShapeProto, VariantTensorDataProto

__all__ = [
    "MAX_EXPANDED_BYTES", "DataType", "ResourceHandleProto", "TensorProto", "TensorShapeProto", "VariantTensorDataProto",
    "from_proto", "parse_tensor", "serialize_tensor", "to_proto",
]
