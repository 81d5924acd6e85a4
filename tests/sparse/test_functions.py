"""ember.sparse.functions: from_dense, add, retain, reorder, transpose.

Oracles: dense NumPy computations (duplicates summed with np.add.at) and, when importable,
torch.sparse_coo_tensor.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.sparse as S
from ember.autograd import gradcheck
from ember.sparse import SparseTensor

from ._coo import RNG, _dense, _random_sparse, _values

# ---------------------------------------------------------------------------------------
# from_dense, add, retain, reorder, transpose


class TestOthers:
    @pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
    @pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 2), ()])
    def test_from_dense_roundtrip(self, dtype, shape):
        rng = np.random.default_rng(7)
        dense = _values(int(np.prod(shape)), np.dtype(dtype), rng).reshape(shape)
        if np.dtype(dtype).kind != "b":
            dense = dense * (rng.random(shape) < 0.5)
        sp = S.from_dense(ember.tensor(dense))
        assert sp.shape == shape and sp.dtype is getattr(ember, dtype)
        assert sp.values.shape[0] == np.count_nonzero(dense)
        np.testing.assert_array_equal(sp.indices.numpy(), np.argwhere(dense != 0))
        np.testing.assert_array_equal(S.to_dense(sp).numpy(), dense)

    def test_from_dense_gradient(self):
        x = ember.tensor([[0.0, 2.0], [3.0, 0.0]], dtype=ember.float64, requires_grad=True)
        S.from_dense(x).values.sum().backward()
        assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
        x = ember.tensor([[0.5, 2.0], [3.0, -1.0]], dtype=ember.float64, requires_grad=True)  # no zeros: finite differences keep N
        assert gradcheck(lambda x: S.from_dense(x).values * ember.tensor([1.0, 2.0, 3.0, 4.0], dtype=ember.float64), (x,))

    @pytest.mark.parametrize("order", ["sparse_first", "dense_first"])
    def test_add_sparse_dense(self, order):
        idx, values = _random_sparse((3, 4), 9, canonical=False)
        dense = RNG.standard_normal((3, 4))
        sp = SparseTensor(idx, ember.tensor(values), [3, 4])
        out = S.add(sp, ember.tensor(dense)) if order == "sparse_first" else S.add(ember.tensor(dense), sp)
        np.testing.assert_allclose(out.numpy(), dense + _dense(idx, values, (3, 4)))
        v = ember.tensor(values, requires_grad=True)
        d = ember.tensor(dense, requires_grad=True)
        assert gradcheck(lambda v, d: S.add(SparseTensor(idx, v, [3, 4]), d) ** 2, (v, d))

    def test_add_errors(self):
        sp = SparseTensor([[0, 0]], [1.0], [2, 2])
        with pytest.raises(ValueError, match=r"same shape, got \[2, 2\] and \[2, 3\]"):
            S.add(sp, ember.ones((2, 3)))
        with pytest.raises(TypeError, match="must have the same dtype"):
            S.add(sp, ember.ones((2, 2), dtype=ember.float64))
        with pytest.raises(TypeError, match="at least one of a and b must be a SparseTensor"):
            S.add(ember.ones(2), ember.ones(2))
        with pytest.raises(TypeError, match="same dtype"):
            S.add(sp, SparseTensor([[0, 0]], [1], [2, 2]))

    def test_add_sparse_sparse(self):
        a = SparseTensor([[0, 0], [1, 1]], ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True), [2, 3])
        b = SparseTensor([[1, 1], [0, 2], [0, 0]], ember.tensor([-2.0, 5.0, 0.5], dtype=ember.float64, requires_grad=True), [2, 3])
        c = S.add(a, b)
        assert c.indices.tolist() == [[0, 0], [0, 2], [1, 1]] and c.values.tolist() == [1.5, 5.0, 0.0] and c.shape == (2, 3)
        np.testing.assert_array_equal(S.to_dense(c).detach().numpy(), S.to_dense(a).detach().numpy() + S.to_dense(b, validate_indices=False).detach().numpy())
        c2 = S.sparse_add(a, b, threshold=1.0)  # |0.0| and |1.5|? 1.5 stays, 0.0 goes
        assert c2.indices.tolist() == [[0, 0], [0, 2]] and c2.values.tolist() == [1.5, 5.0]
        (c2.values * ember.tensor([1.0, 10.0], dtype=ember.float64)).sum().backward()
        assert a.values.grad.tolist() == [1.0, 0.0] and b.values.grad.tolist() == [0.0, 10.0, 1.0]

    def test_retain(self):
        sp = SparseTensor([[0, 1], [1, 0], [2, 2]], [1.0, 2.0, 3.0], [3, 3])
        out = S.retain(sp, [True, False, True])
        assert out.indices.tolist() == [[0, 1], [2, 2]] and out.values.tolist() == [1.0, 3.0] and out.shape == (3, 3)
        with pytest.raises(ValueError, match="bool vector of length 3"):
            S.retain(sp, [True, False])

    def test_reorder_and_transpose(self):
        idx, values = _random_sparse((4, 3, 5), 12)
        perm = RNG.permutation(len(idx))
        sp = SparseTensor(idx[perm], ember.tensor(values[perm]), [4, 3, 5])
        ro = S.reorder(sp)
        np.testing.assert_array_equal(ro.indices.numpy(), idx)
        np.testing.assert_array_equal(ro.values.numpy(), values)
        dense = _dense(idx, values, (4, 3, 5))
        for p in (None, (1, 0, 2), (2, 0, 1)):
            t = S.transpose(ro, p)
            expected = dense.transpose(p)
            assert t.shape == expected.shape
            np.testing.assert_array_equal(S.to_dense(t).numpy(), expected)  # canonical order: validation passes
        with pytest.raises(ValueError, match="perm must be a permutation"):
            S.transpose(ro, (0, 0, 1))

    def test_reorder_gradient(self):
        idx = np.array([[2], [0], [1]])
        v = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64, requires_grad=True)
        assert gradcheck(lambda v: S.reorder(SparseTensor(idx, v, [3])).values * ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64), (v,))

    def test_eager_only_functions_refuse_graph_mode(self):
        g = ember.graph.Graph()
        with g.as_default():
            with pytest.raises(NotImplementedError, match="from_dense\\(\\) is eager only"):
                S.from_dense(ember.ones((2, 2)))
            sp = SparseTensor([[0]], [1.0], [2])
            with pytest.raises(NotImplementedError, match="sparse_retain\\(\\) is eager only"):
                S.retain(sp, [True])
            with pytest.raises(NotImplementedError, match="sparse_add\\(\\) is eager only"):
                S.add(sp, sp)
