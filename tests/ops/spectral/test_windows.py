"""hann_window, hamming_window, blackman_window, bartlett_window: known values, SciPy's definitions
(without torch), PyTorch's dtypes, edge lengths and errors, and the same calls against torch."""

import math

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window"]


def _symmetric(name, n):
    """The textbook (symmetric) window of n > 1 points."""
    k = np.arange(n)
    phase = 2 * math.pi * k / (n - 1)
    return {
        "hann_window": 0.5 - 0.5 * np.cos(phase),
        "hamming_window": 0.54 - 0.46 * np.cos(phase),
        "blackman_window": 0.42 - 0.5 * np.cos(phase) + 0.08 * np.cos(2 * phase),
        "bartlett_window": 1 - np.abs(2 * k / (n - 1) - 1),
    }[name]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("n", [2, 3, 8, 33])
def test_windows_match_their_definitions(name, n):
    fn = getattr(ember, name)
    np.testing.assert_allclose(fn(n, periodic=False, dtype=ember.float64).numpy(), _symmetric(name, n), atol=1e-12)
    # periodic: the symmetric window one point longer, without its last point
    np.testing.assert_allclose(fn(n, dtype=ember.float64).numpy(), _symmetric(name, n + 1)[:-1], atol=1e-12)


@pytest.mark.parametrize("name", WINDOWS)
def test_edge_lengths_dtypes_and_errors(name):
    fn = getattr(ember, name)
    assert fn(0).shape == (0,) and fn(1).tolist() == [1.0]
    assert fn(4).dtype == ember.float32 and fn(4, dtype=ember.float64).dtype == ember.float64
    assert fn(4, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match=f"{name} requires non-negative window_length, got window_length=-1"):
        fn(-1)
    with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes"):
        fn(4, dtype=ember.int64)


def test_hamming_takes_its_coefficients():
    np.testing.assert_allclose(
        ember.hamming_window(5, False, 0.5, 0.5, dtype=ember.float64).numpy(), _symmetric("hann_window", 5), atol=1e-12
    )


@needs_torch
@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_match_torch(name, dtype):
    for n in (0, 1, 2, 5, 64):
        for periodic in (True, False):
            got = getattr(ember, name)(n, periodic, dtype=getattr(ember, dtype)).numpy()
            want = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype)).numpy()
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, atol=1e-6 if dtype == "float32" else 1e-14)
