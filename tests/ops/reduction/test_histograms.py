"""bincount and histc: known counts, PyTorch's dtype rules, edge rules and errors, and parity
with torch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from tests._oracle import check, needs_torch, torch

RNG = np.random.default_rng(18)


# --- bincount ---------------------------------------------------------------------------------


def test_bincount_counts_and_minlength():
    x = ember.tensor([0, 1, 1, 3, 1])
    assert ember.bincount(x).tolist() == [1, 3, 0, 1]
    assert x.bincount(minlength=6).tolist() == [1, 3, 0, 1, 0, 0]
    assert ember.bincount(x, minlength=2).tolist() == [1, 3, 0, 1]  # minlength is a floor only
    assert ember.bincount(x).dtype is ember.int64
    assert ember.bincount(ember.tensor([2], dtype=ember.uint8)).tolist() == [0, 0, 1]


def test_bincount_weights_and_their_dtype():
    x = ember.tensor([2, 0, 2])
    got = ember.bincount(x, weights=ember.tensor([0.5, 1.0, 0.25]))
    assert got.tolist() == [1.0, 0.0, 0.75] and got.dtype is ember.float32
    # only float32 weights keep their dtype; every other dtype sums in float64 (PyTorch's rule)
    for dtype in (ember.float64, ember.float16, ember.bfloat16, ember.int32, ember.bool):
        w = ember.ones(3, dtype=dtype)
        assert ember.bincount(x, w).dtype is ember.float64, dtype
    assert ember.bincount(x, ember.tensor([1, 2, 3])).tolist() == [2.0, 0.0, 4.0]


def test_bincount_empty_input_gives_int64_zeros():
    empty = ember.tensor([], dtype=ember.int64)
    got = ember.bincount(empty, weights=ember.ones(0), minlength=3)
    assert got.tolist() == [0, 0, 0] and got.dtype is ember.int64
    assert ember.bincount(empty).shape == (0,)


def test_bincount_non_contiguous_input():
    x = ember.tensor([[0, 9], [2, 9], [2, 9]]).t()[0]  # stride 2
    w = ember.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])[0, ::1]
    assert ember.bincount(x, w).tolist() == [1.0, 0.0, 5.0]


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((ember.tensor([-1, 2]),), {}, RuntimeError, "1-d non-negative integral"),
        ((ember.tensor([[1, 2]]),), {}, RuntimeError, "1-d non-negative integral"),
        ((ember.tensor(3),), {}, RuntimeError, "1-d non-negative integral"),
        ((ember.tensor([1.0]),), {}, NotImplementedError, "bincount"),
        ((ember.tensor([True]),), {}, NotImplementedError, "bincount"),
        ((ember.tensor([1, 2]),), {"minlength": -1}, RuntimeError, "minlength should be >= 0"),
        ((ember.tensor([1, 2]), ember.ones(3)), {}, RuntimeError, "same length as input"),
        ((ember.tensor([1, 2]), ember.ones(2, 1)), {}, RuntimeError, "same length as input"),
    ],
)
def test_bincount_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ember.bincount(*args, **kwargs)


def test_bincount_has_no_gradient():
    w = ember.ones(3, requires_grad=True)
    assert not ember.bincount(ember.tensor([0, 1, 1]), w).requires_grad


@needs_torch
@pytest.mark.parametrize("wdtype", [None, "float32", "float64", "int64", "float16"])
def test_bincount_matches_torch(wdtype):
    x = RNG.integers(0, 12, size=40)
    if wdtype is None:
        check(lambda a: ember.bincount(a, minlength=15), lambda a: torch.bincount(a, minlength=15), x)
        return
    w = RNG.standard_normal(40).astype(wdtype) if wdtype != "int64" else RNG.integers(-5, 5, 40)
    check(lambda a, b: ember.bincount(a, b), lambda a, b: torch.bincount(a, b), x, w)


# --- histc ------------------------------------------------------------------------------------


def test_histc_known_counts_and_edge_rules():
    x = ember.tensor([0.0, 1.0, 2.0, 3.0, 10.0, -1.0, float("nan")])
    # outside [min, max] and NaN are not counted; the last bin includes max itself
    assert ember.histc(x, bins=4, min=0, max=4).tolist() == [1.0, 1.0, 1.0, 1.0]
    assert ember.histc(ember.tensor([1.0, 2.0, 3.0]), bins=3, min=0, max=3).tolist() == [0.0, 1.0, 2.0]
    # min == max: the data's range; a single value widens by 1 on each side
    assert ember.histc(ember.tensor([1.0, 2.0]), bins=3, min=5, max=5).tolist() == [1.0, 0.0, 1.0]
    assert ember.histc(ember.tensor([2.0, 2.0]), bins=4).tolist() == [0.0, 0.0, 2.0, 0.0]
    assert ember.histc(ember.tensor([]), bins=4).tolist() == [0.0] * 4
    assert ember.tensor([[1.0, 2.0], [3.0, 4.0]]).histc(bins=2).tolist() == [2.0, 2.0]  # any shape, flattened
    assert ember.histc(ember.tensor(5.0), bins=3).tolist() == [0.0, 1.0, 0.0]


def test_histc_dtype_and_out():
    for dtype in (ember.float16, ember.bfloat16, ember.float32, ember.float64):
        assert ember.histc(ember.tensor([1.0, 2.0], dtype=dtype), bins=2).dtype is dtype
    out = ember.empty(3, dtype=ember.float64)
    ember.histc(ember.tensor([0.0, 1.0], dtype=ember.float64), bins=3, out=out)
    assert out.tolist() == [1.0, 0.0, 1.0]


def test_histc_counts_every_value_once():
    x = RNG.standard_normal(1000)
    assert ember.histc(ember.tensor(x), bins=17).sum().item() == 1000.0
    inside = ((x >= -0.5) & (x <= 0.5)).sum()
    assert ember.histc(ember.tensor(x), bins=9, min=-0.5, max=0.5).sum().item() == inside


@pytest.mark.parametrize(
    ("x", "kwargs", "error", "match"),
    [
        ([1.0, 2.0], {"bins": 0}, RuntimeError, "bins must be > 0, but got 0"),
        ([1.0, 2.0], {"min": 3, "max": 1}, RuntimeError, "max must be larger than min"),
        ([1.0, 2.0], {"min": 0, "max": float("inf")}, RuntimeError, r"range of \[0, inf\] is not finite"),
        ([1.0, float("inf")], {}, RuntimeError, r"range of \[1, inf\] is not finite"),
        ([1, 2], {}, NotImplementedError, "histc"),
    ],
)
def test_histc_errors(x, kwargs, error, match):
    with pytest.raises(error, match=match):
        ember.histc(ember.tensor(x), **kwargs)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize(
    "kwargs", [{"bins": 37}, {"bins": 37, "min": -1.3, "max": 2.1}, {"bins": 1000}, {"bins": 7, "min": -1, "max": 1}]
)
def test_histc_matches_torch(dtype, kwargs):
    # bfloat16 is left out: PyTorch counts in bfloat16, which stops at 256 per bin; ember counts exactly
    x = RNG.standard_normal(3000).astype(dtype)
    check(lambda a: ember.histc(a, **kwargs), lambda a: torch.histc(a, **kwargs), x)


def test_meta_tensors():
    # histc's length is its bin count; bincount's depends on data, which a meta tensor lacks
    assert ember.histc(ember.empty(5, device="meta"), bins=7).shape == (7,)
    with pytest.raises(NotImplementedError, match="meta"):
        ember.bincount(ember.empty(5, dtype=ember.int64, device="meta"))


def test_graph_mode_refuses_clearly():
    with ember.Graph().as_default():
        x = ember.placeholder(ember.int64, (5,))
        with pytest.raises(RuntimeError, match="graph tensor"):
            ember.bincount(x)
