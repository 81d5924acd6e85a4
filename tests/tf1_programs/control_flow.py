"""Control flow in the graph: ``tf.while_loop`` and ``tf.cond``, with gradients through both.

A while loop runs Newton's iteration for a square root until it converges (the number of steps is
data-dependent), another carries a tensor and a counter (Fibonacci numbers, a running power),
``tf.cond`` picks a branch from a fed boolean, ``tf.case`` from a list of predicates, and
``tf.gradients`` differentiates through a loop and through a conditional.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def main():
    tf.disable_eager_execution()
    target = tf.placeholder(tf.float32, [], name="target")

    def not_converged(i, estimate):
        return tf.logical_and(i < 50, tf.abs(estimate * estimate - target) > 1e-4 * target)

    def newton_step(i, estimate):
        return i + 1, 0.5 * (estimate + target / estimate)

    steps, root = tf.while_loop(not_converged, newton_step, [tf.constant(0), target])

    def fibonacci_body(i, pair):
        return i + 1, tf.stack([pair[1], pair[0] + pair[1]])

    _, fibonacci = tf.while_loop(lambda i, pair: i < 20, fibonacci_body, [0, tf.constant([0, 1], dtype=tf.int64)])

    base = tf.placeholder(tf.float32, [], name="base")
    _, power = tf.while_loop(lambda i, acc: i < 5, lambda i, acc: (i + 1, acc * base), [0, tf.constant(1.0)])
    (d_power,) = tf.gradients(power, [base])

    flag = tf.placeholder(tf.bool, [], name="flag")
    v = tf.placeholder(tf.float32, [3], name="v")
    chosen = tf.cond(flag, lambda: tf.reduce_sum(tf.square(v)), lambda: tf.reduce_max(v) * 10.0)
    (d_chosen,) = tf.gradients(chosen, [v])

    n = tf.placeholder(tf.int32, [], name="n")
    bucket = tf.case(
        [(tf.less(n, 0), lambda: tf.constant(-1)), (tf.equal(n, 0), lambda: tf.constant(0))],
        default=lambda: tf.constant(1),
    )
    print("loop outputs", steps.dtype.name, root.dtype.name, fibonacci.dtype.name, fibonacci.get_shape().as_list())

    with tf.Session() as sess:
        for value in [2.0, 10.0, 1234.5]:
            count, estimate = sess.run([steps, root], {target: value})
            print("sqrt", value, "=", f"{estimate:.5f}", "after", count, "steps")
        print("fibonacci", sess.run(fibonacci).tolist())
        print("power", sess.run([power, d_power], {base: 1.5}))
        sample = np.array([1.0, -4.0, 2.5], np.float32)
        for taken in [True, False]:
            value, grad = sess.run([chosen, d_chosen], {flag: taken, v: sample})
            print("cond", taken, f"{value:.4f}", grad.tolist())
        print("case", [sess.run(bucket, {n: k}) for k in (-3, 0, 7)])
        try:
            sess.run(root)
        except tf.errors.InvalidArgumentError as error:
            print("unfed placeholder:", type(error).__name__, "target" in error.message)


if __name__ == "__main__":
    main()
