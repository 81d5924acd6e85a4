"""Gradient clipping over the ``.grad`` of parameters (works on any tensors with ``.grad`` set).

>>> import ember.nn as nn
>>> p = nn.Parameter(ember.zeros(2))
>>> p.grad = ember.tensor([3.0, 4.0])
>>> nn.utils.clip_grad_norm_([p], max_norm=1.0).item()
5.0
>>> [round(g, 4) for g in p.grad.tolist()]
[0.6, 0.8]
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ... import linalg
from ..._core import dtype as dtypes
from ..._core.tensor import Tensor, tensor
from ...dispatch.grad_mode import no_grad as _no_grad
from ...ops import functional as F


def _as_list(tensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors: Iterable[Tensor] | Tensor, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:  # fmt: skip
    """The ``norm_type``-norm of all ``tensors`` together, as if concatenated into one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    norms = F.stack([linalg.vector_norm(t, norm_type) for t in tensors])
    total = linalg.vector_norm(norms.to(dtypes.float32) if not norms.dtype.is_floating_point else norms, norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be clipped. "
            "To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    coef = min(float(max_norm) / (float(total_norm.item()) + 1e-6), 1.0)
    with _no_grad():
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:  # fmt: skip
    """Rescale the gradients in place so that their total norm is at most ``max_norm``.

    Returns the total norm before clipping. ``foreach`` is accepted and ignored.
    """
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if grads:
        clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_value_(parameters, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element into [-clip_value, clip_value] in place.

    >>> p = ember.zeros(2)
    >>> p.grad = ember.tensor([-3.0, 0.5])
    >>> clip_grad_value_(p, 1.0); p.grad.tolist()
    [-1.0, 0.5]
    """
    clip_value = float(clip_value)
    with _no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
