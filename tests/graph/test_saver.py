"""tf.train.Saver: round trips of every dtype, global_step names, max_to_keep, the state file,
subset and renamed restores, TensorFlow's error texts; where TensorFlow is installed, it restores
ember's checkpoints (and rebuilds the graph from the .meta file) and ember restores its."""

import os

import numpy as np
import pytest
from google.protobuf import text_format

import ember
from ember.graph.checkpoint import (
    checkpoint_exists,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_variable,
    update_checkpoint_state,
)
from ember.graph.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from ember.graph.proto.checkpoint import CheckpointState, MetaGraphDef, VariableDef
from ember.graph.saver import Saver, export_meta_graph

from .test_checkpoint_format import VALUES, _assert_same, _tensor


def _graph_with(values: dict, prefix: str = "v/"):
    """A graph with a variable per value, and a session holding the values (loaded directly:
    string variables are not run through an initializer)."""
    with ember.Graph().as_default() as g:
        variables = {k: ember.Variable(v if v.dtype != object else _tensor(v), name=prefix + k) for k, v in values.items()}
    sess = ember.Session(graph=g, specialize=False)  # static plans do not fetch string variables yet
    for k, v in values.items():
        variables[k].load(_tensor(v), sess)
    return g, variables, sess


# ------------------------------------------------------------------------------------------- Saver


def test_round_trip_of_every_dtype(tmp_path):
    g, variables, sess = _graph_with(VALUES)
    with g.as_default():
        saver = Saver()
    prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
    assert prefix == str(tmp_path / "model.ckpt")
    for k, v in VALUES.items():  # overwrite, then restore
        variables[k].load(_tensor(np.zeros_like(v) if v.dtype != object else np.array([b"?"] * v.size, dtype=object)), sess)
    saver.restore(sess, prefix)
    for k, v in VALUES.items():
        _assert_same(np.asarray(sess.run(variables[k])), v)
    assert list_variables(str(tmp_path)) == sorted((f"v/{k}", list(v.shape)) for k, v in VALUES.items())


def test_saver_adds_no_nodes(tmp_path):
    with ember.Graph().as_default() as g:
        ember.Variable([1.0], name="w")
        before = len(g._ops)
        Saver()
        after = ember.constant(1.0)
    assert len(g._ops) == before + 1 and after.op.name == "Const"


def _simple(value=(1.0, 2.0), name="w", dtype=None):
    with ember.Graph().as_default() as g:
        w = ember.Variable(list(value), name=name, dtype=dtype)
        step = ember.Variable(5, name="global_step", trainable=False)
        init = ember.global_variables_initializer()
    sess = ember.Session(graph=g)
    sess.run(init)
    return g, w, step, sess


def test_global_step_names_and_meta_graph(tmp_path):
    g, _w, step, sess = _simple()
    with g.as_default():
        saver = Saver(pad_step_number=False)
    base = str(tmp_path / "model.ckpt")
    assert saver.save(sess, base, global_step=100) == base + "-100"
    assert saver.save(sess, base, global_step=np.int64(101)) == base + "-101"
    assert saver.save(sess, base, global_step=step) == base + "-5"
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["checkpoint"] + [f"model.ckpt-{s}{x}" for s in (5, 100, 101) for x in (".index", ".data-00000-of-00001", ".meta")]
    )
    with open(base + "-100.meta", "rb") as f:
        meta = MetaGraphDef.FromString(f.read())
    assert {"w", "w/Assign", "w/read", "global_step"} <= {n.name for n in meta.graph_def.node}
    variables = [VariableDef.FromString(b) for b in meta.collection_def["variables"].bytes_list.value]
    assert [(v.variable_name, v.initializer_name, v.snapshot_name, v.trainable) for v in variables] == [
        ("w:0", "w/Assign", "w/read:0", True),
        ("global_step:0", "global_step/Assign", "global_step/read:0", False),
    ]
    assert len(meta.collection_def["trainable_variables"].bytes_list.value) == 1
    with g.as_default():
        padded = Saver(pad_step_number=True)
    assert padded.save(sess, base, global_step=7, write_meta_graph=False) == base + "-00000007"
    assert not os.path.exists(base + "-00000007.meta")
    with pytest.raises(TypeError, match="global_step"):
        saver.save(sess, base, global_step=1.5)


