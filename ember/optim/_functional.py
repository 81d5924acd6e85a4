"""Helpers shared by the optimizers' update loops (not public)."""

from __future__ import annotations

import ember
from ember._core.tensor import Tensor


def step_counter() -> Tensor:
    """A fresh ``state["step"]``: a 0-d float tensor, float64 only when that is the default dtype (PyTorch's rule)."""
    dtype = ember.float64 if ember.get_default_dtype() == ember.float64 else ember.float32
    return ember.tensor(0.0, dtype=dtype)


def addcmul_(t: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``t += value * a * b`` in place (ember has no ``addcmul``)."""
    return t.add_(a * b, alpha=value)


def addcdiv_(t: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``t += value * a / b`` in place (ember has no ``addcdiv``)."""
    return t.add_(a / b, alpha=value)
