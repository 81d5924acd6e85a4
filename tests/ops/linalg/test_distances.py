"""cdist: known distances for every kind of p, batching, compute modes, errors, and the
derivative (gradcheck in float64, PyTorch's zero gradient at zero distance, torch parity)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import check, needs_torch, torch

RNG = np.random.default_rng(18)
PS = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf]
MODES = ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]


def _reference(a: np.ndarray, b: np.ndarray, p: float) -> np.ndarray:
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(a.dtype)
    if math.isinf(p):
        return diff.max(-1)
    return (diff**p).sum(-1) ** (1 / p)


def test_cdist_known_values():
    a = ember.tensor([[0.0, 0.0], [1.0, 1.0]])
    b = ember.tensor([[3.0, 4.0], [1.0, 1.0]])
    np.testing.assert_allclose(ember.cdist(a, b).numpy(), [[5.0, math.sqrt(2)], [math.sqrt(13), 0.0]], rtol=1e-6)
    assert ember.cdist(a, b, p=1).tolist() == [[7.0, 2.0], [5.0, 0.0]]
    assert ember.cdist(a, b, p=0).tolist() == [[2.0, 2.0], [2.0, 0.0]]
    assert ember.cdist(a, b, p=math.inf).tolist() == [[4.0, 1.0], [3.0, 0.0]]


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("mode", MODES)
def test_cdist_matches_the_definition(p, mode):
    a, b = RNG.standard_normal((2, 30, 4)), RNG.standard_normal((1, 6, 4))
    got = ember.cdist(ember.tensor(a), ember.tensor(b), p=p, compute_mode=mode).numpy()
    np.testing.assert_allclose(got, _reference(a, np.broadcast_to(b, (2, 6, 4)), p), rtol=1e-10, atol=1e-12)


def test_cdist_broadcasts_batches_and_takes_non_contiguous_input():
    a = ember.tensor(RNG.standard_normal((5, 1, 3, 2)))
    b = ember.tensor(RNG.standard_normal((4, 2, 4))).transpose(-1, -2)  # (4, 4, 2), not contiguous
    got = ember.cdist(a, b)
    assert got.shape == (5, 4, 3, 4)
    np.testing.assert_allclose(got.numpy(), _reference(a.numpy(), np.broadcast_to(b.numpy(), (5, 4, 4, 2)), 2.0), rtol=1e-12)


def test_cdist_empty_sets():
    assert ember.cdist(ember.ones(0, 3), ember.ones(4, 3)).shape == (0, 4)
    assert ember.cdist(ember.ones(2, 0), ember.ones(4, 0)).tolist() == [[0.0] * 4] * 2


@pytest.mark.parametrize(
    ("x1", "x2", "kwargs", "error", "match"),
    [
        ((3,), (4, 3), {}, RuntimeError, "at least 2D tensors, X1 got: 1D"),
        ((2, 3), (4, 4), {}, RuntimeError, "same number of columns. X1: 3 X2: 4"),
        ((2, 3), (4, 3), {"p": -1.0}, RuntimeError, "non-negative p values"),
        ((2, 3), (4, 3), {"p": math.nan}, RuntimeError, "non-negative p values"),
        ((2, 3), (4, 3), {"compute_mode": "fast"}, ValueError, "fast is not a valid value for compute_mode"),
        ((2, 2, 3), (3, 4, 3), {}, RuntimeError, "must match the size"),
    ],
)
def test_cdist_errors(x1, x2, kwargs, error, match):
    with pytest.raises(error, match=match):
        ember.cdist(ember.ones(x1), ember.ones(x2), **kwargs)


def test_cdist_dtype_errors():
    with pytest.raises(RuntimeError, match="floating-point dtypes, X1 got: Long"):
        ember.cdist(ember.ones(2, 3, dtype=ember.int64), ember.ones(4, 3))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        ember.cdist(ember.ones(2, 3), ember.ones(4, 3, dtype=ember.float64))
    with pytest.raises(NotImplementedError, match="cdist"):
        ember.cdist(ember.ones(2, 3, dtype=ember.float16), ember.ones(4, 3, dtype=ember.float16))


@pytest.mark.parametrize("p", [0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
def test_cdist_gradcheck(p):
    a = ember.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    b = ember.tensor(RNG.standard_normal((4, 4)), requires_grad=True)
    assert gradcheck(lambda x, y: ember.cdist(x, y, p=p), (a, b))


def test_cdist_second_derivative():
    a = ember.tensor(RNG.standard_normal((3, 2)), requires_grad=True)
    b = ember.tensor(RNG.standard_normal((4, 2)), requires_grad=True)
    assert gradgradcheck(lambda x, y: ember.cdist(x, y, p=3.0), (a, b))


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, math.inf])
def test_cdist_zero_distance_has_zero_gradient(p):
    x = ember.tensor([[1.0, 2.0]], dtype=ember.float64, requires_grad=True)
    y = ember.tensor([[1.0, 2.0]], dtype=ember.float64, requires_grad=True)
    ember.cdist(x, y, p=p).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0]] and y.grad.tolist() == [[0.0, 0.0]]


@needs_torch
@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("mode", MODES)
def test_cdist_matches_torch(p, mode):
    a, b = RNG.standard_normal((2, 1, 5, 3)), RNG.standard_normal((3, 27, 3))
    a[0, 0, 0] = b[0, 0]  # a zero distance
    b[1, 1, 0] = a[1, 0, 2, 0]  # an equal coordinate
    check(lambda x, y: ember.cdist(x, y, p, mode), lambda x, y: torch.cdist(x, y, p, mode), a, b, grad=True, rtol=1e-6, atol=1e-6)
    check(
        lambda x, y: ember.cdist(x, y, p),
        lambda x, y: torch.cdist(x, y, p),
        a.astype(np.float32),
        b.astype(np.float32),
        grad=True,
    )
