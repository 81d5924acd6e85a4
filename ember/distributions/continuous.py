"""Continuous distributions: Normal, Uniform, Exponential, Laplace (all reparametrizable).

>>> from ember.distributions import Normal
>>> d = Normal(ember.tensor([0.0, 1.0]), 2.0)
>>> d.batch_shape, d.log_prob(ember.tensor([0.0, 1.0])).shape
(ember.Size([2]), ember.Size([2]))
>>> round(Normal(0.0, 1.0).cdf(ember.tensor(0.0)).item(), 6)
0.5
"""

from __future__ import annotations

import math
from typing import ClassVar

from .._core.dtype import finfo
from .._core.tensor import Tensor
from ..ops import functional as F
from . import constraints
from .distribution import NO_SHAPE, Distribution, _show_param, broadcast_all


class Normal(Distribution):
    """The normal (Gaussian) distribution with mean ``loc`` and standard deviation ``scale``."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def rsample(self, sample_shape=NO_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = F.randn(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + F.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value) -> Tensor:
        return self.loc + self.scale * F.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


class Uniform(Distribution):
    """The uniform distribution on the half-open interval ``[low, high)``."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def support(self) -> constraints.Constraint:
        return constraints.half_open_interval(self.low, self.high)

    def __init__(self, low, high, validate_args=None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)

    def _expand_params(self) -> tuple[str, ...]:
        return ("low", "high")

    def __repr__(self) -> str:
        return f"Uniform(low: {_show_param(self.low)}, high: {_show_param(self.high)})"

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.high * float("nan")

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=NO_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.low + F.rand(shape, dtype=self.low.dtype) * (self.high - self.low)

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).to(self.low.dtype) * self.high.gt(value).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Exponential(Distribution):
    """The exponential distribution with ``rate`` (the inverse of its mean)."""

    arg_constraints: ClassVar[dict] = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return F.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape=NO_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = F.rand(shape, dtype=self.rate.dtype)  # in [0, 1): -log(1 - u) is a standard exponential draw
        return -F.log1p(-u) / self.rate

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - F.exp(-self.rate * value)

    def icdf(self, value) -> Tensor:
        return -F.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()


class Laplace(Distribution):
    """The Laplace distribution with location ``loc`` and scale ``scale``."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return 2**0.5 * self.scale

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape=NO_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        u = F.rand(shape, dtype=self.loc.dtype) * (2 - eps) + (eps - 1)  # uniform on (-1, 1)
        return self.loc - self.scale * u.sign() * F.log1p(-u.abs())

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * F.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * F.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()
