
"""``Flatten`` and ``Unflatten``.

>>> import ember.nn as nn
>>> nn.Flatten()(ember.zeros(2, 3, 4)).shape
ember.Size([2, 12])
>>> nn.Unflatten(1, (3, 4))(ember.zeros(2, 12)).shape
ember.Size([2, 3, 4])
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flattens dims ``start_dim``..``end_dim`` (by default all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size``."""

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size) if isinstance(unflattened_size, list) else unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
