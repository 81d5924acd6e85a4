"""adaptive_max_pool1d/2d/3d (+ modules): PyTorch's windows, indices (first maximum, last NaN),
None in output_size, unbatched and non-contiguous input, errors, the gradient routed through
the indices; and the output_size rules the adaptive average pools share with them."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, torch

from ._helpers import TF, check_exact, distinct, make

RNG = np.random.default_rng(18)


def _reference(x: np.ndarray, out: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Adaptive max pooling by loops (no NaN): window i of L spans floor(i L / o) to ceil((i + 1) L / o)."""
    nd = len(out)
    spatial = x.shape[-nd:]
    values = np.zeros(x.shape[:-nd] + out)
    index = np.zeros(x.shape[:-nd] + out, np.int64)
    for pos in np.ndindex(*out):
        window = tuple(slice(i * s // o, math.ceil((i + 1) * s / o)) for i, s, o in zip(pos, spatial, out, strict=True))
        block = x[(..., *window)]
        flat = block.reshape(*block.shape[:-nd], -1)
        arg = flat.argmax(-1)
        coords = np.unravel_index(arg, block.shape[-nd:])
        starts = [w.start for w in window]
        values[(..., *pos)] = flat.max(-1)
        index[(..., *pos)] = np.ravel_multi_index(tuple(c + s for c, s in zip(coords, starts, strict=True)), spatial)
    return values, index


@pytest.mark.parametrize(
    ("nd", "shape", "output_size", "resolved"),
    [
        (1, (2, 3, 7), 3, (3,)),
        (1, (3, 5), (9,), (9,)),  # more outputs than inputs: windows repeat
        (2, (2, 3, 7, 5), (3, None), (3, 5)),
        (2, (3, 7, 5), (None, 2), (7, 2)),
        (2, (2, 1, 6, 6), 4, (4, 4)),
        (3, (2, 2, 4, 7, 5), (2, None, 3), (2, 7, 3)),
        (3, (2, 4, 3, 5), 2, (2, 2, 2)),
    ],
)
def test_matches_the_window_rule(nd, shape, output_size, resolved):
    x = distinct(shape)
    fn = getattr(F, f"adaptive_max_pool{nd}d")
    y, idx = fn(x, output_size, return_indices=True)
    want_y, want_idx = _reference(x.detach().numpy(), resolved)
    np.testing.assert_array_equal(y.detach().numpy(), want_y)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    assert idx.dtype is ember.int64
    assert fn(x, output_size).shape == y.shape  # a tensor alone without return_indices
    assert isinstance(fn(x, output_size, 1), tuple)  # any true value, as PyTorch's wrapper takes it


def test_ties_take_the_first_and_nan_the_last():
    y, i = F.adaptive_max_pool1d(ember.tensor([[[1.0, 3.0, 3.0, 2.0]]]), 1, True)
    assert y.tolist() == [[[3.0]]] and i.tolist() == [[[1]]]
    y, i = F.adaptive_max_pool1d(ember.tensor([[[1.0, math.nan, 3.0, math.nan, 2.0]]]), 1, True)
    assert math.isnan(y.item()) and i.tolist() == [[[3]]]
    _, i = F.adaptive_max_pool2d(ember.tensor([[[1.0, math.nan], [math.nan, 2.0]]]), 1, True)
    assert i.tolist() == [[[2]]]


def test_dtypes_and_empty_batch():
    for dtype in (ember.float16, ember.bfloat16, ember.float32, ember.float64):
        assert F.adaptive_max_pool2d(ember.ones(1, 2, 4, 4, dtype=dtype), 2).dtype is dtype
    for dtype in (ember.int64, ember.bool, ember.complex64):
        with pytest.raises(NotImplementedError, match="adaptive_max_pool2d"):
            F.adaptive_max_pool2d(ember.ones(1, 2, 4, 4).to(dtype), 2)
    y, i = F.adaptive_max_pool2d(ember.ones(0, 3, 7, 5), 2, True)
    assert y.shape == i.shape == (0, 3, 2, 2)
    assert F.adaptive_max_pool2d(ember.ones(2, 3, 7, 5), 0).shape == (2, 3, 0, 0)


def test_non_contiguous_input():
    x = RNG.standard_normal((2, 3, 6, 7))
    e, _ = make(x, noncontig=True)
    got = F.adaptive_max_pool2d(e, (4, 3), True)
    want = F.adaptive_max_pool2d(ember.tensor(x), (4, 3), True)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: F.adaptive_max_pool1d(ember.ones(7), 3),
            RuntimeError,
            "Expected 2 to 3 dimensions, but got 1-dimensional tensor",
        ),
        (lambda: F.adaptive_max_pool2d(ember.ones(7, 5), 2), RuntimeError, r"Expected 3D or 4D tensor, but got: \[7, 5\]"),
        (
            lambda: F.adaptive_max_pool2d(ember.ones(2, 0, 7, 5), 2),
            RuntimeError,
            r"non-zero size for non-batch dimensions, but input has sizes \[2, 0, 7, 5\] with dimension 1 being empty",
        ),
        (lambda: F.adaptive_max_pool1d(ember.ones(2, 3, 7), (3, 2)), RuntimeError, r"should contain one int \(got 2\)"),
        (lambda: F.adaptive_max_pool2d(ember.ones(2, 3, 7, 5), (3, 2, 1)), RuntimeError, "output_size.size.. must be 2"),
        (lambda: F.adaptive_max_pool2d(ember.ones(2, 3, 7, 5), [3]), RuntimeError, "output_size.size.. must be 2"),
        (lambda: F.adaptive_max_pool2d(ember.ones(2, 3, 7, 5), -1), RuntimeError, "greater than or equal to 0"),
        (lambda: F.adaptive_max_pool2d(ember.ones(2, 3, 7, 5), 2.5), TypeError, "output_size"),
        (lambda: F.adaptive_max_pool2d(ember.ones(2, 3, 7, 5), None), TypeError, "output_size"),
        (lambda: F.adaptive_avg_pool1d(ember.ones(2, 3, 7), (None,)), TypeError, "output_size"),  # 1-D pools take ints only
        (lambda: F.adaptive_avg_pool2d(ember.ones(2, 3, 7, 5), [3]), RuntimeError, "adaptive_avg_pool2d: output_size must be 2"),
        (
            lambda: F.adaptive_avg_pool3d(ember.ones(2, 3, 7, 5, 4), (3, 2)),
            RuntimeError,
            "adaptive_avg_pool3d: output_size must be 3",
        ),
    ],
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    ("nd", "shape", "output_size"), [(1, (2, 2, 7), 3), (2, (2, 5, 4), (3, None)), (2, (1, 2, 3, 4), 5), (3, (1, 3, 4, 3, 2), 2)]
)
def test_gradcheck(nd, shape, output_size):
    x = distinct(shape).requires_grad_(True)
    fn = getattr(F, f"adaptive_max_pool{nd}d")
    assert gradcheck(lambda a: fn(a, output_size), (x,))
    assert gradgradcheck(lambda a: fn(a, output_size, return_indices=True)[0], (x,))


