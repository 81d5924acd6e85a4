"""A TensorFlow 1 program with summaries, a traced run, tf.errors and tf.gfile, run as written on ember."""

import numpy as np
import pytest

import ember.compat.v1 as tf

PROGRAM_NAMES = {
    "summary": [
        "FileWriter",
        "FileWriterCache",
        "Event",
        "SessionLog",
        "Summary",
        "TaggedRunMetadata",
        "audio",
        "histogram",
        "image",
        "merge",
        "merge_all",
        "scalar",
        "tensor_summary",
        "text",
    ],
    "gfile": [
        "Copy",
        "DeleteRecursively",
        "Exists",
        "FastGFile",
        "GFile",
        "Glob",
        "IsDirectory",
        "ListDirectory",
        "MakeDirs",
        "MkDir",
        "Open",
        "Remove",
        "Rename",
        "Stat",
        "Walk",
    ],
}


def _program(tf, logdir, implicit=True):
    """Written against TensorFlow 1's API: returns what it read back and what it caught.
    ``implicit``: in the implicit default graph (else in the caller's graph block)."""
    if implicit:
        tf.disable_eager_execution()
    x = tf.placeholder(tf.float32, [None], name="x")
    scale = tf.Variable(2.0, name="scale")
    y = x * scale
    with tf.name_scope("metrics"):
        tf.summary.scalar("scale", scale)
    tf.summary.histogram("y", y)
    merged = tf.summary.merge_all()
    caught = []
    with tf.Session() as sess:
        try:
            sess.run(y, {x: [1.0]})
        except tf.errors.FailedPreconditionError as error:
            caught.append(("FailedPrecondition", error.error_code))
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter(logdir, sess.graph)
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        metadata = tf.RunMetadata()
        for step in range(3):
            summary = sess.run(merged, {x: np.arange(4, dtype=np.float32) + step}, options=options, run_metadata=metadata)
            writer.add_summary(summary, step)
        writer.add_run_metadata(metadata, "step2", 2)
        writer.close()
        try:
            sess.run(merged)
        except tf.errors.InvalidArgumentError as error:
            caught.append(("InvalidArgument", error.error_code))
    try:
        tf.gfile.GFile(logdir + "/missing.txt").read()
    except tf.errors.NotFoundError as error:
        caught.append(("NotFound", error.error_code))
    parsed = tf.Summary.FromString(summary)
    events = tf.gfile.Glob(logdir + "/events.out.tfevents.*")
    return [v.tag for v in parsed.value], parsed.value[0].simple_value, len(events), bool(metadata.step_stats.dev_stats), caught


def test_the_program_runs_on_ember(tmp_path):
    tags, scale, files, traced, caught = _program(tf, str(tmp_path))
    assert tags == ["metrics/scale", "y"] and scale == 2.0 and files == 1 and traced
    assert caught == [("FailedPrecondition", 9), ("InvalidArgument", 3), ("NotFound", 5)]
    for module, names in PROGRAM_NAMES.items():
        assert all(hasattr(getattr(tf, module), n) for n in names)


def test_tensorboard_reads_the_program_logs(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _program(tf, str(tmp_path))
    acc = EventAccumulator(str(tmp_path), size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    assert [e.step for e in acc.Scalars("metrics/scale")] == [0, 1, 2]
    assert acc.Histograms("y")[2].histogram_value.sum == pytest.approx(2.0 * sum(np.arange(4) + 2))
    assert acc.Tags()["run_metadata"] == ["step2"] and acc.Tags()["graph"]


def test_tensorflow_runs_the_same_program(tmp_path):
    real = pytest.importorskip("tensorflow")
    with real.compat.v1.Graph().as_default():  # not TensorFlow's process-wide switch: later tests use its eager mode
        theirs = _program(real.compat.v1, str(tmp_path / "tf"), implicit=False)
    ours = _program(tf, str(tmp_path / "ember"))
    assert ours == theirs
    for module, names in PROGRAM_NAMES.items():
        assert all(hasattr(getattr(real.compat.v1, module), n) for n in names)
