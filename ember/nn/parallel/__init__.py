"""``ember.nn.parallel``: data parallelism across processes (PyTorch's ``torch.nn.parallel``).

``DistributedDataParallel`` wraps a module so that every process trains its own replica on its
own batches while backward averages the gradients over the process group (``ember.distributed``).
"""

from . import distributed
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel", "distributed"]
