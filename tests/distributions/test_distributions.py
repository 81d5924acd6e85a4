"""ember.distributions: densities, moments, sampling, validation and KL as torch.distributions.

Each case builds the same distribution in ember and (when installed) torch from the same
parameters; without torch the values are checked against closed forms written here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.distributions import (
    Bernoulli,
    Categorical,
    Distribution,
    Exponential,
    Independent,
    Laplace,
    Normal,
    OneHotCategorical,
    Uniform,
    constraints,
    kl_divergence,
    register_kl,
)
from tests._oracle import needs_torch, torch

RNG = np.random.default_rng(0)
LOC, SCALE = RNG.normal(size=(2, 3)), RNG.uniform(0.5, 2.0, size=(2, 3))
LOGITS = RNG.normal(size=(2, 4))
PROBS = RNG.uniform(0.05, 0.95, size=(2, 3))

# name -> (ember class, torch class name, keyword parameters as numpy arrays, values inside the support)
CASES = {
    "normal": (Normal, "Normal", {"loc": LOC, "scale": SCALE}, RNG.normal(size=(5, 2, 3))),
    "uniform": (Uniform, "Uniform", {"low": LOC - SCALE, "high": LOC + SCALE}, LOC + SCALE * RNG.uniform(-1, 1, size=(5, 2, 3))),
    "exponential": (Exponential, "Exponential", {"rate": SCALE}, RNG.exponential(size=(5, 2, 3))),
    "laplace": (Laplace, "Laplace", {"loc": LOC, "scale": SCALE}, RNG.laplace(size=(5, 2, 3))),
    "bernoulli_probs": (Bernoulli, "Bernoulli", {"probs": PROBS}, RNG.integers(0, 2, size=(5, 2, 3)).astype(float)),
    "bernoulli_logits": (Bernoulli, "Bernoulli", {"logits": LOC}, RNG.integers(0, 2, size=(5, 2, 3)).astype(float)),
    "categorical_logits": (Categorical, "Categorical", {"logits": LOGITS}, RNG.integers(0, 4, size=(5, 2))),
    "categorical_probs": (Categorical, "Categorical", {"probs": np.exp(LOGITS)}, RNG.integers(0, 4, size=(5, 2))),
    "one_hot": (OneHotCategorical, "OneHotCategorical", {"logits": LOGITS}, np.eye(4)[RNG.integers(0, 4, size=(5, 2))]),
}


def _make(case, lib):
    cls, torch_name, params, _ = CASES[case]
    if lib is ember:
        return cls(**{k: ember.tensor(v) for k, v in params.items()})
    return getattr(torch.distributions, torch_name)(**{k: torch.tensor(v) for k, v in params.items()})


def _value(case, lib):
    values = CASES[case][3]
    return lib.tensor(values) if values.dtype.kind == "f" else lib.tensor(values.astype(np.int64))


@needs_torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_torch(case):
    ours, theirs = _make(case, ember), _make(case, torch)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) and tuple(ours.event_shape) == tuple(theirs.event_shape)
    compare = {"log_prob": lambda d, lib: d.log_prob(_value(case, lib)), "entropy": lambda d, lib: d.entropy()}
    for name in ("mean", "variance", "stddev", "mode"):
        compare[name] = lambda d, lib, name=name: getattr(d, name)
    if case in ("normal", "uniform", "exponential", "laplace"):
        compare["cdf"] = lambda d, lib: d.cdf(_value(case, lib))
        compare["icdf"] = lambda d, lib: d.icdf(lib.tensor(RNG.uniform(0.01, 0.99, size=(2, 3))))
    for name, fn in compare.items():
        state = RNG.bit_generator.state
        a = fn(ours, ember)
        RNG.bit_generator.state = state
        b = fn(theirs, torch)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-9, err_msg=f"{case}.{name}")


def test_normal_closed_forms():
    d = Normal(ember.tensor(LOC), ember.tensor(SCALE))
    x = RNG.normal(size=(2, 3))
    expected = -((x - LOC) ** 2) / (2 * SCALE**2) - np.log(SCALE) - 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(d.log_prob(ember.tensor(x)).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log(SCALE), rtol=1e-12)
    np.testing.assert_allclose(d.icdf(d.cdf(ember.tensor(x))).numpy(), x, rtol=1e-9)


def test_categorical_closed_forms():
    d = Categorical(logits=ember.tensor(LOGITS))
    log_p = LOGITS - np.log(np.exp(LOGITS).sum(-1, keepdims=True))
    np.testing.assert_allclose(d.log_prob(ember.tensor([1, 3])).numpy(), [log_p[0, 1], log_p[1, 3]], rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), -(np.exp(log_p) * log_p).sum(-1), rtol=1e-12)
    assert d.mode.tolist() == LOGITS.argmax(-1).tolist()
    assert d.enumerate_support().shape == (4, 2)


@pytest.mark.parametrize("case", sorted(CASES))
def test_sample_shapes_and_support(case):
    d = _make(case, ember)
    draws = d.sample((7,))
    assert tuple(draws.shape) == (7, *d.batch_shape, *d.event_shape)
    assert bool(d.support.check(draws).all())
    assert not draws.requires_grad


@pytest.mark.parametrize(("cls", "params", "mean", "var"), [
    (Normal, (1.5, 0.5), 1.5, 0.25),
    (Uniform, (-1.0, 3.0), 1.0, 16 / 12),
    (Exponential, (2.0,), 0.5, 0.25),
    (Laplace, (0.5, 1.0), 0.5, 2.0),
    (Bernoulli, (0.3,), 0.3, 0.21),
])  # fmt: skip
def test_sample_moments(cls, params, mean, var):
    ember.manual_seed(0)
    draws = cls(*params).sample((40000,)).double()
    assert abs(draws.mean().item() - mean) < 5 * math.sqrt(var / 40000)
    assert abs(draws.var().item() - var) < 0.05 * var


def test_categorical_sample_frequencies():
    ember.manual_seed(0)
    probs = np.array([0.1, 0.2, 0.7])
    counts = np.bincount(Categorical(probs=ember.tensor(probs)).sample((30000,)).numpy(), minlength=3)
    np.testing.assert_allclose(counts / 30000, probs, atol=0.015)


@pytest.mark.parametrize("cls", [Normal, Laplace])
def test_rsample_carries_gradients(cls):
    loc = ember.tensor([0.5, -1.0], requires_grad=True)
    scale = ember.tensor([1.0, 2.0], requires_grad=True)
    cls(loc, scale).rsample((10,)).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [10.0, 10.0])  # d(loc + scale * eps)/dloc = 1 per draw
    assert scale.grad is not None and np.isfinite(scale.grad.numpy()).all()


def test_log_prob_gradient_reaches_logits():
    logits = ember.zeros(3, requires_grad=True)
    Categorical(logits=logits).log_prob(ember.tensor(2)).backward()
    np.testing.assert_allclose(logits.grad.numpy(), [-1 / 3, -1 / 3, 2 / 3], rtol=1e-6)


@pytest.mark.parametrize(("p", "q"), [
    (Normal(0.3, 1.5), Normal(-0.2, 0.7)),
    (Bernoulli(0.3), Bernoulli(0.6)),
    (Categorical(probs=ember.tensor([0.2, 0.3, 0.5])), Categorical(logits=ember.tensor([0.1, -0.4, 0.2]))),
    (Uniform(0.0, 1.0), Uniform(-1.0, 2.0)),
    (Exponential(2.0), Exponential(0.5)),
    (Laplace(0.0, 1.0), Laplace(1.0, 2.0)),
    (Normal(0.3, 1.5), Laplace(1.0, 2.0)),
])  # fmt: skip
def test_kl_divergence_matches_a_monte_carlo_estimate(p, q):
    ember.manual_seed(1)
    x = p.sample((200000,))
    estimate = (p.log_prob(x) - q.log_prob(x)).mean().item()
    assert abs(kl_divergence(p, q).item() - estimate) < 0.02


def test_kl_errors_and_registration():
    with pytest.raises(
        NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Categorical"
    ):
        kl_divergence(Normal(0.0, 1.0), Categorical(logits=ember.zeros(2)))

    class Shifted(Normal):
        pass

    @register_kl(Shifted, Normal)
    def _kl(p, q):
        return ember.tensor(42.0)

    assert kl_divergence(Shifted(0.0, 1.0), Normal(0.0, 1.0)).item() == 42.0
    assert kl_divergence(Normal(0.0, 1.0), Shifted(0.0, 1.0)).item() == 0.0  # falls back to (Normal, Normal)
    with pytest.raises(TypeError, match="subclasses of Distribution"):
        register_kl(int, Normal)


def test_independent_sums_event_dims():
    base = Normal(ember.tensor(LOC), ember.tensor(SCALE))
    d = Independent(base, 1)
    x = ember.tensor(RNG.normal(size=(2, 3)))
    np.testing.assert_allclose(d.log_prob(x).numpy(), base.log_prob(x).sum(-1).numpy(), rtol=1e-12)
    np.testing.assert_allclose(kl_divergence(d, d).numpy(), [0.0, 0.0], atol=1e-12)
    assert tuple(d.expand((4, 2)).batch_shape) == (4, 2)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        Independent(base, 3)


def test_expand_keeps_parameters():
    d = Categorical(logits=ember.tensor(LOGITS)).expand((5, 2))
    assert tuple(d.batch_shape) == (5, 2) and tuple(d.logits.shape) == (5, 2, 4)
    assert tuple(d.sample().shape) == (5, 2)
    n = Normal(0.0, 1.0).expand((3,))
    assert tuple(n.rsample().shape) == (3,)


def test_parameter_validation():
    with pytest.raises(
        ValueError,
        match=r"Expected parameter scale \(Tensor of shape \(\)\) of distribution Normal\(loc: 0.0, scale: -1.0\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)",
    ):
        Normal(0.0, -1.0)
    with pytest.raises(ValueError, match="constraint LessThan"):
        Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match=r"Either `probs` or `logits` must be specified, but not both\."):
        Bernoulli(probs=0.5, logits=0.0)
    with pytest.raises(ValueError, match=r"`probs` parameter must be at least one-dimensional\."):
        Categorical(probs=ember.tensor(0.2))
    with pytest.raises(ValueError, match="Input arguments must all be instances of Number"):
        Normal("a", 1.0)
    assert Normal(0.0, -1.0, validate_args=False).scale.item() == -1.0


def test_sample_validation():
    d = Categorical(logits=ember.zeros(3))
    with pytest.raises(ValueError, match=r"to be within the support \(IntegerInterval\(lower_bound=0, upper_bound=2\)\)"):
        d.log_prob(ember.tensor(5))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        d.log_prob([1])
    with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape\\+event_shape"):
        Normal(ember.zeros(3), 1.0).log_prob(ember.zeros(2))
    with pytest.raises(ValueError, match="within the support"):
        Normal(0.0, 1.0).log_prob(ember.tensor(float("nan")))


def test_default_validation_switch():
    Distribution.set_default_validate_args(False)
    try:
        assert Normal(0.0, -1.0).scale.item() == -1.0
    finally:
        Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        Normal(0.0, -1.0)


def test_numbers_take_the_default_dtype_and_tensors_keep_theirs():
    assert Normal(0, 1).loc.dtype == ember.get_default_dtype()
    assert Normal(ember.zeros(2, dtype=ember.float64), 1).scale.dtype == ember.float64
    assert Categorical(logits=ember.zeros(3)).sample().dtype == ember.int64


def test_constraint_reprs():
    assert repr(constraints.positive) == "GreaterThan(lower_bound=0.0)"
    assert repr(constraints.unit_interval) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert repr(constraints.simplex) == "Simplex()" and repr(constraints.real) == "Real()"
    assert constraints.simplex.check(ember.tensor([[0.5, 0.5], [0.7, 0.2]])).tolist() == [True, False]
