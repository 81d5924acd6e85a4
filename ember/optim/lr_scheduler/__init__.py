"""Learning-rate schedulers, ported from ``torch.optim.lr_scheduler`` with the same lr sequences.

A scheduler writes each group's ``lr`` at construction (epoch 0) and at each ``step()``; the
schedulers that PyTorch computes recursively (StepLR, ExponentialLR, CosineAnnealingLR...) are
recursive here too, so that they compose with other code that edits ``lr`` the same way.

>>> opt = ember.optim.SGD([ember.zeros(1)], lr=1.0)
>>> sched = ember.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
>>> lrs = []
>>> for _ in range(5):
...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
>>> lrs
[1.0, 0.5, 0.5, 0.25, 0.25]
"""

from .base import LRScheduler
from .composite import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cyclic import CyclicLR, OneCycleLR
from .multiplicative import ConstantLR, ExponentialLR, LambdaLR, LinearLR, MultiplicativeLR, MultiStepLR, PolynomialLR, StepLR
from .plateau import ReduceLROnPlateau

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "OneCycleLR",
    "ReduceLROnPlateau",
    "ConstantLR",
    "LinearLR",
    "SequentialLR",
    "ChainedScheduler",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "MultiplicativeLR",
    "PolynomialLR",
]
