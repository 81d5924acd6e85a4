"""amax, amin, max, min, argmax, argmin: against PyTorch (NaN, ties, empty inputs, named tuples),
their derivatives (ties split evenly, the gradient of max along a dim goes to its index)."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck
from tests._oracle import needs_torch, torch

from ._helpers import SETTINGS, R, assert_same, check_against_torch, check_dim_reduction, grad_matches_torch, leaf, tensors


@needs_torch
@pytest.mark.parametrize("name", ["amax", "amin"])
@SETTINGS
@given(data=st.data())
def test_dim_reductions_match_torch(name, data):
    check_dim_reduction(name, data)


@needs_torch
@pytest.mark.parametrize("name", ["max", "min"])
@SETTINGS
@given(data=st.data())
def test_max_min_overloads_match_torch(name, data):
    e, t = data.draw(tensors(nan=True), label="input")
    fe, ft = getattr(ember, name), getattr(torch, name)
    check_against_torch(name, lambda: fe(e), lambda: ft(t))
    dim = data.draw(st.integers(-max(e.ndim, 1), max(e.ndim, 1) - 1), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    exc = check_against_torch(name, lambda: fe(e, dim, keepdim), lambda: ft(t, dim, keepdim))
    if exc is None:
        result = getattr(e, name)(dim=dim, keepdim=keepdim)
        assert type(result).__name__ == name and result._fields == ("values", "indices")
        assert_same(result.values, ft(t, dim, keepdim).values)
        assert_same(result.indices, ft(t, dim, keepdim).indices)


@needs_torch
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@SETTINGS
@given(data=st.data())
def test_arg_reductions_match_torch(name, data):
    e, t = data.draw(tensors(nan=True), label="input")
    dim = data.draw(st.none() | st.integers(-max(e.ndim, 1), max(e.ndim, 1) - 1), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    check_against_torch(name, lambda: getattr(ember, name)(e, dim, keepdim), lambda: getattr(torch, name)(t, dim, keepdim))


def test_nan_propagates_through_max_and_min():
    x = ember.tensor([[1.0, math.nan, 3.0], [4.0, 5.0, 6.0]])
    assert math.isnan(x.max().item()) and math.isnan(x.amin().item())
    values, indices = x.max(1)
    assert math.isnan(values[0].item()) and values[1].item() == 6.0
    assert indices.tolist() == [1, 2]
    assert x.argmin(1).tolist() == [1, 0]


def test_named_tuples():
    r = ember.tensor([[1, 5], [7, 2]]).min(dim=1, keepdim=True)
    assert r.values.tolist() == [[1], [2]] and r.indices.tolist() == [[0], [1]]
    values, indices = r
    assert values is r[0] and indices is r.indices
    assert repr(r).startswith("min(values=")
    assert pickle.loads(pickle.dumps(r)).indices.tolist() == [[0], [1]]


def test_max_with_a_tensor_is_elementwise():
    if not hasattr(ember, "maximum"):
        pytest.skip("ember.maximum is not there yet")
    a, b = ember.tensor([1, 5]), ember.tensor([3, 2])
    assert ember.max(a, b).tolist() == [3, 5]
    assert ember.min(a, b).tolist() == [1, 2]


def test_empty_extremum_errors():
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        ember.zeros(0).max()
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size."):
        ember.zeros(0, 3).max(0)
    with pytest.raises(IndexError, match=r"amin\(\): Expected reduction dim 0 to have non-zero size."):
        ember.zeros(0, 3).amin(0)
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        ember.zeros(0, 3).argmax()


# ---------------------------------------------------------------------------------------
# derivatives

CASES = {
    "amax": (lambda t: ember.amax(t, 1), (3, 4)),
    "amin_multi": (lambda t: ember.amin(t, (0, 1)), (3, 4)),
    "max_full": (lambda t: t.max(), (3, 4)),
    "max_dim": (lambda t: t.max(1).values, (3, 4)),
    "min_dim_keepdim": (lambda t: t.min(0, keepdim=True).values, (3, 4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, shape = CASES[name]
    assert gradcheck(fn, (R(*shape),))


@needs_torch
def test_ties_split_like_torch():
    data = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]
    for name in ("amax", "amin"):
        x = leaf(data)
        t = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        getattr(ember, name)(x, 1).sum().backward()
        getattr(torch, name)(t, 1).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    x = leaf(data)
    x.max().backward()  # max() of all: amax, ties shared evenly
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [0, 0, 0]])


def test_max_dim_grad_goes_to_index():
    x = leaf([[1.0, 5.0, 5.0], [4.0, 2.0, 0.0]])
    values, indices = x.max(1)
    assert not indices.requires_grad
    values.sum().backward()
    expected = np.zeros((2, 3))
    expected[np.arange(2), indices.numpy()] = 1
    np.testing.assert_allclose(x.grad.numpy(), expected)


# The selections (amax, max along a dim) have a first derivative that does not depend on the input
# values: ember's gradgradcheck cannot check them (see test_sums), so there is no gradgradcheck here.
@needs_torch
@pytest.mark.parametrize("name, torch_fn", [("max_dim", lambda t: t.max(1).values)])
def test_matches_torch(name, torch_fn):
    fn, shape = CASES[name]
    grad_matches_torch(fn, torch_fn, shape)
