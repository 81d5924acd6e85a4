"""Adadelta (Zeiler): steps scaled by the ratio of running RMS of updates and of gradients.

Per parameter with gradient ``g``::

    v = rho * v + (1 - rho) * g * g
    d = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * d * d
    p -= lr * d

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.Adadelta([p], lr=1.0, rho=0.75, eps=0.25)
>>> p.grad = ember.tensor([2.0])
>>> opt.step()
>>> p  # v = 1, d = sqrt(0.25) / sqrt(1.25) * 2
tensor([0.1056], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..ops import functional as F
from ._functional import addcmul_, as_float, check_lr, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """PyTorch's ``torch.optim.Adadelta`` (its single-tensor arithmetic; ``foreach`` is accepted
    and recorded, the update is the per-parameter loop either way)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)

    @_use_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        for group in self.param_groups:
            lr, rho, eps, weight_decay = as_float(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = step_counter()
                    state["square_avg"] = F.zeros_like(p)
                    state["acc_delta"] = F.zeros_like(p)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)
                grad = -p.grad if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)

                addcmul_(square_avg.mul_(rho), grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                addcmul_(acc_delta.mul_(rho), delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
