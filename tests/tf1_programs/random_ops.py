"""Random ops under a graph-level seed: shapes, dtypes, statistics and TensorFlow 1's seeding rules.

The values depend on each framework's generator, so the program prints what does not: shapes and
dtypes, whether sample statistics are where the distribution puts them, and the seeding contract
(a new session replays the same sequence; successive runs in one session differ; ``random_shuffle``
permutes; ``truncated_normal`` stays within two standard deviations).
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def main():
    tf.disable_eager_execution()
    tf.set_random_seed(1234)
    normal = tf.random_normal([400, 50], mean=2.0, stddev=3.0)
    uniform = tf.random_uniform([20000], minval=-1.0, maxval=3.0)
    integers = tf.random_uniform([10000], minval=0, maxval=6, dtype=tf.int32)
    truncated = tf.truncated_normal([5000], stddev=0.5)
    shuffled = tf.random_shuffle(tf.range(100))
    categorical = tf.multinomial(tf.log([[0.1, 0.2, 0.7]]), 4000)
    gamma = tf.random.gamma([5000], alpha=3.0)
    seeded = tf.random_uniform([4], seed=7)
    init = tf.random_normal_initializer(stddev=0.01)
    w = tf.get_variable("w", [300, 20], initializer=init)

    for name, tensor in [("normal", normal), ("uniform", uniform), ("integers", integers), ("truncated", truncated),
                         ("shuffled", shuffled), ("categorical", categorical), ("gamma", gamma)]:  # fmt: skip
        print(name, tensor.get_shape().as_list(), tensor.dtype.name)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        n, u, k, t, s, c, g = sess.run([normal, uniform, integers, truncated, shuffled, categorical, gamma])
        print("normal mean near 2:", bool(abs(n.mean() - 2.0) < 0.1), "std near 3:", bool(abs(n.std() - 3.0) < 0.1))
        print("uniform in [-1, 3):", bool(u.min() >= -1.0 and u.max() < 3.0), "mean near 1:", bool(abs(u.mean() - 1.0) < 0.05))
        print(
            "integers",
            sorted(set(k.tolist())),
            "all six about equally:",
            bool(np.all(np.abs(np.bincount(k) / 1e4 - 1 / 6) < 0.02)),
        )
        print("truncated within 2 stddev:", bool(np.all(np.abs(t) <= 1.0)), "std near 0.44:", bool(abs(t.std() - 0.44) < 0.02))
        print(
            "shuffle is a permutation:", sorted(s.tolist()) == list(range(100)), "and moved:", bool(np.any(s != np.arange(100)))
        )
        print(
            "categorical frequencies near 0.1 0.2 0.7:",
            bool(np.all(np.abs(np.bincount(c[0], minlength=3) / 4000 - [0.1, 0.2, 0.7]) < 0.03)),
        )
        print("gamma mean near 3:", bool(abs(g.mean() - 3.0) < 0.15), "positive:", bool(np.all(g > 0)))
        weights = sess.run(w)
        print("initializer std near 0.01:", bool(abs(weights.std() - 0.01) < 0.001))
        first, second = sess.run(seeded), sess.run(seeded)
        print("two runs differ:", bool(np.any(first != second)))
    with tf.Session() as sess:
        print("a new session replays the sequence:", bool(np.array_equal(sess.run(seeded), first)))


if __name__ == "__main__":
    main()
