"""Adamax (Kingma & Ba): Adam with the infinity norm in place of the second moment.

Per parameter, at step ``t`` with gradient ``g``::

    m = beta1 * m + (1 - beta1) * g
    u = max(beta2 * u, |g| + eps)
    p -= lr / (1 - beta1**t) * m / u

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.Adamax([p], lr=0.1)
>>> p.grad = ember.tensor([2.0])
>>> opt.step()
>>> p  # m = 0.2, u = 2, 1 - 0.1 / 0.1 * 0.2 / 2
tensor([0.9000], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..ops import functional as F
from ._functional import addcdiv_, as_float, check_betas, check_lr, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """PyTorch's ``torch.optim.Adamax`` (its single-tensor arithmetic; ``foreach`` is accepted and
    recorded, the update is the per-parameter loop either way)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
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
            lr, (beta1, beta2), eps = as_float(group["lr"]), group["betas"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = step_counter()
                    state["exp_avg"] = F.zeros_like(p)
                    state["exp_inf"] = F.zeros_like(p)
                grad = -p.grad if group["maximize"] else p.grad
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]

                step = state["step"].add_(1).item()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_inf.copy_(F.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
                clr = lr / (1 - beta1**step)
                addcdiv_(p, exp_avg, exp_inf, value=-clr)
