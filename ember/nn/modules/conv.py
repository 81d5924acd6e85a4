
"""Convolutions: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``, with PyTorch's init and reprs.

>>> import ember.nn as nn
>>> nn.Conv2d(3, 8, 3, padding=1)
Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
>>> nn.Conv2d(3, 8, 3, padding=1)(ember.zeros(1, 3, 5, 5)).shape
ember.Size([1, 8, 5, 5])
"""

from __future__ import annotations

import math

from ..._core.tensor import Tensor
from ...ops import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value, n: int) -> tuple:
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    _n: int = 2
    _transposed: bool = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        output_padding=0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._reversed_padding()
        if self.transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(F.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(F.empty((out_channels,), device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _reversed_padding(self) -> list[int]:
        """``pad()``'s argument for non-zero padding modes: last dim first, (left, right) per dim."""
        if isinstance(self.padding, str):
            out = [0, 0] * self._n
            if self.padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size, range(self._n - 1, -1, -1), strict=True):
                    total = d * (k - 1)
                    left = total // 2
                    out[2 * i], out[2 * i + 1] = left, total - left
            return out
        return [p for p in reversed(self.padding) for _ in range(2)]

    def reset_parameters(self) -> None:
        # kaiming_uniform_(a=sqrt(5)) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in)), PyTorch's default
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, 0, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        conv = type(self)._fn
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L) inputs."""

    _n = 1
    _fn = staticmethod(lambda *a: F.conv1d(*a))


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W) inputs; weight (C_out, C_in / groups, kH, kW)."""

    _n = 2
    _fn = staticmethod(lambda *a: F.conv2d(*a))


class Conv3d(_Conv):
    _n = 3
    _fn = staticmethod(lambda *a: F.conv3d(*a))


class _ConvTranspose(_ConvNd):
    _transposed = True
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, output_padding, device, dtype
        )

    def _output_padding(self, input: Tensor, output_size) -> tuple:
        """The output_padding that makes the result ``output_size`` (stride makes sizes ambiguous)."""
        if output_size is None:
            return self.output_padding
        n = self._n
        output_size = list(output_size)[-n:]
        padding = []
        for d in range(n):
            dim_size = input.size(input.dim() - n + d)
            smallest = (dim_size - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            extra = output_size[d] - smallest
            if not 0 <= extra < max(self.stride[d], self.dilation[d]):
                raise ValueError(f"requested an output size of {output_size}, but valid sizes start at {smallest} in dim {d}")
            padding.append(extra)
        return tuple(padding)

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    _n = 1
    _fn = staticmethod(lambda *a: F.conv_transpose1d(*a))


class ConvTranspose2d(_ConvTranspose):
    """The gradient of Conv2d as a layer ("deconvolution"); weight (C_in, C_out / groups, kH, kW).

    >>> import ember.nn as nn
    >>> nn.ConvTranspose2d(4, 2, 3, stride=2)(ember.zeros(1, 4, 5, 5)).shape
    ember.Size([1, 2, 11, 11])
    """

    _n = 2
    _fn = staticmethod(lambda *a: F.conv_transpose2d(*a))


class ConvTranspose3d(_ConvTranspose):
    _n = 3
    _fn = staticmethod(lambda *a: F.conv_transpose3d(*a))
