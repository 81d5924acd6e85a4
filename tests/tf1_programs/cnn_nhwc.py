"""A small convolutional network on NHWC images: conv2d, bias_add, relu, max_pool, dropout, a dense head.

The images are 12x12 bars (horizontal, vertical or diagonal) with noise. Dropout's ``keep_prob`` is a
placeholder: training feeds 1.0, so the trajectory is deterministic and comparable across frameworks,
and a last run with 0.5 checks dropout's statistics rather than its random values.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def bars(rng, n):
    labels = rng.integers(0, 3, size=n)
    images = 0.2 * rng.standard_normal((n, 12, 12, 1))
    for i, label in enumerate(labels):
        k = rng.integers(2, 10)
        if label == 0:
            images[i, k, :, 0] += 1.0
        elif label == 1:
            images[i, :, k, 0] += 1.0
        else:
            images[i, np.arange(12), np.arange(12), 0] += 1.0
    return images.astype(np.float32), np.eye(3, dtype=np.float32)[labels]


def weight(rng, shape, fan_in):
    return tf.Variable((rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32))


def main():
    tf.disable_eager_execution()
    rng = np.random.default_rng(2)
    images, targets = bars(rng, 96)

    x = tf.placeholder(tf.float32, [None, 12, 12, 1])
    y = tf.placeholder(tf.float32, [None, 3])
    keep_prob = tf.placeholder(tf.float32)

    w_conv1, b_conv1 = weight(rng, [3, 3, 1, 8], 9), tf.Variable(tf.constant(0.1, shape=[8]))
    conv1 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w_conv1, strides=[1, 1, 1, 1], padding="SAME"), b_conv1))
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    w_conv2, b_conv2 = weight(rng, [3, 3, 8, 16], 72), tf.Variable(tf.constant(0.1, shape=[16]))
    conv2 = tf.nn.relu(tf.nn.conv2d(pool1, w_conv2, strides=[1, 2, 2, 1], padding="VALID") + b_conv2)
    flat = tf.reshape(conv2, [-1, 2 * 2 * 16])
    dropped = tf.nn.dropout(flat, keep_prob=keep_prob)
    w_fc, b_fc = weight(rng, [64, 3], 64), tf.Variable(tf.zeros([3]))
    logits = tf.matmul(dropped, w_fc) + b_fc
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)), tf.float32))

    for name, tensor in [("conv1", conv1), ("pool1", pool1), ("conv2", conv2), ("flat", flat), ("logits", logits)]:
        print(name, tensor.get_shape().as_list())

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: images, y: targets, keep_prob: 1.0}
        for step in range(1, 61):
            _, value = sess.run([train_op, loss], feed_dict=feed)
            if step % 10 == 0:
                print("step", step, "loss", f"{value:.6f}")
        print("accuracy", f"{sess.run(accuracy, feed_dict=feed):.4f}")
        pooled = sess.run(pool1, feed_dict={x: images[:2]})
        print("pool1 sample", " ".join(f"{v:.5f}" for v in pooled[1, 2, :, 3]))

        full, half = sess.run([flat, dropped], feed_dict={x: images, keep_prob: 0.5})
        alive = full != 0
        kept = half[alive] != 0
        print("dropout kept fraction near 0.5:", bool(0.4 < kept.mean() < 0.6))
        print("dropout scales survivors by 2:", bool(np.allclose(half[alive][kept], 2 * full[alive][kept])))
        print("dropout zeroes the rest:", bool(np.all(half[alive][~kept] == 0)))


if __name__ == "__main__":
    main()
