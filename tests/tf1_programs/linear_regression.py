"""Linear regression with ``tf.Variable``s made from NumPy arrays, Momentum, a global step and a decaying rate.

``minimize(global_step=...)`` counts the steps; ``tf.train.exponential_decay`` (staircase) reads that
count to shrink the learning rate. The model is fit with mini-batches and checked against the least
squares solution that NumPy computes.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def main():
    tf.disable_v2_behavior()
    rng = np.random.default_rng(5)
    true_w = np.array([[2.0], [-3.5], [0.5]], dtype=np.float32)
    data_x = rng.uniform(-1.0, 1.0, size=(200, 3)).astype(np.float32)
    data_y = (data_x @ true_w + 1.25 + 0.05 * rng.standard_normal((200, 1))).astype(np.float32)

    x = tf.placeholder(tf.float32, shape=(None, 3), name="x")
    y = tf.placeholder(tf.float32, shape=(None, 1), name="y")
    w = tf.Variable(np.zeros((3, 1), dtype=np.float32), name="w")
    b = tf.Variable(0.0, name="b")
    prediction = tf.add(tf.matmul(x, w), b, name="prediction")
    loss = tf.reduce_mean(tf.square(prediction - y), name="loss")

    global_step = tf.Variable(0, trainable=False, name="global_step")
    learning_rate = tf.train.exponential_decay(0.1, global_step, decay_steps=40, decay_rate=0.5, staircase=True)
    optimizer = tf.train.MomentumOptimizer(learning_rate, momentum=0.9)
    train_op = optimizer.minimize(loss, global_step=global_step)
    print("global step", global_step.name, global_step.dtype.base_dtype.name, "rate", learning_rate.dtype.name)
    print("momentum slots", sorted(optimizer.get_slot_names()), optimizer.get_slot(w, "momentum").name)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(16):
            for start in range(0, 200, 25):
                feed = {x: data_x[start : start + 25], y: data_y[start : start + 25]}
                sess.run(train_op, feed_dict=feed)
            step, rate, value = sess.run([global_step, learning_rate, loss], {x: data_x, y: data_y})
            print("epoch", epoch, "step", step, "rate", f"{rate:.6f}", "loss", f"{value:.6f}")
        fitted_w, fitted_b = sess.run([w, b])
    print("w", " ".join(f"{v:.4f}" for v in fitted_w.ravel()), "b", f"{fitted_b:.4f}")
    design = np.hstack([data_x, np.ones((200, 1), np.float32)]).astype(np.float64)
    exact = np.linalg.lstsq(design, data_y.astype(np.float64), rcond=None)[0].ravel()
    print("close to least squares:", bool(np.allclose(np.append(fitted_w.ravel(), fitted_b), exact, atol=0.02)))


if __name__ == "__main__":
    main()
