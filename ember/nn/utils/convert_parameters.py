"""Flatten parameters into one vector and back.

>>> import ember.nn as nn
>>> lin = nn.Linear(2, 1)
>>> vec = nn.utils.parameters_to_vector(lin.parameters())
>>> vec.shape
ember.Size([3])
>>> nn.utils.vector_to_parameters(ember.zeros(3), lin.parameters())
>>> lin.weight.tolist(), lin.bias.tolist()
([[0.0, 0.0]], [0.0])
"""

from __future__ import annotations

from collections.abc import Iterable

from ..._core.tensor import Tensor
from ...dispatch.grad_mode import no_grad as _no_grad
from ...ops import functional as F


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated, in iteration order (a copy)."""
    return F.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into each parameter (in place, so identities are kept)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    with _no_grad():
        for param in parameters:
            n = param.numel()
            param.copy_(vec[pointer : pointer + n].reshape(tuple(param.shape)))
            pointer += n
