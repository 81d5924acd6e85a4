"""ember.sparse: TensorFlow's SparseTensor and its ops, eagerly and in graph mode.

Oracles: dense NumPy computations (duplicates summed with np.add.at) and, when importable,
torch.sparse_coo_tensor.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.sparse as S
from ember.autograd import gradcheck, gradgradcheck
from ember.sparse import SparseTensor, SparseTensorValue

RNG = np.random.default_rng(1234)


def _random_sparse(shape, n, *, canonical=True, rng=RNG, dtype=np.float64):
    """(indices [n, rank] int64, values [n]) in ``shape``; canonical = sorted, no repeats."""
    rank = len(shape)
    if rank == 0:
        idx = np.zeros((min(n, 1) if canonical else n, 0), np.int64)
    elif canonical:
        total = int(np.prod(shape))
        flat = np.sort(rng.choice(total, size=min(n, total), replace=False)) if total else np.zeros(0, np.int64)
        idx = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64).reshape(-1, rank)
    else:
        idx = np.stack([rng.integers(0, s, size=n) for s in shape], axis=1).astype(np.int64).reshape(-1, rank)
    values = _values(len(idx), dtype, rng)
    return idx, values


def _values(n, dtype, rng=RNG):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=n).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(-9, 10, size=n).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


def _dense(idx, values, shape, default=0, dtype=None):
    """The NumPy oracle: default everywhere, repeated indices summed (bool: or)."""
    dtype = values.dtype if dtype is None else dtype
    acc = np.zeros(shape, np.float64 if dtype.kind == "f" else dtype)
    hit = np.zeros(shape, bool)
    key = tuple(idx.T)
    hit[key] = True
    np.add.at(acc, key, values.astype(acc.dtype))
    return np.where(hit, acc, default).astype(dtype)


def _sp(idx, values, shape, dtype=None):
    v = ember.tensor(values) if dtype is None else ember.tensor(values, dtype=dtype)
    return SparseTensor(idx, v, shape)


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
        torch = pytest.importorskip("torch")
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
        torch = pytest.importorskip("torch")
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
        torch = pytest.importorskip("torch")
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
        torch = pytest.importorskip("torch")
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
        torch = pytest.importorskip("torch")
        t = torch.tensor([2.0, 2.0, 1.0], requires_grad=True)
        torch.amax(t, 0).backward()
        assert t.grad.tolist() == v.grad.tolist()[:3]


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
