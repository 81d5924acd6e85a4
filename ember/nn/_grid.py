"""Spatial transformers of ``torch.nn.functional``: ``affine_grid`` builds a sampling grid from affine
matrices, ``grid_sample`` reads an input at a grid's points (bilinear/trilinear or nearest; zeros,
border or reflection padding). Composed from matmul, floor and gather, so the gradient reaches both
the input and the grid (bilinear) as PyTorch's does.

>>> from ember.nn._grid import affine_grid, grid_sample
>>> image = ember.arange(4.0).reshape(1, 1, 2, 2)
>>> identity = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
>>> grid_sample(image, affine_grid(identity, [1, 1, 2, 2], align_corners=False), align_corners=False).tolist()
[[[[0.0, 1.0], [2.0, 3.0]]]]
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from .._core import dtype as dtypes
from .._core.tensor import Tensor, tensor
from ..ops import functional as F

_ALIGN_CORNERS_NOTE = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _base_coordinates(steps: int, align_corners: bool) -> np.ndarray:
    """The normalised positions of ``steps`` pixels along one axis (pixel centres unless aligned)."""
    if steps <= 1:
        return np.zeros(max(steps, 0))
    points = np.linspace(-1.0, 1.0, steps)
    return points if align_corners else points * (steps - 1) / steps


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    """The (N, H, W, 2) grid (or (N, D, H, W, 3)) of ``theta`` (N, 2, 3) (or (N, 3, 4)) applied to the
    normalised output coordinates of ``size`` (N, C, H, W) (or (N, C, D, H, W)); x comes first."""
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_NOTE, stacklevel=2)
        align_corners = False
    if not (theta.dtype.is_floating_point or theta.dtype.is_complex):
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size {size}."
        )
    d = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (d, d + 1):
        shape = "Nx2x3" if d == 2 else "Nx3x4"
        raise ValueError(f"Expected a batch of {d}D affine matrices of shape {shape} for size {size}. Got {theta.shape}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. This "
            "is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    axes = np.meshgrid(*[_base_coordinates(n, align_corners) for n in spatial], indexing="ij")
    # columns x, y(, z), 1: x runs along the last spatial dim
    base = np.stack([*reversed(axes), np.ones(spatial)], axis=-1).reshape(1, -1, d + 1)
    grid = F.matmul(tensor(base, dtype=theta.dtype, device=theta.device), theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, d)


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Reflects coordinates into [twice_low / 2, twice_high / 2], as many times as needed."""
    if twice_low == twice_high:
        return coord * 0.0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    distance = (coord - low).abs()
    extra = F.fmod(distance, span)
    flips = F.floor(distance / span).detach()
    return F.where(F.fmod(flips, 2.0) == 0, extra + low, span - extra + low)


def _source_index(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """Normalised coordinates in [-1, 1] to pixel coordinates along an axis of ``size`` pixels."""
    if align_corners:
        coord = (coord + 1) / 2 * (size - 1)
    else:
        coord = ((coord + 1) * size - 1) / 2
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
    if padding_mode != "zeros":
        coord = coord.clamp(0, size - 1)
    return coord


def _pick(flat: Tensor, positions: list[Tensor], sizes: list[int]) -> Tensor:
    """``flat`` (N, C, prod sizes) read at integer ``positions`` (each (N, P)); 0 outside the input."""
    inside = None
    linear = None
    for position, size in zip(positions, sizes, strict=True):
        ok = (position >= 0).logical_and(position <= size - 1)
        inside = ok if inside is None else inside.logical_and(ok)
        index = position.clamp(0, size - 1).to(dtypes.int64)
        linear = index if linear is None else linear * size + index
    n, c = flat.shape[0], flat.shape[1]
    values = flat.gather(2, linear.unsqueeze(1).expand(n, c, linear.shape[1]))
    return F.where(inside.unsqueeze(1), values, 0.0)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:  # fmt: skip
    """``input`` (N, C, H, W) (or (N, C, D, H, W)) sampled at ``grid`` (N, H_out, W_out, 2) (or
    (N, D_out, H_out, W_out, 3)) of normalised (x, y(, z)) points in [-1, 1]."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_NOTE, stacklevel=2)
        align_corners = False
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with "
            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    d = input.dim() - 2
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to have same dtype, but input has {input.dtype} and grid has {grid.dtype}"
        )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"grid_sample: not implemented for {input.dtype} input; expected a floating-point tensor")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != d:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {d} in last dimension, but got grid with sizes {list(grid.shape)}"
        )
    if mode == "bicubic":
        raise NotImplementedError("grid_sample: mode='bicubic' is not supported yet; use 'bilinear' or 'nearest'")
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])
    out_spatial = list(grid.shape[1:-1])
    points = grid.reshape(n, math.prod(out_spatial), d)
    # grid's last axis is (x, y, z): x indexes the last spatial dim
    coords = [_source_index(points[..., d - 1 - k], sizes[k], padding_mode, align_corners) for k in range(d)]
    flat = input.reshape(n, c, -1)
    if mode == "nearest":
        out = _pick(flat, [F.round(x).detach() for x in coords], sizes)
        if points.requires_grad:  # the grid gets a zero gradient, as PyTorch's, not none
            out = out + F.where(F.isfinite(points), points, 0.0).sum() * 0.0
    else:
        lows = [F.floor(x).detach() for x in coords]
        fractions = [x - low for x, low in zip(coords, lows, strict=True)]
        out = None
        for corner in itertools.product((0, 1), repeat=d):
            weight = None
            for k, high in enumerate(corner):
                w = fractions[k] if high else 1 - fractions[k]
                weight = w if weight is None else weight * w
            term = _pick(flat, [low + high for low, high in zip(lows, corner, strict=True)], sizes) * weight.unsqueeze(1)
            out = term if out is None else out + term
    return out.reshape(n, c, *out_spatial)
