"""Graph export: GraphDef (read back by TensorFlow's own message classes from tensorboard),
write_graph, TensorBoard event files (CRC32C and TFRecord framing), Graphviz DOT, and the
proto compiler features graph.proto needs (map, oneof, import)."""

import os
import re
import struct

import numpy as np
import pytest
from google.protobuf import text_format

import ember
from ember.graph import crc32c, export, summary
from ember.graph.proto import AttrValue, Event, GraphDef, NodeDef
from ember.graph.symbolic import TensorShape, unknown_dim
from ember.interop.proto.compiler import ProtoSyntaxError, compile_proto

G = ember.graph


def build_graph():
    """A small graph with every feature export handles: Const, Placeholder with an unknown
    size, a name scope, a two-input op, primitive attrs, a control input and a variable."""
    g = G.Graph()
    with g.as_default():
        a = G.constant(3.0, dtype=ember.float32, name="a")
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        G.placeholder(ember.int64, shape=None, name="u")
        with G.name_scope("layer"):
            y = ember.matmul(x, ember.ones(3, 2)) + a
            s = y.sum(1)
        with G.control_dependencies([s.op]):
            G.no_op(name="done")
        G.Variable(ember.zeros(2), name="v")
    return g, s


# ------------------------------------------------------------------------------ GraphDef

def test_graph_def_nodes_inputs_and_attrs():
    g, s = build_graph()
    gd = export.as_graph_def(g)
    nodes = {n.name: n for n in gd.node}
    assert [n.name for n in gd.node] == [op.name for op in g.get_operations()]
    for op in g.get_operations():
        assert nodes[op.name].op == op.type
    assert nodes["a"].op == "Const" and nodes["x"].op == "Placeholder"
    matmul = next(n for n in gd.node if n.op == "MatMul")
    assert list(matmul.input) == ["x", next(n.name for n in gd.node if n.name.startswith("layer/") and n.op == "Fill")]
    add = next(n for n in gd.node if n.op == "AddV2")
    assert list(add.input) == [matmul.name, "a"]
    assert add.attr["T"].type == 1  # DT_FLOAT
    assert list(nodes["done"].input) == [f"^{s.op.name}"]
    assert nodes[s.op.name].attr["dims"].list.i == [1] and nodes[s.op.name].attr["keepdim"].WhichOneof("value") == "b"
    assert "dtype" not in nodes[s.op.name].attr  # None attrs are left out
    # Const value round-trips through ember.io
    assert nodes["a"].attr["dtype"].type == 1
    assert ember.io.from_proto(nodes["a"].attr["value"].tensor).item() == 3.0
    # Placeholder shapes: -1 for an unknown size, unknown_rank for an unknown shape
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 3]
    assert nodes["u"].attr["shape"].shape.unknown_rank and nodes["u"].attr["dtype"].type == 9
    assert gd.versions.producer == export.GRAPH_DEF_VERSION
    assert "_output_shapes" not in nodes["x"].attr


def test_second_output_is_spelled_with_its_index():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(4, 3), name="x")
        values, indices = ember.max(x, 1)
        y = indices + 1
        z = values * 2
    nodes = {n.name: n for n in export.as_graph_def(g).node}
    assert list(nodes[y.op.name].input) == [f"{indices.op.name}:1"]
    assert list(nodes[z.op.name].input) == [values.op.name]
    assert list(nodes[indices.op.name].attr["out_types"].list.type) == [1, 9]
    assert f'"{indices.op.name}" -> "{y.op.name}" [label="(4,) int64"]' in export.to_dot(g)


def test_add_shapes_and_from_version():
    g, s = build_graph()
    gd = export.as_graph_def(g, add_shapes=True)
    shapes = {n.name: [[d.size for d in sh.dim] for sh in n.attr["_output_shapes"].list.shape] for n in gd.node}
    assert shapes["x"] == [[-1, 3]] and shapes[s.op.name] == [[-1]] and shapes["done"] == []
    assert next(n for n in gd.node if n.name == "u").attr["_output_shapes"].list.shape[0].unknown_rank
    later = export.as_graph_def(g, from_version=3)
    assert [n.name for n in later.node] == [op.name for op in g.get_operations()[3:]]


