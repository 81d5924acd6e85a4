"""Helpers shared by the optimizers' update loops (not public)."""

from __future__ import annotations

from typing import Any

from ember._core.tensor import Tensor
from ember.dispatch.interpreter import running_eagerly
from ember.ops.foreach import foreach_add_

from .._core import dtype as dtypes
from .._core.tensor import tensor


def step_counter() -> Tensor:
    """A fresh ``state["step"]``: a 0-d float tensor, float64 only when that is the default dtype (PyTorch's rule)."""
    dtype = dtypes.float64 if dtypes.get_default_dtype() == dtypes.float64 else dtypes.float32
    return tensor(0.0, dtype=dtype)


def addcmul_(t: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``t += value * a * b`` in place (ember has no ``addcmul``)."""
    return t.add_(a * b, alpha=value)


def addcdiv_(t: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``t += value * a / b`` in place (ember has no ``addcdiv``)."""
    return t.add_(a / b, alpha=value)


def add_all_(params: list, updates: list, alpha: float, foreach: bool | None) -> None:
    """``params[i] += alpha * updates[i]`` for each i: one multi-tensor op when ``foreach`` is not
    False and the pairs allow it (eager, one device, each pair one floating dtype and shape),
    else one ``add_`` per parameter (always so while a graph is built or traced)."""
    if foreach is not False and params and fused_fits(params, updates):
        foreach_add_(params, updates, alpha=alpha)
        return
    for p, u in zip(params, updates, strict=True):
        p.add_(u, alpha=alpha)


def fused_fits(params: list, others: list) -> bool:
    """Whether a multi-tensor op may update ``params`` with ``others`` (their gradients or
    state): eager, one device, each pair one floating dtype and shape."""
    if not running_eagerly():
        return False
    device = params[0]._storage._device
    for p, u in zip(params, others, strict=True):
        dtype = p._dtype
        if u._dtype is not dtype or u._shape != p._shape or not dtype.is_floating_point:
            return False
        if p._storage._device is not device or u._storage._device is not device:
            return False
    return True


def scalar_state(value: float) -> Tensor:
    """A 0-d state entry holding ``value`` (``mu_product``, ``eta``, ``mu``...), in the dtype
    :func:`step_counter` uses, as PyTorch keeps such per-parameter scalars."""
    dtype = dtypes.float64 if dtypes.get_default_dtype() == dtypes.float64 else dtypes.float32
    return tensor(float(value), dtype=dtype)


def check_lr(lr: Any) -> None:
    """PyTorch's first check in every optimizer: a tensor lr holds one element, and lr >= 0."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not lr >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(betas: tuple[float, float]) -> None:
    """Each beta in [0, 1), with PyTorch's texts."""
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def as_float(value: Any) -> float:
    """A hyper-parameter that may be a 1-element tensor (``lr``), as a Python number."""
    return value.item() if isinstance(value, Tensor) else value
