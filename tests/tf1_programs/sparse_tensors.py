"""Sparse inputs: ``tf.SparseTensor``, ``tf.sparse_placeholder`` fed a ``SparseTensorValue``, sparse reductions.

A bag-of-words classifier: documents arrive as sparse (row, word) counts, go through
``sparse_tensor_dense_matmul`` into a logistic model that trains; ``tf.sparse.reduce_sum`` counts
words per document, ``tf.sparse.to_dense`` densifies, and fetching a SparseTensor gives its value.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def documents(rng, n, vocabulary):
    rows, words, counts, labels = [], [], [], []
    for row in range(n):
        label = row % 2
        favoured = np.arange(vocabulary // 2) + label * (vocabulary // 2)
        chosen = np.unique(np.concatenate([rng.choice(favoured, 3), rng.integers(0, vocabulary, 2)]))
        rows += [row] * len(chosen)
        words += chosen.tolist()
        counts += rng.integers(1, 4, len(chosen)).tolist()
        labels.append(label)
    indices = np.stack([rows, words], axis=1).astype(np.int64)
    value = tf.SparseTensorValue(indices, np.asarray(counts, np.float32), [n, vocabulary])
    return value, np.asarray(labels, np.float32)


def main():
    tf.disable_eager_execution()
    constant = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 3]], values=[1.0, 2.0, 3.0], dense_shape=[3, 4])
    print("constant", constant.dtype.name, constant.get_shape().as_list(), constant.indices.dtype.name)
    dense = tf.sparse.to_dense(constant)
    row_sums = tf.sparse.reduce_sum(constant, axis=1)
    total = tf.sparse_reduce_sum(constant)
    doubled = constant * 2.0

    rng = np.random.default_rng(9)
    train_docs, train_labels = documents(rng, 40, 12)
    test_docs, test_labels = documents(rng, 20, 12)
    docs = tf.sparse_placeholder(tf.float32, name="docs")
    labels = tf.placeholder(tf.float32, [None])
    weights = tf.Variable(np.zeros((12, 1), np.float32))
    logits = tf.squeeze(tf.sparse_tensor_dense_matmul(docs, weights), axis=1)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(logits > 0, tf.float32), labels), tf.float32))
    words_per_doc = tf.sparse.reduce_sum(docs, axis=1)
    print("placeholder", docs.dtype.name, docs.get_shape(), docs.indices.name)

    with tf.Session() as sess:
        print("dense", sess.run(dense).tolist())
        print("row sums", sess.run(row_sums).tolist(), "total", sess.run(total))
        fetched = sess.run(doubled)
        print("fetched", type(fetched).__name__, fetched.indices.tolist(), fetched.values.tolist(), fetched.dense_shape.tolist())
        sess.run(tf.global_variables_initializer())
        print("words in first docs", sess.run(words_per_doc, {docs: train_docs})[:6].tolist())
        for step in range(1, 51):
            _, value = sess.run([train, loss], {docs: train_docs, labels: train_labels})
            if step % 10 == 0:
                print("step", step, "loss", f"{value:.6f}")
        print("test accuracy", f"{sess.run(accuracy, {docs: test_docs, labels: test_labels}):.4f}")
        print("weights", " ".join(f"{v:.4f}" for v in sess.run(weights).ravel()))


if __name__ == "__main__":
    main()
