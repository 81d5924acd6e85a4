"""ember.sparse.primitives: to_dense, sparse-dense matmul and the reductions, with their kernels and
derivatives.

Oracles: dense NumPy computations (duplicates summed with np.add.at) and, when importable,
torch.sparse_coo_tensor.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.sparse as S
from ember.autograd import gradcheck, gradgradcheck
from ember.sparse import SparseTensor
from tests._oracle import require_torch

from ._coo import RNG, _dense, _random_sparse, _values

# ---------------------------------------------------------------------------------------
# to_dense


DTYPES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "int8", "uint8", "bool", "complex64", "complex128"]


class TestToDense:
    @pytest.mark.parametrize("dtype", DTYPES)
    @pytest.mark.parametrize("shape", [(7,), (4, 5), (3, 2, 4)])
    def test_against_numpy(self, dtype, shape):
        edt = getattr(ember, dtype)
        np_dtype = edt.numpy_dtype
        idx, _ = _random_sparse(shape, 6)
        values = _values(len(idx), np_dtype if np.dtype(np_dtype).kind != "V" else np.float32)
        sp = SparseTensor(idx, ember.tensor(values.astype(np.float32) if dtype == "bfloat16" else values, dtype=edt), list(shape))
        out = S.to_dense(sp)
        assert out.dtype is edt and tuple(out.shape) == shape
        expected = _dense(idx, values.astype(np.float64) if dtype in ("float16", "bfloat16") else values, shape)
        got = out.numpy().astype(np.float64) if dtype in ("float16", "bfloat16") else out.numpy()
        tol = 1e-2 if dtype in ("float16", "bfloat16") else 0
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)

    def test_default_value(self):
        sp = SparseTensor([[0, 1], [2, 0]], [7, 8], [3, 2])
        assert S.to_dense(sp, default_value=-1).tolist() == [[-1, 7], [-1, -1], [8, -1]]
        assert S.to_dense(sp, default_value=ember.tensor(5)).tolist() == [[5, 7], [5, 5], [8, 5]]
        with pytest.raises(TypeError, match=r"default_value must have the values' dtype ember.int64, got ember.float32"):
            S.to_dense(sp, default_value=ember.tensor(1.0))
        with pytest.raises(ValueError, match="default_value must be a scalar"):
            S.to_dense(sp, default_value=ember.tensor([1, 2]))

    def test_strings(self):
        sp = SparseTensor([[0], [2]], ["a", "bc"], [4])
        assert sp.dtype is ember.string
        assert S.to_dense(sp, default_value="-").tolist() == [b"a", b"-", b"bc", b"-"]

    def test_empty_and_zero_sized(self):
        assert S.to_dense(SparseTensor(np.zeros((0, 2), np.int64), ember.tensor([], dtype=ember.int32), [2, 3]), 4).tolist() == [[4] * 3] * 2
        out = S.to_dense(SparseTensor(np.zeros((0, 2), np.int64), [], [0, 3]))
        assert tuple(out.shape) == (0, 3)

    def test_rank0(self):
        sp = SparseTensor(np.zeros((1, 0), np.int64), [3.0], np.zeros(0, np.int64))
        out = S.to_dense(sp)
        assert out.shape == () and out.item() == 3.0

    def test_validate_refuses_repeats_and_disorder(self):
        sp = SparseTensor([[0, 0], [0, 0]], [1.0, 2.0], [2, 2])
        with pytest.raises(ValueError, match=r"indices\[1\] = \[0,0\] is repeated"):
            S.to_dense(sp)
        sp = SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2])
        with pytest.raises(ValueError, match=r"indices\[1\] = \[0,1\] is out of order.*sparse.reorder"):
            S.to_dense(sp)
        # the reordered copy passes
        np.testing.assert_array_equal(S.to_dense(S.reorder(sp)).numpy(), [[0.0, 2.0], [1.0, 0.0]])

    def test_no_validation_sums_repeats(self):
        idx, values = _random_sparse((3, 4), 12, canonical=False)
        sp = SparseTensor(idx, ember.tensor(values), [3, 4])
        np.testing.assert_allclose(S.to_dense(sp, default_value=-2.0, validate_indices=False).numpy(), _dense(idx, values, (3, 4), -2.0))

    def test_against_torch(self):
        torch = require_torch()
        idx, values = _random_sparse((5, 6, 2), 15, canonical=False)
        sp = SparseTensor(idx, ember.tensor(values), [5, 6, 2])
        ref = torch.sparse_coo_tensor(torch.from_numpy(idx.T.copy()), torch.from_numpy(values), (5, 6, 2), check_invariants=False).to_dense().numpy()
        np.testing.assert_allclose(S.to_dense(sp, validate_indices=False).numpy(), ref, rtol=1e-12)

    def test_gradcheck(self):
        idx, values = _random_sparse((3, 4), 5)
        v = ember.tensor(values, requires_grad=True)
        d = ember.tensor(0.5, dtype=ember.float64, requires_grad=True)
        assert gradcheck(lambda v, d: S.to_dense(SparseTensor(idx, v, [3, 4]), default_value=d) ** 2, (v, d))
        assert gradgradcheck(lambda v, d: S.to_dense(SparseTensor(idx, v, [3, 4]), default_value=d) ** 2, (v, d))

    def test_gradient_with_repeats(self):
        idx = np.array([[0, 1], [0, 1], [2, 0]])
        v = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64, requires_grad=True)
        d = ember.tensor(0.0, dtype=ember.float64, requires_grad=True)
        w = ember.tensor(np.arange(6.0).reshape(3, 2))
        (S.to_dense(SparseTensor(idx, v, [3, 2]), d, validate_indices=False) * w).sum().backward()
        assert v.grad.tolist() == [1.0, 1.0, 4.0]
        assert d.grad.item() == 0.0 + 2.0 + 3.0 + 5.0  # the positions without a value
        assert gradcheck(lambda v, d: S.to_dense(SparseTensor(idx, v, [3, 2]), d, validate_indices=False) * w, (v, d))

    def test_kernel_checks_at_run_time(self):
        # a SparseTensor made without the constructor's checks (as a graph feed would be)
        sp = SparseTensor._from_parts(ember.tensor([[0, 5]]), ember.tensor([1.0]), ember.tensor([2, 2]), (2, 2))
        with pytest.raises(IndexError, match=r"indices\[0\] = \[0,5\] is out of bounds: need 0 <= index < \[2,2\]"):
            S.to_dense(sp)
        sp = SparseTensor._from_parts(ember.tensor([[0, 1]]), ember.tensor([1.0]), ember.tensor([2, 3]), (2, 2))
        with pytest.raises(ValueError, match=r"dense_shape \[2, 3\] does not match the static shape \[2, 2\]"):
            S.to_dense(sp)


# ---------------------------------------------------------------------------------------
# sparse-dense matmul


def _np_matmul(idx, values, shape, b, adjoint_a, adjoint_b):
    a = _dense(idx, values, shape)
    a = a.conj().T if adjoint_a else a
    b = b.conj().T if adjoint_b else b
    return a @ b


class TestMatmul:
    @pytest.mark.parametrize("adjoint_a", [False, True])
    @pytest.mark.parametrize("adjoint_b", [False, True])
    @pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int32", "int64"])
    def test_against_numpy(self, adjoint_a, adjoint_b, dtype):
        np_dtype = np.dtype(dtype)
        shape = (4, 3)
        idx, _ = _random_sparse(shape, 9, canonical=False)  # repeats are summed
        values = _values(len(idx), np_dtype)
        m, k = (shape[1], shape[0]) if adjoint_a else shape
        b = _values(k * 5, np_dtype).reshape(k, 5)
        b = np.ascontiguousarray(b.T) if adjoint_b else b
        sp = SparseTensor(idx, ember.tensor(values), list(shape))
        out = S.sparse_dense_matmul(sp, ember.tensor(b), adjoint_a=adjoint_a, adjoint_b=adjoint_b)
        assert out.dtype is getattr(ember, dtype) and tuple(out.shape) == (m, 5)
        np.testing.assert_allclose(out.numpy(), _np_matmul(idx, values, shape, b, adjoint_a, adjoint_b), rtol=1e-5, atol=1e-5)

    @pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
    def test_half(self, dtype):
        idx, values = _random_sparse((3, 4), 5, dtype=np.float32)
        edt = getattr(ember, dtype)
        b = RNG.standard_normal((4, 2)).astype(np.float32)
        out = S.sparse_dense_matmul(SparseTensor(idx, ember.tensor(values, dtype=edt), [3, 4]), ember.tensor(b, dtype=edt))
        assert out.dtype is edt
        vq = ember.tensor(values, dtype=edt).to(ember.float32).numpy()
        bq = ember.tensor(b, dtype=edt).to(ember.float32).numpy()
        np.testing.assert_allclose(out.to(ember.float32).numpy(), _dense(idx, vq, (3, 4)) @ bq, rtol=2e-2, atol=2e-2)

    def test_empty(self):
        sp = SparseTensor(np.zeros((0, 2), np.int64), ember.tensor([], dtype=ember.float64), [3, 4])
        out = S.sparse_dense_matmul(sp, ember.ones((4, 2), dtype=ember.float64))
        np.testing.assert_array_equal(out.numpy(), np.zeros((3, 2)))

    def test_list_b_takes_values_dtype(self):
        sp = SparseTensor([[0, 0]], ember.tensor([2.0], dtype=ember.float64), [1, 2])
        out = S.sparse_dense_matmul(sp, [[1.0], [3.0]])
        assert out.dtype is ember.float64 and out.tolist() == [[2.0]]

    def test_against_torch(self):
        torch = require_torch()
        idx, values = _random_sparse((6, 5), 14, canonical=False)
        b = RNG.standard_normal((5, 3))
        ref = torch.sparse.mm(torch.sparse_coo_tensor(torch.from_numpy(idx.T.copy()), torch.from_numpy(values), (6, 5), check_invariants=False), torch.from_numpy(b))
        out = S.sparse_dense_matmul(SparseTensor(idx, ember.tensor(values), [6, 5]), ember.tensor(b))
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)

    def test_errors(self):
        sp = SparseTensor([[0, 0]], [1.0], [2, 3])
        with pytest.raises(ValueError, match=r"inner dimension does not match: 3 vs. 4"):
            S.sparse_dense_matmul(sp, ember.ones((4, 2)))
        with pytest.raises(ValueError, match=r"inner dimension does not match: 2 vs. 3"):
            S.sparse_dense_matmul(sp, ember.ones((3, 2)), adjoint_a=True)
        with pytest.raises(TypeError, match=r"must have the same dtype, got ember.float32 and ember.float64"):
            S.sparse_dense_matmul(sp, ember.ones((3, 2), dtype=ember.float64))
        with pytest.raises(ValueError, match="b must be a matrix"):
            S.sparse_dense_matmul(sp, ember.ones(3))
        with pytest.raises(ValueError, match=r"rank-2 SparseTensor.*got rank 3"):
            S.sparse_dense_matmul(SparseTensor([[0, 0, 0]], [1.0], [1, 1, 1]), ember.ones((1, 1)))
        with pytest.raises(TypeError, match=r"numeric dtype, got ember.bool"):
            S.sparse_dense_matmul(SparseTensor([[0, 0]], [True], [1, 1]), ember.ones((1, 1), dtype=ember.bool))

    @pytest.mark.parametrize(("adjoint_a", "adjoint_b"), [(False, False), (True, False), (False, True), (True, True)])
    def test_gradcheck(self, adjoint_a, adjoint_b):
        idx, values = _random_sparse((4, 3), 7, canonical=False)
        k = 4 if adjoint_a else 3
        b = RNG.standard_normal((2, k) if adjoint_b else (k, 2))
        v = ember.tensor(values, requires_grad=True)
        bt = ember.tensor(b, requires_grad=True)

        def fn(v, bt):
            return S.sparse_dense_matmul(SparseTensor(idx, v, [4, 3]), bt, adjoint_a=adjoint_a, adjoint_b=adjoint_b)

        assert gradcheck(fn, (v, bt))
        assert gradgradcheck(fn, (v, bt))

    @pytest.mark.parametrize(("adjoint_a", "adjoint_b"), [(False, False), (True, True)])
    def test_complex_gradients_against_torch(self, adjoint_a, adjoint_b):
        torch = require_torch()
        idx, values = _random_sparse((3, 4), 6, dtype=np.complex128)
        k = 3 if adjoint_a else 4
        b = _values(k * 2, np.complex128).reshape((2, k) if adjoint_b else (k, 2))
        g = _values((4 if adjoint_a else 3) * 2, np.complex128).reshape(-1, 2)
        v = ember.tensor(values, requires_grad=True)
        bt = ember.tensor(b, requires_grad=True)
        out = S.sparse_dense_matmul(SparseTensor(idx, v, [3, 4]), bt, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
        out.backward(ember.tensor(g))
        tv = torch.tensor(values, requires_grad=True)
        tb = torch.tensor(b, requires_grad=True)
        a = torch.zeros((3, 4), dtype=torch.complex128).index_put((torch.tensor(idx[:, 0]), torch.tensor(idx[:, 1])), tv, accumulate=True)
        a = a.conj().T if adjoint_a else a
        ob = tb.conj().T if adjoint_b else tb
        (a @ ob).backward(torch.tensor(g))
        np.testing.assert_allclose(out.detach().numpy(), (a @ ob).detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(v.grad.numpy(), tv.grad.resolve_conj().numpy(), rtol=1e-10)
        np.testing.assert_allclose(bt.grad.numpy(), tb.grad.resolve_conj().numpy(), rtol=1e-10)


# ---------------------------------------------------------------------------------------
# reductions


def _np_reduce_max(idx, values, shape, axis, keepdims):
    """TensorFlow's sparse max: over the explicit values of each output cell; 0 where none."""
    axis = tuple(range(len(shape))) if axis is None else tuple(a % len(shape) for a in np.atleast_1d(axis))
    kept = [d for d in range(len(shape)) if d not in axis]
    out = np.zeros(tuple(shape[d] for d in kept), values.dtype)
    seen = np.zeros(out.shape, bool)
    for row, v in zip(idx, values, strict=True):
        key = tuple(row[kept])
        out[key] = v if not seen[key] else max(out[key], v)
        seen[key] = True
    if keepdims:
        out = out.reshape(tuple(1 if d in axis else s for d, s in enumerate(shape)))
    return out


