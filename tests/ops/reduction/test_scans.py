"""cummax / cummin, logcumsumexp, diff."""

import math

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, to_torch, torch

NAN = float("nan")


def test_cummax_cummin_values_and_latest_indices():
    values, indices = ember.cummax(ember.tensor([1.0, 3.0, 3.0, NAN, 2.0, NAN, 5.0]), 0)
    assert values[:3].tolist() == [1.0, 3.0, 3.0] and np.isnan(values[3:].numpy()).all()
    assert indices.tolist() == [0, 1, 2, 3, 3, 5, 5]
    low = ember.tensor([[3, 1, 1, 2]]).cummin(1)
    assert low.values.tolist() == [[3, 1, 1, 1]] and low.indices.tolist() == [[0, 1, 2, 2]]
    assert type(low).__name__ == "cummin" and ember.cummax(ember.tensor(2.0), 0).indices.item() == 0
    with pytest.raises(NotImplementedError, match="ComplexFloat"):
        ember.cummax(ember.tensor([1j]), 0)


def test_cummax_gradient_goes_to_the_chosen_elements():
    x = ember.tensor([1.0, 3.0, 2.0], dtype=ember.float64, requires_grad=True)
    x.cummax(0).values.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 0.0]
    y = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: t.cummin(1).values, (y,))


def test_logcumsumexp_is_stable_and_exact():
    x = ember.tensor([1000.0, 1000.0, -1000.0], dtype=ember.float64)
    assert np.allclose(x.logcumsumexp(0).numpy(), [1000.0, 1000.0 + math.log(2), 1000.0 + math.log(2)])
    got = ember.logcumsumexp(ember.tensor([0.0, -math.inf, 1.0]), 0).numpy()
    assert np.allclose(got, np.log(np.cumsum(np.exp([0.0, -np.inf, 1.0]))))
    with pytest.raises(NotImplementedError, match="Long"):
        ember.logcumsumexp(ember.tensor([1, 2]), 0)
    y = ember.randn(3, 5, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: t.logcumsumexp(1), (y,))


def test_diff_orders_dims_and_joins():
    x = ember.arange(6).reshape(2, 3)
    got = ember.diff(x, n=2, dim=1, prepend=ember.zeros(2, 1, dtype=ember.int64), append=ember.ones(2, 2, dtype=ember.int64))
    assert got.tolist() == [[1, 0, -2, 1], [-2, 0, -5, 4]]
    assert ember.diff(ember.tensor([True, False, False])).tolist() == [True, False]
    assert ember.diff(ember.tensor([1, 2, 4]), n=5).shape == (0,)
    x1 = ember.tensor([1.0, 2.0])
    assert ember.diff(x1, n=0, append=x1).tolist() == [1.0, 2.0]  # a copy of the input, append unused
    out = ember.empty(2)
    assert ember.diff(ember.tensor([1.0, 3.0, 7.0]), out=out) is out and out.tolist() == [2.0, 4.0]
    y = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: t.diff(2, 0), (y,))


def test_diff_errors():
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        ember.diff(ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        ember.diff(ember.tensor([1, 2]), n=-1)
    with pytest.raises(RuntimeError, match="same dimension as input"):
        ember.diff(ember.tensor([1, 2]), prepend=ember.tensor(1))


@needs_torch
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scans_match_torch(dim):
    rng = np.random.default_rng(dim + 5)
    a = rng.integers(0, 4, size=(4, 5, 3)).astype(np.float32)
    a[rng.random(a.shape) < 0.1] = np.nan
    e, t = ember.tensor(a), to_torch(ember.tensor(a))
    for fn in ("cummax", "cummin"):
        ev, tv = getattr(ember, fn)(e, dim), getattr(torch, fn)(t, dim)
        assert np.array_equal(ev.values.numpy(), tv.values.numpy(), equal_nan=True)
        assert np.array_equal(ev.indices.numpy(), tv.indices.numpy())
    b = rng.standard_normal((4, 5, 3)) * 50
    assert np.allclose(ember.tensor(b).logcumsumexp(dim).numpy(), torch.tensor(b).logcumsumexp(dim).numpy())
    assert np.array_equal(ember.diff(e, 2, dim).numpy(), torch.diff(t, 2, dim).numpy(), equal_nan=True)
