"""Shared helpers for the view and indexing tests: random strided NumPy arrays and the checks
that compare an ember result with NumPy's (values, memory, layout) and PyTorch's (layout)."""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import ember

# Strategies are cached: building and validating a fresh one for every draw costs more than the draw.
ints = functools.cache(st.integers)
booleans = st.booleans()


@functools.cache
def maybe_ints(lo: int, hi: int):
    return st.none() | st.integers(lo, hi)


@functools.cache
def _sampled(values: tuple):
    return st.sampled_from(values)


def one_of(values):
    return _sampled(tuple(values))


@functools.cache
def _permutations(n: int):
    return st.permutations(range(n))


def permutations(n: int):
    return _permutations(n)


DTYPES = [
    np.dtype(np.bool_),
    np.dtype(np.int8),
    np.dtype(np.uint8),
    np.dtype(np.int16),
    np.dtype(np.uint16),
    np.dtype(np.int32),
    np.dtype(np.uint32),
    np.dtype(np.int64),
    np.dtype(np.uint64),
    np.dtype(np.float16),
    np.dtype(ml_dtypes.bfloat16),
    np.dtype(np.float32),
    np.dtype(np.float64),
    np.dtype(np.complex64),
    np.dtype(np.complex128),
]

# A same-size dtype that both NumPy and PyTorch know, to hand torch any array's layout.
_BITS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}


def filled(shape, dtype: np.dtype) -> np.ndarray:
    """A C-contiguous array of distinct-ish small values (exact in every dtype)."""
    n = int(np.prod(shape))
    values = np.arange(n) % 200 + 1
    if dtype.kind == "b":
        return (values % 3 == 0).reshape(shape)
    if dtype.kind == "c":
        return (values + 1j * (values % 7)).astype(dtype).reshape(shape)
    return values.astype(dtype).reshape(shape)


@st.composite
def strided_arrays(draw, min_dims: int = 0, max_dims: int = 4, dtypes=DTYPES, max_side: int = 4):
    """(root, view): ``view`` is a non-contiguous NumPy view of the C-contiguous ``root``, made by
    random slicing (any step, negative too) and a random transpose; sides run from 0 to max_side,
    and about one array in ten is empty."""
    dtype = draw(one_of(dtypes))
    ndim = draw(one_of(range(min_dims, max_dims + 1)))
    root_shape = [draw(one_of(range(1, max_side + 3))) for _ in range(ndim)]  # uniform, not small-biased
    if ndim and draw(ints(0, 9)) == 0:
        root_shape[draw(ints(0, ndim - 1))] = 0
    root = filled(tuple(root_shape), dtype)
    view = root[tuple(draw(_slices(n, max_side)) for n in root_shape)] if ndim else root[...]
    view = view.transpose(draw(permutations(ndim)))
    return root, view


@st.composite
def _slices(draw, n: int, max_side: int) -> slice:
    """A slice that keeps 1 to max_side of n elements, spelled in any of Python's ways."""
    if n == 0:
        return slice(None)
    count = draw(one_of(range(1, min(n, max_side) + 1)))
    step = draw(one_of([s for s in (1, 1, 2, 3, -1, -1, -2) if (count - 1) * abs(s) <= n - 1]))
    span = (count - 1) * abs(step)
    start = draw(one_of(range(n - span))) if step > 0 else draw(one_of(range(span, n)))
    stop = start + count * step
    if stop < 0 or (step > 0 and stop >= n and draw(booleans)):
        stop = None  # to the end (a negative stop would count from the end instead)
    elif stop < n and draw(booleans):
        stop -= n
    if draw(booleans):
        start -= n
    return slice(start, stop, step)


def positive(array: np.ndarray) -> np.ndarray:
    """The same elements' memory with every negative stride flipped (torch refuses negative ones)."""
    return array[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in array.strides)] if array.ndim else array


def torch_twin(torch, array: np.ndarray):
    """A torch tensor over the same memory and layout (itemsize-preserving dtype stand-in)."""
    return torch.from_numpy(array.view(_BITS[array.dtype.itemsize]))


def assert_torch_layout(ours, theirs) -> None:
    """Same shape, strides and storage offset as PyTorch's result (empty views included)."""
    assert (tuple(ours.shape), ours.stride(), ours.storage_offset()) == (tuple(theirs.shape), theirs.stride(), theirs.storage_offset())


def comparable(array: np.ndarray) -> np.ndarray:
    return array.astype(np.float32) if array.dtype in (np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)) else array


def assert_values(result, expected: np.ndarray) -> None:
    got = result.numpy()
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert np.array_equal(comparable(got), comparable(expected)), (got, expected)


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def assert_same_layout(result, expected: np.ndarray) -> None:
    """``result`` addresses exactly the memory that the NumPy view ``expected`` does."""
    assert tuple(result.shape) == expected.shape
    if expected.size == 0:
        return
    itemsize = expected.dtype.itemsize
    assert result.data_ptr() == address(expected)
    for d, n in enumerate(expected.shape):
        if n > 1:
            assert result.stride(d) * itemsize == expected.strides[d], (result.stride(), expected.strides)


def assert_view_of(result, tensor, root: np.ndarray) -> None:
    """``result`` shares ``tensor``'s storage and ``root``'s memory, and writes go both ways."""
    assert result.untyped_storage() is tensor.untyped_storage()
    assert result._version == tensor._version
    if result.numel() == 0:
        return
    got = result.numpy()
    assert np.shares_memory(got, root)
    index = (0,) * result.dim()
    flat = root.reshape(-1)
    k = (address(got) - address(root)) // root.dtype.itemsize
    assert 0 <= k < flat.size
    # ember -> root
    new = other_value(flat[k])
    result[index] = new
    assert flat[k] == new
    # root -> ember
    newer = other_value(flat[k])
    flat[k] = newer
    assert result[index].item() == newer


def other_value(x):
    if isinstance(x, (bool, np.bool_)):
        return not x
    return x + 1 if abs(x) < 100 else x - 1


def same_view(view: np.ndarray, root: np.ndarray, new_root: np.ndarray) -> np.ndarray:
    """The view of ``new_root`` (a copy of ``root``) laid out as ``view`` is over ``root``."""
    offset = address(view) - address(root) if view.size else 0
    return np.ndarray(view.shape, view.dtype, buffer=new_root, offset=offset, strides=view.strides)


def wrap(view: np.ndarray):
    return ember.from_numpy(view)
