"""Optimizers and learning-rate schedulers with PyTorch's names, arguments and update maths.

>>> w = ember.tensor([0.0, 0.0]).requires_grad_()
>>> opt = ember.optim.Adam([w], lr=0.1)
>>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
>>> w.grad = ember.tensor([1.0, -1.0]); opt.step(); sched.step()
>>> sched.get_last_lr()
[0.05]
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "ASGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "lr_scheduler",
]
