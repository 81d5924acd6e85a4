"""Per-instance normalisations of ``torch.nn.functional``: ``instance_norm`` and
``local_response_norm``, composed from ops as PyTorch's are.

>>> from ember.nn._instance import local_response_norm
>>> local_response_norm(ember.ones(1, 3, 2), 1, alpha=1.0, beta=1.0, k=1.0).flatten().tolist()
[0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
"""

from __future__ import annotations

import math

from .._core.tensor import Tensor
from ..dispatch.grad_mode import no_grad
from ..ops import functional as F


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalises each (sample, channel) plane of an (N, C, *) input over its spatial dims.

    As PyTorch, this is batch norm over the input seen as one sample of N*C channels; the running
    statistics, when given and ``use_input_stats``, are updated with the mean over the batch."""
    if input.dim() < 2:
        raise ValueError(f"instance_norm: expected an input of at least 2 dims (N, C, *), got {input.dim()}D")
    batch, channels = input.shape[0], input.shape[1]
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    flat = input.reshape(1, batch * channels, *input.shape[2:])
    stats = [s.repeat(batch) if s is not None else None for s in (running_mean, running_var)]
    affine = [p.repeat(batch) if p is not None else None for p in (weight, bias)]
    out = F.batch_norm(flat, stats[0], stats[1], affine[0], affine[1], use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            for running, repeated in zip((running_mean, running_var), stats, strict=True):
                if running is not None:
                    running.copy_(repeated.reshape(batch, channels).mean(0))
    return out.reshape(input.shape)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Divides each element by ``(k + alpha * mean of squares over `size` neighbouring channels) ** beta``."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    # the window (size // 2 before, (size - 1) // 2 after) averages zeros past the channel ends
    div = input * input
    if dim == 3:
        div = F.pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        shape = input.shape
        div = F.pad(div.reshape(shape[0], 1, shape[1], shape[2], -1), (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).reshape(shape)
    return input / (div * alpha + k) ** beta
