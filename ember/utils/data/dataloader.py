"""DataLoader: batches out of a dataset, in the order a sampler picks (single process for now).

>>> ds = ember.utils.data.TensorDataset(ember.arange(10.0), ember.arange(10))
>>> loader = ember.utils.data.DataLoader(ds, batch_size=4, drop_last=True)
>>> len(loader), [y.tolist() for _, y in loader]
(2, [[0, 1, 2, 3], [4, 5, 6, 7]])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ember

from ._collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class DataLoader:
    """PyTorch's ``DataLoader`` arguments and semantics, loading in the calling process.

    ``shuffle=True`` draws a new permutation each epoch, from ``generator`` when given (same seed,
    same orders) or else from ember's global RNG (so ``ember.manual_seed`` makes it repeatable).
    ``batch_size=None`` turns batching off: samples pass through ``default_convert`` one by one.

    >>> g = ember.Generator().manual_seed(0)
    >>> order = [int(b) for b in ember.utils.data.DataLoader(range(5), shuffle=True, generator=g)]
    >>> sorted(order)
    [0, 1, 2, 3, 4]
    """

    def __init__(
        self,
        dataset: Dataset | Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable[Any] | None = None,
        batch_sampler: Sampler | Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        generator: ember.Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if num_workers > 0:
            raise NotImplementedError("worker processes come with ember.multiprocessing")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # CPU only: nothing to pin, kept for the interface
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.generator = generator

        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            # a stream has no indices to shuffle or sample
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None and not self._is_iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (self._is_iterable and self.batch_size is not None)

    def __len__(self) -> int:
        if self._is_iterable:
            length = len(self.dataset)  # TypeError for streams without a length, as in PyTorch
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)

    def __iter__(self) -> Iterator[Any]:
        if self._is_iterable:
            return self._iter_stream()
        if self.batch_sampler is not None:
            return (self.collate_fn(self._fetch(indices)) for indices in self.batch_sampler)
        return (self.collate_fn(self.dataset[index]) for index in self.sampler)

    def _fetch(self, indices: list[Any]) -> list[Any]:
        # a dataset may fetch a whole batch at once (PyTorch's __getitems__ hook)
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems(indices)
        return [self.dataset[i] for i in indices]

    def _iter_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch: list[Any] = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)
