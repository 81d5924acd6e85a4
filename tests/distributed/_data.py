"""Inputs every rank can compute for every other rank, and their expected reductions in NumPy."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import ember

# Every dtype ember has except string (refused by collectives, tested separately).
DTYPES = [
    ember.bool, ember.int8, ember.int16, ember.int32, ember.int64, ember.uint8, ember.uint16, ember.uint32, ember.uint64,
    ember.float16, ember.bfloat16, ember.float32, ember.float64, ember.complex64, ember.complex128,
]
HALF = (ember.float16, ember.bfloat16)
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]


def rank_input(rank: int, shape: tuple, dtype) -> np.ndarray:
    """Small whole numbers (exact in every dtype, products stay in range), different per rank."""
    n = int(np.prod(shape)) if shape else 1
    base = (np.arange(n) * 7 + rank * 3) % 5
    if dtype is ember.bool:
        values = (base + rank) % 2 == 0
    elif dtype.is_complex:
        values = (base - 2) + 1j * ((base + rank) % 3)
    elif dtype.kind == "u":
        values = base + 1
    else:
        values = base - 1 - (rank % 2)  # negatives too, and zeros
    return np.asarray(values).astype(dtype.numpy_dtype).reshape(shape)


def valid(dtype, op: str) -> bool:
    """PyTorch's rules for which reductions a dtype takes."""
    if dtype.is_complex:
        return op in ("SUM", "AVG")
    if op in ("BAND", "BOR", "BXOR"):
        return dtype.kind in "iub"
    return not (dtype is ember.bool and op == "AVG")


def expected(inputs: list[np.ndarray], dtype, op: str) -> np.ndarray:
    """The reduction of ``inputs`` computed in NumPy (half types in float32, rounded once)."""
    wide = [a.astype(np.float32) if dtype in HALF else a for a in inputs]
    stack = np.stack(wide)
    n = len(inputs)
    if dtype is ember.bool:
        fn = {"SUM": np.any, "MAX": np.any, "PRODUCT": np.all, "MIN": np.all, "BAND": np.all, "BOR": np.any}.get(op)
        out = fn(stack, axis=0) if fn else np.logical_xor.reduce(stack, axis=0)
    elif op in ("SUM", "AVG"):
        out = stack.sum(axis=0, dtype=stack.dtype)
        if op == "AVG":
            if stack.dtype.kind in "fc":
                out = out / n
            else:
                out = np.trunc(out / n)
    elif op == "PRODUCT":
        out = stack.prod(axis=0, dtype=stack.dtype)
    elif op == "MIN":
        out = stack.min(axis=0)
    elif op == "MAX":
        out = stack.max(axis=0)
    else:
        fn = {"BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op]
        out = fn.reduce(stack, axis=0)
    return np.asarray(out).astype(dtype.numpy_dtype)


def same(actual: ember.Tensor, wanted: np.ndarray) -> None:
    """Exact equality of values, dtypes and shapes (bfloat16 compared through float32)."""
    got = actual.numpy()
    assert got.dtype == wanted.dtype, (got.dtype, wanted.dtype)
    assert got.shape == wanted.shape, (got.shape, wanted.shape)
    if wanted.dtype == ml_dtypes.bfloat16:
        got, wanted = got.astype(np.float32), wanted.astype(np.float32)
    np.testing.assert_array_equal(got, wanted)


def tensor_of(array: np.ndarray) -> ember.Tensor:
    return ember.tensor(array)
