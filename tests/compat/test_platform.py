"""tf.ConfigProto, tf.app, tf.flags, tf.logging, tf.device."""

import logging as py_logging
import sys

import pytest

import ember.compat.v1 as tf
from ember.compat.v1 import platform


def test_config_proto_has_tensorflows_field_numbers_and_a_session_takes_it():
    config = tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": 0}, intra_op_parallelism_threads=2)
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.4
    # the bytes TensorFlow 2.21 writes for the same message
    assert config.SerializeToString().hex() == "0a070a0347505510001002320b099a9999999999d93f20013801"
    with tf.Graph().as_default() as g:
        c = tf.constant(2.0) * 3.0
    with tf.Session(graph=g, config=config) as sess:
        assert sess.run(c) == 6.0
    oracle = pytest.importorskip("tensorflow")
    assert oracle.compat.v1.ConfigProto.FromString(config.SerializeToString()).gpu_options.allow_growth


def test_flags_parse_lazily_and_strictly():
    flags = platform.FlagValues()
    flags.DEFINE_integer("steps", 10, "steps", lower_bound=1)
    flags.DEFINE_float("lr", 0.1, "learning rate")
    flags.DEFINE_boolean("fast", False, "speed")
    flags.DEFINE_string("name", "run", "a name")
    flags.DEFINE_list("layers", "8,4", "sizes")
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "mode")
    assert flags.layers == ["8", "4"]  # read before parsing: the known flags of sys.argv are parsed leniently
    assert flags(["prog", "--steps", "3", "--lr=0.5", "--fast", "x", "--mode=eval"]) == ["prog", "x"]
    assert (flags.steps, flags.lr, flags.fast, flags.name, flags.mode) == (3, 0.5, True, "run", "eval")
    flags(["prog", "--nofast"])
    assert flags.fast is False
    with pytest.raises(platform.Error, match="Unknown command line flag 'bogus'"):
        flags(["prog", "--bogus=1"])
    with pytest.raises(platform.Error, match=r"--steps=0: 0 is outside"):
        flags(["prog", "--steps=0"])
    with pytest.raises(platform.Error, match=r"value should be one of <train\|eval>"):
        flags(["prog", "--mode=test"])
    with pytest.raises(platform.Error, match="defined twice"):
        flags.DEFINE_integer("steps", 1, "again")
    assert flags(["prog", "--other", "--steps=4"], known_only=True) == ["prog", "--other"] and flags.steps == 4


def test_app_run_parses_flags_calls_main_and_exits_with_its_result(monkeypatch):
    seen = []
    monkeypatch.setattr(platform, "FLAGS", platform.FlagValues())
    platform.FLAGS.DEFINE_integer("epochs", 1, "epochs")
    with pytest.raises(SystemExit) as done:
        platform.run(lambda argv: seen.append((argv, platform.FLAGS.epochs)) or 3, argv=["prog", "--epochs=5", "arg"])
    assert done.value.code == 3 and seen == [(["prog", "arg"], 5)]


def test_logging_under_tensorflows_names(capsys):
    logger = py_logging.getLogger("ember.compat.v1")
    old = logger.level
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("step %d", 3)
        tf.logging.debug("hidden")
        assert tf.logging.get_verbosity() == tf.logging.INFO
    finally:
        logger.setLevel(old)
    err = capsys.readouterr().err
    assert "INFO:ember.compat.v1:step 3" in err and "hidden" not in err
    with pytest.raises(SystemExit):
        tf.logging.fatal("stop")


def test_device_is_recorded_on_nodes():
    with tf.Graph().as_default() as g:
        with tf.device("/cpu:0"):
            c = tf.constant(1.0)
        d = tf.constant(2.0)
    assert (c.op.device, d.op.device) == ("/cpu:0", "")
    assert [n.device for n in g.as_graph_def().node] == ["/cpu:0", ""]
    assert sys.modules["ember.compat.v1"].app.flags.FLAGS is platform.FLAGS


def test_tf_io_nodes_files_and_dimensions(tmp_path):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, shape=(2,))
        data = tf.io.serialize_tensor(x * 2.0)
        back = tf.parse_tensor(data, tf.float32)
    assert (data.op.type, back.op.type, back.shape.rank) == ("SerializeTensor", "ParseTensor", None)
    assert tf.Session(graph=g).run(back, {x: [1.0, 2.5]}).tolist() == [2.0, 5.0]
    path = tf.io.write_graph(g, str(tmp_path), "g.pbtxt")
    assert tf.io.gfile.exists(path) and "SerializeTensor" in open(path).read()
    assert tf.Dimension(3).value == 3 and tf.dimension_value(tf.Dimension(None)) is None