AXES = [None, 0, 1, -1, (0, 2), [2, 0, 1], ()]


class TestReduce:
    @pytest.mark.parametrize("axis", AXES)
    @pytest.mark.parametrize("keepdims", [False, True])
    @pytest.mark.parametrize("dtype", ["float64", "int32", "complex64"])
    def test_sum_against_numpy(self, axis, keepdims, dtype):
        shape = (3, 4, 2)
        idx, _ = _random_sparse(shape, 14, canonical=False)
        values = _values(len(idx), np.dtype(dtype))
        out = S.reduce_sum(SparseTensor(idx, ember.tensor(values), list(shape)), axis=axis, keepdims=keepdims)
        ax = None if axis is None else tuple(np.atleast_1d(axis)) if axis != () else ()
        expected = _dense(idx, values, shape).sum(axis=ax, keepdims=keepdims)
        assert out.dtype is getattr(ember, dtype)
        assert tuple(out.shape) == expected.shape
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)

    @pytest.mark.parametrize("axis", AXES)
    @pytest.mark.parametrize("keepdims", [False, True])
    @pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
    def test_max_against_reference(self, axis, keepdims, dtype):
        shape = (3, 4, 2)
        idx, _ = _random_sparse(shape, 10, canonical=False)
        values = _values(len(idx), np.dtype(dtype))
        if dtype != "bool":
            values = values - 5
        out = S.reduce_max(SparseTensor(idx, ember.tensor(values), list(shape)), axis=axis, keepdims=keepdims)
        expected = _np_reduce_max(idx, values, shape, axis, keepdims)
        assert out.dtype is getattr(ember, dtype) and tuple(out.shape) == expected.shape
        np.testing.assert_array_equal(out.numpy(), expected)

    def test_tensorflow_examples(self):
        x = SparseTensor([[0, 0], [0, 2], [1, 1]], [1, 2, 3], [2, 3])
        assert S.reduce_max(x).item() == 3
        assert S.reduce_max(x, 0).tolist() == [1, 3, 2]
        assert S.reduce_max(x, 1).tolist() == [2, 3]
        assert S.reduce_max(x, 1, keepdims=True).tolist() == [[2], [3]]
        assert S.reduce_max(x, [0, 1]).item() == 3
        y = SparseTensor([[0, 0], [1, 0], [1, 1]], [-7, 4, 3], [3, 2])
        assert S.reduce_max(y, 1).tolist() == [-7, 4, 0]
        x = SparseTensor([[0, 0], [0, 2], [1, 1]], [1, 1, 1], [2, 3])
        assert S.reduce_sum(x).item() == 3
        assert S.reduce_sum(x, 0).tolist() == [1, 1, 1]
        assert S.reduce_sum(x, 1).tolist() == [2, 1]
        assert S.reduce_sum(x, 1, keepdims=True).tolist() == [[2], [1]]
        assert S.reduce_sum(x, [0, 1]).item() == 3
        # TensorFlow 1's spellings
        assert S.sparse_reduce_sum(x, reduction_axes=1, keep_dims=True).tolist() == [[2], [1]]

    def test_half_and_empty(self):
        sp = SparseTensor([[0, 1], [1, 1]], ember.tensor([1.5, 2.5], dtype=ember.bfloat16), [2, 2])
        out = S.reduce_sum(sp, 0)
        assert out.dtype is ember.bfloat16 and out.to(ember.float32).tolist() == [0.0, 4.0]
        empty = SparseTensor(np.zeros((0, 2), np.int64), ember.tensor([], dtype=ember.float32), [2, 3])
        assert S.reduce_sum(empty).item() == 0.0 and S.reduce_max(empty, 1).tolist() == [0.0, 0.0]
        assert S.reduce_max(empty).item() == 0.0

    def test_against_torch(self):
        torch = require_torch()
        idx, values = _random_sparse((4, 5, 3), 20, canonical=False)
        t = torch.sparse_coo_tensor(torch.from_numpy(idx.T.copy()), torch.from_numpy(values), (4, 5, 3), check_invariants=False)
        sp = SparseTensor(idx, ember.tensor(values), [4, 5, 3])
        for axis in ((0,), (1, 2), (0, 2)):
            np.testing.assert_allclose(S.reduce_sum(sp, axis).numpy(), torch.sparse.sum(t, axis).to_dense().numpy(), rtol=1e-12)

    def test_errors(self):
        sp = SparseTensor([[0, 0]], [1.0], [2, 3])
        with pytest.raises(ValueError, match=r"Invalid reduction dimension 2 for input with 2 dimensions \(expected to be in range of \[-2, 1\]\)"):
            S.reduce_sum(sp, 2)
        with pytest.raises(ValueError, match="Invalid reduction dimension -3"):
            S.reduce_max(sp, -3)
        with pytest.raises(TypeError, match=r"sparse_reduce_sum\(\): values must have a numeric dtype, got ember.bool"):
            S.reduce_sum(SparseTensor([[0]], [True], [2]))
        with pytest.raises(TypeError, match=r"sparse_reduce_max\(\): values must have a real dtype, got ember.complex64"):
            S.reduce_max(SparseTensor([[0]], ember.tensor([1j], dtype=ember.complex64), [2]))
        with pytest.raises(ValueError, match="either axis or reduction_axes"):
            S.sparse_reduce_sum(sp, axis=0, reduction_axes=1)

    @pytest.mark.parametrize("axis", [None, 0, (1, 2), ()])
    @pytest.mark.parametrize("keepdims", [False, True])
    def test_sum_gradcheck(self, axis, keepdims):
        idx, values = _random_sparse((3, 2, 4), 8, canonical=False)
        v = ember.tensor(values, requires_grad=True)

        def fn(v):
            return S.reduce_sum(SparseTensor(idx, v, [3, 2, 4]), axis=axis, keepdims=keepdims) ** 2

        assert gradcheck(fn, (v,))
        assert gradgradcheck(fn, (v,))

    @pytest.mark.parametrize("axis", [None, 1, (0, 2)])
    @pytest.mark.parametrize("keepdims", [False, True])
    def test_max_gradcheck(self, axis, keepdims):
        idx, _ = _random_sparse((3, 2, 4), 10, canonical=False)
        values = np.random.default_rng(3).permutation(10).astype(np.float64) * 0.7  # distinct: no ties, no kinks
        v = ember.tensor(values, requires_grad=True)
        assert gradcheck(lambda v: S.reduce_max(SparseTensor(idx, v, [3, 2, 4]), axis=axis, keepdims=keepdims), (v,))

    def test_max_ties_share_the_gradient(self):
        v = ember.tensor([2.0, 2.0, 1.0, -3.0], requires_grad=True)
        sp = SparseTensor([[0, 0], [0, 2], [0, 1], [1, 1]], v, [3, 3])
        out = S.reduce_max(sp, 1)
        assert out.tolist() == [2.0, -3.0, 0.0]
        out.backward(ember.tensor([1.0, 10.0, 100.0]))
        assert v.grad.tolist() == [0.5, 0.5, 0.0, 10.0]
        torch = require_torch()
        t = torch.tensor([2.0, 2.0, 1.0], requires_grad=True)
        torch.amax(t, 0).backward()
        assert t.grad.tolist() == v.grad.tolist()[:3]
