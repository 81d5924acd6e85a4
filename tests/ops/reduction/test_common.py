"""What every reduction shares (``ember/ops/reduction/_common.py``): ``dim`` as None, an int, a
tuple or ``()``; keepdim; 0-d, empty and meta inputs; result dtypes; ``out=``; the errors.
Values against NumPy (also for the unsigned dtypes PyTorch lacks kernels for), on strided input.
"""

import math

import numpy as np
import pytest

import ember

# ---------------------------------------------------------------------------------------
# dtypes PyTorch lacks kernels for: against NumPy


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_unsigned_reductions_match_numpy(dtype):
    a = np.arange(24, dtype=dtype).reshape(2, 3, 4)
    x = ember.from_numpy(a)
    assert x.sum().dtype is ember.int64 and x.sum().item() == a.sum()
    np.testing.assert_array_equal(x.sum((0, 2)).numpy(), a.sum((0, 2)))
    np.testing.assert_array_equal(x.amax(1).numpy(), a.max(1))
    np.testing.assert_array_equal(x.argmin(-1).numpy(), a.argmin(-1))
    np.testing.assert_array_equal(x.cumsum(2).numpy(), a.cumsum(2))
    assert x.cumsum(0).dtype is ember.int64
    assert x.any().item() and not x.all().item()


def test_values_against_numpy_on_strided_input():
    a = np.random.default_rng(0).standard_normal((6, 5, 4))
    x = ember.from_numpy(a)[::2].transpose(0, 2)
    v = a[::2].transpose(2, 1, 0)
    np.testing.assert_allclose(x.sum((0, -1)).numpy(), v.sum((0, 2)))
    np.testing.assert_allclose(x.mean(1, keepdim=True).numpy(), v.mean(1, keepdims=True))
    np.testing.assert_allclose(x.var(0, correction=0).numpy(), v.var(0))
    np.testing.assert_allclose(x.std(None).numpy(), v.std(ddof=1))
    np.testing.assert_allclose(x.prod(2).numpy(), v.prod(2))
    np.testing.assert_allclose(x.logsumexp((0, 1)).numpy(), np.log(np.exp(v).sum((0, 1))))
    np.testing.assert_allclose(x.cumprod(1).numpy(), v.cumprod(1))
    np.testing.assert_array_equal(x.max(1).indices.numpy(), v.argmax(1))


# ---------------------------------------------------------------------------------------
# semantics


def test_result_dtypes():
    assert ember.tensor([True, True]).sum().dtype is ember.int64
    assert ember.tensor([1, 2], dtype=ember.int8).prod().dtype is ember.int64
    assert ember.tensor([1, 2], dtype=ember.int32).cumsum(0).dtype is ember.int64
    assert ember.tensor([1.0], dtype=ember.float16).sum().dtype is ember.float16
    assert ember.tensor([1, 2]).argmax().dtype is ember.int64
    assert ember.tensor([1, 2]).mean(dtype=ember.float64).dtype is ember.float64
    assert ember.tensor([1j]).var().dtype is ember.float32
    assert ember.tensor([1, 2]).logsumexp(0).dtype is ember.float32
    assert ember.tensor([1, 2], dtype=ember.uint8).all().dtype is ember.uint8
    assert ember.tensor([1.0, 2.0]).any().dtype is ember.bool
    assert ember.tensor([1.0, 0.0]).count_nonzero().dtype is ember.int64


def test_empty_reductions_give_the_identity():
    e = ember.zeros(0, 3)
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert math.isnan(e.mean().item())
    assert e.sum(0).tolist() == [0.0, 0.0, 0.0]
    assert e.prod(0).tolist() == [1.0, 1.0, 1.0]
    assert e.all().item() is True and e.any().item() is False
    assert e.logsumexp(0).tolist() == [-math.inf] * 3
    assert e.max(1).values.shape == (0,)


def test_out_argument():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = ember.empty(2)
    assert ember.sum(x, 0, out=out) is out and out.tolist() == [4.0, 6.0]
    out64 = ember.empty(2, dtype=ember.float64)
    ember.mean(x, 1, out=out64)
    assert out64.tolist() == [1.5, 3.5]
    with pytest.raises(RuntimeError, match="doesn't match"):
        ember.sum(x, 0, out=ember.empty(3))
    y = ember.tensor([1, 2, 3])
    assert y.cumsum_(0) is y and y.tolist() == [1, 3, 6]


def test_zero_dim_inputs():
    s = ember.tensor(3.0)
    for dim in (0, -1, None):
        assert s.sum(dim).item() == 3.0
    assert s.sum(0, keepdim=True).shape == ()
    assert s.max(0).indices.item() == 0
    assert s.argmax(0).item() == 0
    assert s.cumsum(0).tolist() == 3.0
    assert math.isnan(s.var().item())
    assert s.var(correction=0).item() == 0.0


def test_dim_tuple_and_empty_tuple():
    x = ember.arange(24.0).reshape(2, 3, 4)
    assert x.sum((0, 2)).tolist() == [60.0, 92.0, 124.0]
    assert x.sum(()).item() == 276.0  # PyTorch: an empty dim list reduces everything
    assert x.amax(dim=(-1, 0), keepdim=True).shape == (1, 3, 1)


# ---------------------------------------------------------------------------------------
# errors


def test_dimension_errors():
    x = ember.ones(2, 3)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)$"):
        x.sum(3)
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got -3"):
        x.max(-3)
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        ember.tensor(1.0).sum(1)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.sum((0, -2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.cumsum(2)


def test_dtype_errors():
    with pytest.raises(
        RuntimeError,
        match=r"mean\(\): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long",
    ):
        ember.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex dtypes"):
        ember.tensor([1, 2]).var()
    with pytest.raises(RuntimeError, match=r"argmax\(\): does not support bool input"):
        ember.tensor([True]).argmax()
    with pytest.raises((TypeError, RuntimeError), match="amax"):
        ember.tensor([1j]).amax()


def test_meta_tensors_infer_only():
    m = ember.empty(3, 4, device="meta")
    assert m.sum(1, keepdim=True).shape == (3, 1) and m.sum(1).device.type == "meta"
    assert m.max(0).indices.dtype is ember.int64
    assert m.argmax().shape == ()


@pytest.mark.parametrize(
    ("shape", "dims"), [((), (0, 0)), ((), (0, -1)), ((2, 3), (0, -2)), ((2, 3), (1, 1))], ids=["0-d twice", "0-d 0 and -1", "0 and -2", "1 twice"]
)
def test_a_dim_named_twice_is_refused_even_on_a_0d_tensor(shape, dims):
    with pytest.raises(RuntimeError, match="appears multiple times in the list of dims"):
        ember.amin(ember.zeros(shape), dims)
    with pytest.raises(RuntimeError, match="appears multiple times in the list of dims"):
        ember.squeeze(ember.zeros(shape), dims)
