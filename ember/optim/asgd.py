"""Averaged SGD (Polyak & Juditsky): SGD with a decaying step and a running average of the iterates.

Per parameter, at step ``t`` with gradient ``g`` (``eta`` starts at ``lr``, ``mu`` at 1)::

    p = p * (1 - lambd * eta) - eta * g
    ax = ax + mu * (p - ax)          (ax = p while mu == 1)
    eta = lr / (1 + lambd * lr * t) ** alpha
    mu = 1 / max(1, t - t0)

The average ``ax`` lives in ``optimizer.state[p]["ax"]``.

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.ASGD([p], lr=0.5, lambd=0.0)
>>> p.grad = ember.tensor([1.0])
>>> opt.step()
>>> p, opt.state[p]["ax"]
(tensor([0.5000], requires_grad=True), tensor([0.5000]))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..ops import functional as F
from ._functional import as_float, check_lr, scalar_state, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """PyTorch's ``torch.optim.ASGD`` (its single-tensor arithmetic; ``foreach`` is accepted and
    recorded, the update is the per-parameter loop either way)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
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
            lr, lambd, alpha, t0 = as_float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = step_counter()
                    state["eta"] = scalar_state(lr)
                    state["mu"] = scalar_state(1.0)
                    state["ax"] = F.zeros_like(p)
                grad = -p.grad if group["maximize"] else p.grad
                ax, eta, mu = state["ax"], state["eta"], state["mu"]

                step = state["step"].add_(1).item()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                # eta and mu are 0-d tensors: PyTorch reads them back rounded to their dtype
                eta_value = eta.item()
                p.mul_(1 - lambd * eta_value)
                p.add_(grad, alpha=-eta_value)
                if mu.item() != 1:
                    ax.add_(p.sub(ax).mul_(mu))
                else:
                    ax.copy_(p)
                eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
                mu.fill_(1 / max(1, step - t0))
