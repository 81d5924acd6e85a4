"""Symbolic derivatives with ``tf.gradients``: several targets and sources, ``grad_ys``, ``stop_gradient``.

Also a second derivative (the gradient of a gradient), ``None`` for a source the target does not
depend on, ``tf.hessians``, and a target-network style loss where ``stop_gradient`` freezes the target
so only the online weights move.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def show(label, values):
    print(label, [None if v is None else np.round(np.asarray(v, np.float64), 5).tolist() for v in values])


def main():
    tf.disable_eager_execution()
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.placeholder(tf.float32, [3], name="y")
    unused = tf.Variable(1.0, name="unused")
    f = tf.reduce_sum(x * x * y)
    g = tf.reduce_sum(tf.sin(x) + tf.exp(0.5 * y))

    d_f = tf.gradients(f, [x, y, unused])
    d_both = tf.gradients([f, g], [x])
    d_weighted = tf.gradients(x * y, x, grad_ys=tf.constant([1.0, 10.0, 100.0]))
    (first,) = tf.gradients(tf.reduce_sum(tf.pow(x, 3.0)), x)
    (second,) = tf.gradients(first, x)
    (hessian,) = tf.hessians(tf.reduce_sum(x * x * tf.reverse(x, [0])), x)

    frozen = tf.stop_gradient(x * y)
    (d_frozen,) = tf.gradients(tf.reduce_sum(frozen * x), x)
    print("gradient of unused is None:", d_f[2] is None, "stop_gradient op", frozen.op.type)

    feed = {x: np.array([1.0, 2.0, -3.0], np.float32), y: np.array([0.5, -1.0, 2.0], np.float32)}
    with tf.Session() as sess:
        show("df/dx, df/dy", sess.run(d_f[:2], feed))
        show("d(f+g)/dx", sess.run(d_both, feed))
        show("grad_ys", sess.run(d_weighted, feed))
        show("first, second", sess.run([first, second], feed))
        show("hessian", [sess.run(hessian, feed)])
        show("through stop_gradient", [sess.run(d_frozen, feed)])

    rng = np.random.default_rng(8)
    states = rng.standard_normal((16, 4)).astype(np.float32)
    rewards = rng.standard_normal(16).astype(np.float32)
    online = tf.Variable(rng.standard_normal((4, 1)).astype(np.float32) * 0.5, name="online")
    target_w = tf.Variable(rng.standard_normal((4, 1)).astype(np.float32) * 0.5, name="target")
    s = tf.placeholder(tf.float32, [None, 4])
    r = tf.placeholder(tf.float32, [None])
    q = tf.squeeze(tf.matmul(s, online), axis=1)
    bootstrap = r + 0.9 * tf.squeeze(tf.matmul(s, target_w), axis=1)
    td_loss = tf.reduce_mean(tf.square(q - tf.stop_gradient(bootstrap)))
    grads_and_vars = tf.train.GradientDescentOptimizer(0.1).compute_gradients(td_loss)
    print("variables with gradients", [v.name for g, v in grads_and_vars if g is not None])
    train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(grads_and_vars)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(target_w)
        for step in range(1, 31):
            _, value = sess.run([train, td_loss], {s: states, r: rewards})
            if step % 10 == 0:
                print("step", step, "td loss", f"{value:.6f}")
        print("target unchanged:", bool(np.array_equal(before, sess.run(target_w))))


if __name__ == "__main__":
    main()
