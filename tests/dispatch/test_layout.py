"""Element-wise outputs take their inputs' memory layout, as PyTorch's TensorIterator gives them:
a transposed or channels-last input gives an output with the same strides; several inputs
order the dims by their strides, the first input first; broadcast inputs do not decide."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.dispatch.layout import output_strides
from tests._oracle import needs_torch, torch


def _channels_last(lib, shape):
    x = lib.arange(float(np.prod(shape))).reshape(shape)
    return x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


# name -> (function of the library, the strides ember must give (PyTorch's))
CASES = {
    "unary on a transpose": (lambda L: L.relu(L.arange(24.0).reshape(2, 3, 4).transpose(0, 2)), (1, 4, 12)),
    "unary on a permutation": (lambda L: L.arange(24.0).reshape(2, 3, 4).permute(1, 2, 0).neg(), (4, 1, 12)),
    "binary, both transposed": (lambda L: L.ones(2, 3).T + L.ones(2, 3).T, (1, 3)),
    "binary, transposed first": (lambda L: L.ones(2, 3).T + L.ones(3, 2), (1, 3)),
    "binary, contiguous first": (lambda L: L.ones(3, 2) + L.ones(2, 3).T, (2, 1)),
    "transposed + broadcast": (lambda L: L.ones(2, 3).T + L.ones(2), (1, 3)),
    "broadcast + transposed": (lambda L: L.ones(2) + L.ones(2, 3).T, (1, 3)),
    "tensor * scalar": (lambda L: L.ones(2, 3).T * 2, (1, 3)),
    "comparison": (lambda L: L.ones(2, 3).T > 0, (1, 3)),
    "channels-last unary": (lambda L: L.sigmoid(_channels_last(L, (2, 3, 4, 5))), (60, 1, 15, 3)),
    "channels-last + bias": (lambda L: _channels_last(L, (2, 3, 4, 5)) + L.ones(3, 1, 1), (60, 1, 15, 3)),
    "bias + channels-last": (lambda L: L.ones(3, 1, 1) + _channels_last(L, (2, 3, 4, 5)), (60, 1, 15, 3)),
    "channels-last + contiguous": (lambda L: _channels_last(L, (2, 3, 4, 5)) + L.ones(2, 3, 4, 5), (60, 1, 15, 3)),
    "a strided slice": (lambda L: L.ones(2, 3, 8)[:, :, ::2].neg(), (12, 4, 1)),
    "a transposed slice": (lambda L: L.ones(2, 3, 8)[:, :, ::2].transpose(0, 1).neg(), (4, 12, 1)),
    "size-1 dims of a contiguous view": (lambda L: L.ones(3, 1, 2).transpose(0, 1).sigmoid(), (6, 2, 1)),
    "an expanded input": (lambda L: L.ones(3, 1).expand(3, 4).neg(), (4, 1)),
    "where": (lambda L: L.where(L.ones(2, 3).T > 0, L.ones(2, 3).T, 0.0), (1, 3)),
    "clamp": (lambda L: L.ones(2, 3).T.clamp(0, 1), (1, 3)),
    "lerp": (lambda L: L.lerp(L.ones(2, 3).T, L.ones(2, 3).T, 0.5), (1, 3)),
    "add with alpha": (lambda L: L.add(L.ones(2, 3).T, L.ones(2, 3).T, alpha=2), (1, 3)),
    "conversion": (lambda L: L.ones(2, 3).T.to(L.float64), (1, 3)),
    "clone": (lambda L: L.ones(2, 3).T.clone(), (1, 3)),
    "zeros_like": (lambda L: L.zeros_like(L.ones(2, 3).T), (1, 3)),
    "empty rows": (lambda L: L.ones(0, 3).T.exp(), (1, 1)),
    "batched matrix transpose": (lambda L: L.ones(2, 3, 4).mT.abs(), (12, 1, 4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_elementwise_output_strides(name):
    fn, strides = CASES[name]
    assert fn(ember).stride() == strides


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_strides_are_torchs(name):
    fn, strides = CASES[name]
    assert fn(torch).stride() == strides


def test_values_and_gradients_through_a_transposed_output():
    x = ember.arange(6.0).reshape(2, 3).T.requires_grad_(True)
    y = x.exp() * ember.arange(6.0).reshape(2, 3).T
    assert y.stride() == (1, 3)
    np.testing.assert_allclose(y.detach().numpy(), np.exp(np.arange(6.0).reshape(2, 3).T) * np.arange(6.0).reshape(2, 3).T)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.arange(6.0).reshape(2, 3).T) * np.arange(6.0).reshape(2, 3).T)
    assert not y.is_contiguous() and y.reshape(-1).tolist() == y.contiguous().view(-1).tolist()


def test_inplace_and_out_keep_their_own_layout():
    a = ember.ones(3, 2)
    a.add_(ember.ones(2, 3).T)
    assert a.stride() == (2, 1)
    out = ember.empty(3, 2)
    ember.add(ember.ones(2, 3).T, 1, out=out)
    assert out.stride() == (2, 1) and out.tolist() == [[2.0, 2.0]] * 3


def test_output_strides_rule():
    assert output_strides((2, 3), [((2, 3), (3, 1))]) == (3, 1)
    assert output_strides((2, 3), [((2, 3), (1, 2))]) == (1, 2)
    assert output_strides((2, 3), [((3,), (1,)), ((2, 3), (1, 2))]) == (1, 2)  # the broadcast input cannot decide dim 0
    assert output_strides((2, 3, 4), [((2, 3, 4), (12, 1, 3))]) == (12, 1, 3)
