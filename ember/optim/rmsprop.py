"""RMSprop (Hinton), with PyTorch's options: momentum, centered, weight decay, maximize.

Per parameter with gradient ``g``::

    v = alpha * v + (1 - alpha) * g * g
    a = alpha * a + (1 - alpha) * g          (centered)
    avg = sqrt(v - a * a) if centered else sqrt(v), then avg += eps
    b = momentum * b + g / avg; p -= lr * b  (momentum > 0)
    p -= lr * g / avg                        (otherwise)

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.RMSprop([p], lr=0.01, alpha=0.75)
>>> p.grad = ember.tensor([2.0])
>>> opt.step()
>>> p  # 1 - 0.01 * 2 / sqrt(0.25 * 4)
tensor([0.9800], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..ops import functional as F
from ._functional import addcdiv_, addcmul_, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """PyTorch's ``torch.optim.RMSprop`` (single-tensor algorithm; ``foreach`` is accepted and
    recorded, the update is the per-parameter loop either way)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)

    @_use_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            weight_decay, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = step_counter()
                    state["square_avg"] = F.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = F.zeros_like(p)
                    if centered:
                        state["grad_avg"] = F.zeros_like(p)

                grad = -p.grad if group["maximize"] else p.grad
                square_avg = state["square_avg"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)

                addcmul_(square_avg.mul_(alpha), grad, grad, value=1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.sub(grad_avg * grad_avg).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)

                if momentum > 0:
                    buf = state["momentum_buffer"]
                    addcdiv_(buf.mul_(momentum), grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    addcdiv_(p, grad, avg, value=-lr)
