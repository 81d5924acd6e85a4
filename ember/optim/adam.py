"""Adam (Kingma & Ba), with PyTorch's options: weight decay (L2 or decoupled), AMSGrad, maximize.

Per parameter, at step ``t`` with gradient ``g``::

    m = beta1 * m + (1 - beta1) * g          (a lerp, as PyTorch computes it)
    v = beta2 * v + (1 - beta2) * g * g
    vmax = max(vmax, v)                      (amsgrad)
    p = p - lr / (1 - beta1**t) * m / (sqrt(v or vmax) / sqrt(1 - beta2**t) + eps)

Each step is one multi-tensor op over the group (``ember.ops.foreach.foreach_adam_``, the same
float operations in the same order) unless ``foreach=False``, a graph is being built or traced,
or a parameter's state does not share its dtype; then it is the loop, op by op.

>>> p = ember.tensor([1.0, -1.0]).requires_grad_()
>>> opt = ember.optim.Adam([p], lr=0.1)
>>> p.grad = ember.tensor([3.0, -0.5])
>>> opt.step()
>>> p  # the first step moves every coordinate by about lr
tensor([ 0.9000, -0.9000], requires_grad=True)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from .._core import dtype as dtypes
from .._core.tensor import Tensor
from ..ops import functional as F
from ..ops.foreach import foreach_adam_
from ._functional import addcdiv_, addcmul_, fused_fits, step_counter
from .optimizer import Optimizer, _use_no_grad

__all__ = ["Adam"]


def is_tracing() -> bool:
    """Whether ops are being recorded into a graph (inside ``ember.compile``). Graph mode is not
    imported for the answer: until something has imported it, nothing can be recording."""
    lazy = sys.modules.get("ember.graph.lazy")
    return lazy is not None and lazy.is_tracing()


class Adam(Optimizer):
    """PyTorch's ``torch.optim.Adam`` (its single-tensor arithmetic; ``foreach`` as there, None:
    the multi-tensor step)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("foreach", None)

    def _init_state(self, p: Any, amsgrad: bool) -> dict[str, Any]:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = step_counter()
            state["exp_avg"] = F.zeros_like(p)
            state["exp_avg_sq"] = F.zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = F.zeros_like(p)
        return state

    @_use_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
            if group["foreach"] is not False and self._fused_step(group):
                continue
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._init_state(p, amsgrad)
                grad = -p.grad if group["maximize"] else p.grad
                exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]

                step_t.add_(1)
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)

                exp_avg.lerp_(grad, 1 - beta1)
                addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)

                if is_tracing():  # inside ember.compile: the step is a value of the graph, not a Python number
                    denom_sq = F.maximum(state["max_exp_avg_sq"], exp_avg_sq) if amsgrad else exp_avg_sq
                    if amsgrad:
                        state["max_exp_avg_sq"].copy_(denom_sq)
                    denom = (denom_sq.sqrt() / (1 - beta2**step_t).sqrt()).add_(eps)
                    p.sub_(exp_avg / denom * (lr / (1 - beta1**step_t)))
                    continue
                # PyTorch reads the step back as a Python number and does the scalar maths in double
                step = step_t.item()
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5

                if amsgrad:
                    max_exp_avg_sq = state["max_exp_avg_sq"]
                    max_exp_avg_sq.copy_(F.maximum(max_exp_avg_sq, exp_avg_sq))
                    denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                addcdiv_(p, exp_avg, denom, value=-step_size)

    def _fused_step(self, group: dict[str, Any]) -> bool:
        """The group's step as one multi-tensor op (``ember.ops.foreach.foreach_adam_``) when
        everything allows it: eager, plain numbers, float32 or float64 parameters with state of
        their dtype, one device. False (nothing done) otherwise; the loop above then runs."""
        params = [p for p in group["params"] if p.grad is not None]
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        if not params or any(type(x) not in (int, float) for x in (lr, beta1, beta2, eps, group["weight_decay"])):
            return False
        if any(p._dtype is not dtypes.float32 and p._dtype is not dtypes.float64 for p in params):
            return False  # half types: the loop computes each op in float32 and rounds, the kernel would not
        grads = [p.grad for p in params]
        if not fused_fits(params, grads):
            return False
        states = [self._init_state(p, group["amsgrad"]) for p in params]
        names = ["exp_avg", "exp_avg_sq", "step"] + (["max_exp_avg_sq"] if group["amsgrad"] else [])
        lists = {name: [state[name] for state in states] for name in names}
        if not fused_fits(params, lists["exp_avg"]) or not fused_fits(params, lists["exp_avg_sq"]):
            return False
        if group["amsgrad"] and not fused_fits(params, lists["max_exp_avg_sq"]):
            return False
        if any(not isinstance(t, Tensor) or t._shape != () or not t._dtype.is_floating_point for t in lists["step"]):
            return False  # a step count loaded as something else: the loop handles it as before
        foreach_adam_(params, grads, lists["exp_avg"], lists["exp_avg_sq"], lists["step"], lists.get("max_exp_avg_sq"),
                      lr=lr, beta1=beta1, beta2=beta2, eps=eps, weight_decay=group["weight_decay"],
                      decoupled_weight_decay=group["decoupled_weight_decay"], maximize=group["maximize"])  # fmt: skip
        return True
