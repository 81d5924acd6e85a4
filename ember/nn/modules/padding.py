"""Padding layers: ``F.pad`` with a fixed mode and padding, 1-D to 3-D.

``padding`` is one int for every side or a tuple (left, right[, top, bottom[, front, back]]),
in ``F.pad``'s order: last dimension first.

>>> import ember.nn as nn
>>> nn.ZeroPad2d((1, 0, 0, 1))
ZeroPad2d((1, 0, 0, 1))
>>> nn.ReflectionPad1d(2)(ember.tensor([[[1.0, 2.0, 3.0]]])).tolist()
[[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .conv import _ntuple
from .module import Module


class _PadNd(Module):
    """``F.pad(input, padding, mode)``; subclasses fix the mode and the padded dimensions."""

    _mode: str = "constant"
    _dims: int = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with ``value``."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with ``value``."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with ``value``."""

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Pad the last dimension with zeros."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Pad the last two dimensions with zeros."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Pad the last three dimensions with zeros."""


class ReflectionPad1d(_PadNd):
    """Pad the last dimension with its reflection (the edge not repeated)."""

    _mode, _dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Pad the last two dimensions with their reflection."""

    _mode, _dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    """Pad the last three dimensions with their reflection."""

    _mode, _dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Pad the last dimension by repeating its edge values."""

    _mode, _dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Pad the last two dimensions by repeating their edges."""

    _mode, _dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    """Pad the last three dimensions by repeating their edges."""

    _mode, _dims = "replicate", 3


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        # PyTorch checks the rank here: a batch of channels, or one unbatched sample
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pad the last dimension by wrapping around."""

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last two dimensions by wrapping around."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three dimensions by wrapping around."""

    _dims = 3
