"""``CosineSimilarity`` and ``PairwiseDistance``: the functional measures as modules.

>>> import ember.nn as nn
>>> nn.PairwiseDistance(eps=0.0)(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]])).tolist()
[5.0]
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from .._composite import cosine_similarity, pairwise_distance
from .module import Module


class CosineSimilarity(Module):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (norms at least ``eps``)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The ``p``-norm distance between the rows of ``x1`` and ``x2`` (``eps`` added to the difference)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
