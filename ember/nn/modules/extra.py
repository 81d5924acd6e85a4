"""``AlphaDropout``, ``FeatureAlphaDropout``, ``LPPool1d``, ``LPPool2d`` and ``ChannelShuffle``.

>>> import ember.nn as nn
>>> nn.LPPool1d(2, 3), nn.ChannelShuffle(2)
(LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False), ChannelShuffle(groups=2))
>>> nn.LPPool1d(1, 2)(ember.tensor([[1.0, 2.0, 3.0, 4.0]])).tolist()
[[3.0, 7.0]]
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from .. import _stochastic
from .dropout import _DropoutNd
from .module import Module


class AlphaDropout(_DropoutNd):
    """Dropout for SELU networks (keeps zero mean and unit variance)."""

    _fn = staticmethod(_stochastic.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """``AlphaDropout`` of whole channels."""

    _fn = staticmethod(_stochastic.feature_alpha_dropout)


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, ceil_mode={self.ceil_mode}"


class LPPool1d(_LPPoolNd):
    """The p-norm over sliding windows of (N, C, L) inputs."""

    def forward(self, input: Tensor) -> Tensor:
        return _stochastic.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """The p-norm over sliding windows of (N, C, H, W) inputs."""

    def forward(self, input: Tensor) -> Tensor:
        return _stochastic.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class ChannelShuffle(Module):
    """Interleaves the channels of ``groups`` groups."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return _stochastic.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
