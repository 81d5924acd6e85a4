
"""Pooling modules over the functional ops.

>>> import ember.nn as nn
>>> nn.MaxPool2d(2)
MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
>>> nn.MaxPool2d(2)(ember.zeros(1, 1, 4, 4)).shape
ember.Size([1, 1, 2, 2])
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .module import Module


class _MaxPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    _fn = staticmethod(lambda *a: F.max_pool1d(*a))


class MaxPool2d(_MaxPoolNd):
    _fn = staticmethod(lambda *a: F.max_pool2d(*a))


class MaxPool3d(_MaxPoolNd):
    _fn = staticmethod(lambda *a: F.max_pool3d(*a))


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        # PyTorch stores the 1-D arguments as 1-tuples (visible in the repr)
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class _AvgPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad, self.divisor_override
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    _fn = staticmethod(lambda *a: F.avg_pool2d(*a))


class AvgPool3d(_AvgPoolNd):
    _fn = staticmethod(lambda *a: F.avg_pool3d(*a))


class _AdaptiveAvgPoolNd(Module):
    _fn = None

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _fn = staticmethod(lambda *a: F.adaptive_avg_pool1d(*a))


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Averages into a fixed ``output_size`` whatever the input's spatial size.

    >>> import ember.nn as nn
    >>> nn.AdaptiveAvgPool2d((1, 1))(ember.ones(2, 3, 7, 5)).shape
    ember.Size([2, 3, 1, 1])
    """

    _fn = staticmethod(lambda *a: F.adaptive_avg_pool2d(*a))


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _fn = staticmethod(lambda *a: F.adaptive_avg_pool3d(*a))


class _AdaptiveMaxPoolNd(Module):
    _fn = None

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _fn = staticmethod(lambda *a: F.NAMESPACES["nn.functional"]["adaptive_max_pool1d"](*a))


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Takes the maximum into a fixed ``output_size`` (None keeps that input size); with
    ``return_indices`` also where each maximum was, for ``MaxUnpool``-style uses.

    >>> import ember.nn as nn
    >>> nn.AdaptiveMaxPool2d((None, 2))(ember.ones(2, 3, 7, 5)).shape
    ember.Size([2, 3, 7, 2])
    """

    _fn = staticmethod(lambda *a: F.adaptive_max_pool2d(*a))


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _fn = staticmethod(lambda *a: F.adaptive_max_pool3d(*a))
