"""NAdam (Dozat): Adam with Nesterov momentum and a momentum schedule, as ``torch.optim.NAdam``.

Per parameter, at step ``t`` with gradient ``g``::

    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    mu_product = mu_product * mu_t
    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2**t)) + eps
    p -= lr * (1 - mu_t) / (1 - mu_product) * g / denom
    p -= lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom

Weight decay is added to the gradient (L2), or, with ``decoupled_weight_decay=True``, applied to
the parameter first (``p *= 1 - lr * weight_decay``, NAdamW).

>>> p = ember.tensor([1.0]).requires_grad_()
>>> opt = ember.optim.NAdam([p], lr=0.1)
>>> p.grad = ember.tensor([2.0])
>>> opt.step()
>>> p  # mu_1 = 0.4509, mu_2 = 0.4518: 1 - 0.1 * (0.5491 / 0.5491 + 0.4518 * 0.2 / 0.7963) / 2
tensor([0.8944], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..ops import functional as F
from ._functional import addcdiv_, addcmul_, as_float, check_betas, check_lr, scalar_state, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """PyTorch's ``torch.optim.NAdam`` (its single-tensor arithmetic; ``foreach`` is accepted and
    recorded, the update is the per-parameter loop either way)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("decoupled_weight_decay", False)

    @_use_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        for group in self.param_groups:
            lr, (beta1, beta2), eps = as_float(group["lr"]), group["betas"], group["eps"]
            weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = step_counter()
                    state["mu_product"] = scalar_state(1.0)
                    state["exp_avg"] = F.zeros_like(p)
                    state["exp_avg_sq"] = F.zeros_like(p)
                grad = -p.grad if group["maximize"] else p.grad
                exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]

                step = state["step"].add_(1).item()
                bias_correction2 = 1 - beta2**step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product.mul_(mu)  # kept as a 0-d tensor, rounded to its dtype each step as in PyTorch

                exp_avg.lerp_(grad, 1 - beta1)
                addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)

                mu_product_value = mu_product.item()
                mu_product_next = mu_product_value * mu_next
                addcdiv_(p, grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
                addcdiv_(p, exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))
