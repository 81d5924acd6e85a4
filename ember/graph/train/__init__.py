"""``ember.train``: TensorFlow 1's ``tf.train`` for graph mode: the optimizers (``optimizers.py``
on the ``Optimizer`` of ``optimizer.py``), the global step (``global_step.py``), moving averages (``moving_averages.py``) and the
learning-rate schedules (``schedules.py``)."""

from .global_step import create_global_step, get_global_step, get_or_create_global_step, global_step
from .moving_averages import ExponentialMovingAverage, assign_moving_average
from .optimizer import Optimizer
from .optimizers import (
    AdadeltaOptimizer,
    AdagradOptimizer,
    AdamOptimizer,
    FtrlOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
    RMSPropOptimizer,
)
from .schedules import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    natural_exp_decay,
    piecewise_constant,
    polynomial_decay,
)

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "ExponentialMovingAverage",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "assign_moving_average",
    "cosine_decay",
    "cosine_decay_restarts",
    "create_global_step",
    "exponential_decay",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
]