def test_export_meta_graph(tmp_path):
    g, *_ = _simple()
    meta = export_meta_graph(str(tmp_path / "g.meta"), graph=g, as_text=True, collection_list=["trainable_variables"])
    assert list(meta.collection_def) == ["trainable_variables"]
    assert text_format.Parse((tmp_path / "g.meta").read_text(), MetaGraphDef()) == meta
    with g.as_default():
        assert export_meta_graph().graph_def == g.as_graph_def(add_shapes=True)  # the default graph
    with pytest.raises(ValueError, match="export_scope is not supported"):
        export_meta_graph(graph=g, export_scope="tower")


def test_max_to_keep_and_the_state_file(tmp_path):
    g, _w, _step, sess = _simple()
    with g.as_default():
        saver = Saver(max_to_keep=2)
    base = str(tmp_path / "model.ckpt")
    for s in (1, 2, 3):
        saver.save(sess, base, global_step=s)
    assert saver.last_checkpoints == [base + "-2", base + "-3"]
    assert not any(name.startswith("model.ckpt-1") for name in os.listdir(tmp_path))
    with open(tmp_path / "checkpoint") as f:  # TensorFlow's text, field for field
        assert f.read() == (
            f'model_checkpoint_path: "{base}-3"\nall_model_checkpoint_paths: "{base}-2"\nall_model_checkpoint_paths: "{base}-3"\n'
        )
    assert latest_checkpoint(str(tmp_path)) == base + "-3"
    assert list(get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == [base + "-2", base + "-3"]
    saver.save(sess, base, global_step=3)  # the same name again moves to the end, deletes nothing
    assert saver.last_checkpoints == [base + "-2", base + "-3"]
    with g.as_default():
        keep_all = Saver(max_to_keep=None)
    for s in (10, 11):
        keep_all.save(sess, base, global_step=s, write_meta_graph=False)
    assert keep_all.last_checkpoints == [] and checkpoint_exists(base + "-2") and checkpoint_exists(base + "-10")
    assert list(get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == [base + "-11"]


def test_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("ember.graph.saver.time.time", lambda: clock[0])
    g, _w, _step, sess = _simple()
    with g.as_default():
        saver = Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
    base = str(tmp_path / "m")
    for s, t in ((1, 1000.0), (2, 1000.0 + 3601), (3, 1000.0 + 3700), (4, 1000.0 + 3800)):
        clock[0] = t
        saver.save(sess, base, global_step=s, write_meta_graph=False)
    # 1 was written in the first hour: deleted; 2 is past the hour mark: kept; 3 deleted
    assert [checkpoint_exists(f"{base}-{s}") for s in (1, 2, 3, 4)] == [False, True, False, True]


def test_relative_paths(tmp_path, monkeypatch):
    g, _w, _step, sess = _simple()
    with g.as_default():
        saver = Saver(save_relative_paths=True)
    saver.save(sess, str(tmp_path / "model.ckpt"), global_step=1)
    with open(tmp_path / "checkpoint") as f:
        assert f.read() == 'model_checkpoint_path: "model.ckpt-1"\nall_model_checkpoint_paths: "model.ckpt-1"\n'
    assert latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-1")
    monkeypatch.chdir(tmp_path)
    with g.as_default():
        plain = Saver()
    assert plain.save(sess, "sub/model", write_meta_graph=False) == "sub/model"  # the last directory is made
    assert latest_checkpoint("sub") == os.path.join("sub", "model")
    with pytest.raises(ValueError, match=r"Parent directory of a/b/model doesn't exist, can't save\."):
        plain.save(sess, "a/b/model")


def test_state_file_written_by_tensorflow_with_timestamps(tmp_path):
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-1"\nall_model_checkpoint_paths: "ckpt-2"\n'
        "all_model_checkpoint_timestamps: 1700000000.5\nall_model_checkpoint_timestamps: 1700000100.25\n"
        "last_preserved_timestamp: 1699999999.0\n"
    )
    state = get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "ckpt-2")
    assert list(state.all_model_checkpoint_timestamps) == [1700000000.5, 1700000100.25]
    assert latest_checkpoint(str(tmp_path)) is None  # no such files
    (tmp_path / "checkpoint").write_text("garbage {")
    assert get_checkpoint_state(str(tmp_path)) is None
    update_checkpoint_state(str(tmp_path), "x", ["w", "x"], all_model_checkpoint_timestamps=[1.0, 2.0])
    assert text_format.Parse((tmp_path / "checkpoint").read_text(), CheckpointState()).all_model_checkpoint_timestamps == [
        1.0,
        2.0,
    ]


