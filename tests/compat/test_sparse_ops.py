"""compat.v1's sparse tensors: TensorFlow's dtypes for Python values, placeholders fed with
SparseTensorValue, the sparse ops' values, node names and types, and gradients."""

import numpy as np
import pytest

import ember.compat.v1 as tf
from tests.compat._helpers import run


def test_sparse_tensor_takes_tensorflows_dtypes_and_runs_to_a_sparse_tensor_value():
    with tf.Graph().as_default():
        ints = tf.SparseTensor(indices=[[0, 1], [1, 0]], values=[7, 8], dense_shape=[2, 2])
        floats = tf.SparseTensor([[0, 1]], [1.5], [2, 2])
        dense = tf.sparse_tensor_to_dense(ints)
        filled = tf.sparse.to_dense(ints, default_value=-1, name="filled")
        value = run([ints, dense, filled])
    assert (ints.dtype, floats.dtype) == (tf.int32, tf.float32)
    assert isinstance(value[0], tf.SparseTensorValue) and value[0].values.dtype == np.int32
    assert value[0].indices.tolist() == [[0, 1], [1, 0]] and value[0].dense_shape.tolist() == [2, 2]
    assert value[1].tolist() == [[0, 7], [8, 0]] and value[2].tolist() == [[-1, 7], [8, -1]]
    assert (dense.op.name, dense.op.type, filled.op.name) == ("SparseToDense", "SparseToDense", "filled")


def test_sparse_placeholders_are_fed_sparse_tensor_values():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 2])
        known = tf.sparse.placeholder(tf.float32, shape=[3, 2], name="sp")
        product = tf.sparse.sparse_dense_matmul(sp, tf.ones([2, 1]))
        total = tf.sparse.reduce_sum(known, axis=1)
        with tf.Session() as sess:
            feed = {sp: tf.SparseTensorValue([[0, 0], [2, 1]], [2.0, 3.0], [3, 2]), known: ([[1, 1]], [4.0], [3, 2])}
            p, t = sess.run([product, total], feed)
    assert (product.op.name, product.op.type, total.op.type) == (
        "SparseTensorDenseMatMul",
        "SparseTensorDenseMatMul",
        "SparseReduceSum",
    )
    assert p.tolist() == [[2.0], [0.0], [3.0]] and t.tolist() == [0.0, 4.0, 0.0]
    assert known.indices.name == "sp/indices:0"


def test_sparse_ops_values():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [1.0, 2.0, 3.0], [2, 3])
        got = [
            tf.sparse_tensor_dense_matmul(sp, np.eye(3, dtype=np.float32) * 2),
            tf.sparse_tensor_dense_matmul(sp, np.ones((2, 1), np.float32), adjoint_a=True),
            tf.sparse_reduce_sum(sp), tf.sparse.reduce_sum(sp, 0, keepdims=True), tf.sparse_reduce_sum(sp, 1, keep_dims=True),
            tf.sparse.add(sp, tf.ones([2, 3])), tf.sparse_add(tf.ones([2, 3]), sp),
        ]  # fmt: skip
        with pytest.raises(ValueError, match="rank-2 SparseTensor"):
            tf.sparse_tensor_dense_matmul(tf.SparseTensor([[0]], [1.0], [3]), np.ones((3, 1), np.float32))
    dense = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    v = run(got)
    np.testing.assert_array_equal(v[0], dense * 2)
    np.testing.assert_array_equal(v[1], dense.T @ np.ones((2, 1)))
    assert v[2] == 6.0 and v[3].tolist() == [[2.0, 1.0, 3.0]] and v[4].tolist() == [[1.0], [5.0]]
    np.testing.assert_array_equal(v[5], dense + 1)
    np.testing.assert_array_equal(v[6], dense + 1)


def test_sparse_gradients_reach_the_values_and_the_dense_operand():
    with tf.Graph().as_default():
        values = tf.placeholder(tf.float64, (2,))
        w = tf.placeholder(tf.float64, (2, 1))
        sp = tf.SparseTensor([[0, 1], [1, 0]], values, [2, 2])
        loss = tf.reduce_sum(tf.sparse_tensor_dense_matmul(sp, w) * tf.constant([[1.0], [3.0]], dtype=tf.float64))
        dense_loss = tf.reduce_sum(tf.sparse_tensor_to_dense(sp) * tf.constant([[5.0, 7.0], [11.0, 13.0]], dtype=tf.float64))
        g_values, g_w = tf.gradients(loss, [values, w])
        (g_dense,) = tf.gradients(dense_loss, [values])
        got = run([g_values, g_w, g_dense], {values: [2.0, 5.0], w: [[0.5], [4.0]]})
    # loss = v0 * w1 * 1 + v1 * w0 * 3
    assert got[0].tolist() == [4.0, 1.5] and got[1].tolist() == [[15.0], [2.0]] and got[2].tolist() == [7.0, 11.0]


def test_a_sparse_placeholder_without_shape_is_a_matrix_of_unknown_size():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32)
        product = tf.sparse_tensor_dense_matmul(sp, tf.ones([3, 1]))
        with tf.Session() as sess:
            got = sess.run(product, {sp: tf.SparseTensorValue([[0, 0], [1, 2]], [2.0, 3.0], [2, 3])})
            with pytest.raises(ValueError, match=r"Cannot feed value of shape \(1, 3\) for Tensor 'Placeholder/indices:0'"):
                sess.run(product, {sp: tf.SparseTensorValue([[0, 0, 0]], [2.0], [2, 3, 1])})
    assert got.tolist() == [[2.0], [3.0]] and sp.get_shape().rank is None  # reported unknown, as TensorFlow reports it


def test_sparse_tensors_of_the_implicit_graph_scale_and_train():
    tf.disable_eager_execution()
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
    doubled, halved = sp * 2.0, sp / 2.0
    docs = tf.sparse_placeholder(tf.float32)
    weights = tf.Variable(np.zeros((3, 1), np.float32))
    loss = tf.reduce_sum(tf.square(tf.sparse_tensor_dense_matmul(docs, weights) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)  # the gradient's (?, 1) shape is the variable's at run time
    with tf.Session() as sess:
        d, h = sess.run([doubled, halved])
        sess.run(tf.global_variables_initializer())
        sess.run(train, {docs: tf.SparseTensorValue([[0, 0], [1, 2]], [1.0, 1.0], [2, 3])})
        w = sess.run(weights)
    assert isinstance(d, tf.SparseTensorValue) and d.values.tolist() == [2.0, 4.0] and h.values.tolist() == [0.5, 1.0]
    assert d.indices.tolist() == [[0, 0], [1, 2]]
    np.testing.assert_allclose(w[:, 0], [0.2, 0.0, 0.2])
    with pytest.raises(TypeError):
        sp * tf.ones([2, 3])