def test_gradient_goes_to_the_maxima():
    x = ember.tensor([[[1.0, 5.0, 2.0, 4.0, 0.0]]], requires_grad=True)
    F.adaptive_max_pool1d(x, 3).sum().backward()  # windows [0, 2), [1, 4), [3, 5): 5 wins twice
    assert x.grad.tolist() == [[[0.0, 2.0, 0.0, 1.0, 0.0]]]


def test_modules():
    assert repr(nn.AdaptiveMaxPool2d((None, 3))) == "AdaptiveMaxPool2d(output_size=(None, 3))"
    assert repr(nn.AdaptiveMaxPool1d(3, return_indices=True)) == "AdaptiveMaxPool1d(output_size=3)"
    y, i = nn.AdaptiveMaxPool1d(3, return_indices=True)(ember.ones(2, 3, 7))
    assert y.shape == i.shape == (2, 3, 3)
    assert nn.AdaptiveMaxPool2d((None, 2))(ember.ones(3, 7, 5)).shape == (3, 7, 2)
    assert nn.AdaptiveMaxPool3d(1)(ember.ones(1, 2, 3, 4, 5)).shape == (1, 2, 1, 1, 1)
    assert nn.AdaptiveAvgPool2d((None, 2))(ember.ones(3, 7, 5)).shape == (3, 7, 2)


