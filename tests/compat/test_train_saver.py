"""tf.train's checkpoints in ember.compat.v1: a TensorFlow 1 training program saves with Saver,
a fresh graph restores, and the names are TensorFlow's (Adam's slots, the global step); where
TensorFlow is installed, the same program under TensorFlow writes the same checkpoint, and each
reads the other's."""

import os

import numpy as np
import pytest

import ember.compat.v1 as tf

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


def _program(t, directory: str):
    """Three Adam steps of a small TF1 model in module ``t``, saved after each (max_to_keep=2)."""
    with t.Graph().as_default():
        x = t.placeholder(t.float32, [None, 3])
        with t.variable_scope("layer"):
            w = t.get_variable("w", [3, 2], initializer=t.constant_initializer(0.5))
            b = t.get_variable("b", [2], initializer=t.zeros_initializer())
        step = t.train.get_or_create_global_step()
        y = x @ w + b
        train = t.train.AdamOptimizer(0.1).minimize(y * y, global_step=step)
        saver = t.train.Saver(max_to_keep=2)
        with t.Session() as sess:
            sess.run(t.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: X})
                saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=step)
            return sess.run(w)


def _restore(directory: str):
    with tf.Graph().as_default():
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", [3, 2])
        saver = tf.train.Saver([w])
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(directory))
            return sess.run(w)


def test_a_tf1_program_saves_and_restores(tmp_path):
    trained = _program(tf, str(tmp_path))
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-3")
    assert not tf.train.checkpoint_exists(str(tmp_path / "model.ckpt-1"))  # max_to_keep=2
    assert [name for name, _ in tf.train.list_variables(str(tmp_path))] == [
        "beta1_power", "beta2_power", "global_step", "layer/b", "layer/b/Adam", "layer/b/Adam_1",
        "layer/w", "layer/w/Adam", "layer/w/Adam_1",
    ]  # fmt: skip
    assert tf.train.load_variable(str(tmp_path), "global_step") == 3
    np.testing.assert_array_equal(_restore(str(tmp_path)), trained)
    assert not np.array_equal(trained, np.full((3, 2), 0.5, np.float32))  # training moved the weights


def test_tensorflow_agrees(tmp_path):
    tf_real = pytest.importorskip("tensorflow")
    tf1 = tf_real.compat.v1
    _program(tf, str(tmp_path / "ember"))
    with tf_real.Graph().as_default():
        _program(tf1, str(tmp_path / "tf"))
    mine = tf1.train.NewCheckpointReader(str(tmp_path / "ember" / "model.ckpt-3"))  # TensorFlow reads ember's files
    theirs = tf.train.NewCheckpointReader(str(tmp_path / "tf" / "model.ckpt-3"))  # and ember TensorFlow's
    assert mine.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
    for name in theirs.get_variable_to_shape_map():
        np.testing.assert_allclose(mine.get_tensor(name), theirs.get_tensor(name), rtol=1e-5)  # summation order aside
    with open(tmp_path / "ember" / "checkpoint") as a, open(tmp_path / "tf" / "checkpoint") as b:
        assert a.read().replace(str(tmp_path / "ember"), "") == b.read().replace(str(tmp_path / "tf"), "")
