"""Global tensors: one logical tensor laid out over the ranks of a placement (OneFlow's global
tensors, PyTorch's DTensor), run by the eager-global interpreter, boxed between layouts with
collectives, differentiable throughout. ``simulated_world(n)`` runs the same code with n ranks
in one process. ``save``/``load`` write and read sharded checkpoints (``checkpoint.py``).

>>> import ember
>>> from ember.distributed.tensor import simulated_world, distribute
>>> with simulated_world(2):
...     p = ember.placement("cpu", [0, 1])
...     x = distribute(ember.arange(6.0).reshape(3, 2), p, ember.sbp.split(0))
...     [tuple(x.to_local(rank=r).shape) for r in (0, 1)], (x * 2).sum().item()
([(2, 2), (1, 2)], 30.0)
"""

from ...dispatch import sbp
from .api import TENSOR_METHODS, distribute, to_global, to_local
from .boxing import box
from .checkpoint import load, save
from .comm import current_world, simulated_world
from .factories import factory, like
from .global_tensor import GlobalTensor, is_global
from .interpreter import GLOBAL, EagerGlobalInterpreter
from .placement import placement

__all__ = [
    "GLOBAL", "TENSOR_METHODS", "EagerGlobalInterpreter", "GlobalTensor", "box", "current_world", "distribute", "factory", "is_global",
    "like", "load", "placement", "save", "sbp", "simulated_world", "to_global", "to_local",
]  # fmt: skip
