"""The message classes of ``checkpoint.proto`` (BundleHeaderProto, BundleEntryProto,
CheckpointState, SaverDef, MetaGraphDef, ...), built at import.

The file imports ``ember/tensor.proto`` and ``ember/graph.proto``, so it joins their private
pool: ``MetaGraphDef.graph_def`` is the very ``GraphDef`` class that ``as_graph_def`` fills.

>>> entry = BundleEntryProto(dtype=DataType.DT_FLOAT, offset=8, size=12, crc32c=0xDEADBEEF)
>>> _ = entry.shape.dim.add(size=3)
>>> BundleEntryProto.FromString(entry.SerializeToString()).crc32c == 0xDEADBEEF
True
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2

from ...interop.proto import messages as _tensor_messages
from ...interop.proto.messages import message_class
from . import DESCRIPTOR as _GRAPH_DESCRIPTOR, DataType, _build_file

__all__ = [
    "DESCRIPTOR",
    "BundleEntryProto",
    "BundleHeaderProto",
    "CheckpointState",
    "CollectionDef",
    "DataType",
    "MetaGraphDef",
    "SaverDef",
    "TensorSliceProto",
    "VariableDef",
]


def _build():
    compiled = {}
    for built in (_tensor_messages.DESCRIPTOR, _GRAPH_DESCRIPTOR):  # the files checkpoint.proto imports
        fd = descriptor_pb2.FileDescriptorProto()
        built.CopyToProto(fd)
        compiled[fd.name] = fd
    return _build_file("checkpoint.proto", compiled)


DESCRIPTOR = _build()


def _message_class(full_name: str, qualname: str) -> type:
    return message_class(DESCRIPTOR.pool, full_name, __name__, qualname)


BundleHeaderProto = _message_class("ember.BundleHeaderProto", "BundleHeaderProto")
BundleEntryProto = _message_class("ember.BundleEntryProto", "BundleEntryProto")
TensorSliceProto = _message_class("ember.TensorSliceProto", "TensorSliceProto")
CheckpointState = _message_class("ember.CheckpointState", "CheckpointState")
SaverDef = _message_class("ember.SaverDef", "SaverDef")
CollectionDef = _message_class("ember.CollectionDef", "CollectionDef")
VariableDef = _message_class("ember.VariableDef", "VariableDef")
MetaGraphDef = _message_class("ember.MetaGraphDef", "MetaGraphDef")
