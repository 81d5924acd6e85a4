"""DistributedSampler: each of ``num_replicas`` processes visits its own share of a dataset.

PyTorch's layout: the (optionally shuffled) index list is padded by repeating its head until it
divides evenly (or cut with ``drop_last``), and rank ``r`` takes every ``num_replicas``-th index
from position ``r``. Every rank thus gets the same number of samples, so no rank runs out of
batches while the others wait in a collective. With ``shuffle=False`` the indices are PyTorch's,
index for index; with ``shuffle=True`` the permutation comes from ember's own generator seeded
with ``seed + epoch`` (the same on every rank, not the same numbers as PyTorch's generator).

>>> from ember.utils.data import DistributedSampler
>>> [list(DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False)) for r in (0, 1)]
[[0, 2, 4], [1, 3, 0]]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized

from ..._core.generator import Generator
from ...ops import functional as F
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _default_world(num_replicas: int | None, rank: int | None) -> tuple[int, int]:
    # ember.distributed is imported only when the caller leaves the world to the default process
    # group: a sampler given both numbers works without the distributed extra installed.
    from ... import distributed as dist

    if num_replicas is None:
        num_replicas = dist.get_world_size()
    if rank is None:
        rank = dist.get_rank()
    return num_replicas, rank


def _check_int(name: str, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"DistributedSampler: {name} must be an int, but got {type(value).__name__} ({value!r})")


class DistributedSampler(Sampler):
    """The indices of ``dataset`` that belong to ``rank`` out of ``num_replicas`` processes.

    ``num_replicas`` and ``rank`` default to the default process group's world size and rank.
    Use it as a DataLoader's ``sampler`` (with the loader's ``shuffle`` left False).

    The epoch, one difference from PyTorch: PyTorch shuffles with ``seed + epoch`` and the epoch
    changes only through ``set_epoch``, so a loop that forgets to call it sees the same order
    every epoch. Here, as long as ``set_epoch`` has never been called, each new pass over the
    sampler advances the epoch by one after it starts (passes 0, 1, 2, ... use epochs 0, 1, 2,
    ...), which is what calling ``set_epoch(epoch)`` at the top of every epoch gives. Ranks stay
    in step because each rank iterates its sampler once per epoch. The first call to
    ``set_epoch`` pins the epoch from then on, PyTorch's behaviour exactly; call ``set_epoch(0)``
    once to keep the first order for every pass.

    >>> s = DistributedSampler(range(10), num_replicas=3, rank=2, seed=1)
    >>> len(s), len(list(s))
    (4, 4)
    >>> s.epoch  # the first pass used epoch 0; the next uses 1
    1
    >>> [list(DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False, drop_last=True)) for r in (0, 1)]
    [[0, 2], [1, 3]]
    """

    def __init__(
        self,
        dataset: Sized,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            num_replicas, rank = _default_world(num_replicas, rank)
        _check_int("num_replicas", num_replicas)
        _check_int("rank", rank)
        _check_int("seed", seed)
        if num_replicas <= 0:
            raise ValueError(f"DistributedSampler: num_replicas should be a positive integer, but got num_replicas={num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        if not hasattr(dataset, "__len__"):
            raise TypeError(
                f"DistributedSampler: the dataset must have a length (a map-style dataset), but {type(dataset).__name__} has none; "
                "an IterableDataset shards itself (see get_worker_info and the process group's rank)"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        self.shuffle = shuffle
        self.seed = seed
        self._epoch_pinned = False
        size = self._dataset_size = len(dataset)
        if drop_last and size % num_replicas != 0:
            # drop the tail so every rank gets the same count without repeats
            self.num_samples = max(0, math.ceil((size - num_replicas) / num_replicas))
        else:
            self.num_samples = math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        size = len(self.dataset)
        if size != self._dataset_size:
            raise RuntimeError(
                f"DistributedSampler: the dataset had {self._dataset_size} samples when the sampler was built and has {size} now; "
                "build a new sampler after the dataset changes size"
            )
        if self.shuffle:
            generator = Generator().manual_seed(self.seed + self.epoch)
            indices = F.randperm(size, generator=generator).tolist()
        else:
            indices = list(range(size))
        if not self._epoch_pinned:
            self.epoch += 1
        if self.drop_last:
            indices = indices[: self.total_size]
        elif indices:
            # pad by repeating the list from its start (whole copies when it is shorter than the pad)
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Shuffle the next passes with ``seed + epoch`` (the same on every rank), and stop the
        automatic advance: from now on the epoch changes only through this method."""
        _check_int("epoch", epoch)
        self.epoch = epoch
        self._epoch_pinned = True