def test_graph_def_parses_with_tensorflows_messages():
    graph_pb2 = pytest.importorskip("tensorboard.compat.proto.graph_pb2")
    g, _ = build_graph()
    ours = export.as_graph_def(g, add_shapes=True)
    theirs = graph_pb2.GraphDef.FromString(ours.SerializeToString())
    assert theirs.SerializeToString(deterministic=True) == ours.SerializeToString(deterministic=True)
    assert [(n.name, n.op, list(n.input), n.device) for n in theirs.node] == \
        [(n.name, n.op, list(n.input), n.device) for n in ours.node]
    for a, b in zip(ours.node, theirs.node, strict=True):
        assert sorted(a.attr) == sorted(b.attr)
        for key in a.attr:
            assert a.attr[key].SerializeToString(deterministic=True) == b.attr[key].SerializeToString(deterministic=True)
    const = next(n for n in theirs.node if n.name == "a")
    assert const.attr["value"].tensor.tensor_content == np.float32(3.0).tobytes()
    assert theirs.versions.producer == ours.versions.producer
    # and back: TensorFlow's bytes parse into ember's messages
    assert GraphDef.FromString(theirs.SerializeToString()) == ours


@pytest.mark.parametrize(("value", "field", "expected"), [
    (True, "b", True), (7, "i", 7), (2.5, "f", 2.5), ("same", "s", b"same"), (ember.int32, "type", 3),
    ((1, 2, 3), "list.i", [1, 2, 3]), ((1.5, 2), "list.f", [1.5, 2.0]), ((True, False), "list.b", [True, False]),
    (("a", "b"), "list.s", [b"a", b"b"]), ((ember.float64, ember.bool), "list.type", [2, 10]),
    ((unknown_dim(), 4), "list.i", [-1, 4]), (unknown_dim(), "i", -1), (1 + 2j, "s", b"(1+2j)"),
])
def test_attr_value_by_python_type(value, field, expected):
    attr = export.attr_value(value)
    target = attr
    for part in field.split("."):
        target = getattr(target, part)
    assert (list(target) if field.startswith("list") else target) == expected
    assert attr.WhichOneof("value") == field.split(".")[0]


def test_attr_value_none_empty_shape_and_tensor():
    assert export.attr_value(None) is None
    empty = export.attr_value(())
    assert empty.WhichOneof("value") == "list" and not empty.list.i
    shape = export.attr_value(TensorShape([None, 2]))
    assert [d.size for d in shape.shape.dim] == [-1, 2]
    t = export.attr_value(ember.tensor([[1, 2]], dtype=ember.int16))
    assert ember.io.from_proto(t.tensor).tolist() == [[1, 2]]
    strings = export.attr_value(ember.tensor([b"ab", b"c"], dtype=ember.string))
    assert list(strings.tensor.string_val) == [b"ab", b"c"]


def test_node_def_property_of_operation():
    g, _ = build_graph()
    x = g.get_tensor_by_name("x:0")
    assert x.op.node_def.name == "x" and x.op.node_def.op == "Placeholder"
    assert export.node_def(x.op) == x.op.node_def
    assert isinstance(g.as_graph_def(), GraphDef)


def test_write_graph_text_and_binary(tmp_path):
    g, _ = build_graph()
    expected = export.as_graph_def(g)
    path = export.write_graph(g, tmp_path / "sub", "graph.pbtxt")
    assert path == os.path.join(tmp_path, "sub", "graph.pbtxt")
    with open(path) as f:
        assert text_format.Parse(f.read(), GraphDef()) == expected
    path = export.write_graph(expected, tmp_path, "graph.pb", as_text=False)
    with open(path, "rb") as f:
        assert GraphDef.FromString(f.read()) == expected
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


# ------------------------------------------------------------------------------ DOT

def test_to_dot_has_every_node_edge_and_cluster():
    g, s = build_graph()
    dot = export.to_dot(g)
    assert dot.startswith('digraph "G" {') and dot.rstrip().endswith("}")
    assert dot.count("{") == dot.count("}")
    for op in g.get_operations():
        assert re.search(rf'^\s*"{re.escape(op.name)}" \[label="[^"]*\\n{re.escape(op.type)}"', dot, re.M), op.name
        for t in op.inputs:
            assert f'"{t.op.name}" -> "{op.name}" [label="{t.get_shape()} {t.dtype.name}"]' in dot
    assert '"x" -> "layer/MatMul" [label="(None, 3) float32"]' in dot
    assert f'"{s.op.name}" -> "done" [style=dashed];' in dot
    cluster = re.search(r'subgraph cluster_\d+ \{\n\s*label="layer";(.*?)\n  \}', dot, re.S)
    assert cluster and '"layer/MatMul"' in cluster.group(1) and '"x"' not in cluster.group(1)
    assert re.search(r'label="v";[^}]*"v" \[label="v\\nVariableV2"', dot)  # the variable sits in its scope