def test_subset_and_renamed_restore(tmp_path):
    g, w, step, sess = _simple()
    with g.as_default():
        Saver({"weights": w, "step": step}).save(sess, str(tmp_path / "m"), write_meta_graph=False)
        subset = Saver([w])
    w.load([9.0, 9.0], sess)
    step.load(9, sess)
    with pytest.raises(NotFoundError, match="Key w not found in checkpoint"):
        subset.restore(sess, str(tmp_path / "m"))
    g2, v, step2, sess2 = _simple(value=(0.0, 0.0), name="other")
    with g2.as_default():
        Saver({"weights": v}).restore(sess2, str(tmp_path / "m"))
    np.testing.assert_array_equal(sess2.run(v), [1.0, 2.0])
    assert sess2.run(step2) == 5  # not in var_list: untouched
    assert load_variable(str(tmp_path / "m"), "weights:0").tolist() == [1.0, 2.0]


def test_restore_errors_leave_values_alone(tmp_path):
    g, _w, _step, sess = _simple()
    with g.as_default():
        Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    g2, _w2, step2, sess2 = _simple(value=(0.0, 0.0, 0.0))
    with g2.as_default():
        saver = Saver()
    with pytest.raises(InvalidArgumentError) as info:
        saver.restore(sess2, str(tmp_path / "m"))
    assert "mismatch between the current graph and the graph from the checkpoint" in str(info.value)
    assert "Assign requires shapes of both tensors to match. lhs shape= [3] rhs shape= [2]" in str(info.value)
    assert sess2.run(step2) == 5  # global_step comes before w in no order that matters: nothing assigned
    g3, _w3, _step3, sess3 = _simple(value=(0, 0), dtype=ember.int32)
    with g3.as_default():
        bad_dtype = Saver()
    with pytest.raises(InvalidArgumentError, match="tensor_name = w; expected dtype int32 does not equal original dtype float"):
        bad_dtype.restore(sess3, str(tmp_path / "m"))
    g4, _w4, _, sess4 = _simple(value=(0.0, 0.0), name="w")
    with g4.as_default():
        extra = ember.Variable(1.0, name="missing")
        sess4.run(extra.initializer)
        missing = Saver()
    with pytest.raises(NotFoundError) as info:
        missing.restore(sess4, str(tmp_path / "m"))
    assert str(info.value).startswith(
        "Restoring from checkpoint failed. This is most likely due to a Variable name or other graph key that is missing"
    )
    assert str(info.value).endswith("Original error:\n\nKey missing not found in checkpoint")
    with pytest.raises(ValueError, match=r"^Can't load save_path when it is None\.$"):
        saver.restore(sess2, None)
    with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint: "):
        saver.restore(sess2, str(tmp_path / "nothing"))


def test_reshape_restore(tmp_path):
    g, _w, _step, sess = _simple(value=(1.0, 2.0, 3.0, 4.0))
    with g.as_default():
        Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    with ember.Graph().as_default() as g2:
        m = ember.Variable(np.zeros((2, 2), np.float32), name="w")
        saver = Saver([m], reshape=True)
    sess2 = ember.Session(graph=g2)
    saver.restore(sess2, str(tmp_path / "m"))
    np.testing.assert_array_equal(sess2.run(m), [[1.0, 2.0], [3.0, 4.0]])


