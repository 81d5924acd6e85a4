"""Parameter initialisation, as ``torch.nn.init``: every function fills its tensor in place and returns it.

>>> import ember.nn as nn
>>> w = nn.init.constant_(ember.empty(2, 2), 0.5)
>>> w.tolist()
[[0.5, 0.5], [0.5, 0.5]]
"""

from __future__ import annotations

import math
import warnings

from .. import linalg
from .._core.tensor import Tensor
from ..dispatch.grad_mode import no_grad as _no_grad
from ..ops import functional as F

__all__ = [
    "calculate_gain",
    "constant_",
    "dirac_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table).

    >>> calculate_gain("relu") == math.sqrt(2), calculate_gain("tanh")
    (True, 1.6666666666666667)
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4  # PyTorch's choice, for self-normalising networks
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight shaped (out, in, *kernel).

    >>> _calculate_fan_in_and_fan_out(ember.empty(8, 4, 3, 3))
    (36, 72)
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b)."""
    with _no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std²)."""
    with _no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, generator=None) -> Tensor:
    """Fill with N(mean, std²) truncated to [a, b] (redrawing the samples that fall outside).

    >>> t = trunc_normal_(ember.empty(1000), a=-0.5, b=0.5)
    >>> bool(t.abs().max() <= 0.5)
    True
    """
    with _no_grad():
        values = F.empty(tuple(tensor.shape), dtype=tensor.dtype).normal_(mean, std, generator=generator)
        # rejection sampling: each round keeps P(inside) of the rest, so a handful of rounds suffice
        for _ in range(1000):
            outside = (values < a) | (values > b)
            if not bool(outside.any()):
                break
            fresh = F.empty(tuple(tensor.shape), dtype=tensor.dtype).normal_(mean, std, generator=generator)
            values = F.where(outside, fresh, values)
        return tensor.copy_(values.clamp(a, b))


def constant_(tensor: Tensor, val: float) -> Tensor:
    with _no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with _no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (2-D tensors only).

    >>> eye_(ember.empty(2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _no_grad():
        return tensor.copy_(F.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The Dirac delta for a 3-, 4- or 5-D conv weight: the conv passes its input through."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    with _no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_per_group + d, d, *(k // 2 for k in sizes[2:]))] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot normal: N(0, std²) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """He uniform: U(-b, b) with b = gain * sqrt(3 / fan); ``a`` is leaky_relu's negative slope.

    >>> w = kaiming_uniform_(ember.empty(64, 16), nonlinearity="relu")
    >>> bool(w.abs().max() <= math.sqrt(6 / 16))
    True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """He normal: N(0, std²) with std = gain / sqrt(fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR of a Gaussian one (sign-corrected to be uniform).

    >>> q = orthogonal_(ember.empty(3, 3))
    >>> bool(ember.allclose(q @ q.T, ember.eye(3), atol=1e-5))
    True
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = F.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
    if rows < cols:
        flat = flat.T
    q, r = linalg.qr(flat)
    q = q * F.diagonal(r).sign()  # makes the decomposition unique, hence the distribution uniform
    if rows < cols:
        q = q.T
    with _no_grad():
        tensor.copy_(q.reshape(tuple(tensor.shape)) * gain)
    return tensor


# PyTorch's deprecated spellings without the trailing underscore are left out on purpose.
