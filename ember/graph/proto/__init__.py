"""The message classes of ``graph.proto`` (GraphDef, NodeDef, AttrValue, Event), built at import.

The file imports ``ember/tensor.proto``, so it is compiled against that file's descriptor and
added to the same private pool as ember.io's messages: ``AttrValue.tensor`` is the very
``TensorProto`` class that ``ember.io.to_proto`` returns, and ``CopyFrom`` works across them.

>>> node = NodeDef(name="x", op="Placeholder")
>>> node.attr["dtype"].type = DataType.DT_FLOAT
>>> NodeDef.FromString(node.SerializeToString()).attr["dtype"].WhichOneof("value")
'type'
"""

from __future__ import annotations

from importlib import resources

from google.protobuf import descriptor_pb2, message_factory

from ...interop.proto import messages as _tensor_messages
from ...interop.proto.compiler import compile_proto
from ...interop.proto.messages import DataType, TensorProto, TensorShapeProto

__all__ = [
    "DESCRIPTOR", "AttrValue", "DataType", "Event", "FunctionDef", "FunctionDefLibrary", "GraphDef", "NameAttrList", "NodeDef",
    "OpDef", "TensorProto", "TensorShapeProto", "VersionDef",
]

PROTO_FILE = "graph.proto"


def _build():
    pool = _tensor_messages.DESCRIPTOR.pool
    name = f"ember/{PROTO_FILE}"
    try:  # a reload of this module finds the file in the pool already
        return pool.FindFileByName(name)
    except KeyError:
        pass
    tensor_fd = descriptor_pb2.FileDescriptorProto()
    _tensor_messages.DESCRIPTOR.CopyToProto(tensor_fd)
    text = resources.files(__package__).joinpath(PROTO_FILE).read_text(encoding="utf-8")
    pool.AddSerializedFile(compile_proto(text, name, [tensor_fd]).SerializeToString())
    return pool.FindFileByName(name)


DESCRIPTOR = _build()


def _message_class(full_name: str, qualname: str) -> type:
    descriptor = DESCRIPTOR.pool.FindMessageTypeByName(full_name)
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
        cls = message_factory.GetMessageClass(descriptor)
    else:
        cls = message_factory.MessageFactory(DESCRIPTOR.pool).GetPrototype(descriptor)
    # Pickle finds a class by module and qualified name: these are importable from here.
    cls.__module__ = __name__
    cls.__qualname__ = qualname
    return cls


GraphDef = _message_class("ember.GraphDef", "GraphDef")
VersionDef = _message_class("ember.VersionDef", "VersionDef")
NodeDef = _message_class("ember.NodeDef", "NodeDef")
AttrValue = _message_class("ember.AttrValue", "AttrValue")
_message_class("ember.AttrValue.ListValue", "AttrValue.ListValue")
Event = _message_class("ember.Event", "Event")
NameAttrList = _message_class("ember.NameAttrList", "NameAttrList")
FunctionDefLibrary = _message_class("ember.FunctionDefLibrary", "FunctionDefLibrary")
FunctionDef = _message_class("ember.FunctionDef", "FunctionDef")
OpDef = _message_class("ember.OpDef", "OpDef")
_message_class("ember.OpDef.ArgDef", "OpDef.ArgDef")
