"""What the nn op tests share: the torch oracle's functional namespace, tolerances, tensors
made in both libraries, and the float64 leaves of the derivative tests."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings, strategies as st

import ember
from tests._oracle import assert_close, to_torch, torch

TF = torch.nn.functional if torch is not None else None
# torch's advice about valid but unusual calls, which these tests make on purpose
TORCH_ADVICE = pytest.mark.filterwarnings(
    "ignore:Implicit dimension choice", "ignore:Using padding='same'", "ignore:reduction. 'mean' divides the total loss"
)
FLOATS = [np.float32, np.float64]
TOL = {np.float32: {"rtol": 2e-4, "atol": 2e-5}, np.float64: {"rtol": 1e-9, "atol": 1e-10}}
# modest by default (the suite has a CI budget); HYPOTHESIS_PROFILE=thorough runs the profile's count
SETTINGS = settings(max_examples=25 if settings.default.max_examples <= 100 else settings.default.max_examples, deadline=None)
# the derivative tests' random source
RNG = np.random.default_rng(0)


def seeded(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def make(array: np.ndarray, noncontig: bool = False):
    """An ember tensor and a torch tensor with the values of ``array``; with ``noncontig`` the
    ember one is a strided view (every other element of a wider array)."""
    array = np.asarray(array)
    t = to_torch(array) if torch is not None else None
    if not noncontig or array.ndim == 0:
        return ember.tensor(array), t
    wide = np.zeros((*array.shape[:-1], array.shape[-1] * 2), array.dtype)
    wide[..., ::2] = array
    e = ember.tensor(wide)[..., ::2]
    assert not e.is_contiguous() or array.shape[-1] <= 1
    return e, t


def check(e, t, dtype=np.float64, **tol):
    """ember ``e`` equals torch ``t`` (shape, dtype, values, NaN where NaN) within ``dtype``'s tolerance."""
    tol = {**TOL[np.dtype(dtype).type], **tol}
    tol.pop("equal_nan", None)  # NaN always matches NaN
    assert_close(e, t, rtol=tol["rtol"], atol=tol["atol"])


def check_exact(e, t):
    """Shape, dtype and values, nan included (integer and empty results too)."""
    assert_close(e, t, rtol=1e-6, atol=1e-7)


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


def both(fn, *arrays, **kwargs):
    """ember.fn and TF.fn on the same arguments (NumPy arrays become tensors, the rest passes through)."""
    es = [ember.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
    ts = [to_torch(a) if isinstance(a, np.ndarray) else a for a in arrays]
    expected = getattr(TF, fn)(*ts, **kwargs)  # torch must accept these inputs: that is the point of each case
    return getattr(ember, fn)(*es, **kwargs), expected


def leaf(shape, requires_grad=True, low=None, high=None, rng=RNG):
    """A float64 tensor of normal (or uniform in [low, high)) values, requiring grad."""
    a = rng.uniform(low, high, shape) if low is not None else rng.standard_normal(shape)
    return ember.tensor(a, dtype=ember.float64, requires_grad=requires_grad)


def idx(values):
    return ember.tensor(np.asarray(values), dtype=ember.int64)


def distinct(shape):
    """Float64 values far apart (no ties inside a pooling window)."""
    a = RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.1
    return ember.tensor(a, dtype=ember.float64, requires_grad=True)


def pair(shape, low=None, high=None):
    """Values for one input of ``compare_grads``: normal, or uniform in [low, high)."""
    return RNG.uniform(low, high, shape) if low is not None else RNG.standard_normal(shape)


def compare_grads(ember_fn, torch_fn, arrays, atol=1e-8):
    """Outputs and input gradients (for one random upstream gradient) of ember and torch in float64."""
    e_in = [ember.tensor(a, dtype=ember.float64, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    e_out = ember_fn(*e_in)
    t_out = torch_fn(*t_in)
    seed = RNG.standard_normal(tuple(t_out.shape))
    e_out.backward(ember.tensor(seed, dtype=ember.float64))
    t_out.backward(torch.tensor(seed, dtype=torch.float64))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), atol=atol)
    for e, tt in zip(e_in, t_in, strict=True):
        if tt.grad is None:
            assert e.grad is None or np.allclose(e.grad.numpy(), 0)
        else:
            np.testing.assert_allclose(e.grad.numpy(), tt.grad.numpy(), atol=atol, rtol=1e-7)


def count_kernel_calls(monkeypatch, op_name):
    """Wrap ``op_name``'s CPU kernel; the list it returns grows by one per call."""
    op = ember.dispatch.opexpr.OP_REGISTRY[op_name]
    calls, kernel = [], op.kernels["cpu"]

    def counted(outs, ins, attrs):
        calls.append(attrs)
        return kernel(outs, ins, attrs)

    monkeypatch.setitem(op.kernels, "cpu", counted)
    return calls
