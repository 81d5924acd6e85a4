"""TensorBoard summaries: scalar and histogram summaries, ``merge_all``, a ``FileWriter`` and reading back.

The events are written to a temporary directory while a small regression trains, then read back with
``tf.train.summary_iterator``: the tags, steps and scalar values must be what was logged.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np
import os
import tempfile


def main():
    tf.disable_eager_execution()
    rng = np.random.default_rng(7)
    data_x = rng.standard_normal((50, 3)).astype(np.float32)
    data_y = data_x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3

    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None])
    w = tf.Variable(tf.zeros([3]), name="w")
    with tf.name_scope("model"):
        prediction = tf.reduce_sum(x * w, axis=1)
        loss = tf.reduce_mean(tf.square(prediction - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

    loss_summary = tf.summary.scalar("loss", loss)
    weight_summary = tf.summary.histogram("weights", w)
    with tf.name_scope("extra"):
        tf.summary.scalar("w0", w[0])
    merged = tf.summary.merge_all()
    print("summary tensors", loss_summary.name, weight_summary.name, merged.name, merged.dtype.name)
    print("collection", [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)])

    with tempfile.TemporaryDirectory() as logdir:
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(logdir, sess.graph)
            sess.run(tf.global_variables_initializer())
            for step in range(12):
                summary = sess.run(merged, {x: data_x, y: data_y})  # apart from train: one run has no order
                sess.run(train, {x: data_x, y: data_y})
                if step % 4 == 0:
                    writer.add_summary(summary, step)
            writer.add_summary(sess.run(loss_summary, {x: data_x, y: data_y}), 100)
            writer.flush()
            writer.close()

        files = os.listdir(logdir)
        print("event files", len(files), files[0].startswith("events.out.tfevents."))
        kinds = []
        for event in tf.train.summary_iterator(os.path.join(logdir, files[0])):
            if event.HasField("file_version"):
                kinds.append("version " + event.file_version)
            elif event.HasField("graph_def"):
                graph = tf.GraphDef()
                graph.ParseFromString(event.graph_def)
                kinds.append("graph")
                print("graph has the loss:", any(node.name == "model/Mean" for node in graph.node))
            for value in event.summary.value:
                if value.HasField("histo"):
                    histo = value.histo
                    print("step", event.step, value.tag, "histo", int(histo.num), f"{histo.min:.5f}", f"{histo.max:.5f}")
                else:
                    print("step", event.step, value.tag, f"{value.simple_value:.6f}")
        print("other events", kinds)


if __name__ == "__main__":
    main()
