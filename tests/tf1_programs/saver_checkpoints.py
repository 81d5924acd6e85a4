"""Checkpoints with ``tf.train.Saver``: save during training, find the latest, restore all or a subset.

A model is trained and saved twice (``global_step`` numbers the files); a fresh graph restores the
latest checkpoint found by ``tf.train.latest_checkpoint`` and evaluates exactly as the trained model
did; a second fresh graph restores only the weights (by a name map) and initializes the rest.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np
import os
import tempfile

RNG = np.random.default_rng(6)
DATA_X = RNG.standard_normal((64, 5)).astype(np.float32)
DATA_Y = (DATA_X @ RNG.standard_normal((5, 2)) + 0.1).astype(np.float32)


def build():
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    weights = tf.Variable(np.full((5, 2), 0.1, dtype=np.float32), name="weights")
    bias = tf.Variable(np.zeros(2, dtype=np.float32), name="bias")
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(tf.matmul(x, weights) + bias - y), name="loss")
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
    return {x: DATA_X, y: DATA_Y}, weights, bias, step, loss, train


def main():
    tf.disable_eager_execution()
    with tempfile.TemporaryDirectory() as directory:
        save_and_restore(directory)


def save_and_restore(directory):
    prefix = os.path.join(directory, "model.ckpt")

    with tf.Graph().as_default():
        feed, weights, bias, step, loss, train = build()
        saver = tf.train.Saver(max_to_keep=5)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(2):
                for _ in range(15):
                    sess.run(train, feed)
                path = saver.save(sess, prefix, global_step=step)
                print("saved", os.path.basename(path), "loss", f"{sess.run(loss, feed):.6f}")
            trained_loss, trained_bias = sess.run([loss, bias], feed)

    files = sorted(name for name in os.listdir(directory) if name.startswith("model.ckpt-30"))
    print("files", [name for name in files if not name.endswith(".meta")])  # the MetaGraphDef is not compared
    latest = tf.train.latest_checkpoint(directory)
    print("latest", os.path.basename(latest))
    state = tf.train.get_checkpoint_state(directory)
    print("all checkpoints", [os.path.basename(p) for p in state.all_model_checkpoint_paths])
    print("stored", [(name, shape) for name, shape in tf.train.list_variables(latest)])

    with tf.Graph().as_default():
        feed, weights, bias, step, loss, train = build()
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, latest)
            restored_loss, restored_step = sess.run([loss, step], feed)
            print("restored step", restored_step, "same loss:", bool(restored_loss == trained_loss))
            sess.run(train, feed)
            print("training goes on, step", sess.run(step), "loss", f"{sess.run(loss, feed):.6f}")

    with tf.Graph().as_default():
        feed, weights, bias, step, loss, train = build()
        partial = tf.train.Saver({"weights": weights})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            partial.restore(sess, os.path.join(directory, "model.ckpt-15"))
            print("partial restore: step", sess.run(step), "bias", sess.run(bias).tolist())
            print("bias was trained to", " ".join(f"{v:.5f}" for v in trained_bias))
            print("loss with step-15 weights", f"{sess.run(loss, feed):.6f}")
            try:
                tf.train.Saver({"no_such_name": bias}).restore(sess, latest)
            except tf.errors.NotFoundError as error:
                print("missing key:", type(error).__name__)


if __name__ == "__main__":
    main()
