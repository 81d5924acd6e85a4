"""Adagrad (Duchi et al.), with PyTorch's options: lr decay, weight decay, initial accumulator, maximize.

Per parameter at step ``t`` with gradient ``g``::

    clr = lr / (1 + (t - 1) * lr_decay)
    s = s + g * g
    p = p - clr * g / (sqrt(s) + eps)

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.Adagrad([p], lr=0.5)
>>> p.grad = ember.tensor([4.0])
>>> opt.step()
>>> p  # 1 - 0.5 * 4 / sqrt(16)
tensor([0.5000], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..ops import functional as F
from ._functional import addcdiv_, addcmul_, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """PyTorch's ``torch.optim.Adagrad`` (single-tensor, dense algorithm; ``foreach`` is accepted
    and recorded, the update is the per-parameter loop either way).

    Like PyTorch, the state (``step`` and ``sum``) is created eagerly, at construction.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Any) -> dict[str, Any]:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            # PyTorch reads the optimizer-wide default here, not the group's value
            state["sum"] = F.full_like(p, self.defaults["initial_accumulator_value"])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)

    @_use_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        for group in self.param_groups:
            lr, lr_decay, eps, weight_decay = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                # a param group added after construction gets its state lazily, as in PyTorch
                state = self._init_state(p)
                step_t, state_sum = state["step"], state["sum"]
                step_t.add_(1)
                step = step_t.item()
                grad = -p.grad if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                clr = lr / (1 + (step - 1) * lr_decay)
                addcmul_(state_sum, grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                addcdiv_(p, grad, std, value=-clr)