def test_saver_argument_errors(tmp_path):
    g, w, _step, sess = _simple()
    with ember.Graph().as_default():
        with pytest.raises(ValueError, match=r"^No variables to save$"):
            Saver()
        empty = Saver(allow_empty=True)
        assert empty.save(sess, str(tmp_path / "e"), write_meta_graph=False) is None
    with g.as_default():
        with pytest.raises(ValueError, match="At least two variables have the same name: w"):
            Saver([w, w])
        with pytest.raises(TypeError, match="must hold ember Variables"):
            Saver([w.value()])
        with pytest.raises(TypeError, match="dict or a list"):
            Saver(w)
        with pytest.raises(ValueError, match="V2"):
            Saver(write_version=1)
        with pytest.raises(ValueError, match="cannot be deferred"):
            Saver([w], defer_build=True)
        deferred = Saver(defer_build=True)
        with pytest.raises(RuntimeError, match="`build\\(\\)` should be called before save"):
            deferred.save(sess, str(tmp_path / "d"))
        deferred.build()
        saver = Saver()
    assert deferred.save(sess, str(tmp_path / "d"), write_meta_graph=False) == str(tmp_path / "d")
    with pytest.raises(ValueError, match="'latest_filename' must not contain path components"):
        saver.save(sess, str(tmp_path / "m"), latest_filename="a/b")
    with pytest.raises(ValueError, match="'latest_filename' collides with 'save_path'"):
        saver.save(sess, str(tmp_path / "checkpoint"))
    with pytest.raises(TypeError, match="'sess' must be a Session"):
        saver.save(object(), str(tmp_path / "m"))
    other_graph = _simple()[3]
    with pytest.raises(ValueError, match="not an element of the session's graph"):
        saver.restore(other_graph, str(tmp_path / "d"))
    assert saver.save(sess, str(tmp_path / "m"), global_step=ember.tensor(12), write_meta_graph=False).endswith("m-12")
    fresh = ember.Session(graph=g)
    with pytest.raises(FailedPreconditionError, match="Attempting to use uninitialized value"):
        saver.save(fresh, str(tmp_path / "m"))


# --------------------------------------------------------------------------- TensorFlow, where installed


def test_tensorflow_restores_embers_checkpoint(tmp_path):
    tf = pytest.importorskip("tensorflow")
    g, _, sess = _graph_with(VALUES)
    with g.as_default():
        prefix = Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=3)
    tf1 = tf.compat.v1
    assert tf1.train.latest_checkpoint(str(tmp_path)) == prefix
    with tf.Graph().as_default():
        tf_vars = {}
        for k, v in VALUES.items():
            initial = tf1.constant([b""] * v.size) if v.dtype == object else tf1.zeros(v.shape, dtype=tf.as_dtype(v.dtype))
            tf_vars[k] = tf1.Variable(initial, name=f"v/{k}")
        with tf1.Session() as tf_sess:
            tf1.train.Saver().restore(tf_sess, prefix)
            restored = tf_sess.run(tf_vars)
    for k, v in VALUES.items():
        _assert_same(np.asarray(restored[k]), v)
    with tf.Graph().as_default():  # the .meta file: TensorFlow rebuilds the graph and a Saver for it
        saver = tf1.train.import_meta_graph(prefix + ".meta")
        with tf1.Session() as tf_sess:
            saver.restore(tf_sess, prefix)
            imported = {v.op.name: tf_sess.run(v) for v in tf1.global_variables()}
    assert sorted(imported) == sorted(f"v/{k}" for k in VALUES)
    for k, v in VALUES.items():
        _assert_same(np.asarray(imported[f"v/{k}"]), v)


def test_ember_restores_tensorflows_checkpoint(tmp_path):
    tf = pytest.importorskip("tensorflow")
    tf1 = tf.compat.v1
    values = VALUES
    with tf.Graph().as_default():
        tf_vars = [tf1.Variable(v, name=f"v/{k}") for k, v in values.items()]
        with tf1.Session() as tf_sess:
            tf_sess.run(tf1.variables_initializer(tf_vars))
            prefix = tf1.train.Saver(tf_vars).save(tf_sess, str(tmp_path / "tf.ckpt"), global_step=9)
    g, variables, sess = _graph_with(
        {k: (np.zeros_like(v) if v.dtype != object else np.array([b""] * v.size, dtype=object)) for k, v in values.items()}
    )
    with g.as_default():
        Saver().restore(sess, latest_checkpoint(str(tmp_path)))
    assert latest_checkpoint(str(tmp_path)) == prefix
    for k, v in values.items():
        _assert_same(np.asarray(sess.run(variables[k])), v)
