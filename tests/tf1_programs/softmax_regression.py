"""Softmax regression on MNIST-like digits, the way TensorFlow 1's first tutorial trains it.

Ten noisy 8x8 prototypes stand in for MNIST; an InteractiveSession, placeholders fed through
feed_dict, the hand-written cross-entropy ``-reduce_sum(y_ * log(y))``, GradientDescent, and
accuracy read with ``Tensor.eval``.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def make_digits(rng, prototypes, n):
    labels = rng.integers(0, 10, size=n)
    images = prototypes[labels] + 0.8 * rng.standard_normal((n, 64))
    return np.clip(images, 0.0, 1.0).astype(np.float32), np.eye(10, dtype=np.float32)[labels]


def main():
    tf.disable_eager_execution()
    rng = np.random.default_rng(0)
    prototypes = (rng.random((10, 64)) > 0.5).astype(np.float32)
    train_x, train_y = make_digits(rng, prototypes, 600)
    test_x, test_y = make_digits(rng, prototypes, 200)

    x = tf.placeholder(tf.float32, [None, 64])
    W = tf.Variable(tf.zeros([64, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)

    correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

    sess = tf.InteractiveSession()
    tf.global_variables_initializer().run()
    print("initial loss", f"{cross_entropy.eval(feed_dict={x: test_x, y_: test_y}):.6f}")
    for step in range(60):
        start = (step * 50) % len(train_x)
        batch_xs, batch_ys = train_x[start : start + 50], train_y[start : start + 50]
        train_step.run(feed_dict={x: batch_xs, y_: batch_ys})
        if step % 10 == 9:
            loss = sess.run(cross_entropy, feed_dict={x: batch_xs, y_: batch_ys})
            print("step", step + 1, "loss", f"{loss:.6f}")
    print("test accuracy", f"{accuracy.eval(feed_dict={x: test_x, y_: test_y}):.4f}")
    predictions = sess.run(tf.argmax(y, 1), feed_dict={x: test_x[:12]})
    print("predictions", predictions.tolist(), predictions.dtype)
    print("labels     ", test_y[:12].argmax(1).tolist())
    print("bias", " ".join(f"{v:.4f}" for v in b.eval()))
    sess.close()


if __name__ == "__main__":
    main()
