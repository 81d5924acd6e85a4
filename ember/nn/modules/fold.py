"""``Unfold`` and ``Fold``: the sliding-block modules over ``nn.functional.unfold`` / ``fold``.

>>> import ember.nn as nn
>>> nn.Unfold(2)(ember.zeros(1, 3, 4, 4)).shape
ember.Size([1, 12, 9])
>>> nn.Fold((4, 4), 2)(ember.zeros(1, 12, 9)).shape
ember.Size([1, 3, 4, 4])
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops.functional import NAMESPACES
from .module import Module

_F = NAMESPACES["nn.functional"]


class Unfold(Module):
    """The kernel-sized blocks of a (N, C, H, W) input as the columns of (N, C * kh * kw, L)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return _F["unfold"](input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


class Fold(Module):
    """Sums (N, C * kh * kw, L) columns of blocks back into a (N, C, *output_size) image."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return _F["fold"](input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )
