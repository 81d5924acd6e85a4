"""``Independent``: reinterpret a distribution's rightmost batch dims as event dims.

>>> from ember.distributions import Independent, Normal
>>> d = Independent(Normal(ember.zeros(2, 3), 1.0), 1)
>>> d.batch_shape, d.event_shape, d.log_prob(ember.zeros(2, 3)).shape
(ember.Size([2]), ember.Size([3]), ember.Size([2]))
"""

from __future__ import annotations

from typing import ClassVar

from .._core.shape import Size
from .._core.tensor import Tensor
from . import constraints
from .distribution import NO_SHAPE, Distribution


def _sum_rightmost(value: Tensor, dims: int) -> Tensor:
    return value.reshape((*value.shape[: value.dim() - dims], -1)).sum(-1) if dims > 0 else value


class Independent(Distribution):
    """``base_distribution`` with its last ``reinterpreted_batch_ndims`` batch dims made event dims."""

    arg_constraints: ClassVar[dict] = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int, validate_args=None) -> None:
        if not isinstance(base_distribution, Distribution):
            raise TypeError(f"Independent(): base_distribution must be a Distribution, got {type(base_distribution).__name__}")
        batch = base_distribution.batch_shape
        if not 0 <= reinterpreted_batch_ndims <= len(batch):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(batch)}"
            )
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, reinterpreted_batch_ndims
        split = len(batch) - reinterpreted_batch_ndims
        super().__init__(batch[:split], Size(batch[split:] + base_distribution.event_shape), validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:
        return self.base_dist.has_enumerate_support and self.reinterpreted_batch_ndims == 0

    @property
    def support(self) -> constraints.Constraint:
        support = self.base_dist.support
        return constraints.independent(support, self.reinterpreted_batch_ndims) if self.reinterpreted_batch_ndims else support

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def expand(self, batch_shape, _instance=None) -> Independent:
        batch_shape = Size(batch_shape)
        tail = self._event_shape[: self.reinterpreted_batch_ndims]
        return Independent(self.base_dist.expand(Size(batch_shape + tail)), self.reinterpreted_batch_ndims, validate_args=False)

    def sample(self, sample_shape=NO_SHAPE) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=NO_SHAPE) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value) -> Tensor:
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
