"""Datasets: the map-style and iterable protocols, and ways to combine and split them.

>>> ds = ember.utils.data.TensorDataset(ember.arange(6).reshape(3, 2), ember.tensor([0, 1, 0]))
>>> x, y = ds[1]
>>> x, y
(tensor([2, 3]), tensor(1))
"""

from __future__ import annotations

import bisect
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any

from ember._core.tensor import Tensor

from ..._core.generator import Generator, default_generator
from ...ops import functional as F

__all__ = ["ConcatDataset", "Dataset", "IterableDataset", "Subset", "TensorDataset", "random_split"]


class Dataset:
    """A map-style dataset: ``__getitem__(index)`` (and usually ``__len__``).

    ``a + b`` concatenates two datasets.
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream: implement ``__iter__``; a DataLoader batches what it yields.

    >>> class Count(ember.utils.data.IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(5))
    >>> [b.tolist() for b in ember.utils.data.DataLoader(Count(), batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> Any:
        raise TypeError("IterableDataset does not support concatenation; chain the iterators instead")


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> sub = ember.utils.data.Subset(list("abcdef"), [4, 0])
    >>> len(sub), sub[0], sub[[0, 1]]
    (2, 'e', ['e', 'a'])
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return [self.dataset[self.indices[i]] for i in idx]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several map-style datasets end to end.

    >>> ds = ember.utils.data.ConcatDataset([[0, 1, 2], [10, 11]])
    >>> len(ds), ds[3], ds[-1], ds.cumulative_sizes
    (5, 10, 11, [3, 5])
    """

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        return list(accumulate(len(e) for e in sequence))

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise ValueError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


def _lengths_from_fractions(fractions: Sequence[float], n: int) -> list[int]:
    # floor each share, then hand the leftover items out one by one, round-robin (PyTorch's rule)
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    remainder = n - sum(lengths)
    for i in range(remainder):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset: Any, lengths: Sequence[int | float], generator: Generator | None = None) -> list[Subset]:
    """Split ``dataset`` into disjoint random subsets of the given lengths (or fractions summing to 1).

    >>> a, b = ember.utils.data.random_split(range(10), [0.7, 0.3], generator=ember.Generator().manual_seed(0))
    >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
    (7, 3, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    if generator is None:
        generator = default_generator
    indices = F.randperm(sum(lengths), generator=generator).tolist()
    return [
        Subset(dataset, indices[offset - length : offset]) for offset, length in zip(accumulate(lengths), lengths, strict=False)
    ]