@needs_torch
@pytest.mark.parametrize(
    ("nd", "shape", "output_size"),
    [
        (1, (2, 3, 7), 3),
        (1, (3, 5), 9),
        (2, (2, 3, 7, 5), (3, None)),
        (2, (3, 7, 5), 10),
        (3, (2, 3, 4, 7, 5), (2, None, 3)),
        (3, (3, 4, 7, 5), 2),
    ],
)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_matches_torch(nd, shape, output_size, dtype):
    x = RNG.standard_normal(shape)
    x.flat[::7] = np.nan
    x.flat[3::11] = x.flat[2::11][: len(x.flat[3::11])]  # ties
    name = f"adaptive_max_pool{nd}d"
    e, t = make(x.astype(np.float32), noncontig=True)
    e, t = e.to(getattr(ember, dtype)), t.to(getattr(torch, dtype))
    got, want = getattr(F, name)(e, output_size, True), getattr(TF, name)(t, output_size, True)
    check_exact(got[0], want[0])
    check_exact(got[1], want[1])


@needs_torch
@pytest.mark.parametrize(("nd", "shape", "output_size"), [(1, (2, 3, 7), 3), (2, (2, 3, 7, 5), (4, None)), (3, (3, 4, 7, 5), 3)])
def test_gradient_matches_torch(nd, shape, output_size):
    x = RNG.standard_normal(shape)
    e = ember.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    name = f"adaptive_max_pool{nd}d"
    y, want = getattr(F, name)(e, output_size), getattr(TF, name)(t, output_size)
    g = RNG.standard_normal(tuple(want.shape))
    y.backward(ember.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_adaptive_avg_pool_to_ones_is_the_mean():
    # PyTorch's shortcut: an all-ones output is the mean over the last dims, whatever leads them
    x = ember.tensor(RNG.standard_normal((2, 1, 3, 4, 5)))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(x, 1).numpy(), x.numpy().mean((-2, -1), keepdims=True), rtol=1e-12)
    assert F.adaptive_avg_pool2d(ember.ones(1, 3), 1).tolist() == [[1.0]]
    assert F.adaptive_avg_pool3d(ember.ones(1, 3, 4), 1).shape == (1, 1, 1)
    assert math.isnan(F.adaptive_avg_pool2d(ember.ones(2, 3, 0, 4), (1, 1))[0, 0, 0, 0].item())  # an empty window
    assert F.adaptive_avg_pool2d(ember.ones(2, 3, 4), (1, None)).shape == (2, 1, 4)  # not all ones: pooled
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        F.adaptive_avg_pool2d(ember.ones(3), 1)
    with pytest.raises(RuntimeError, match="mean"):
        F.adaptive_avg_pool2d(ember.ones(2, 3, 4, dtype=ember.int64), 1)


@needs_torch
@pytest.mark.parametrize("shape", [(1, 3), (2, 1, 3, 4, 5), (2, 0, 3, 4), (2, 3, 0, 4), (2, 3, 4)])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_avg_pool_to_ones_matches_torch(shape, nd):
    x = RNG.standard_normal(shape)
    name = f"adaptive_avg_pool{nd}d"
    try:
        want = getattr(TF, name)(torch.tensor(x), 1)
    except (RuntimeError, IndexError):
        with pytest.raises((RuntimeError, IndexError)):
            getattr(F, name)(ember.tensor(x), 1)
        return
    check_exact(getattr(F, name)(ember.tensor(x), 1), want)


def test_adaptive_avg_pool_keeps_inf_inside_its_windows():
    # an inf reaches only the windows that hold it (an averaging matrix spread NaN along the axis)
    x = ember.tensor([[[1.0, 2.0, math.inf, 4.0, 5.0, 6.0]]])
    assert F.adaptive_avg_pool1d(x, 3).tolist() == [[[1.5, math.inf, 5.5]]]
    y = F.adaptive_avg_pool2d(ember.tensor([[[-math.inf, 1.0], [2.0, 3.0], [4.0, 5.0]]]), (3, 1))
    assert y.tolist() == [[[-math.inf], [2.5], [4.5]]]


@needs_torch
@pytest.mark.parametrize(
    ("nd", "shape", "output_size"),
    [
        (1, (2, 3, 7), 3),
        (2, (2, 3, 7, 5), (3, None)),
        (2, (3, 7, 5), 10),
        (3, (2, 2, 3, 3), 2),
        (3, (2, 3, 4, 7, 5), (2, None, 3)),
    ],
)
def test_adaptive_avg_pool_with_non_finite_values_matches_torch(nd, shape, output_size):
    x = RNG.standard_normal(shape)
    x.flat[::9] = math.inf
    x.flat[4::13] = -math.inf
    x.flat[5::17] = math.nan
    name = f"adaptive_avg_pool{nd}d"
    e, t = make(x, noncontig=True)
    check_exact(getattr(F, name)(e, output_size), getattr(TF, name)(t, output_size))
