"""median / nanmedian, quantile / nanquantile, aminmax, std_mean / var_mean."""

import math

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, to_torch, torch

NAN = float("nan")


def test_median_is_the_lower_median_and_propagates_nan():
    x = ember.tensor([[3.0, NAN, 1.0, 2.0], [1.0, 1.0, 2.0, 2.0], [4.0, 3.0, 2.0, 1.0]])
    values, indices = ember.median(x, 1)
    assert math.isnan(values[0].item()) and indices[0].item() == 1  # the NaN's own index
    assert values[1:].tolist() == [1.0, 2.0] and indices[2].item() == 2
    assert ember.tensor([1, 4, 2, 3]).median().item() == 2
    assert ember.median(x, 1, keepdim=True).values.shape == (3, 1)
    assert type(ember.median(x, 0)).__name__ == "median"


def test_nanmedian_skips_nan():
    x = ember.tensor([[3.0, NAN, 1.0, 2.0], [NAN, NAN, NAN, NAN]])
    values, indices = ember.nanmedian(x, dim=1)
    assert values[0].item() == 2.0 and indices[0].item() == 3 and math.isnan(values[1].item())
    assert ember.tensor([NAN, 5.0, 1.0]).nanmedian().item() == 1.0


def test_median_edges_and_errors():
    assert math.isnan(ember.median(ember.tensor([])).item())
    assert ember.median(ember.tensor(5.0), 0).values.item() == 5.0
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        ember.median(ember.zeros(0, 3), 0)
    with pytest.raises(NotImplementedError, match="Bool"):
        ember.median(ember.tensor([True, False]))


def test_median_gradient_selects_the_median():
    x = ember.tensor([[3.0, 1.0, 2.0]], dtype=ember.float64, requires_grad=True)
    x.median(1).values.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 1.0]]
    assert ember.autograd.gradcheck(lambda t: t.median(0).values, (ember.rand(4, 3, dtype=ember.float64, requires_grad=True),))


def test_quantile_interpolations_known_values():
    x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    q = ember.tensor([0.0, 0.4, 1.0])
    expect = {
        "linear": [1.0, 2.2, 4.0],
        "lower": [1.0, 2.0, 4.0],
        "higher": [1.0, 3.0, 4.0],
        "midpoint": [1.0, 2.5, 4.0],
        "nearest": [1.0, 2.0, 4.0],
    }
    for mode, values in expect.items():
        assert np.allclose(ember.quantile(x, q, interpolation=mode).numpy(), values), mode
    assert ember.quantile(x, 0.5).shape == () and ember.quantile(x, ember.tensor(0.5)).shape == ()
    assert ember.quantile(ember.rand(2, 3, 4), q, dim=1, keepdim=True).shape == (3, 2, 1, 4)
    assert ember.quantile(ember.rand(2, 3), q, keepdim=True).shape == (3, 1, 1)


def test_quantile_nan_and_nanquantile():
    x = ember.tensor([[1.0, NAN, 3.0], [NAN, NAN, NAN], [1.0, 2.0, 3.0]])
    assert np.isnan(ember.quantile(x, 0.5, dim=1).numpy()[:2]).all()
    got = ember.nanquantile(x, 0.5, dim=1).numpy()
    assert got[0] == 2.0 and np.isnan(got[1]) and got[2] == 2.0


def test_quantile_errors():
    with pytest.raises(RuntimeError, match="must be either float or double dtype"):
        ember.quantile(ember.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match=r"q must be in the range \[0, 1\] but got 1.5"):
        ember.quantile(ember.tensor([1.0, 2.0]), 1.5)
    with pytest.raises(RuntimeError, match="must be non-empty"):
        ember.quantile(ember.tensor([]), 0.5)
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.quantile(ember.tensor([1.0, 2.0]), ember.tensor([0.5], dtype=ember.float64))
    with pytest.raises(RuntimeError, match="interpolation must be one of"):
        ember.quantile(ember.tensor([1.0, 2.0]), 0.5, interpolation="cubic")


