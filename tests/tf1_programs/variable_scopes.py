"""Weight sharing with ``variable_scope`` and ``get_variable``: a siamese encoder applied to two inputs.

Covers ``reuse=True``, ``scope.reuse_variables()``, ``reuse=tf.AUTO_REUSE``, nested scopes, a
``name_scope`` that renames ops but not variables, the errors for a duplicate or a missing variable,
and training through the shared weights (each shared variable gets both branches' gradients).
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np

RNG = np.random.default_rng(3)
W_INIT = (RNG.standard_normal((4, 3)) / 2).astype(np.float32)


def encoder(inputs):
    weights = tf.get_variable("weights", [4, 3], initializer=tf.constant_initializer(W_INIT))
    biases = tf.get_variable("biases", [3], initializer=tf.zeros_initializer())
    return tf.nn.tanh(tf.matmul(inputs, weights) + biases)


def counter():
    with tf.variable_scope("counter", reuse=tf.AUTO_REUSE):
        count = tf.get_variable("count", [], dtype=tf.int32, initializer=tf.zeros_initializer(), trainable=False)
    return count


def main():
    tf.disable_eager_execution()
    left = tf.placeholder(tf.float32, [None, 4], name="left")
    right = tf.placeholder(tf.float32, [None, 4], name="right")
    with tf.variable_scope("siamese") as scope:
        encoded_left = encoder(left)
        scope.reuse_variables()
        encoded_right = encoder(right)
    with tf.variable_scope("siamese", reuse=True):
        shared = tf.get_variable("weights")
    print("encoded", encoded_left.name, encoded_right.name)
    print("shared is the same variable:", shared is tf.trainable_variables()[0], shared.name)
    print("counter reused:", counter() is counter(), counter().name, counter().dtype.base_dtype.name)

    with tf.variable_scope("outer"):
        with tf.variable_scope("inner"):
            nested = tf.get_variable("v", [2], initializer=tf.ones_initializer())
        with tf.name_scope("ops"):
            scaled = tf.multiply(nested, 3.0, name="scaled")
            plain = tf.Variable([1.0, 2.0], name="plain")
    print("nested", nested.name, "scaled", scaled.name, "plain", plain.name)
    print("scope name", tf.get_variable_scope().name == "", scope.name, scope.original_name_scope)

    try:
        with tf.variable_scope("siamese"):
            tf.get_variable("weights", [4, 3])
    except ValueError as error:
        print("duplicate:", type(error).__name__, str(error).split(",")[0])
    try:
        with tf.variable_scope("siamese", reuse=True):
            tf.get_variable("missing", [1])
    except ValueError as error:
        print("missing:", type(error).__name__, str(error).split(",")[0])

    distance = tf.reduce_sum(tf.square(encoded_left - encoded_right), axis=1)
    target = tf.placeholder(tf.float32, [None])
    loss = tf.reduce_mean(tf.square(distance - target))
    gradients = tf.gradients(loss, [shared])
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss)
    print("trainable", [v.name for v in tf.trainable_variables()])
    print("global", len(tf.global_variables()), "trainable", len(tf.trainable_variables()))

    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((32, 4)).astype(np.float32), rng.standard_normal((32, 4)).astype(np.float32)
    want = (np.abs(a - b).sum(axis=1) > 3.0).astype(np.float32)
    feed = {left: a, right: b, target: want}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print("gradient norm", f"{np.linalg.norm(sess.run(gradients[0], feed)):.6f}")
        for step in range(1, 41):
            _, value = sess.run([train, loss], feed)
            if step % 10 == 0:
                print("step", step, "loss", f"{value:.6f}")
        print("weights[0]", " ".join(f"{v:.5f}" for v in sess.run(shared)[0]))
        print("nested", sess.run(scaled).tolist(), "count", sess.run(counter()))


if __name__ == "__main__":
    main()
