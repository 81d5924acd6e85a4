"""AdamW (Loshchilov & Hutter): Adam with weight decay applied to the weights, not the gradient.

Before the Adam update, ``p = p * (1 - lr * weight_decay)``; the default decay is 1e-2.

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.AdamW([p], lr=0.1, weight_decay=0.5)
>>> p.grad = ember.tensor([0.0])
>>> opt.step()
>>> p  # only the decay moves it: 1 * (1 - 0.1 * 0.5)
tensor([0.9500], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """PyTorch's ``torch.optim.AdamW``: an :class:`Adam` with ``decoupled_weight_decay=True``."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        # a state dict saved by a plain Adam must not turn this back into L2 decay
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
