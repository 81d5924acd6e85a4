"""Session.run's options= and run_metadata=: traced node timings, partition graphs, deadlines."""

import time

import numpy as np
import pytest

import ember
from ember.graph import errors, summary as S
from ember.graph.proto import GraphDef, RunMetadata, RunOptions
from ember.graph.run.plan import register_graph_kernel
from ember.graph.run_metadata import CPU_DEVICE
from ember.graph.symbolic import TensorShape

FULL = RunOptions(trace_level=RunOptions.FULL_TRACE)


def _model():
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float32, shape=(None, 3), name="x")
        w = ember.Variable(np.ones((3, 2), np.float32), name="w")
        y = ember.matmul(x, w) + 1.0
        step = ember.assign_add(w, np.full((3, 2), 0.5, np.float32))
    return g, x, w, y, step


def _stats(metadata):
    (device,) = metadata.step_stats.dev_stats
    assert device.device == CPU_DEVICE
    return list(device.node_stats)


@pytest.mark.parametrize("options", [{}, {"optimize": False, "specialize": False}])
def test_full_trace_reports_each_node(options):
    g, x, w, y, _step = _model()
    sess = ember.Session(graph=g, **options)
    sess.run(w.initializer)
    feed = {x: np.arange(6, dtype=np.float32).reshape(2, 3)}
    expected = sess.run(y, feed)
    metadata = RunMetadata()
    before = time.time_ns()
    traced = sess.run(y, feed, options=FULL, run_metadata=metadata)
    after = time.time_ns()
    np.testing.assert_array_equal(traced, expected)
    stats = _stats(metadata)
    assert stats, "a traced run reports the nodes it ran"
    by_name = {s.node_name: s for s in stats}
    assert set(by_name) <= {op.name for op in g.get_operations()} | {s.node_name for s in stats if "Fused" in s.timeline_label}
    last = stats[-1]
    (output,) = last.output
    assert output.tensor_description.dtype == ember.float32.tf_enum
    assert [d.size for d in output.tensor_description.shape.dim] == [2, 2]
    for s in stats:
        assert before <= s.all_start_nanos <= after
        assert s.all_start_micros == s.all_start_nanos // 1000
        assert 0 <= s.op_end_rel_nanos <= after - before
        assert s.timeline_label.startswith(f"{s.node_name} = ")
    starts = [s.all_start_nanos for s in stats]
    assert starts == sorted(starts)


def test_timeline_label_names_inputs():
    with ember.Graph().as_default() as g:
        a = ember.placeholder(ember.float32, shape=(), name="a")
        b = ember.identity(a, name="b")
    metadata = RunMetadata()
    ember.Session(graph=g, optimize=False).run(b, {a: 1.0}, options=FULL, run_metadata=metadata)
    assert [s.timeline_label for s in _stats(metadata)] == ["b = Identity(a)"]


def test_no_trace_leaves_metadata_empty_and_training_still_works():
    g, _x, w, _y, step = _model()
    sess = ember.Session(graph=g)
    sess.run(w.initializer)
    metadata = RunMetadata()
    metadata.partition_graphs.add()  # stale content is replaced
    sess.run(step, run_metadata=metadata)
    assert metadata == RunMetadata()
    sess.run(step, options=RunOptions(), run_metadata=metadata)
    assert not metadata.HasField("step_stats")
    traced = RunMetadata()
    sess.run(step, options=FULL, run_metadata=traced)
    np.testing.assert_array_equal(sess.run(w), np.full((3, 2), 2.5, np.float32))
    assert any(s.node_name == step.op.name for s in _stats(traced))
    sess.run(step, options=FULL)  # tracing without a RunMetadata to fill: just runs
    np.testing.assert_array_equal(sess.run(w), np.full((3, 2), 3.0, np.float32))


def test_partition_graphs():
    g, x, w, y, step = _model()
    sess = ember.Session(graph=g)
    sess.run(w.initializer)
    metadata = RunMetadata()
    sess.run(y, {x: np.ones((1, 3), np.float32)}, options=RunOptions(output_partition_graphs=True), run_metadata=metadata)
    (graph_def,) = metadata.partition_graphs
    names = {n.name for n in graph_def.node}
    assert {"x", "w"} <= names and y.op.name in names
    assert "w/Assign" not in names and step.op.name not in names  # only what this run needed
    assert not metadata.HasField("step_stats")
    assert GraphDef.FromString(graph_def.SerializeToString()) == graph_def


def test_deadline_exceeded():
    def slow(op, inputs):
        time.sleep(0.05)
        return (inputs[0],)

    register_graph_kernel("TestSlowIdentity", slow)
    with ember.Graph().as_default() as g:
        a = ember.placeholder(ember.float32, shape=(), name="a")
        out = a
        for _ in range(3):
            out = g.create_op("TestSlowIdentity", (out,), {}, [((), TensorShape(()), ember.float32)], name="slow").outputs[0]
    sess = ember.Session(graph=g)
    with pytest.raises(errors.DeadlineExceededError, match="Timed out") as info:
        sess.run(out, {a: 1.0}, options=RunOptions(timeout_in_ms=10))
    assert info.value.error_code == errors.DEADLINE_EXCEEDED and info.value.op.name == "slow"
    assert sess.run(out, {a: 2.0}, options=RunOptions(timeout_in_ms=60_000)) == 2.0
    assert sess.run(out, {a: 3.0}, options=RunOptions(timeout_in_ms=-5)) == 3.0  # not positive: no deadline


def test_bad_arguments():
    g, _x, w, _y, _step = _model()
    sess = ember.Session(graph=g)
    with pytest.raises(TypeError, match="options must be a RunOptions"):
        sess.run(w.initializer, options="trace")
    with pytest.raises(TypeError, match="run_metadata must be a RunMetadata"):
        sess.run(w.initializer, options=FULL, run_metadata={})


def test_tensorboard_classes_and_file_writer(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.compat.proto import config_pb2

    g, x, w, y, _step = _model()
    sess = ember.Session(graph=g)
    sess.run(w.initializer)
    metadata = config_pb2.RunMetadata()
    options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
    sess.run(y, {x: np.ones((4, 3), np.float32)}, options=options, run_metadata=metadata)
    assert metadata.step_stats.dev_stats[0].node_stats
    with S.FileWriter(tmp_path) as writer:
        writer.add_run_metadata(metadata, "step_1", global_step=1)
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["run_metadata"] == ["step_1"]
    assert acc.RunMetadata("step_1").step_stats.dev_stats[0].device == CPU_DEVICE


def test_tensorflow_options_accepted():
    tf = pytest.importorskip("tensorflow")
    with ember.Graph().as_default() as g:
        a = ember.placeholder(ember.float32, shape=(), name="a")
        b = a * 2.0
    metadata = tf.compat.v1.RunMetadata()
    options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE, output_partition_graphs=True)
    assert ember.Session(graph=g).run(b, {a: 1.5}, options=options, run_metadata=metadata) == 3.0
    assert [n.node_name for n in metadata.step_stats.dev_stats[0].node_stats] == [b.op.name]
    assert {n.name for n in metadata.partition_graphs[0].node} == {"a", b.op.name} | {i.op.name for i in b.op.inputs}
