"""Samplers: the order in which a DataLoader visits a map-style dataset's indices.

>>> list(ember.utils.data.BatchSampler(ember.utils.data.SequentialSampler(range(5)), batch_size=2, drop_last=False))
[[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

from ..._core import dtype as dtypes
from ..._core.generator import Generator
from ..._core.tensor_numpy import as_tensor
from ...ops import functional as F

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler", "WeightedRandomSampler"]


def _fresh_generator() -> Generator:
    # Without a generator, seed a private one from the global RNG: ember.manual_seed still
    # makes the order reproducible, and each pass over the data gets a new order.
    seed = int(F.randint(0, 2**62, ()).item())
    return Generator().manual_seed(seed)


class Sampler:
    """Base class: an iterable of indices (or of lists of indices, for batch samplers)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``.

    >>> list(ember.utils.data.SequentialSampler("abc"))
    [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or ``num_samples`` draws with ``replacement``.

    >>> s = ember.utils.data.RandomSampler(range(6), generator=ember.Generator().manual_seed(3))
    >>> sorted(s)
    [0, 1, 2, 3, 4, 5]
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            # draw in chunks of 32, like PyTorch, so a long epoch does not allocate one huge tensor
            for _ in range(self.num_samples // 32):
                yield from F.randint(high=n, size=(32,), dtype=dtypes.int64, generator=generator).tolist()
            yield from F.randint(high=n, size=(self.num_samples % 32,), dtype=dtypes.int64, generator=generator).tolist()
        else:
            # num_samples may exceed n: whole permutations, then the head of one more
            for _ in range(self.num_samples // n):
                yield from F.randperm(n, generator=generator).tolist()
            yield from F.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order.

    >>> sorted(ember.utils.data.SubsetRandomSampler([7, 3, 5]))
    [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        generator = self.generator if self.generator is not None else _fresh_generator()
        for i in F.randperm(len(self.indices), generator=generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (as ``multinomial``).

    Without a ``generator`` the draws come from the global RNG, as in PyTorch.

    >>> s = ember.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], num_samples=4)
    >>> list(s)
    [1, 1, 1, 1]
    """

    def __init__(
        self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator: Generator | None = None
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=dtypes.float64)
        if weights_tensor.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = F.multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size`` (the last one short unless ``drop_last``)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        # islice fills each batch in C: a third of the time of appending index by index
        indices = iter(self.sampler)
        size = self.batch_size
        batch = list(itertools.islice(indices, size))
        while len(batch) == size:
            yield batch
            batch = list(itertools.islice(indices, size))
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
