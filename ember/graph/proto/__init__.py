"""The message classes of graph mode's ``.proto`` files, built at import: ``graph.proto``
(GraphDef, NodeDef, AttrValue), ``summary.proto`` (Summary, HistogramProto, SummaryMetadata),
``event.proto`` (Event, SessionLog...) and ``run.proto`` (RunOptions, RunMetadata, StepStats).

They import ``ember/tensor.proto``, so they are compiled against that file's descriptor and
added to the same private pool as ember.io's messages: ``AttrValue.tensor`` is the very
``TensorProto`` class that ``ember.io.to_proto`` returns, and ``CopyFrom`` works across them.

>>> node = NodeDef(name="x", op="Placeholder")
>>> node.attr["dtype"].type = DataType.DT_FLOAT
>>> NodeDef.FromString(node.SerializeToString()).attr["dtype"].WhichOneof("value")
'type'
"""

from __future__ import annotations

from importlib import resources

from google.protobuf import descriptor_pb2

from ...interop.proto import messages as _tensor_messages
from ...interop.proto.compiler import compile_proto
from ...interop.proto.messages import DataType, TensorProto, TensorShapeProto, message_class

__all__ = [
    "DESCRIPTOR", "AttrValue", "DataType", "DeviceStepStats", "Event", "FunctionDef", "FunctionDefLibrary", "GraphDef",
    "HistogramProto", "LogMessage", "NameAttrList", "NodeDef", "NodeExecStats", "NodeOutput", "OpDef", "RunMetadata", "RunOptions",
    "SessionLog", "StepStats", "Summary", "SummaryMetadata", "TaggedRunMetadata", "TensorDescription", "TensorProto", "TensorShapeProto",
    "VersionDef",
]

# Each file after the ones it imports; all go into the pool of ember's tensor.proto.
PROTO_FILES = ("graph.proto", "summary.proto", "event.proto", "run.proto")


def _build_file(filename: str, compiled: dict):
    pool = _tensor_messages.DESCRIPTOR.pool
    name = f"ember/{filename}"
    try:  # a reload of this module finds the file in the pool already
        descriptor = pool.FindFileByName(name)
    except KeyError:
        text = resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")
        pool.AddSerializedFile(compile_proto(text, name, list(compiled.values())).SerializeToString())
        descriptor = pool.FindFileByName(name)
    compiled[name] = descriptor_pb2.FileDescriptorProto()
    descriptor.CopyToProto(compiled[name])
    return descriptor


def _build():
    compiled = {}
    tensor_fd = descriptor_pb2.FileDescriptorProto()
    _tensor_messages.DESCRIPTOR.CopyToProto(tensor_fd)
    compiled[tensor_fd.name] = tensor_fd
    return [_build_file(filename, compiled) for filename in PROTO_FILES]


DESCRIPTOR, SUMMARY_DESCRIPTOR, EVENT_DESCRIPTOR, RUN_DESCRIPTOR = _build()


def _message_class(full_name: str, qualname: str) -> type:
    return message_class(DESCRIPTOR.pool, full_name, __name__, qualname)


GraphDef = _message_class("ember.GraphDef", "GraphDef")
VersionDef = _message_class("ember.VersionDef", "VersionDef")
NodeDef = _message_class("ember.NodeDef", "NodeDef")
AttrValue = _message_class("ember.AttrValue", "AttrValue")
_message_class("ember.AttrValue.ListValue", "AttrValue.ListValue")
HistogramProto = _message_class("ember.HistogramProto", "HistogramProto")
SummaryMetadata = _message_class("ember.SummaryMetadata", "SummaryMetadata")
_message_class("ember.SummaryMetadata.PluginData", "SummaryMetadata.PluginData")
Summary = _message_class("ember.Summary", "Summary")
for _nested in ("Image", "Audio", "Value"):
    _message_class(f"ember.Summary.{_nested}", f"Summary.{_nested}")
Event = _message_class("ember.Event", "Event")
LogMessage = _message_class("ember.LogMessage", "LogMessage")
SessionLog = _message_class("ember.SessionLog", "SessionLog")
TaggedRunMetadata = _message_class("ember.TaggedRunMetadata", "TaggedRunMetadata")
RunOptions = _message_class("ember.RunOptions", "RunOptions")
RunMetadata = _message_class("ember.RunMetadata", "RunMetadata")
StepStats = _message_class("ember.StepStats", "StepStats")
DeviceStepStats = _message_class("ember.DeviceStepStats", "DeviceStepStats")
NodeExecStats = _message_class("ember.NodeExecStats", "NodeExecStats")
NodeOutput = _message_class("ember.NodeOutput", "NodeOutput")
TensorDescription = _message_class("ember.TensorDescription", "TensorDescription")
NameAttrList = _message_class("ember.NameAttrList", "NameAttrList")
FunctionDefLibrary = _message_class("ember.FunctionDefLibrary", "FunctionDefLibrary")
FunctionDef = _message_class("ember.FunctionDef", "FunctionDef")
OpDef = _message_class("ember.OpDef", "OpDef")
_message_class("ember.OpDef.ArgDef", "OpDef.ArgDef")
