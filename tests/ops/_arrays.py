"""What the shape and indexing op tests share: arrays of every dtype and layout, an exact
comparison against NumPy or PyTorch, an interpreter that records the ops a call dispatches,
index draws and the float64 inputs of the derivative checks."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import settings, strategies as st

import ember
from ember.dispatch import Interpreter
from ember.dispatch.interpreter import EAGER
from tests._oracle import TORCH_DTYPES, from_torch, np_dtype

OPS = settings(max_examples=30, deadline=None)


class Recorder(Interpreter):
    """Runs ops eagerly and records them, checking that every attribute is hashable."""

    name = "recorder"

    def __init__(self) -> None:
        self.ops: list[str] = []

    def apply(self, op, inputs, attrs, outputs=None):
        hash(tuple(attrs.values()))
        self.ops.append(op.name)
        return EAGER.apply(op, inputs, attrs, outputs)


def values(shape: tuple, dtype: str, seed: int = 0) -> np.ndarray:
    """Small values of ``dtype`` (halves for floats, a small imaginary part for complex)."""
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 9, n).astype(dtype).reshape(shape)
    drawn = rng.integers(-8, 9, n) / 2
    if dtype.startswith("complex"):
        drawn = drawn + 1j * rng.integers(-3, 4, n)
    return drawn.astype(np_dtype(dtype)).reshape(shape)


@st.composite
def arrays(draw, dtypes=TORCH_DTYPES, min_dims: int = 0, max_dims: int = 3, shape=None):
    """(ember tensor, NumPy array of the same values): sometimes a transposed or strided view."""
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        ndim = draw(st.integers(min_dims, max_dims))
        shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    layout = draw(st.sampled_from(["contiguous", "transposed", "strided"]))
    seed = draw(st.integers(0, 2**16))
    if layout == "transposed" and len(shape) >= 2:
        base = values(shape[::-1], dtype, seed)
        view = base.T
    elif layout == "strided" and shape:
        base = values((shape[0] * 2, *shape[1:]), dtype, seed)
        view = base[::2]
    else:
        view = values(shape, dtype, seed)
    return ember.from_numpy(view), np.ascontiguousarray(view) if view.ndim else view.copy()


def assert_same(result, expected) -> None:
    """ember result vs a torch tensor or a NumPy array: shape, dtype and values, exactly."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(result, (tuple, list)) and len(result) == len(expected)
        for r, e in zip(result, expected, strict=True):
            assert_same(r, e)
        return
    want = expected if isinstance(expected, np.ndarray) else from_torch(expected)
    got = result.numpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if got.dtype.kind == "f":
        got, want = got.astype(np.float64), want.astype(np.float64)
    assert np.array_equal(got, want, equal_nan=got.dtype.kind in "fc"), (got, want)


def draw_index(data, size: int, shape: tuple, label: str = "index", negative: bool = True) -> np.ndarray | None:
    """int64 indices of ``shape`` into a dimension of ``size`` (None when none exists)."""
    n = int(np.prod(shape))
    if size == 0:
        return np.zeros(shape, dtype=np.int64) if n == 0 else None
    lo = -size if negative else 0
    drawn = data.draw(st.lists(st.integers(lo, size - 1), min_size=n, max_size=n), label=label)
    return np.array(drawn, dtype=np.int64).reshape(shape)


def leaf(shape, seed=0) -> ember.Tensor:
    """A float64 tensor of normal draws that requires grad (the derivative checks' input)."""
    rng = np.random.default_rng(seed)
    return ember.tensor(rng.standard_normal(shape), dtype=ember.float64, requires_grad=True)


def idx(indices) -> ember.Tensor:
    """An int64 index tensor."""
    return ember.tensor(indices, dtype=ember.int64)
