"""TensorFlow 1's learning-rate schedules: each returns a tensor of the global step, recomputed at
every run (``lr * decay_rate ** (step / decay_steps)``, ...), in the learning rate's dtype."""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ...ops import functional as F
from ..graph import get_default_graph
from ..sources import constant, identity
from ..tensor import GraphTensor

__all__ = [
    "cosine_decay",
    "cosine_decay_restarts",
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
]


def _tensor(value, dtype, name: str):
    if isinstance(value, GraphTensor):
        return value if dtype is None or value.dtype is dtype else value.to(dtype)
    if dtype is None:
        array = np.asarray(value)
        dtype = _dt.float32 if array.dtype.kind == "f" else _dt.int32 if array.dtype.kind in "iu" else None
    return constant(np.asarray(value, dtype=None if dtype is None else dtype.numpy_dtype), dtype=dtype, name=name)


def _schedule(fn_name: str, global_step, name, default: str, build):
    """Run ``build(lr_dtype_cast_step)`` in the default graph under the schedule's name scope;
    the result is named as the scope."""
    if global_step is None:
        raise ValueError(f"global_step is required for {fn_name}.")
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or default) as scope:
        return identity(build(), name=scope)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase: bool = False, name=None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)`` (the exponent floored when ``staircase``).

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     lr = exponential_decay(0.1, 20, 10, 0.5, staircase=True)
    >>> round(float(ember.Session(graph=g).run(lr)), 6)
    0.025
    """

    def build():
        lr = _tensor(learning_rate, None, "learning_rate")
        p = _tensor(global_step, lr.dtype, "global_step") / _tensor(decay_steps, lr.dtype, "decay_steps")
        if staircase:
            p = F.floor(p)
        return lr * F.pow(_tensor(decay_rate, lr.dtype, "decay_rate"), p)

    return _schedule("exponential_decay", global_step, name, "ExponentialDecay", build)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase: bool = False, name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)`` (floored when ``staircase``)."""

    def build():
        lr = _tensor(learning_rate, None, "learning_rate")
        p = _tensor(global_step, lr.dtype, "global_step") / _tensor(decay_steps, lr.dtype, "decay_steps")
        if staircase:
            p = F.floor(p)
        return lr / (1 + _tensor(decay_rate, lr.dtype, "decay_rate") * p)

    return _schedule("inverse_time_decay", global_step, name, "InverseTimeDecay", build)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase: bool = False, name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)`` (floored when ``staircase``)."""

    def build():
        lr = _tensor(learning_rate, None, "learning_rate")
        p = _tensor(global_step, lr.dtype, "global_step") / _tensor(decay_steps, lr.dtype, "decay_steps")
        if staircase:
            p = F.floor(p)
        return lr * F.exp(-_tensor(decay_rate, lr.dtype, "decay_rate") * p)

    return _schedule("natural_exp_decay", global_step, name, "NaturalExpDecay", build)


def polynomial_decay(
    learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle: bool = False, name=None
):
    """From ``learning_rate`` to ``end_learning_rate`` over ``decay_steps`` along ``(1 - t)^power``;
    then constant, or, with ``cycle``, again over the next multiple of ``decay_steps``."""

    def build():
        lr = _tensor(learning_rate, None, "learning_rate")
        dtype = lr.dtype
        step = _tensor(global_step, dtype, "global_step")
        steps = _tensor(decay_steps, dtype, "decay_steps")
        if cycle:
            multiplier = F.where(step == 0, F.ones_like(step), F.ceil(step / steps))
            steps = steps * multiplier
        else:
            step = F.minimum(step, steps)
        p = step / steps
        end = _tensor(end_learning_rate, dtype, "end_learning_rate")
        return (lr - end) * F.pow(1 - p, _tensor(power, dtype, "power")) + end

    return _schedule("polynomial_decay", global_step, name, "PolynomialDecay", build)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)``."""

    def build():
        lr = _tensor(learning_rate, None, "learning_rate")
        dtype = lr.dtype
        steps = _tensor(decay_steps, dtype, "decay_steps")
        done = F.minimum(_tensor(global_step, dtype, "global_step"), steps) / steps
        cosine = 0.5 * (1.0 + F.cos(math.pi * done))
        return lr * ((1 - _tensor(alpha, dtype, "alpha")) * cosine + alpha)

    return _schedule("cosine_decay", global_step, name, "CosineDecay", build)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None):
    """Cosine decay restarted after ``first_decay_steps``, each period ``t_mul`` times longer and
    its peak ``m_mul`` times lower (SGDR)."""

    def build():
        lr = _tensor(learning_rate, None, "learning_rate")
        dtype = lr.dtype
        fraction = _tensor(global_step, dtype, "global_step") / _tensor(first_decay_steps, dtype, "first_decay_steps")
        if float(t_mul) == 1.0:
            restart = F.floor(fraction)
            fraction = fraction - restart
        else:
            restart = F.floor(F.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
            before = (1.0 - F.pow(_tensor(t_mul, dtype, "t_mul"), restart)) / (1.0 - t_mul)
            fraction = (fraction - before) / F.pow(_tensor(t_mul, dtype, "t_mul"), restart)
        m_fac = F.pow(_tensor(m_mul, dtype, "m_mul"), restart)
        cosine = 0.5 * m_fac * (1.0 + F.cos(math.pi * fraction))
        return lr * ((1 - alpha) * cosine + alpha)

    return _schedule("cosine_decay_restarts", global_step, name, "SGDRDecay", build)


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while ``boundaries[i-1] < x <=
    boundaries[i]``, ``values[-1]`` beyond the last boundary."""
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "PiecewiseConstant") as scope:
        x = _tensor(x, None, "x")
        value_dtype = _tensor(values[0], None, "values").dtype if not isinstance(values[0], GraphTensor) else values[0].dtype
        result = _tensor(values[-1], value_dtype, "value")
        for boundary, value in zip(reversed(boundaries), reversed(values[:-1]), strict=True):
            result = F.where(x <= _tensor(boundary, x.dtype, "boundary"), _tensor(value, value_dtype, "value"), result)
        return identity(result, name=scope)
