"""The shared PyTorch oracle notices what it is there to notice."""

import numpy as np
import pytest

import ember
from tests._oracle import assert_close, check, needs_torch, random_array, to_torch

pytestmark = needs_torch


def test_check_passes_equal_results_and_gradients():
    x = np.array([[-1.0, 2.0], [0.5, -3.0]])
    out = check(lambda t: (t * t).sum(1), lambda t: (t * t).sum(1), x, grad=True)
    assert out.tolist() == [5.0, 9.25]


def test_check_fails_on_a_wrong_value_a_wrong_dtype_and_a_wrong_gradient():
    x = np.array([1.0, 2.0])
    with pytest.raises(AssertionError, match="Mismatch"):
        check(lambda t: t + 1, lambda t: t + 2, x)
    with pytest.raises(AssertionError, match="dtype float32 vs torch float64"):
        check(lambda t: t.float(), lambda t: t, x)
    with pytest.raises(AssertionError, match="gradient of input 0"):
        check(lambda t: t.detach() * 2 + t, lambda t: t * 3, x, grad=True)


def test_check_wants_both_to_refuse_or_neither():
    x = np.array([1.0, 2.0])
    check(lambda t: t.view(3), lambda t: t.view(3), x)  # both refuse
    with pytest.raises(pytest.fail.Exception):
        check(lambda t: t.reshape(2), lambda t: t.view(3), x)


def test_nan_counts_as_equal_only_where_both_have_it():
    assert_close(ember.tensor([float("nan"), 1.0]), to_torch(np.array([np.nan, 1.0], np.float32)))
    with pytest.raises(AssertionError):
        assert_close(ember.tensor([float("nan"), 1.0]), to_torch(np.array([0.0, 1.0], np.float32)))


def test_random_arrays_have_the_dtype_and_shape_asked_for():
    rng = np.random.default_rng(0)
    for dtype in ("bool", "uint8", "int32", "bfloat16", "complex64"):
        a = random_array(rng, (2, 3), dtype, special=True)
        assert a.shape == (2, 3) and ember.from_numpy(a).dtype.name == dtype
