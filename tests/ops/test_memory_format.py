"""Memory formats (contiguous_format, channels_last, channels_last_3d, preserve_format), numel and
the default generator's state."""

import pickle

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch


def test_channels_last_gives_nhwc_strides_and_keeps_values():
    x = ember.arange(120.0).reshape(2, 3, 4, 5)
    y = x.contiguous(memory_format=ember.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert not y.is_contiguous() and y.is_contiguous(memory_format=ember.channels_last)
    assert np.array_equal(y.numpy(), x.numpy())
    assert y.contiguous(memory_format=ember.channels_last) is y
    assert y.contiguous().stride() == (60, 20, 5, 1)
    assert x.to(memory_format=ember.channels_last).stride() == (60, 1, 15, 3)
    assert x.to(memory_format=ember.contiguous_format) is x
    assert x.clone(memory_format=ember.channels_last).stride() == (60, 1, 15, 3)
    assert ember.empty_like(y).stride() == (60, 1, 15, 3)  # preserve_format keeps the layout
    assert ember.zeros_like(x, memory_format=ember.channels_last).stride() == (60, 1, 15, 3)
    z = ember.zeros(2, 3, 4, 5, 6).contiguous(memory_format=ember.channels_last_3d)
    assert z.stride() == (360, 1, 90, 18, 3) and z.is_contiguous(memory_format=ember.channels_last_3d)


def test_channels_last_contiguity_rules():
    assert ember.zeros(2, 1, 4, 5).is_contiguous(memory_format=ember.channels_last)  # size-1 strides don't matter
    assert not ember.zeros(2, 3, 4).is_contiguous(memory_format=ember.channels_last)  # other ranks are not
    assert ember.zeros(2, 3, 4).is_contiguous(memory_format=ember.contiguous_format)
    assert ember.zeros(2, 0, 4, 5).contiguous(memory_format=ember.channels_last).stride() == (0, 1, 0, 0)


def test_memory_format_errors():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.zeros(2, 3, 4).contiguous(memory_format=ember.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        ember.zeros(2, 3, 4, 5).to(memory_format=ember.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        ember.zeros(2).contiguous(memory_format=ember.preserve_format)
    with pytest.raises(TypeError, match="memory_format"):
        ember.zeros(2).is_contiguous(memory_format=3)
    with pytest.raises(TypeError, match="memory_format"):
        ember.zeros(2).contiguous(memory_format=3)


def test_memory_formats_are_singletons():
    assert isinstance(ember.channels_last, ember.memory_format)
    assert repr(ember.channels_last) == "ember.channels_last"
    assert pickle.loads(pickle.dumps(ember.channels_last_3d)) is ember.channels_last_3d


def test_gradient_flows_through_a_channels_last_copy():
    x = ember.ones(2, 3, 4, 5, requires_grad=True)
    (x.contiguous(memory_format=ember.channels_last) * 2).sum().backward()
    assert x.grad.shape == (2, 3, 4, 5) and bool((x.grad == 2).all())


@needs_torch
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 3, 1, 5), (2, 1, 4, 1), (3, 2, 1, 1)])
def test_channels_last_matches_torch(shape):
    e = ember.zeros(*shape).contiguous(memory_format=ember.channels_last)
    t = torch.zeros(*shape).contiguous(memory_format=torch.channels_last)
    assert e.stride() == t.stride()
    for view in (lambda a: a.transpose(1, 3), lambda a: a.permute(0, 2, 3, 1), lambda a: a):
        assert view(e).is_contiguous(memory_format=ember.channels_last) == view(t).is_contiguous(
            memory_format=torch.channels_last
        )


def test_numel():
    assert ember.numel(ember.zeros(2, 3)) == 6 and ember.numel(ember.tensor(1.0)) == 1
    with pytest.raises(TypeError, match=r"numel\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        ember.numel([1, 2])


def test_rng_state_round_trip():
    state = ember.get_rng_state()
    assert state.dtype is ember.uint8 and state.dim() == 1
    a = ember.rand(4)
    ember.set_rng_state(state)
    assert ember.equal(ember.rand(4), a)
    ember.manual_seed(3)
    assert ember.initial_seed() == 3


def test_rng_state_errors():
    with pytest.raises(TypeError, match=r"expected a ember\.ByteTensor, but got list"):
        ember.set_rng_state([1, 2])
    with pytest.raises(TypeError, match=r"RNG state must be a ember\.ByteTensor"):
        ember.set_rng_state(ember.zeros(3))
    before = ember.get_rng_state()
    with pytest.raises(RuntimeError, match="set_rng_state"):
        ember.set_rng_state(ember.zeros(3, dtype=ember.uint8))
    assert ember.equal(ember.get_rng_state(), before)  # a refused state leaves the generator alone
