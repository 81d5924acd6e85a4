"""Rprop (Riedmiller & Braun): per-coordinate step sizes grown or shrunk by the gradient's sign.

Per parameter with gradient ``g`` and the previous gradient ``prev``::

    s = sign(g * prev) -> etaplus where > 0, etaminus where < 0, 1 where 0
    step_size = clamp(step_size * s, *step_sizes)
    g = 0 where s == etaminus            (a sign change: no move, and no memory of it)
    p -= sign(g) * step_size;  prev = g

``step_size`` starts at ``lr`` for every coordinate.

>>> p = ember.tensor([1.0, 1.0]).requires_grad_()
>>> opt = ember.optim.Rprop([p], lr=0.1)
>>> for g in ([1.0, 1.0], [1.0, -1.0]):
...     p.grad = ember.tensor(g)
...     opt.step()
>>> p  # second step: the first coordinate grows its step (x1.2), the second stops
tensor([0.7800, 0.9000], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..ops import functional as F
from ._functional import as_float, check_lr, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """PyTorch's ``torch.optim.Rprop`` (its single-tensor arithmetic; ``foreach`` is accepted and
    recorded, the update is the per-parameter loop either way)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
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
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = step_counter()
                    state["prev"] = F.zeros_like(p)
                    state["step_size"] = F.full_like(p.grad, as_float(group["lr"]))
                grad = -p.grad if group["maximize"] else p.grad
                prev, step_size = state["prev"], state["step_size"]
                state["step"].add_(1)

                sign = grad.mul(prev).sign()
                # the etas written into tensors of the gradient's dtype, as PyTorch rounds them
                factor = F.where(
                    sign.gt(0), F.full_like(sign, etaplus), F.where(sign.lt(0), F.full_like(sign, etaminus), F.ones_like(sign))
                )
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                grad = F.where(factor.eq(etaminus), F.zeros_like(grad), grad)
                p.add_(grad.sign().mul(step_size), alpha=-1)
                prev.copy_(grad)
