"""CPU kernels of the multi-tensor primitives of ``ember/ops/foreach.py``: foreach_add_alpha
and foreach_adam (an optimizer's update of every parameter in one dispatch)."""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel
from .elementwise.factories import F32, quiet


@register_kernel("foreach_add_alpha")
def _foreach_add_alpha(outs, ins, attrs):
    """``self[i] += alpha * other[i]`` for each pair (the rule checked shapes and dtypes)."""
    alpha = float(attrs["alpha"])
    n = len(outs)
    for out, a, b in zip(outs, ins[:n], ins[n:], strict=True):
        if out.dtype.itemsize >= 4:
            np.add(a, np.multiply(b, alpha, dtype=out.dtype), out=out)
        else:  # float16 and bfloat16 compute in float32, as add_ does
            np.copyto(out, np.add(a, np.multiply(b, alpha, dtype=F32), dtype=F32), casting="unsafe")


@register_kernel("foreach_adam")
@quiet
def _foreach_adam(outs, ins, attrs):
    """Adam's step per parameter, each line the NumPy call of the op :class:`ember.optim.Adam`
    runs there (so the two agree bit for bit); the step count is read back as a Python number
    and the bias corrections are computed in double, as PyTorch does."""
    amsgrad = attrs["amsgrad"]
    n = len(ins) // (6 if amsgrad else 5)
    lr, beta1, beta2, eps, wd = attrs["lr"], attrs["beta1"], attrs["beta2"], attrs["eps"], attrs["weight_decay"]
    for i in range(n):  # outs: params, exp_avgs, exp_avg_sqs, steps (and maxima), the inputs' memory
        g = ins[n + i]
        p, m, v, step = outs[i], outs[n + i], outs[2 * n + i], outs[3 * n + i]
        dtype = p.dtype
        np.add(step, 1, out=step)  # step_t.add_(1)
        if attrs["maximize"]:
            g = np.negative(g)
        if wd != 0:
            if attrs["decoupled"]:
                np.multiply(p, 1 - lr * wd, out=p)  # p.mul_(1 - lr * wd)
            else:
                g = np.add(g, np.multiply(p, wd, dtype=dtype))  # grad.add(p, alpha=wd)
        _lerp_into(m, g, 1 - beta1)  # exp_avg.lerp_(grad, 1 - beta1)
        np.multiply(v, beta2, out=v)  # exp_avg_sq.mul_(beta2), then += (grad * grad) * (1 - beta2)
        np.add(v, np.multiply(np.multiply(g, g), 1 - beta2, dtype=dtype), out=v)
        t = float(step)
        step_size = lr / (1 - beta1**t)
        bias_correction2_sqrt = (1 - beta2**t) ** 0.5
        if amsgrad:
            vmax = outs[4 * n + i]
            np.maximum(vmax, v, out=vmax)
            v = vmax
        denom = np.true_divide(np.sqrt(v), bias_correction2_sqrt)
        np.add(denom, eps, out=denom)
        np.add(p, np.multiply(np.true_divide(m, denom), -step_size, dtype=dtype), out=p)  # addcdiv_(p, m, denom, -step_size)


def _lerp_into(a: np.ndarray, b: np.ndarray, weight: float) -> None:
    """``a = lerp(a, b, weight)`` in place, by the lerp kernel's formula for a scalar weight
    (``ternary.lerp_scalar``)."""
    w = np.asarray(weight).astype(a.dtype)
    d = b - a
    if abs(w) < 0.5:
        np.add(a, w * d, out=a)
    else:
        np.subtract(b, d * (1 - w), out=a)
