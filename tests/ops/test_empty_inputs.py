"""Tensors with a zero-size dimension give PyTorch's result or its error: assignment, pooling
and convolution, the normalizations (with running statistics left as they were), and the
reductions over an empty dimension."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from tests._oracle import needs_torch, torch


def test_assigning_into_an_empty_tensor_is_a_no_op():
    x = ember.empty(2, 0, 2)
    x[...] = 1
    x.index_put_((ember.tensor([0, 1]),), ember.tensor(1.0))
    y = ember.zeros(3, 0)
    y[ember.tensor([0, 2])] = ember.zeros(2, 0)
    assert x.shape == (2, 0, 2) and y.shape == (3, 0)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_convolution_of_an_empty_batch_is_empty(nd):
    y = getattr(F, f"conv{nd}d")(ember.zeros(0, 2, *(4,) * nd), ember.ones(3, 2, *(2,) * nd))
    assert y.shape == (0, 3, *(3,) * nd)


POOL_CASES = [
    ("max_pool1d", (1, 2, 0), "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 2, 0]"),
    ("max_pool1d", (0, 4), "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[0, 4]"),
    ("avg_pool1d", (1, 0, 4), "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 0, 1, 4]"),
    ("max_pool2d", (1, 2, 0, 4), "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 2, 0, 4]"),
    ("avg_pool2d", (0, 4, 4), "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[0, 4, 4]"),
    ("max_pool3d", (1, 2, 0, 4, 4), "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have "
     "positive length, but input has a shape of [1, 2, 0, 4, 4] and non-batch dimension 1 has length zero!"),
    ("avg_pool3d", (0, 4, 4, 4), "avg_pool3d(): Expected input's non-batch dimensions to have positive length, but input has a "
     "shape of [0, 4, 4, 4] and non-batch dimension 0 has length zero!"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "shape", "words"), POOL_CASES)
def test_pooling_an_empty_channel_or_spatial_dim_raises_pytorchs_error(name, shape, words):
    with pytest.raises(RuntimeError) as info:
        getattr(F, name)(ember.zeros(*shape), 2)
    assert str(info.value) == words
    if torch is not None:
        with pytest.raises(RuntimeError) as expected:
            getattr(torch.nn.functional, name)(torch.zeros(*shape), 2)
        # PyTorch's 3-D kernels name "non-batch dimension 0" whichever is empty; ember names the empty one
        assert str(expected.value).rsplit(" non-batch dimension ", 1)[0] == words.rsplit(" non-batch dimension ", 1)[0]


@pytest.mark.parametrize("name", ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"])
def test_pooling_an_empty_batch_is_empty(name):
    assert getattr(F, name)(ember.zeros(0, 2, 4, 4), 2).shape == (0, 2, 2, 2)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_of_an_empty_batch_leaves_the_running_stats(training):
    mod = ember.nn.BatchNorm1d(3)
    mod.train(training)
    y = mod(ember.zeros(0, 3))
    assert y.shape == (0, 3)
    np.testing.assert_array_equal(mod.running_mean.numpy(), np.zeros(3))
    np.testing.assert_array_equal(mod.running_var.numpy(), np.ones(3))
    if torch is not None:
        ref = torch.nn.BatchNorm1d(3)
        ref.train(training)
        ref(torch.zeros(0, 3))
        np.testing.assert_array_equal(mod.running_mean.numpy(), ref.running_mean.numpy())
        np.testing.assert_array_equal(mod.running_var.numpy(), ref.running_var.numpy())
        assert mod.num_batches_tracked.item() == ref.num_batches_tracked.item()


def test_layer_and_group_norm_of_an_empty_batch_are_empty():
    assert F.layer_norm(ember.zeros(0, 3), (3,), ember.ones(3), ember.zeros(3)).shape == (0, 3)
    assert F.group_norm(ember.zeros(0, 4, 2), 2).shape == (0, 4, 2)
    assert F.group_norm(ember.zeros(2, 4, 0), 2).shape == (2, 4, 0)


@pytest.mark.parametrize(
    ("name", "words"),
    [("max", "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."),
     ("min", "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."),
     ("argmax", "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
     ("argmin", "argmin(): Expected reduction dim to be specified for input.numel() == 0.")],
)  # fmt: skip
def test_extrema_of_an_empty_tensor_raise_pytorchs_error(name, words):
    with pytest.raises((RuntimeError, IndexError)) as info:
        getattr(ember, name)(ember.zeros(0))
    assert str(info.value) == words
    if torch is not None:
        with pytest.raises((RuntimeError, IndexError)) as expected:
            getattr(torch, name)(torch.zeros(0))
        assert str(expected.value) == words and type(expected.value).__name__ == type(info.value).__name__


@pytest.mark.parametrize(("name", "expected"), [("sum", 0.0), ("prod", 1.0), ("mean", math.nan)])
def test_sum_prod_mean_of_an_empty_tensor(name, expected):
    value = getattr(ember, name)(ember.zeros(0)).item()
    assert value == expected or (math.isnan(expected) and math.isnan(value))


def test_kthvalue_over_an_empty_dim_raises_pytorchs_index_error():
    with pytest.raises(IndexError, match=r"^kthvalue\(\): Expected reduction dim 0 to have non-zero size\.$"):
        ember.kthvalue(ember.zeros(0), 1)
    with pytest.raises(IndexError, match=r"dim 0 to have non-zero size"):
        ember.kthvalue(ember.zeros(0, 3), 1, dim=0)
    assert ember.kthvalue(ember.zeros(0, 3), 1, dim=1).values.shape == (0,)


@needs_torch
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize(
    "name", ["max", "min", "argmax", "argmin", "amax", "amin", "sum", "prod", "mean", "std", "var", "all", "any"]
)
def test_reductions_of_empty_tensors_match_torch(name, dim, shape):
    if dim is not None and dim >= len(shape):
        pytest.skip("no such dim")
    outcomes = []
    for m in (ember, torch):
        fn = getattr(m, name)
        try:
            result = fn(m.zeros(*shape)) if dim is None else fn(m.zeros(*shape), dim)
        except (RuntimeError, IndexError) as error:
            outcomes.append((type(error).__name__, str(error)))
            continue
        result = result[0] if isinstance(result, tuple) else result
        outcomes.append(("ok", tuple(result.shape), np.asarray(result.double().numpy()).tolist()))
    got, expected = outcomes
    assert got[:2] == expected[:2]
    if got[0] == "ok":
        np.testing.assert_array_equal(got[2], expected[2])
