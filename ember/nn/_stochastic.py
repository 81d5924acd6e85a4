"""Random functions of ``torch.nn.functional`` composed from ops: ``alpha_dropout``,
``feature_alpha_dropout`` (dropout that keeps SELU's zero mean and unit variance) and
``gumbel_softmax``; and the deterministic ``lp_pool1d``/``lp_pool2d`` and ``channel_shuffle``.

>>> from ember.nn._stochastic import channel_shuffle
>>> channel_shuffle(ember.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist()
[0.0, 2.0, 1.0, 3.0]
"""

from __future__ import annotations

import math

from .._core.tensor import Tensor
from ..ops import functional as F

_SELU_ALPHA_PRIME = 1.7580993408473766  # SELU's scale * alpha: the value a dropped unit is set to, negated


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, per_channel: bool) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    noise_shape = (*input.shape[:2], *([1] * (input.dim() - 2))) if per_channel else input.shape
    keep = F.empty(noise_shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    a = 1.0 / math.sqrt((_SELU_ALPHA_PRIME**2 * p + 1) * (1 - p))
    # kept: a * x; dropped: the affine image of -alpha', so mean and variance are preserved
    shift = (keep - 1) * (_SELU_ALPHA_PRIME * a) + _SELU_ALPHA_PRIME * a * p
    out = input * (keep * a) + shift
    return input.copy_(out) if inplace else out


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and an affine
    correction keeps the mean and variance."""
    return _alpha_dropout(input, p, training, inplace, per_channel=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """``alpha_dropout`` of whole channels of an (N, C, *) input."""
    return _alpha_dropout(input, p, training, inplace, per_channel=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution; ``hard`` returns one-hot vectors whose gradient is
    the soft sample's (straight-through)."""
    gumbels = -F.empty_like(logits).exponential_().log()
    soft = F.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = F.zeros_like(logits).scatter(dim, index, 1.0)
    return one_hot - soft.detach() + soft


def _lp_scale(pooled: Tensor, window: int, norm_type: float) -> Tensor:
    # the mean back to a sum, then the p-th root; sign * relu(abs) as PyTorch, so a negative mean gives 0
    return (F.sign(pooled) * F.relu(pooled.abs()) * window) ** (1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window: ``(sum x**p) ** (1 / p)`` over (N, C, L) or (C, L) inputs."""
    stride = kernel_size if stride is None else stride
    pooled = F.avg_pool1d(input**norm_type, kernel_size, stride, 0, ceil_mode)
    size = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    return _lp_scale(pooled, size, norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over (N, C, H, W) or (C, H, W) inputs."""
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    stride = kernel_size if stride is None else stride
    pooled = F.avg_pool2d(input**norm_type, kernel_size, stride, 0, ceil_mode)
    return _lp_scale(pooled, kh * kw, norm_type)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleaves the channels of ``groups`` groups: (N, g * k, *) -> channel i * g + j from j * k + i."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups.")
    n, rest = input.shape[0], input.shape[2:]
    return input.reshape(n, groups, channels // groups, *rest).transpose(1, 2).reshape(n, channels, *rest)
