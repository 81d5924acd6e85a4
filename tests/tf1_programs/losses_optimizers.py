"""``tf.losses`` and the adaptive optimizers: RMSProp and Adagrad on a multi-task regression/classification.

One shared trunk feeds a regression head (``tf.losses.mean_squared_error`` and ``huber_loss`` with
weights) and a classifier (``tf.losses.softmax_cross_entropy`` with label smoothing,
``sigmoid_cross_entropy``); ``tf.losses.get_total_loss`` adds the registered losses and an L2 term.
The same model is trained twice from the same NumPy weights, once with each optimizer.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np

RNG = np.random.default_rng(10)
X = RNG.standard_normal((64, 6)).astype(np.float32)
TARGET = (X[:, :2] @ np.array([[1.0], [-1.0]]) + 0.1 * RNG.standard_normal((64, 1))).astype(np.float32)
CLASSES = np.eye(3, dtype=np.float32)[(X[:, 2] > 0).astype(int) + (X[:, 3] > 0.5).astype(int)]
FLAGS = (X[:, 4:5] > 0).astype(np.float32)
WEIGHTS = np.where(np.arange(64) % 4 == 0, 0.0, 1.0).astype(np.float32)[:, None]
TRUNK = (RNG.standard_normal((6, 16)) / np.sqrt(6)).astype(np.float32)
HEADS = (RNG.standard_normal((16, 5)) / 4).astype(np.float32)


def train(make_optimizer, label):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6])
        trunk = tf.Variable(TRUNK, name="trunk")
        heads = tf.Variable(HEADS, name="heads")
        out = tf.matmul(tf.nn.elu(tf.matmul(x, trunk)), heads)
        regression, logits, flag_logit = out[:, :1], out[:, 1:4], out[:, 4:]
        mse = tf.losses.mean_squared_error(TARGET, regression, weights=WEIGHTS)
        huber = tf.losses.huber_loss(TARGET, regression, delta=0.5, loss_collection=None)
        xent = tf.losses.softmax_cross_entropy(CLASSES, logits, label_smoothing=0.1)
        flags = tf.losses.sigmoid_cross_entropy(FLAGS, flag_logit)
        tf.losses.add_loss(1e-3 * tf.nn.l2_loss(trunk), loss_collection=tf.GraphKeys.REGULARIZATION_LOSSES)
        total = tf.losses.get_total_loss()
        absolute = tf.losses.absolute_difference(TARGET, regression, reduction=tf.losses.Reduction.SUM)
        train_op = make_optimizer().minimize(total)
        if label == "rmsprop":
            print("registered losses", [t.op.name for t in tf.losses.get_losses()])
            print("regularization", len(tf.losses.get_regularization_losses()), "total", total.op.name)
            print("slots", sorted(v.name for v in tf.global_variables() if v.name not in ("trunk:0", "heads:0")))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: X}
            for step in range(1, 41):
                sess.run(train_op, feed)
                if step % 10 == 0:
                    values = sess.run([total, mse, huber, xent, flags, absolute], feed)
                    print(label, step, " ".join(f"{v:.5f}" for v in values))


def main():
    tf.disable_eager_execution()
    train(lambda: tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5), "rmsprop")
    train(lambda: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.1), "adagrad")


if __name__ == "__main__":
    main()
