"""gcd / lcm, heaviside, float_power."""

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, to_torch, torch


def test_gcd_lcm_known_values():
    assert ember.gcd(ember.tensor([12, -4, 0]), ember.tensor([18, 6, 0])).tolist() == [6, 2, 0]
    assert ember.lcm(ember.tensor([4, -4, 0]), ember.tensor([6, 6, 5])).tolist() == [12, 12, 0]
    a = ember.tensor([4, 6])
    assert a.gcd_(ember.tensor([6, 9])) is a and a.tolist() == [2, 3]
    assert ember.gcd(ember.tensor([4], dtype=ember.int8), ember.tensor([6], dtype=ember.int8)).dtype is ember.int8
    with pytest.raises(TypeError, match="gcd"):
        ember.gcd(ember.tensor([1.0]), ember.tensor([2.0]))


def test_heaviside():
    x = ember.tensor([-1.0, 0.0, 2.0, float("nan")])
    assert ember.heaviside(x, ember.tensor([0.5])).tolist()[:3] == [0.0, 0.5, 1.0]
    assert ember.heaviside(x, ember.tensor([0.5]))[3].item() == 0.0
    assert ember.heaviside(ember.tensor([-1, 0, 2]), ember.tensor(7)).tolist() == [0, 7, 1]
    y = ember.tensor([-1.0, 0.0])
    assert y.heaviside_(ember.tensor([0.25])) is y and y.tolist() == [0.0, 0.25]
    with pytest.raises(RuntimeError, match="different dtypes"):
        ember.heaviside(ember.tensor([1.0]), ember.tensor([2]))
    with pytest.raises(RuntimeError, match="complex"):
        ember.heaviside(ember.tensor([1j]), ember.tensor([1j]))


def test_float_power_computes_in_double():
    assert ember.float_power(ember.tensor([2]), 2).dtype is ember.float64
    assert ember.float_power(2, ember.tensor([1.0, 2.0])).tolist() == [2.0, 4.0]
    assert ember.float_power(ember.tensor([1j]), 2).dtype is ember.complex128
    assert ember.tensor([2.0]).float_power(ember.tensor([3])).tolist() == [8.0]
    x = ember.tensor([1.5, 2.0], requires_grad=True)
    ember.float_power(x, 2).sum().backward()
    assert x.grad.dtype is ember.float32 and x.grad.tolist() == [3.0, 4.0]


@needs_torch
def test_match_torch():
    rng = np.random.default_rng(1)
    a, b = rng.integers(-20, 20, size=(3, 4)), rng.integers(-20, 20, size=(4,))
    ea, eb = ember.tensor(a), ember.tensor(b)
    for fn in ("gcd", "lcm"):
        assert np.array_equal(getattr(ember, fn)(ea, eb).numpy(), getattr(torch, fn)(to_torch(ea), to_torch(eb)).numpy())
    f = ember.tensor(rng.standard_normal((3, 4)).round())
    v = ember.tensor(rng.standard_normal(4))
    assert np.array_equal(ember.heaviside(f, v).numpy(), torch.heaviside(to_torch(f), to_torch(v)).numpy())
    assert np.allclose(ember.float_power(f.abs(), v).numpy(), torch.float_power(to_torch(f.abs()), to_torch(v)).numpy())


def test_complex_zero_to_a_power_follows_exp_of_log():
    z = ember.zeros(3, dtype=ember.complex128)
    got = ember.pow(z, ember.tensor([-1 + 0.5j, -1 + 0j, 1 + 0.5j], dtype=ember.complex128)).numpy()
    assert np.isinf(got[0].real) and np.isinf(got[1].real) and got[2] == 0  # torch: exp(b * log(0))


def test_rsub_and_dist():
    assert ember.rsub(ember.tensor([1, 2]), 5).tolist() == [4, 3]
    assert ember.rsub(ember.tensor([1.0, 2.0]), ember.tensor([3.0]), alpha=2).tolist() == [1.0, -1.0]
    a, b = ember.tensor([1.0, 2.0]), ember.tensor([4.0, 6.0])
    assert [ember.dist(a, b, p).item() for p in (2, 1, float("inf"), 0)] == [5.0, 7.0, 4.0, 2.0]
    assert a.dist(b).item() == 5.0
    with pytest.raises(RuntimeError, match="floating point or complex"):
        ember.dist(ember.tensor([1, 2]), ember.tensor([1, 2]))
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.dist(t, ember.zeros(3, dtype=ember.float64), 3), (x,))