def test_to_dot_escapes_quotes():
    class Op:
        name, type, inputs, control_inputs = 'we"ird\\name', "Const", (), ()
    class Graph:
        def get_operations(self):
            return [Op()]
    assert '"we\\"ird\\\\name"' in export.to_dot(Graph())


# ------------------------------------------------------------------------------ CRC32C and TFRecords

@pytest.mark.parametrize(("data", "crc"), [
    (b"", 0), (b"123456789", 0xE3069283), (bytes(32), 0x8A9136AA), (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E), (bytes(range(31, -1, -1)), 0x113FDB5C),  # RFC 3720 B.4
])
def test_crc32c_vectors(data, crc):
    assert summary.crc32c(data) == crc


def test_crc32c_long_path_and_continuation():
    data = np.random.default_rng(0).integers(0, 256, 300_001, dtype=np.uint8).tobytes()
    slow = crc32c._update(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    assert summary.crc32c(data) == slow  # long path: NumPy lanes folded with the zeros operator
    assert summary.crc32c(data[1000:], summary.crc32c(data[:1000])) == slow
    assert summary.crc32c(data[:-1]) != slow


def test_masked_crc_matches_tensorboard():
    pw = pytest.importorskip("tensorboard.compat.tensorflow_stub.pywrap_tensorflow")
    for data in (b"", b"abc", bytes(range(256)) * 3):
        assert summary.masked_crc32c(data) == pw.masked_crc32c(data)
        assert summary.crc32c(data) == pw.crc32c(data)


def test_tfrecord_framing_and_corruption(tmp_path):
    path = tmp_path / "r"
    payloads = [b"", b"hello", bytes(1000)]
    path.write_bytes(b"".join(summary.tfrecord(p) for p in payloads))
    assert list(summary.read_records(path)) == payloads
    raw = bytearray(path.read_bytes())
    assert struct.unpack("<Q", raw[:8]) == (0,)
    for index, message in ((3, "length"), (12 + 4 + 12 + 2, "data")):
        bad = bytearray(raw)
        bad[index] ^= 1
        path.write_bytes(bytes(bad))
        with pytest.raises(ValueError, match=f"bad CRC on a record's {message}"):
            list(summary.read_records(path))
    path.write_bytes(bytes(raw[:-1]))
    with pytest.raises(ValueError, match="truncated record"):
        list(summary.read_records(path))


# ------------------------------------------------------------------------------ event files

def read_events(path):
    return [Event.FromString(r) for r in summary.read_records(path)]


def test_file_writer_writes_version_then_graph(tmp_path):
    g, _ = build_graph()
    with summary.FileWriter(tmp_path, graph=g) as writer:
        path = writer.path
        assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\..+", os.path.basename(path))
    events = read_events(path)
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def"]
    assert events[0].file_version == "brain.Event:2" and events[0].wall_time > 1e9
    graph_def = GraphDef.FromString(events[1].graph_def)
    assert [n.name for n in graph_def.node] == [op.name for op in g.get_operations()]
    assert "_output_shapes" in graph_def.node[0].attr  # TensorFlow's add_graph adds shapes
    with pytest.raises(RuntimeError, match="closed"):
        writer.add_graph(g)


def test_file_writers_in_one_second_do_not_collide(tmp_path):
    with summary.FileWriter(tmp_path) as w1, summary.FileWriter(tmp_path, graph_def=export.as_graph_def(build_graph()[0])) as w2:
        assert w1.path != w2.path
        assert len(read_events(w2.path)) == 2  # readable before close: events are flushed as added
    assert len(read_events(w1.path)) == 1 and len(read_events(w2.path)) == 2


def test_tensorboard_reads_the_event_file(tmp_path):
    loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    g, _ = build_graph()
    with summary.FileWriter(tmp_path, graph=g) as writer:
        path = writer.path
    from tensorboard.compat.proto import event_pb2
    raw = list(loader.RawEventFileLoader(path).Load())  # stops at a bad CRC, so both must be there
    events = [event_pb2.Event.FromString(r) for r in raw]
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def"]
    assert events[0].file_version == "brain.Event:2"
    # the loader TensorBoard serves from also derives a graph summary from the graph event
    kinds = [e.WhichOneof("what") for e in loader.EventFileLoader(path).Load()]
    assert kinds[:2] == ["file_version", "graph_def"]
    acc = accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [n.name for n in acc.Graph().node] == [op.name for op in g.get_operations()]


# ------------------------------------------------------------------------------ messages and compiler

def test_descriptors_match_tensorflow():
    pytest.importorskip("tensorboard.compat.proto.graph_pb2")
    from tensorboard.compat.proto import attr_value_pb2, event_pb2, graph_pb2, node_def_pb2, versions_pb2
    pairs = [(GraphDef, graph_pb2.GraphDef), (NodeDef, node_def_pb2.NodeDef), (AttrValue, attr_value_pb2.AttrValue),
             (AttrValue.ListValue, attr_value_pb2.AttrValue.ListValue), (Event, event_pb2.Event),
             (NodeDef.AttrEntry if hasattr(NodeDef, "AttrEntry") else None, node_def_pb2.NodeDef.AttrEntry),
             (summary.Event.DESCRIPTOR.file.pool.FindMessageTypeByName("ember.VersionDef"), versions_pb2.VersionDef)]
    for ours, theirs in pairs:
        if ours is None:
            continue
        od = getattr(ours, "DESCRIPTOR", ours)
        td = theirs.DESCRIPTOR
        assert od.GetOptions().map_entry == td.GetOptions().map_entry
        for f in od.fields:
            t = td.fields_by_name[f.name]
            assert (f.number, f.type, f.is_repeated if hasattr(f, "is_repeated") else f.label) == \
                (t.number, t.type, t.is_repeated if hasattr(t, "is_repeated") else t.label), f.full_name
            assert (f.containing_oneof and f.containing_oneof.name) == (t.containing_oneof and t.containing_oneof.name)
            assert f.GetOptions().packed == t.GetOptions().packed, f.full_name
            if f.message_type:
                assert f.message_type.name == t.message_type.name
    node_attr = NodeDef.DESCRIPTOR.fields_by_name["attr"]
    assert node_attr.message_type.GetOptions().map_entry and node_attr.message_type.name == "AttrEntry"


def test_compiler_map_oneof_and_import():
    dep = compile_proto('syntax = "proto3"; package base; enum Kind { K0 = 0; } message Leaf { int32 v = 1; }', "base.proto")
    fd = compile_proto("""
        syntax = "proto3"; package demo; import "base.proto";
        message M {
          map<string, base.Leaf> leaves = 1;
          map<int64, base.Kind> kinds_by_id = 2;
          oneof choice { string s = 3; base.Leaf leaf = 4; }
          repeated base.Kind kinds = 5 [packed = true];
        }""", "demo.proto", [dep])
    m = fd.message_type[0]
    assert list(fd.dependency) == ["base.proto"]
    assert [t.name for t in m.nested_type] == ["LeavesEntry", "KindsByIdEntry"]
    entry = m.nested_type[1]
    assert entry.options.map_entry and [(f.name, f.number) for f in entry.field] == [("key", 1), ("value", 2)]
    assert entry.field[1].type_name == ".base.Kind" and m.field[0].type_name == ".demo.M.LeavesEntry"
    assert m.field[0].label == m.field[0].LABEL_REPEATED
    assert [d.name for d in m.oneof_decl] == ["choice"]
    assert [f.name for f in m.field if f.HasField("oneof_index")] == ["s", "leaf"]
    assert m.field[4].options.packed


@pytest.mark.parametrize(("text", "message"), [
    ("message A { map<float, int32> m = 1; }", r"a map key must be an integral or string type, not 'float'"),
    ("message A { repeated map<string, int32> m = 1; }", r"a map field can't be 'repeated'"),
    ("message A { oneof o { repeated int32 a = 1; } }", r"a oneof field can't be 'repeated'"),
    ("message A { oneof o { } }", r"oneof A.o has no fields"),
    ('import "nope.proto";', r"import \"nope.proto\" names no file given to compile_proto"),
    ("message B {} message A { repeated B b = 1 [packed = true]; }", r"\[packed\] needs a repeated numeric field"),
    ("message A { map<string, int32> m = 1; message MEntry {} }", r"A.MEntry is declared twice"),
])
def test_compiler_errors_for_new_syntax(text, message):
    with pytest.raises(ProtoSyntaxError, match=message):
        compile_proto('syntax = "proto3"; ' + text, "x.proto")
