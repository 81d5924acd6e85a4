"""``PixelShuffle`` and ``PixelUnshuffle``: move channel blocks into space and back.

>>> import ember.nn as nn
>>> nn.PixelShuffle(2)(ember.zeros(1, 8, 3, 3)).shape
ember.Size([1, 2, 6, 6])
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .module import Module


class PixelShuffle(Module):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
