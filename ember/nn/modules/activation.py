
"""Activation modules: thin wrappers over the functional ops, with PyTorch's reprs.

>>> import ember.nn as nn
>>> nn.ReLU(), nn.GELU(), nn.Softmax(), nn.LeakyReLU(0.2, inplace=True)
(ReLU(), GELU(approximate='none'), Softmax(dim=None), LeakyReLU(negative_slope=0.2, inplace=True))
>>> nn.Tanh()(ember.tensor([0.0])).tolist()
[0.0]
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .. import _composite, _shrink, init
from ..parameter import Parameter
from .module import Module


def _inplace_suffix(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class _Inplace(Module):
    """An activation whose only option is ``inplace`` (shown in the repr only when set)."""

    _fn = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    _fn = staticmethod(lambda x, inplace: F.relu(x, inplace=inplace))


class ReLU6(_Inplace):
    _fn = staticmethod(lambda x, inplace: _composite.relu6(x, inplace=inplace))


class SiLU(_Inplace):
    _fn = staticmethod(lambda x, inplace: F.silu(x, inplace=inplace))


class Mish(_Inplace):
    _fn = staticmethod(lambda x, inplace: _composite.mish(x))


class Hardswish(_Inplace):
    _fn = staticmethod(lambda x, inplace: _composite.hardswish(x))


class Hardsigmoid(_Inplace):
    _fn = staticmethod(lambda x, inplace: _composite.hardsigmoid(x))


class SELU(_Inplace):
    _fn = staticmethod(lambda x, inplace: _composite.selu(x))


class _Plain(Module):
    _fn = None

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input)


class Tanh(_Plain):
    _fn = staticmethod(lambda x: F.tanh(x))


class Sigmoid(_Plain):
    _fn = staticmethod(lambda x: F.sigmoid(x))


class LogSigmoid(_Plain):
    _fn = staticmethod(lambda x: _composite.logsigmoid(x))


class Softsign(_Plain):
    _fn = staticmethod(lambda x: _composite.softsign(x))


class Tanhshrink(_Plain):
    _fn = staticmethod(lambda x: _composite.tanhshrink(x))


class GELU(Module):
    """x * Φ(x); ``approximate='tanh'`` uses the tanh approximation."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(ELU):
    def forward(self, input: Tensor) -> Tensor:
        return _composite.celu(input, self.alpha)


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _SoftmaxBase(Module):
    _fn = None

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """softmax along ``dim`` (``dim=None`` keeps PyTorch's legacy implicit choice)."""

    _fn = staticmethod(lambda x, dim: F.softmax(x, dim))


class LogSoftmax(_SoftmaxBase):
    _fn = staticmethod(lambda x, dim: F.log_softmax(x, dim))


class Softmin(_SoftmaxBase):
    _fn = staticmethod(lambda x, dim: F.softmin(x, dim))


class GLU(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return _composite.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """``max(0, x) + weight * min(0, x)`` with a learned slope, one for all channels or one per channel.

    >>> ember.nn.PReLU(3)
    PReLU(num_parameters=3)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        self.num_parameters = num_parameters
        self.init = init
        super().__init__()
        self.weight = Parameter(F.empty((num_parameters,), device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return _composite.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _Shrink(Module):
    _fn = None

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    _fn = staticmethod(_shrink.hardshrink)


class Softshrink(_Shrink):
    _fn = staticmethod(_shrink.softshrink)


class Threshold(Module):
    """``value`` where the input is at most ``threshold``, the input elsewhere."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return _shrink.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class RReLU(Module):
    """Randomized leaky ReLU: a slope drawn from U(lower, upper) while training, their mean in eval."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return _shrink.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Softmax2d(Module):
    """Softmax over the channels of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)
