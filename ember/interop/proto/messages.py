"""The message classes of ``tensor.proto``, built at import from the file itself.

`compiler.compile_proto` turns the text into a ``FileDescriptorProto``; it goes into a private
descriptor pool (so it can never clash with another library's ``TensorProto``, TensorFlow's
included), and protobuf's runtime makes the classes. They are real protobuf messages:
``SerializeToString``, ``ParseFromString``, text format and JSON all work.

>>> p = TensorProto(dtype=DataType.DT_FLOAT, float_val=[1.5])
>>> DataType.Name(p.dtype), TensorProto.FromString(p.SerializeToString()).float_val[0]
('DT_FLOAT', 1.5)
"""

from __future__ import annotations

from importlib import resources

from google.protobuf import descriptor_pool, message_factory
from google.protobuf.internal import enum_type_wrapper

from .compiler import compile_proto

__all__ = ["DESCRIPTOR", "DataType", "ResourceHandleProto", "TensorProto", "TensorShapeProto", "VariantTensorDataProto", "message_class"]

PROTO_FILE = "tensor.proto"

_text = resources.files(__package__).joinpath(PROTO_FILE).read_text(encoding="utf-8")
_pool = descriptor_pool.DescriptorPool()
_pool.AddSerializedFile(compile_proto(_text, f"ember/{PROTO_FILE}").SerializeToString())
DESCRIPTOR = _pool.FindFileByName(f"ember/{PROTO_FILE}")


def message_class(pool, full_name: str, module: str, qualname: str | None = None) -> type:
    """The message class of ``full_name`` in ``pool``, made importable from ``module`` under
    ``qualname`` (pickle finds a class by module and qualified name). Every ``.proto`` file ember
    compiles at import makes its classes with this."""
    descriptor = pool.FindMessageTypeByName(full_name)
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
        cls = message_factory.GetMessageClass(descriptor)
    else:
        cls = message_factory.MessageFactory(pool).GetPrototype(descriptor)
    cls.__module__ = module
    if qualname is not None:
        cls.__qualname__ = qualname
    return cls


def _message_class(full_name: str) -> type:
    return message_class(_pool, full_name, __name__)


TensorShapeProto = _message_class("ember.TensorShapeProto")
TensorProto = _message_class("ember.TensorProto")
ResourceHandleProto = _message_class("ember.ResourceHandleProto")
VariantTensorDataProto = _message_class("ember.VariantTensorDataProto")
for _outer, _inner in ((TensorShapeProto, "Dim"), (ResourceHandleProto, "DtypeAndShape")):
    getattr(_outer, _inner).__module__ = __name__
    getattr(_outer, _inner).__qualname__ = f"{_outer.__name__}.{_inner}"
# The enum as TensorFlow's generated code exposes it: DataType.DT_FLOAT, Name(), Value().
DataType = enum_type_wrapper.EnumTypeWrapper(_pool.FindEnumTypeByName("ember.DataType"))
