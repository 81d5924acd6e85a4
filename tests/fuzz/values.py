"""What the fuzzer passes: one pool of plausible values and one of bad ones per schema type.

A call is drawn from an entry's signature. Structure (which overload, which argument goes bad,
shapes, dtypes) is drawn by hypothesis so a failure shrinks to a small call; tensor contents
come from a NumPy generator seeded by one drawn integer, so a failing call replays exactly.
Sizes are either small (0 to 5) or far past any machine (2**50 and up, int64's edges), never
in between: a size the machine could really allocate would make the suite slow, not stronger.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import ember
from ember.ops.schema import Param, Signature

# dtypes by how often a draw picks them: the common ones first
COMMON_DTYPES = ("float32", "int64", "float64", "bool", "int32")
RARE_DTYPES = ("uint8", "int8", "int16", "float16", "bfloat16", "complex64", "complex128", "uint16", "uint32", "uint64")
ALL_DTYPES = COMMON_DTYPES + RARE_DTYPES

SHAPES = ((), (0,), (3,), (2, 3), (3, 3), (2, 0), (1, 3), (3, 1), (2, 3, 4), (2, 2, 3, 3), (1, 2, 4, 4), (1, 1, 3, 3, 3), (4, 4))
HUGE_INTS = (2**50, 2**62, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1)
HUGE_SIZES = ((2**50,), (3, 2**61), (2**25, 2**25, 2**25), (2**63,), (2**64,))

# Parameter names whose tensors hold indices or labels, and whose ints and int lists are dims.
INDEX_TENSORS = {"index", "indices", "target", "repeats", "sorter", "offsets"}
BOOL_TENSORS = {"mask", "condition", "attn_mask"}
DIM_NAMES = {"dim", "dim0", "dim1", "dim2", "dims", "axis", "start_dim", "end_dim", "source", "destination", "dimension"}
STRING_CHOICES = {
    "reduction": ("mean", "sum", "none", "avg"),
    "reduce": ("sum", "prod", "mean", "amax", "amin", "add", "multiply", "max"),
    "mode": ("nearest", "bilinear", "linear", "bicubic", "reduced", "complete", "r", "constant", "reflect", "bogus"),
    "rounding_mode": ("trunc", "floor", "round"),
    "side": ("left", "right", "middle"),
    "UPLO": ("L", "U", "X"),
    "approximate": ("none", "tanh", "exact"),
    "indexing": ("ij", "xy", "zz"),
    "equation": ("ij,jk->ik", "ii->i", "i,i->", "ij->ji", "...i->...", "ij,jk", "ab->c", "i j"),
}
BAD_OBJECTS = ("a", None, [1, "b"], object(), 1.5, -1, 2**64, float("nan"), (), {"k": 1})


def show(value) -> str:
    if isinstance(value, ember.Tensor):
        body = np.array2string(value.numpy(), threshold=12, edgeitems=2) if value.dtype is not ember.string else "..."
        return f"tensor({body}, dtype={value.dtype.name}, shape={tuple(value.shape)}, stride={value.stride()})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(show(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)


def np_dtype(name: str) -> np.dtype:
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def random_values(
    rng: np.random.Generator, shape: tuple, dtype: str, *, special: bool, index_bound: int | None = None
) -> np.ndarray:
    """An array of ``shape``: small numbers, or with ``special`` the dtype's edges (NaN, inf, -0.0,
    extremes); index tensors take values around ``[-bound, bound]``."""
    n = math.prod(shape)
    kind = np_dtype(dtype).kind
    if kind == "b":
        return rng.random(n).reshape(shape) < 0.5
    if index_bound is not None and kind in "iu":
        low = 0 if kind == "u" else -index_bound - 1
        return rng.integers(low, index_bound + 2, size=n).astype(dtype).reshape(shape)
    if kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(max(info.min, -5), 6, size=n)
        out = values.astype(dtype)
        if special and n:
            out.flat[rng.integers(0, n, size=max(1, n // 3))] = rng.choice(np.array([info.min, info.max, 0], dtype=dtype))
        return out.reshape(shape)
    values = rng.normal(0, 2, size=n)
    if special and n:
        # no huge finite values: where they overflow an intermediate, libraries differ by precision, not by care
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-30, 0.0])
        values[rng.integers(0, n, size=max(1, n // 3))] = rng.choice(picks, size=max(1, n // 3))
    if kind == "c":
        values = values + 1j * rng.normal(0, 2, size=n)
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(np_dtype(dtype)).reshape(shape)


class Drawer:
    """Draws the arguments of one call for one signature, sharing a base shape and dtype so
    that most calls get far enough to test the op, not just its first check."""

    def __init__(self, data, sig: Signature):
        self.data, self.sig = data, sig
        self.rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
        self.dtype = data.draw(st.sampled_from(COMMON_DTYPES) | st.sampled_from(RARE_DTYPES), label="dtype")
        self.shape = data.draw(st.sampled_from(SHAPES), label="shape")
        self.special = data.draw(st.integers(0, 4), label="special") == 0
        self.arrays: dict = {}

    def draw(self, strategy, label):
        return self.data.draw(strategy, label=label)

    def tensor(self, name: str, bad: bool) -> ember.Tensor:
        dtype, shape = self.dtype, self.shape
        if self.draw(st.integers(0, 3), f"{name}:other shape") == 0:
            shape = self.draw(st.sampled_from(SHAPES), f"{name}:shape")
        if name in INDEX_TENSORS:
            dtype = "int64" if not bad else self.draw(st.sampled_from(("int32", "float32", "bool", "uint8")), f"{name}:dtype")
        elif name in BOOL_TENSORS and not bad:
            dtype = "bool"
        elif bad or self.draw(st.integers(0, 4), f"{name}:other dtype") == 0:
            dtype = self.draw(st.sampled_from(ALL_DTYPES), f"{name}:dtype")
        bound = max(self.shape or (1,)) if name in INDEX_TENSORS else None
        array = random_values(self.rng, shape, dtype, special=self.special, index_bound=bound)
        transpose = len(shape) >= 2 and self.draw(st.integers(0, 3), f"{name}:transposed") == 0
        if transpose:  # the same values through a non-contiguous view
            t = ember.tensor(np.ascontiguousarray(np.swapaxes(array, 0, 1))).transpose(0, 1)
        else:
            t = ember.tensor(array)
        self.arrays[id(t)] = array
        return t

    def value(self, p: Param, bad: bool):
        """A value for parameter ``p``: plausible, or (``bad``) one a careful op refuses or treats specially."""
        base, name = p.type.base, p.name
        if p.type.optional and not bad and self.draw(st.integers(0, 2), f"{name}:none") == 0:
            return None
        ndim = len(self.shape)
        if base == "Tensor":
            return (
                self.tensor(name, bad)
                if not (bad and self.draw(st.booleans(), f"{name}:not a tensor"))
                else self.pick(BAD_OBJECTS, name)
            )
        if base == "TensorList":
            if bad and self.draw(st.booleans(), f"{name}:junk"):
                return self.pick(([], [1, 2], "ab", None), name)
            count = self.draw(st.integers(1, 3), f"{name}:count")
            return [self.tensor(f"{name}[{i}]", bad=False) for i in range(count)]
        if base == "Int":
            if name in DIM_NAMES:
                good = tuple(range(-ndim, ndim)) or (0, -1)
                worse = (ndim, -ndim - 1, 2**63, True, 1.5, "0", None)
            else:
                good = (0, 1, 2, 3, -1)
                worse = (*HUGE_INTS, -2, True, 1.5, "1", None)
            return self.pick(worse if bad else good, name)
        if base == "IntList":
            if name in DIM_NAMES:
                good = ((0,), (-1,), (0, 1), (1, 0), ()) if ndim >= 2 else ((0,), (-1,), ())
                worse = ((0, 0), (ndim,), (-ndim - 1,), (2**63,), (0.5,), ("a",), None, 1.5)
            else:
                good = (1, 2, (1,), (2, 2), (3, 1), self.shape, (2, 3), (0,), ())
                worse = (*HUGE_SIZES, (-1,), (2, -3), (1.5,), ("a",), None, 1.5, "2", [[1]], 2**64)
            return self.pick(worse if bad else good, name)
        if base in ("Scalar", "ScalarList"):
            good = (0, 1, -1, 2, 0.5, -2.5, True, False, 1e-3)
            worse = (float("nan"), float("inf"), -float("inf"), 1j, 2**63, 2**64, -(2**70), 1e308, "a", None, [1])
            return self.pick(worse if bad else good, name)
        if base in ("Float", "FloatList"):
            good = (0.0, 0.5, 1.0, 0.1, 2.0, -1.0)
            worse = (float("nan"), float("inf"), -float("inf"), 1e308, -0.0, 1j, "a", None, 2**64, -(10**400))
            return self.pick(worse if bad else good, name)
        if base == "Bool":
            return self.pick(("yes", 2, None, 1.0) if bad else (True, False), name)
        if base == "String":
            choices = STRING_CHOICES.get(name, ((p.default,) if isinstance(p.default, str) else ("",)) + ("bogus",))
            return self.pick(("", "bogus", 3, None) if bad else choices, name)
        if base == "DType":
            good = (
                ember.float32,
                ember.float64,
                ember.int64,
                ember.int32,
                ember.bool,
                ember.float16,
                ember.bfloat16,
                ember.complex64,
                ember.uint8,
            )
            return self.pick(("float32", 5, int, np.float32) if bad else good, name)
        if base == "Device":
            return self.pick(("gpu", 5, "cuda:x", "cuda") if bad else ("cpu", ember.device("cpu")), name)
        if base == "Generator":
            return self.pick((5, "seed") if bad else (ember.Generator().manual_seed(7),), name)
        return self.object_value(p, bad)

    def object_value(self, p: Param, bad: bool):
        """``Object`` parameters: their plausible values depend on the name."""
        name = p.name
        if bad:
            return self.pick(BAD_OBJECTS, name)
        if name in ("key", "indices"):
            return self.pick(
                (0, -1, slice(1, None), (0, 0), (slice(None), 0), ..., None, True, [0, 1], 3, (0, 5), self.tensor("key", False)),
                name,
            )
        if name in ("size", "output_size", "split_size_or_sections", "indices_or_sections", "arg"):
            return self.pick((1, 2, (1, 2), [2, 1], self.shape, 0, 3, (2, 2)), name)
        if name in ("fill_value", "value", "src"):
            return self.pick((0, 1.5, -1, True, float("nan"), 2**63, 1j, self.tensor(name, False)), name)
        if name in ("ord", "p"):
            return self.pick((None, "fro", "nuc", 1, 2, -1, float("inf"), -float("inf"), 0, 3.5), name)
        if name == "padding":
            return self.pick((0, 1, (1, 0), "same", "valid"), name)
        if name == "dims":
            return self.pick((0, 1, 2, ([1], [0]), ([0, 1], [0, 1])), name)
        if name in ("scale_factor",):
            return self.pick((None, 2, 0.5, (2, 2)), name)
        if name == "obj":
            return self.pick(([1, 2], [[1.0, 2.0]], 3, self.tensor("obj", False), ((1, 2), (3, 4))), name)
        return p.default if p.has_default else None

    def pick(self, pool, label):
        return self.draw(st.sampled_from(pool), label)