def test_quantile_gradient():
    x = ember.rand(3, 5, dtype=ember.float64, requires_grad=True)
    q = ember.tensor([0.3, 0.8], dtype=ember.float64)
    assert ember.autograd.gradcheck(lambda t: ember.quantile(t, q, dim=1), (x,))


def test_aminmax():
    x = ember.tensor([[1, 5], [4, 2]])
    assert ember.aminmax(x).min.item() == 1 and x.aminmax().max.item() == 5
    lo, hi = ember.aminmax(x, dim=1, keepdim=True)
    assert lo.tolist() == [[1], [2]] and hi.tolist() == [[5], [4]]
    with pytest.raises(RuntimeError, match="cannot compute aminmax over an empty dimension"):
        ember.aminmax(ember.tensor([]))
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        ember.aminmax(ember.zeros(2, 0), dim=1)


def test_std_mean_and_var_mean():
    x = ember.tensor([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]], dtype=ember.float64)
    s, m = ember.std_mean(x, 1)
    assert np.allclose(s.numpy(), np.std(x.numpy(), axis=1, ddof=1)) and np.allclose(m.numpy(), [7 / 3, 1.0])
    v, m = ember.var_mean(x, dim=0, correction=0, keepdim=True)
    assert np.allclose(v.numpy(), np.var(x.numpy(), axis=0, keepdims=True)) and m.shape == (1, 3)
    assert isinstance(ember.var_mean(x), tuple)


@needs_torch
@pytest.mark.parametrize("seed", range(4))
def test_order_statistics_match_torch(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, size=(3, 4, 5)).astype(np.float64)
    a[rng.random(a.shape) < 0.15] = np.nan
    e, t = ember.tensor(a), to_torch(ember.tensor(a))
    for dim in (0, 1, -1):
        for fn in ("median", "nanmedian"):
            ev, tv = getattr(ember, fn)(e, dim), getattr(torch, fn)(t, dim)
            assert np.allclose(ev.values.numpy(), tv.values.numpy(), equal_nan=True)
            picked = np.take_along_axis(a, np.expand_dims(ev.indices.numpy(), dim), dim).squeeze(dim)
            assert np.allclose(picked, tv.values.numpy(), equal_nan=True)  # indices point at the median
        q = ember.tensor([0.1, 0.5, 0.9], dtype=ember.float64)
        for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
            for fn in ("quantile", "nanquantile"):
                got = getattr(ember, fn)(e, q, dim=dim, interpolation=mode).numpy()
                want = getattr(torch, fn)(t, to_torch(q), dim=dim, interpolation=mode).numpy()
                assert np.allclose(got, want, equal_nan=True), (fn, mode, dim)
    assert np.allclose(ember.median(e).numpy(), torch.median(t).numpy(), equal_nan=True)
    assert np.allclose(ember.nanmedian(e).numpy(), torch.nanmedian(t).numpy(), equal_nan=True)


def test_bfloat16_sorts_nan_last_so_median_sees_it():
    x = ember.tensor([NAN, -0.25, 1.25], dtype=ember.bfloat16)
    assert ember.sort(x).indices.tolist() == [1, 2, 0]
    assert math.isnan(ember.median(x).item()) and ember.nanmedian(x).item() == -0.25


def test_nan_correction_divides_by_zero_as_torch():
    # torch's max(0, N - correction) reads a NaN as 0 degrees of freedom
    assert ember.std(ember.tensor([0.25, -0.5, 1.0]), correction=NAN).item() == math.inf
    assert math.isnan(ember.var(ember.tensor([]), correction=NAN).item())


def test_complex_mean_divides_by_a_real_count():
    # a complex division by n + 0j would turn inf + bj into inf + nanj
    got = ember.mean(ember.tensor([complex(math.inf, 0.75)], dtype=ember.complex64)).item()
    assert got.real == math.inf and got.imag == 0.75
