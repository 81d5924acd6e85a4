"""ember.sparse.tensor: SparseTensor and SparseTensorValue, eagerly and in graph mode (a Session
feeds and fetches them through its conversion registry).

Oracles: dense NumPy computations (duplicates summed with np.add.at) and, when importable,
torch.sparse_coo_tensor.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.sparse as S
from ember.sparse import SparseTensor, SparseTensorValue

from ._coo import RNG, _dense, _random_sparse

# ---------------------------------------------------------------------------------------
# construction


class TestSparseTensor:
    def test_components_and_properties(self):
        sp = SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        assert sp.indices.dtype is ember.int64 and sp.indices.tolist() == [[0, 0], [1, 2]]
        assert sp.values.dtype is ember.float32 and sp.values.tolist() == [1.0, 2.0]
        assert sp.dense_shape.dtype is ember.int64 and sp.dense_shape.tolist() == [3, 4]
        assert sp.dtype is ember.float32
        assert sp.shape == (3, 4) and isinstance(sp.shape, tuple)
        assert sp.get_shape().as_list() == [3, 4]
        assert sp.ndim == 2
        with pytest.raises(AttributeError, match="eager"):
            _ = sp.graph
        with pytest.raises(AttributeError, match="eager"):
            _ = sp.op

    def test_numpy_and_tensor_inputs_and_int32(self):
        sp = SparseTensor(np.array([[1], [3]], np.int32), np.array([5, 6], np.int16), np.array([4], np.int32))
        assert sp.indices.dtype is ember.int64 and sp.dense_shape.dtype is ember.int64
        assert sp.dtype is ember.int16
        sp2 = SparseTensor(ember.tensor([[1], [3]]), ember.tensor([1.0, 2.0], dtype=ember.float64), ember.tensor([4]))
        assert sp2.dtype is ember.float64 and sp2.shape == (4,)

    def test_repr(self):
        sp = SparseTensor([[0, 1]], [2.5], [2, 2])
        text = repr(sp)
        assert text.startswith("SparseTensor(indices=tensor([[0, 1]]), values=tensor([2.5000]), dense_shape=tensor([2, 2]))")

    def test_empty(self):
        sp = SparseTensor(np.zeros((0, 2), np.int64), [], [3, 2])
        assert sp.indices.shape == (0, 2) and sp.values.shape == (0,) and sp.shape == (3, 2)
        sp2 = SparseTensor([], [], [5])
        assert sp2.indices.shape == (0, 1)
        np.testing.assert_array_equal(S.to_dense(sp2).numpy(), np.zeros(5, np.float32))

    def test_value_roundtrip(self):
        v = SparseTensorValue(np.array([[0, 1]]), np.array([3.0]), np.array([2, 2]))
        sp = SparseTensor.from_value(v)
        assert sp.shape == (2, 2) and sp.values.tolist() == [3.0]
        assert SparseTensor.from_value(sp) is sp
        np.testing.assert_array_equal(S.to_dense(v).numpy(), [[0.0, 3.0], [0.0, 0.0]])  # values are accepted by the ops

    def test_with_values(self):
        sp = SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
        sp2 = sp.with_values(ember.tensor([5, 6]))
        assert sp2.dtype is ember.int64 and S.to_dense(sp2).tolist() == [[0, 5], [6, 0]]
        with pytest.raises(ValueError, match="new values must have shape"):
            sp.with_values([1.0, 2.0, 3.0])

    @pytest.mark.parametrize(
        ("indices", "values", "dense_shape", "error", "match"),
        [
            ([0, 1], [1.0, 2.0], [3], ValueError, r"indices must be 2-D \[N, rank\], got shape \[2\]"),
            ([[0.0, 1.0]], [1.0], [3, 3], TypeError, "argument 'indices' must have dtype int64 .*got ember.float32"),
            ([[0, 1]], [[1.0]], [3, 3], ValueError, r"values must be 1-D \[N\], got shape \[1, 1\]"),
            ([[0, 1]], [1.0], [[3, 3]], ValueError, r"dense_shape must be 1-D \[rank\], got shape \[1, 2\]"),
            ([[0, 1]], [1.0], [3.0, 3.0], TypeError, "argument 'dense_shape' must have dtype int64"),
            ([[0, 1], [1, 1]], [1.0], [3, 3], ValueError, "indices has 2 rows, values has 1 elements"),
            ([[0, 1]], [1.0], [3, 3, 3], ValueError, "dense_shape has rank 3, indices have 2 columns"),
            ([[0, 3]], [1.0], [3, 3], IndexError, r"indices\[0\] = \[0,3\] is out of bounds: need 0 <= index < \[3,3\]"),
            ([[0, 0], [-1, 2]], [1.0, 2.0], [3, 3], IndexError, r"indices\[1\] = \[-1,2\] is out of bounds"),
            ([[0, 0]], [1.0], [3, -3], ValueError, "dense_shape must be non-negative"),
        ],
    )
    def test_errors(self, indices, values, dense_shape, error, match):
        with pytest.raises(error, match=match):
            SparseTensor(indices, values, dense_shape)

    def test_ops_refuse_dense_input(self):
        with pytest.raises(TypeError, match=r"sparse_tensor_to_dense\(\): argument 'sp_input' must be a SparseTensor, got Tensor"):
            S.to_dense(ember.ones(3))
        with pytest.raises(TypeError, match="argument 'sp_a' must be a SparseTensor"):
            S.sparse_dense_matmul(ember.ones((2, 2)), ember.ones((2, 2)))
        with pytest.raises(TypeError, match="must be a SparseTensor"):
            S.reduce_sum(np.ones(3))

    def test_truthiness_refused(self):
        with pytest.raises(TypeError, match="ambiguous"):
            bool(SparseTensor([[0]], [1.0], [2]))

    def test_public_names(self):
        for name in S.__all__:
            assert hasattr(S, name)
        assert S.to_dense is S.sparse_tensor_to_dense and S.sparse_dense_matmul is S.sparse_tensor_dense_matmul
        assert S.reduce_sum is S.sparse_reduce_sum and S.reduce_max is S.sparse_reduce_max and S.add is S.sparse_add


# ---------------------------------------------------------------------------------------
# graph mode


class TestGraphMode:
    def test_constant_components(self):
        idx, values = _random_sparse((3, 4), 6)
        b = RNG.standard_normal((4, 2))
        eager_sp = SparseTensor(idx, ember.tensor(values), [3, 4])
        expected = [
            S.to_dense(eager_sp, 0.5).numpy(),
            S.sparse_dense_matmul(eager_sp, ember.tensor(b)).numpy(),
            S.reduce_sum(eager_sp, 1).numpy(),
            S.reduce_max(eager_sp, 0, keepdims=True).numpy(),
            S.add(eager_sp, ember.ones((3, 4), dtype=ember.float64)).numpy(),
        ]
        g = ember.graph.Graph()
        with g.as_default():
            sp = SparseTensor(idx, values, [3, 4])
            assert isinstance(sp.shape, ember.graph.TensorShape) and sp.shape.as_list() == [3, 4]
            assert sp.graph is g and sp.op.type == "Const"
            d = S.to_dense(sp, 0.5)
            m = S.sparse_dense_matmul(sp, ember.tensor(b))
            r = S.reduce_sum(sp, 1)
            mx = S.reduce_max(sp, 0, keepdims=True)
            a = S.add(sp, ember.ones((3, 4), dtype=ember.float64))
            assert d.shape.as_list() == [3, 4] and m.shape.as_list() == [3, 2] and r.shape.as_list() == [3]
            assert mx.shape.as_list() == [1, 4]
            types = {op.type for op in g.get_operations()}
            assert {"sparse_to_dense", "sparse_dense_matmul", "sparse_reduce_sum", "sparse_reduce_max", "sparse_scatter_nd_add"} <= types
        with ember.graph.Session(graph=g) as sess:
            got = sess.run([d, m, r, mx, a])
        for x, y in zip(got, expected, strict=True):
            np.testing.assert_allclose(x, y, rtol=1e-12)

    def test_session_fetches_sparse_value(self):
        g = ember.graph.Graph()
        with g.as_default():
            sp = S.reorder(SparseTensor([[1, 0], [0, 2]], [1.0, 2.0], [2, 3]))
        with ember.graph.Session(graph=g) as sess:
            value = sess.run(sp)
        assert isinstance(value, SparseTensorValue)
        np.testing.assert_array_equal(value.indices, [[0, 2], [1, 0]])
        np.testing.assert_array_equal(value.values, [2.0, 1.0])
        np.testing.assert_array_equal(value.dense_shape, [2, 3])

    def test_placeholders_with_known_shape(self):
        g = ember.graph.Graph()
        with g.as_default():
            idx = ember.graph.placeholder(ember.int64, shape=(None, 2))
            vals = ember.graph.placeholder(ember.float32, shape=(None,))
            sp = SparseTensor(idx, vals, [3, 4])  # a Python dense_shape: the static shape is known
            assert sp.shape.as_list() == [3, 4]
            d = S.to_dense(sp)
            s = S.reduce_sum(sp, 0)
            assert d.shape.as_list() == [3, 4]
        with ember.graph.Session(graph=g) as sess:
            feed = {idx: np.array([[0, 1], [2, 3]]), vals: np.array([1.0, 2.0], np.float32)}
            out, total = sess.run([d, s], feed_dict=feed)
            np.testing.assert_array_equal(out, _dense(np.array([[0, 1], [2, 3]]), np.array([1.0, 2.0], np.float32), (3, 4)))
            np.testing.assert_array_equal(total, [0.0, 1.0, 0.0, 2.0])
            # run-time checks: a repeated / out-of-bounds index fed
            with pytest.raises(ValueError, match="is repeated"):
                sess.run(d, feed_dict={idx: np.array([[0, 1], [0, 1]]), vals: np.array([1.0, 2.0], np.float32)})
            with pytest.raises(IndexError, match="out of bounds"):
                sess.run(d, feed_dict={idx: np.array([[0, 1], [5, 1]]), vals: np.array([1.0, 2.0], np.float32)})

    def test_symbolic_dense_shape(self):
        g = ember.graph.Graph()
        with g.as_default():
            sp = S.sparse_placeholder(ember.float64, shape=[None, 3])
            assert sp.shape.as_list() == [None, 3]
            d = S.to_dense(sp)
            r = S.reduce_sum(sp, 1)
            m = S.sparse_dense_matmul(sp, ember.ones((3, 2), dtype=ember.float64))
            assert d.shape.as_list() == [None, 3] and r.shape.as_list() == [None] and m.shape.as_list() == [None, 2]
        value = SparseTensorValue(np.array([[0, 1], [3, 2]]), np.array([1.0, 2.0]), np.array([4, 3]))
        with ember.graph.Session(graph=g) as sess:
            dense, rows, prod = sess.run([d, r, m], feed_dict={sp.indices: value.indices, sp.values: value.values, sp.dense_shape: value.dense_shape})
        expected = _dense(value.indices, value.values, (4, 3))
        np.testing.assert_array_equal(dense, expected)
        np.testing.assert_array_equal(rows, expected.sum(1))
        np.testing.assert_array_equal(prod, expected @ np.ones((3, 2)))
        # another dense shape in the same graph: the shapes follow the fed values (no stale inference cache)
        with ember.graph.Session(graph=g) as sess:
            for rows in (2, 6):
                feed = {sp.indices: np.array([[1, 0]]), sp.values: np.array([5.0]), sp.dense_shape: np.array([rows, 3])}
                dense, total = sess.run([d, r], feed_dict=feed)
                assert dense.shape == (rows, 3) and total.shape == (rows,)
                assert dense[1, 0] == 5.0 and total[1] == 5.0
            with pytest.raises(ValueError, match=r"dense_shape \[2, 4\] does not match the static shape \[2, 3\]"):
                sess.run(d, feed_dict={sp.indices: np.array([[1, 0]]), sp.values: np.array([5.0]), sp.dense_shape: np.array([2, 4])})

    def test_sparse_placeholder_full_shape(self):
        g = ember.graph.Graph()
        with g.as_default():
            sp = S.sparse_placeholder(ember.float32, shape=[2, 2], name="sp")
            d = S.to_dense(sp)
            assert d.shape.as_list() == [2, 2]
        with ember.graph.Session(graph=g) as sess:
            out = sess.run(d, feed_dict={sp.indices: np.array([[1, 1]]), sp.values: np.array([4.0], np.float32)})
        np.testing.assert_array_equal(out, [[0.0, 0.0], [0.0, 4.0]])
        with pytest.raises(RuntimeError, match="only meaningful in graph mode"):
            S.sparse_placeholder(ember.float32, shape=[2])

    def test_symbolic_gradients_match_eager(self):
        index = np.array([[0, 1], [3, 2], [0, 1]])
        value = np.array([1.0, 2.0, 3.0])
        matrix = np.arange(6.0).reshape(3, 2)

        def loss(sp, b):
            return (
                (S.sparse_dense_matmul(sp, b, adjoint_b=False) ** 2).sum()
                + (S.to_dense(sp, 0.5, validate_indices=False) ** 2).sum()
                + (S.reduce_sum(sp, 1) ** 3).sum()
                + (S.add(sp, b.sum() * ember.ones((4, 3), dtype=ember.float64)) ** 2).sum()
            )

        g = ember.graph.Graph()
        with g.as_default():
            idx = ember.graph.placeholder(ember.int64, shape=(None, 2))
            vals = ember.graph.placeholder(ember.float64, shape=(None,))
            b = ember.graph.placeholder(ember.float64, shape=(3, 2))
            gv, gb = ember.graph.gradients(loss(SparseTensor(idx, vals, [4, 3]), b), [vals, b])
        with ember.graph.Session(graph=g) as sess:
            got_v, got_b = sess.run([gv, gb], feed_dict={idx: index, vals: value, b: matrix})
        v = ember.tensor(value, requires_grad=True)
        bt = ember.tensor(matrix, requires_grad=True)
        loss(SparseTensor(index, v, [4, 3]), bt).backward()
        np.testing.assert_allclose(got_v, v.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(got_b, bt.grad.numpy(), rtol=1e-12)


def test_session_feeds_a_sparse_placeholder_with_a_sparse_tensor_value():
    g = ember.Graph()
    with g.as_default():
        sp = ember.sparse_placeholder(ember.float32, shape=(None, 4))
        dense = ember.sparse_tensor_to_dense(sp)
        fetched = ember.sparse_reduce_sum(sp, axis=1)
    value = ember.SparseTensorValue(np.array([[0, 0], [2, 3]]), np.array([1.0, 2.0], np.float32), np.array([3, 4]))
    with ember.Session(graph=g) as sess:
        d, r, back = sess.run([dense, fetched, sp], {sp: value})
        with pytest.raises(TypeError, match="SparseTensorValue"):
            sess.run(dense, {sp: np.zeros((3, 4))})
    expected = np.zeros((3, 4), np.float32)
    expected[0, 0], expected[2, 3] = 1.0, 2.0
    np.testing.assert_array_equal(d, expected)
    np.testing.assert_array_equal(r, expected.sum(1))
    assert isinstance(back, ember.SparseTensorValue) and back.values.tolist() == [1.0, 2.0]
