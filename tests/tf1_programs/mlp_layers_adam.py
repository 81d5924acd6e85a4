"""A two-layer perceptron built with ``tf.layers.dense``, trained with Adam on two interleaved spirals.

Weights start from NumPy arrays through ``tf.constant_initializer``, so the trajectory is the same in
any framework; labels are int64 class ids for ``sparse_softmax_cross_entropy_with_logits``, and
accuracy is ``reduce_mean(cast(equal(argmax(logits, 1), labels)))``.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def spirals(rng, n):
    t = rng.uniform(0.25, 1.0, size=n)
    label = rng.integers(0, 2, size=n)
    angle = 3.0 * np.pi * t + np.pi * label
    points = np.stack([t * np.cos(angle), t * np.sin(angle)], axis=1) + 0.03 * rng.standard_normal((n, 2))
    return points.astype(np.float32), label.astype(np.int64)


def main():
    tf.disable_v2_behavior()
    rng = np.random.default_rng(1)
    train_x, train_y = spirals(rng, 256)
    test_x, test_y = spirals(rng, 128)
    w1 = (rng.standard_normal((2, 32)) / np.sqrt(2)).astype(np.float32)
    w2 = (rng.standard_normal((32, 2)) / np.sqrt(32)).astype(np.float32)

    features = tf.placeholder(tf.float32, shape=[None, 2], name="features")
    labels = tf.placeholder(tf.int64, shape=[None], name="labels")
    hidden = tf.layers.dense(features, 32, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(w1))
    logits = tf.layers.dense(hidden, 2, kernel_initializer=tf.constant_initializer(w2), name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    optimizer = tf.train.AdamOptimizer(learning_rate=0.02)
    train_op = optimizer.minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1), labels)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    print("hidden", hidden.name, hidden.get_shape().as_list())
    print("logits", logits.name, logits.get_shape().as_list())
    for variable in tf.trainable_variables():
        print("trainable", variable.name, variable.get_shape().as_list())

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(1, 201):
            _, value = sess.run([train_op, loss], feed_dict={features: train_x, labels: train_y})
            if epoch % 25 == 0:
                print("epoch", epoch, "loss", f"{value:.6f}")
        train_accuracy = sess.run(accuracy, feed_dict={features: train_x, labels: train_y})
        test_accuracy = sess.run(accuracy, {features: test_x, labels: test_y})
        print("train accuracy", f"{train_accuracy:.4f}", "test accuracy", f"{test_accuracy:.4f}")
        print("correct dtype", correct.dtype.name, "argmax dtype", tf.argmax(logits, 1).dtype.name)
        slots = sorted(v.name for v in tf.global_variables() if "Adam" in v.name or "power" in v.name)
        print("optimizer state", len(slots), slots[:4])


if __name__ == "__main__":
    main()
