"""``torch.nn.functional`` element-wise activations with a threshold: ``hardshrink``, ``softshrink``,
``threshold`` and ``rrelu``, composed from ``where`` (autograd for free, NaN passes through as in PyTorch).

>>> from ember.nn._shrink import hardshrink, softshrink
>>> hardshrink(ember.tensor([-1.0, 0.2, 0.75])).tolist(), softshrink(ember.tensor([-1.0, 0.2, 0.75])).tolist()
([-1.0, 0.0, 0.75], [-0.5, 0.0, 0.25])
"""

from __future__ import annotations

from .._core import dtype as dtypes
from .._core.tensor import Tensor
from ..ops import functional as F


def _check_floating(op: str, input: Tensor) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{op}: not implemented for {input.dtype} input; expected a floating-point tensor")


def _finished(input: Tensor, result: Tensor, inplace: bool) -> Tensor:
    """``result``, written back into ``input`` when the caller asked for the in-place form."""
    if inplace:
        return input.copy_(result)
    return result


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0."""
    _check_floating("hardshrink", input)
    return F.where((input >= -lambd).logical_and(input <= lambd), 0.0, input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0; ``lambd`` must be >= 0."""
    _check_floating("softshrink", input)
    if not lambd >= 0:
        raise RuntimeError(f"softshrink: lambda must be in range [0, inf), but found {lambd}")
    # x * 0 in the middle, as PyTorch: -0.0 for negative inputs and NaN stays NaN
    return F.where(input > lambd, input - lambd, F.where(input < -lambd, input + lambd, input * 0.0))


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``."""
    if input.dtype.is_complex or input.dtype == dtypes.bool_:
        raise NotImplementedError(f"threshold: not implemented for {input.dtype} input")
    return _finished(input, F.where(input <= threshold, value, input), inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place ``threshold``."""
    return globals()["threshold"](input, threshold, value, inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:  # fmt: skip
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element while training and is
    ``(lower + upper) / 2`` otherwise."""
    if lower > upper:
        raise RuntimeError(
            f"rrelu: Lower bound should be less than or equal to the upper bound, got lower={lower}, upper={upper}"
        )
    if not training:
        return F.leaky_relu(input, (lower + upper) / 2, inplace=inplace)
    slope = F.empty_like(input).uniform_(lower, upper)
    return _finished(input, F.where(input > 0, input, input * slope), inplace)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """In-place ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True)
