import gc
import weakref

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import ember
from tests._oracle import require_torch

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128]


@st.composite
def strided_arrays(draw):
    """Arrays with arbitrary layouts: random shape, dtype, slicing (negative steps too), transposes."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    base = np.arange(int(np.prod(shape, dtype=np.int64))).astype(dtype).reshape(shape)
    key = tuple(slice(draw(st.integers(0, 2)), None, draw(st.sampled_from([1, 2, -1, -2]))) for _ in shape)
    view = base[(*key, Ellipsis)]  # the ellipsis keeps 0-d results arrays, not scalars
    if view.ndim > 1 and draw(st.booleans()):
        view = np.transpose(view, draw(st.permutations(range(view.ndim))))
    return base, view


@given(strided_arrays())
def test_from_numpy_is_zero_copy_for_any_layout(pair):
    base, array = pair
    t = ember.from_numpy(array)
    assert t.shape == array.shape and t.dtype.numpy_dtype == array.dtype
    assert t.stride() == tuple(s // array.itemsize for s in array.strides)
    back = t.numpy()
    assert back.dtype == array.dtype and np.array_equal(back, array)
    if array.size:
        assert np.shares_memory(back, base)
        assert t.data_ptr() == array.__array_interface__["data"][0]
        flat_index = (0,) * array.ndim
        array[flat_index] = array.dtype.type(1)
        assert t[flat_index].item() == array[flat_index].item()  # writes are seen both ways


def test_negative_strides_as_in_numpy():
    a = np.arange(10, dtype=np.int32)
    t = ember.from_numpy(a[::-3])
    assert t.stride() == (-3,) and t.tolist() == [9, 6, 3, 0] and t.storage_offset() == 9


def test_from_numpy_keeps_the_array_alive():
    a = np.arange(5.0)
    ref = weakref.ref(a)
    t = ember.from_numpy(a)
    del a
    gc.collect()
    assert ref() is not None  # the storage holds the array, as PyTorch's Py_INCREF does
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    del t
    gc.collect()
    assert ref() is None


def test_read_only_arrays_give_read_only_tensors():
    a = np.arange(3)
    a.flags.writeable = False
    t = ember.from_numpy(a)
    with pytest.raises(RuntimeError, match="read-only tensor"):
        t.fill_(0)
    with pytest.raises(RuntimeError, match="read-only tensor"):
        t[0] = 1
    assert t.clone().fill_(0).tolist() == [0, 0, 0]
    assert not np.asarray(t).flags.writeable


@pytest.mark.parametrize(
    ("array", "error", "fragment"),
    [
        (np.array([b"a"]), TypeError, "can't share memory of a numpy.\\|S1 array"),
        (np.array([object()]), TypeError, "can't share memory"),
        (np.zeros(2, dtype=">f4"), TypeError, "byte order"),
        (np.zeros(3, dtype=[("a", "<i4"), ("b", "u1")])["a"], ValueError, "not a multiple of the element byte size"),
        ([1, 2], TypeError, "must be numpy.ndarray, not list"),
        (np.zeros(2, dtype="datetime64[s]"), TypeError, "datetime64"),
    ],
)
def test_from_numpy_bad_input(array, error, fragment):
    with pytest.raises(error, match=fragment):
        ember.from_numpy(array)


def test_round_trip_matches_torch_semantics():
    torch = require_torch()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1::2]
    t, p = ember.from_numpy(a), torch.from_numpy(a)
    assert t.stride() == p.stride() and t.storage_offset() == p.storage_offset() and tuple(t.shape) == tuple(p.shape)
    assert np.shares_memory(t.numpy(), p.numpy())


def test_frombuffer():
    data = bytearray(range(8))
    t = ember.frombuffer(data, dtype=ember.int16, count=2, offset=2)
    assert t.tolist() == np.frombuffer(bytes(data), np.int16, count=2, offset=2).tolist()
    t[0] = 0
    assert data[2] == 0 and data[3] == 0  # shares the buffer
    assert ember.frombuffer(b"\x01\x02", dtype=ember.uint8).tolist() == [1, 2]
    with pytest.raises(ValueError, match="must be a multiple of element size"):
        ember.frombuffer(b"abc", dtype=ember.int16)
    with pytest.raises(ValueError, match="must not be greater than actual buffer length"):
        ember.frombuffer(b"abcd", dtype=ember.int16, count=3)
    with pytest.raises(TypeError, match="buffer protocol"):
        ember.frombuffer([1, 2], dtype=ember.uint8)


def test_as_tensor_shares_when_it_can():
    a = np.zeros(3, dtype=np.float32)
    assert np.shares_memory(ember.as_tensor(a).numpy(), a)
    assert not np.shares_memory(ember.as_tensor(a, dtype=ember.float64).numpy(), a)
    t = ember.tensor([1.0])
    assert ember.as_tensor(t) is t
    assert ember.as_tensor([1, 2]).tolist() == [1, 2]
    assert ember.as_tensor(a, device="meta").is_meta
