
"""Dropout modules: active in training mode, the identity after ``eval()``.

>>> import ember.nn as nn
>>> d = nn.Dropout(0.5).eval()
>>> d(ember.ones(3)).tolist()
[1.0, 1.0, 1.0]
>>> d
Dropout(p=0.5, inplace=False)
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .module import Module


class _DropoutNd(Module):
    _fn = None

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes each element with probability ``p`` and scales the rest by 1 / (1 - p)."""

    _fn = staticmethod(lambda x, p, training, inplace: F.dropout(x, p, training, inplace))


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) inputs."""

    _fn = staticmethod(lambda x, p, training, inplace: F.dropout1d(x, p, training, inplace))


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) inputs."""

    _fn = staticmethod(lambda x, p, training, inplace: F.dropout2d(x, p, training, inplace))


class Dropout3d(_DropoutNd):
    _fn = staticmethod(lambda x, p, training, inplace: F.dropout3d(x, p, training, inplace))
