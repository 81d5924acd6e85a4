"""Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and maximize.

Per parameter, with ``g`` the gradient (negated when maximizing) and ``b`` the momentum buffer::

    g = g + weight_decay * p
    b = g                                   (first step)
    b = momentum * b + (1 - dampening) * g  (later steps)
    g = g + momentum * b if nesterov else b
    p = p - lr * g

The last line runs as one multi-tensor op over all the parameters (``ember.ops.foreach``)
unless ``foreach=False``; while a graph is built or traced it is one ``add_`` per parameter.

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.SGD([p], lr=0.5, momentum=0.9)
>>> for _ in range(2):
...     p.grad = ember.tensor([1.0])
...     opt.step()
>>> p  # 1 - 0.5 * 1 - 0.5 * 1.9
tensor([-0.4500], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ._functional import add_all_
from .optimizer import Optimizer, _use_no_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    """PyTorch's ``torch.optim.SGD``; ``foreach`` as there (None: the multi-tensor update)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)

    @_use_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            params, updates = [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = -p.grad if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = grad.detach().clone()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buf, alpha=momentum) if nesterov else buf
                params.append(p)
                updates.append(grad)
            add_all_(params, updates, -lr, group["foreach"])
