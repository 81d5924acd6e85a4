"""The padding layers: ``ZeroPad``, ``ConstantPad``, ``ReflectionPad``, ``ReplicationPad`` and
``CircularPad`` in 1d, 2d and 3d, each ``F.pad`` with its mode. An int pads every side of the last
1, 2 or 3 dims by that much; a tuple gives (left, right, top, bottom, front, back) as ``F.pad``.

>>> import ember.nn as nn
>>> nn.ZeroPad2d((1, 0, 2, 0))(ember.ones(1, 1, 2, 2)).shape
ember.Size([1, 1, 4, 3])
>>> nn.ReflectionPad1d(2)(ember.tensor([[[0.0, 1.0, 2.0]]])).tolist()
[[[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0]]]
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .module import Module


def _sides(padding, dims: int, name: str) -> tuple[int, ...]:
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * (2 * dims)
    sides = tuple(padding)
    if len(sides) != 2 * dims or not all(isinstance(p, int) and not isinstance(p, bool) for p in sides):
        raise ValueError(f"{name}: padding must be an int or a tuple of {2 * dims} ints, got {padding!r}")
    return sides


class _Pad(Module):
    dims = 1
    mode = "constant"

    def __init__(self, padding, value: float = 0.0) -> None:
        super().__init__()
        self.padding = _sides(padding, self.dims, type(self).__name__)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}" if type(self).__name__.startswith("Constant") else f"{self.padding}"


class ConstantPad1d(_Pad):
    """Pads the last dim with ``value``."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(ConstantPad1d):
    """Pads the last 2 dims with ``value``."""

    dims = 2


class ConstantPad3d(ConstantPad1d):
    """Pads the last 3 dims with ``value``."""

    dims = 3


class ZeroPad1d(_Pad):
    """Pads the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


class ZeroPad2d(ZeroPad1d):
    """Pads the last 2 dims with zeros."""

    dims = 2


class ZeroPad3d(ZeroPad1d):
    """Pads the last 3 dims with zeros."""

    dims = 3


class ReflectionPad1d(_Pad):
    """Pads the last dim with its reflection (the edge value not repeated)."""

    mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__(padding)


class ReflectionPad2d(ReflectionPad1d):
    """Pads the last 2 dims with their reflection."""

    dims = 2


class ReflectionPad3d(ReflectionPad1d):
    """Pads the last 3 dims with their reflection."""

    dims = 3


class ReplicationPad1d(ReflectionPad1d):
    """Pads the last dim by repeating its edge value."""

    mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """Pads the last 2 dims by repeating their edge values."""

    dims = 2


class ReplicationPad3d(ReplicationPad1d):
    """Pads the last 3 dims by repeating their edge values."""

    dims = 3


class CircularPad1d(ReflectionPad1d):
    """Pads the last dim by wrapping around."""

    mode = "circular"


class CircularPad2d(CircularPad1d):
    """Pads the last 2 dims by wrapping around."""

    dims = 2


class CircularPad3d(CircularPad1d):
    """Pads the last 3 dims by wrapping around."""

    dims = 3
