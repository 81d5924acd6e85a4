"""TensorProto: serialize_tensor / parse_tensor of a 100 MB tensor, the message paths, the typed
fields encoding, and a small tensor's latency.

References: "numpy" is the floor (one copy of the bytes: ``tobytes`` / ``frombuffer().copy()``);
"protobuf" is the same work through TensorFlow's generated message (tensorboard ships it):
set ``tensor_content`` and ``SerializeToString``, or ``FromString`` and ``MakeNdarray``'s copy.
GB/s = 0.1 / seconds for the 100 MB cases. Target: serialize and parse >= 1 GB/s (<= 100 ms).
"""

import numpy as np
from harness import Compare, case

import ember
from ember import io

try:
    from tensorboard.compat.proto import tensor_pb2 as tf_tensor_pb2
except ImportError:  # the protobuf columns are skipped
    tf_tensor_pb2 = None

BIG = 25_000_000  # float32 elements: 100 MB


def _big():
    array = np.random.default_rng(0).standard_normal(BIG, dtype=np.float32)
    return array, ember.from_numpy(array)


def _tf_proto(array):
    proto = tf_tensor_pb2.TensorProto(dtype=1, tensor_content=array.tobytes())
    proto.tensor_shape.dim.add(size=array.size)
    return proto


@case("tensorproto/serialize_tensor 100MB f32", note="GB/s = 0.1 / seconds; target >= 1 GB/s (<= 100 ms)",
      compare=(Compare("protobuf/ember", "protobuf", "ember", target=1.0), Compare("ember/numpy (copies)", "ember", "numpy")))
def _serialize():
    array, t = _big()
    impls = {"ember": lambda: io.serialize_tensor(t), "numpy": array.tobytes}
    if tf_tensor_pb2 is not None:
        impls["protobuf"] = lambda: _tf_proto(array).SerializeToString()
    return impls


@case("tensorproto/parse_tensor 100MB f32", note="GB/s = 0.1 / seconds; target >= 1 GB/s (<= 100 ms); result writable",
      compare=(Compare("protobuf/ember", "protobuf", "ember", target=1.0), Compare("ember/numpy (copies)", "ember", "numpy")))
def _parse():
    array, t = _big()
    data = io.serialize_tensor(t)
    offset = len(data) - array.nbytes
    impls = {
        "ember": lambda: io.parse_tensor(data),
        "numpy": lambda: np.frombuffer(data, np.float32, offset=offset).copy(),
    }
    if tf_tensor_pb2 is not None:
        impls["protobuf"] = lambda: np.frombuffer(tf_tensor_pb2.TensorProto.FromString(data).tensor_content, np.float32).copy()
    return impls


@case("tensorproto/to_proto+from_proto content 100MB f32", note="the message objects: protobuf copies bytes into and out of its own memory",
      compare=(Compare("protobuf/ember", "protobuf", "ember"),))
def _message_content():
    array, t = _big()
    impls = {"ember": lambda: io.from_proto(io.to_proto(t))}
    if tf_tensor_pb2 is not None:
        impls["protobuf"] = lambda: np.frombuffer(_tf_proto(array).tensor_content, np.float32).copy()
    return impls


def _fields_case(dtype, field, values):
    t = ember.from_numpy(values)

    def protobuf():
        proto = tf_tensor_pb2.TensorProto(dtype=dtype.tf_enum)
        proto.tensor_shape.dim.add(size=values.size)
        getattr(proto, field).extend(values.tolist())
        return np.array(list(getattr(proto, field)), dtype=values.dtype)

    impls = {"ember": lambda: io.from_proto(io.to_proto(t, encoding="fields"))}
    if tf_tensor_pb2 is not None:
        impls["protobuf"] = protobuf
    return impls


@case("tensorproto/fields to_proto+from_proto 1M f32", note="typed float_val; protobuf: extend(tolist()) and list() back",
      compare=(Compare("protobuf/ember", "protobuf", "ember"),))
def _fields_f32():
    return _fields_case(ember.float32, "float_val", np.random.default_rng(1).standard_normal(1_000_000, dtype=np.float32))


@case("tensorproto/fields to_proto+from_proto 1M i32", note="typed int_val (varints, values in +-1000)",
      compare=(Compare("protobuf/ember", "protobuf", "ember"),))
def _fields_i32():
    return _fields_case(ember.int32, "int_val", np.random.default_rng(2).integers(-1000, 1000, 1_000_000, dtype=np.int32))


@case("tensorproto/serialize+parse 3x3 f32", note="per-call overhead of a small tensor",
      compare=(Compare("protobuf/ember", "protobuf", "ember"),))
def _small():
    array = np.arange(9, dtype=np.float32).reshape(3, 3)
    t = ember.from_numpy(array)
    impls = {"ember": lambda: io.parse_tensor(io.serialize_tensor(t))}
    if tf_tensor_pb2 is not None:
        def protobuf():
            proto = tf_tensor_pb2.TensorProto(dtype=1, tensor_content=array.tobytes())
            proto.tensor_shape.dim.add(size=3)
            proto.tensor_shape.dim.add(size=3)
            back = tf_tensor_pb2.TensorProto.FromString(proto.SerializeToString())
            return np.frombuffer(back.tensor_content, np.float32).copy().reshape([d.size for d in back.tensor_shape.dim])
        impls["protobuf"] = protobuf
    return impls
