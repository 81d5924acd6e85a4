"""``CosineSimilarity``, ``PairwiseDistance`` and the upsampling layers (``Upsample``,
``UpsamplingNearest2d``, ``UpsamplingBilinear2d``): modules over the functions of the same names.

>>> import ember.nn as nn
>>> nn.CosineSimilarity(dim=0)(ember.tensor([1.0, 0.0]), ember.tensor([1.0, 1.0])).item()
0.7071067690849304
>>> nn.Upsample(scale_factor=2)(ember.ones(1, 1, 2)).shape
ember.Size([1, 1, 4])
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .._composite import cosine_similarity, pairwise_distance
from .module import Module


class CosineSimilarity(Module):
    """Cosine similarity of x1 and x2 along ``dim``, each norm clamped to at least ``eps``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The p-norm of x1 - x2 + eps along the last dim."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Upsample(Module):
    """``F.interpolate`` as a layer: by ``size`` or ``scale_factor``, with ``mode``."""

    def __init__(
        self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None, recompute_scale_factor=None
    ) -> None:
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.scale_factor = (
            tuple(float(f) for f in scale_factor)
            if isinstance(scale_factor, (tuple, list))
            else (float(scale_factor) if scale_factor else None)
        )
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input, self.size, self.scale_factor, self.mode, self.align_corners, recompute_scale_factor=self.recompute_scale_factor
        )

    def extra_repr(self) -> str:
        shown = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{shown}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W) input."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of (N, C, H, W) input with align_corners=True, as PyTorch's."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
