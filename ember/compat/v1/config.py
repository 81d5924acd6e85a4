"""``tf.ConfigProto`` and the messages inside it, built at import from ``config.proto``.

TensorFlow 1 programs make a ``ConfigProto`` and hand it to ``Session(config=...)``, most often
to set GPU memory growth, soft placement or thread counts. The messages are real protobuf
messages with TensorFlow's field numbers. An ember Session accepts them: the device fields have
nothing to configure on ember's one CPU device, and ember's kernels use the process's thread
pool (``ember.set_num_threads``) rather than per-session pools.

>>> config = ConfigProto(allow_soft_placement=True)
>>> config.gpu_options.allow_growth = True
>>> ConfigProto.FromString(config.SerializeToString()).gpu_options.allow_growth
True
"""

from __future__ import annotations

from importlib import resources

from ...interop.proto import messages as _tensor_messages
from ...interop.proto.compiler import compile_proto
from ...interop.proto.messages import message_class

__all__ = ["ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions", "ThreadPoolOptionProto"]

PROTO_FILE = "config.proto"


def _build():
    pool = _tensor_messages.DESCRIPTOR.pool
    name = f"ember/compat/{PROTO_FILE}"
    try:  # a reload of this module finds the file in the pool already
        return pool.FindFileByName(name)
    except KeyError:
        pass
    text = resources.files(__package__).joinpath(PROTO_FILE).read_text(encoding="utf-8")
    pool.AddSerializedFile(compile_proto(text, name).SerializeToString())
    return pool.FindFileByName(name)


DESCRIPTOR = _build()


def _message_class(name: str) -> type:
    return message_class(DESCRIPTOR.pool, f"ember.{name}", __name__, name)


ThreadPoolOptionProto = _message_class("ThreadPoolOptionProto")
GPUOptions = _message_class("GPUOptions")
OptimizerOptions = _message_class("OptimizerOptions")
GraphOptions = _message_class("GraphOptions")
ConfigProto = _message_class("ConfigProto")
