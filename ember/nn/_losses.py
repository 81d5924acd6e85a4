"""The embedding, ranking and likelihood losses of ``torch.nn.functional``, composed from ops.

Each is written as PyTorch computes it (composite there too), so values and gradients agree,
including where a hinge sits exactly at its margin.

>>> from ember.nn._losses import margin_ranking_loss
>>> margin_ranking_loss(ember.tensor([1.0, 2.0]), ember.tensor([2.0, 1.0]), ember.tensor([1.0, 1.0])).item()
0.5
"""

from __future__ import annotations

import math

from .._core.tensor import Tensor
from ..dispatch.grad_mode import no_grad
from ..ops import functional as F
from ._composite import _legacy_reduction, logsigmoid


def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    return losses.sum() if reduction == "sum" else losses


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.dim() not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dim() == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes {_sizes(input1)} and {_sizes(input2)}."
        )
    if target.dim() == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes {_sizes(input1)} and {_sizes(input2)}."
        )
    dim = target.dim()
    epsilon = 1e-12  # PyTorch's: keeps a zero vector's cosine finite
    products = (input1 * input2).sum(dim)
    squares1 = (input1 * input1).sum(dim) + epsilon
    squares2 = (input2 * input2).sum(dim) + epsilon
    cosine = products / (squares1 * squares2).sqrt()
    zeros = F.zeros_like(cosine)
    losses = F.where(target == 1, 1 - cosine, zeros) + F.where(target == -1, (cosine - margin).clamp(min=0), zeros)
    return _reduce(losses, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """``max(0, -target * (x1 - x2) + margin)``: ``target`` 1 wants x1 ranked above x2, -1 below."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:  # fmt: skip
    """``x`` where ``target`` is 1, ``max(0, margin - x)`` where it is -1 (``x`` usually a distance)."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = F.zeros_like(input)
    losses = F.where(target != 1, (margin - input).clamp(min=0), zeros) + F.where(target != -1, input, zeros)
    return _reduce(losses, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """The two-class logistic loss ``log(1 + exp(-target * x))`` with targets 1 and -1."""
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce(F.log1p(F.exp(-input * target)), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """Binary cross-entropy of each class's logit against a 0/1 target, averaged over the classes."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    losses = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        losses = losses * weight
    class_dim = input.dim() - 1
    losses = losses.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(losses, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:  # fmt: skip
    """``0.5 * (log(var) + (input - target)^2 / var)`` (plus ``0.5 * log(2 pi)`` with ``full``); ``var``
    is clamped to at least ``eps`` without cutting its gradient, as in PyTorch."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * F.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:  # one variance per sample: broadcast over the last dimension
            var = var.unsqueeze(-1)
        elif input.dim() != var.dim() or sum(v for i, v in zip(input.shape, var.shape, strict=True) if i != v) != 1:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    losses = 0.5 * (F.log(var) + (input - target) ** 2 / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return _reduce(losses, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """The Poisson negative log-likelihood of ``target`` with rate ``exp(input)`` (``log_input``) or ``input``;
    ``full`` adds Stirling's approximation of ``log(target!)`` where the target exceeds 1."""
    reduction = _reduction(size_average, reduce, reduction)
    losses = F.exp(input) - target * input if log_input else input - target * F.log(input + eps)
    if full:
        stirling = target * F.log(target) - target + 0.5 * F.log(2 * math.pi * target)
        losses = losses + stirling.masked_fill(target <= 1, 0)
    return _reduce(losses, reduction)
