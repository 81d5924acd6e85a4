
"""Affine layers: ``Identity``, ``Linear``, ``Bilinear``.

>>> import ember.nn as nn
>>> nn.Linear(4, 2)(ember.ones(3, 4)).shape
ember.Size([3, 2])
"""

from __future__ import annotations

import math

from ..._core.tensor import Tensor
from ...ops import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _empty_param(*shape: int, device=None, dtype=None) -> Parameter:
    return Parameter(F.empty(shape, device=device, dtype=dtype))


class Identity(Module):
    """Returns its input; accepts (and ignores) any constructor arguments.

    >>> import ember.nn as nn
    >>> nn.Identity(54, unused="x")
    Identity()
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x Wᵀ + b, with W of shape (out_features, in_features).

    >>> import ember.nn as nn
    >>> nn.Linear(100, 200)
    Linear(in_features=100, out_features=200, bias=True)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _empty_param(out_features, in_features, device=device, dtype=dtype)
        if bias:
            self.bias = _empty_param(out_features, device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # PyTorch's default: kaiming_uniform_(a=sqrt(5)) works out to U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A plain Linear; PyTorch's MultiheadAttention names its output projection with this class."""


class Bilinear(Module):
    """y = x1ᵀ A x2 + b, with A of shape (out_features, in1_features, in2_features).

    >>> import ember.nn as nn
    >>> nn.Bilinear(2, 3, 4)
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = _empty_param(out_features, in1_features, in2_features, device=device, dtype=dtype)
        if bias:
            self.bias = _empty_param(out_features, device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
