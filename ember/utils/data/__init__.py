"""Datasets, samplers and the DataLoader, with PyTorch's ``torch.utils.data`` interface.

>>> import ember.utils.data as data
>>> xs = ember.arange(6.0).reshape(3, 2)
>>> [x.shape for (x,) in data.DataLoader(data.TensorDataset(xs), batch_size=2)]
[ember.Size([2, 2]), ember.Size([1, 2])]
"""

from ._collate import default_collate, default_convert
from ._worker import get_worker_info
from .dataloader import DataLoader
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
