"""Random COO inputs and the dense NumPy oracle shared by ember.sparse's tests."""

from __future__ import annotations

import numpy as np

import ember
from ember.sparse import SparseTensor

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
