"""Discrete distributions: Bernoulli, Categorical, OneHotCategorical, given ``probs`` or ``logits``.

Exactly one of the two parametrizations is given; the other is computed when first asked for
(and kept), as in PyTorch, so a policy written with ``logits`` never pays for ``probs``.

>>> from ember.distributions import Categorical
>>> d = Categorical(logits=ember.zeros(2, 4))
>>> d.batch_shape, d.sample((3,)).shape, round(d.entropy()[0].item(), 4)
(ember.Size([2]), ember.Size([3, 2]), 1.3863)
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

from .._core.dtype import finfo, int64
from .._core.shape import Size, broadcast_shapes
from .._core.tensor import Tensor
from ..dispatch.grad_mode import no_grad
from ..ops import functional as F
from . import constraints
from .distribution import NO_SHAPE, Distribution, broadcast_all


def _one_parametrization(probs, logits) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept one machine epsilon inside (0, 1), so their logits stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits of probabilities: log-odds for a binary event, log-probabilities otherwise."""
    clamped = clamp_probs(probs)
    return clamped.log() - F.log1p(-clamped) if is_binary else clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities of logits: the sigmoid for a binary event, the softmax over the last dim otherwise."""
    return F.sigmoid(logits) if is_binary else F.softmax(logits, -1)


class Bernoulli(Distribution):
    """One trial that is 1 with probability ``probs`` (or ``sigmoid(logits)``) and 0 otherwise."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        _one_parametrization(probs, logits)
        self._param_name = "probs" if probs is not None else "logits"
        given = probs if probs is not None else logits
        (self.__dict__[self._param_name],) = broadcast_all(given)
        super().__init__(self._param.shape, validate_args=validate_args)

    @property
    def _param(self) -> Tensor:
        return self.__dict__[self._param_name]

    @cached_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @cached_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return F.where(self.probs == 0.5, float("nan"), mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=NO_SHAPE) -> Tensor:
        with no_grad():
            return F.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        shape = broadcast_shapes(self.logits.shape, value.shape)
        return -F.binary_cross_entropy_with_logits(self.logits.expand(shape), value.expand(shape), reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = F.arange(2, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values


class Categorical(Distribution):
    """One draw from ``K`` categories, weighted by ``probs`` (normalized) or ``softmax(logits)``."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        _one_parametrization(probs, logits)
        name = "probs" if probs is not None else "logits"
        given = probs if probs is not None else logits
        if not isinstance(given, Tensor):
            raise TypeError(f"Categorical(): `{name}` must be a Tensor, got {type(given).__name__}")
        if given.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        normalized = given / given.sum(-1, keepdim=True) if name == "probs" else given - given.logsumexp(dim=-1, keepdim=True)
        self._param_name, self.__dict__[name] = name, normalized
        self._num_events = given.shape[-1]
        super().__init__(given.shape[:-1], validate_args=validate_args)

    @property
    def _param(self) -> Tensor:
        return self.__dict__[self._param_name]

    @cached_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @cached_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    @property
    def mean(self) -> Tensor:
        return F.full(self._extended_shape(), float("nan"), dtype=self._param.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return F.full(self._extended_shape(), float("nan"), dtype=self._param.dtype)

    def sample(self, sample_shape=NO_SHAPE) -> Tensor:
        sample_shape = Size(sample_shape)
        with no_grad():
            rows = self.probs.reshape(-1, self._num_events)
            draws = F.multinomial(rows, sample_shape.numel(), True).T
            return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        shape = broadcast_shapes(index.shape, self.logits.shape)
        log_pmf = self.logits.expand(shape)
        return log_pmf.gather(-1, index.expand(shape)[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)  # -inf * 0 would be nan
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = F.arange(self._num_events, dtype=int64).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values


class _OneHot(constraints.Constraint):
    is_discrete, event_dim = True, 1

    def check(self, value: Tensor) -> Tensor:
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


one_hot = _OneHot()


class OneHotCategorical(Distribution):
    """A Categorical whose draws are one-hot vectors of length ``K`` (its event shape)."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        self._categorical = Categorical(probs, logits)
        param = self._categorical._param
        super().__init__(param.shape[:-1], param.shape[-1:], validate_args=validate_args)

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        return F.one_hot(self.probs.argmax(-1), self._event_shape[0]).to(self.probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def expand(self, batch_shape, _instance=None) -> OneHotCategorical:
        new = type(self).__new__(type(self))
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=NO_SHAPE) -> Tensor:
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._event_shape[0]
        values = F.eye(n, dtype=self._categorical._param.dtype).view((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n, *self._batch_shape, n)) if expand else values

    def __repr__(self) -> str:
        return repr(self._categorical).replace("Categorical", "OneHotCategorical", 1)
