"""DataLoader: batches out of a dataset, in the order a sampler picks, in this process or in workers.

With ``num_workers > 0`` worker processes fetch and collate the batches; each batch is allocated
in shared memory by the worker that makes it and reaches the main process as a handle (no copy).
The main process hands out tasks round-robin through one index queue per worker, keeps at most
``prefetch_factor * num_workers`` of them in flight, and puts the results that arrive early in a
reorder buffer, so batches come out in the sampler's order whatever the workers' speed.

>>> ds = ember.utils.data.TensorDataset(ember.arange(10.0), ember.arange(10))
>>> loader = ember.utils.data.DataLoader(ds, batch_size=4, drop_last=True)
>>> len(loader), [y.tolist() for _, y in loader]
(2, [[0, 1, 2, 3], [4, 5, 6, 7]])
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import multiprocessing
import os
import queue
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..._core import dtype as dtypes
from ..._core.generator import Generator
from ...ops import functional as F
from ._collate import default_collate, default_convert
from ._worker import (
    MP_STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    _ember_multiprocessing,
    _FdBatch,
    _IterableDatasetStopIteration,
    _ResumeIteration,
    _worker_loop,
    create_fetcher,
    fd_channel,
    unpack,
)
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class _InfiniteConstantSampler(Sampler):
    """The index sampler of an IterableDataset: ``None`` forever (the stream decides the end)."""

    def __iter__(self) -> Iterator[None]:
        return itertools.repeat(None)


def _resolve_context(context: Any) -> Any:
    """A start-method name or context object -> a context whose queues send tensors as handles."""
    emp = _ember_multiprocessing()
    if context is None or isinstance(context, str):
        return emp.get_context(context) if emp is not None else multiprocessing.get_context(context)
    return context


class DataLoader:
    """PyTorch's ``DataLoader`` arguments and semantics.

    ``shuffle=True`` draws a new permutation each epoch, from ``generator`` when given (same seed,
    same orders) or else from ember's global RNG (so ``ember.manual_seed`` makes it repeatable).
    ``batch_size=None`` turns batching off: samples pass through ``default_convert`` one by one.

    ``num_workers > 0`` loads in that many worker processes, started per epoch or once for all
    (``persistent_workers=True``). Each epoch draws a base seed from ``generator`` (or the global
    RNG); worker ``i`` seeds ember's, Python's and NumPy's global RNGs with ``base_seed + i`` and
    then calls ``worker_init_fn(i)``; :func:`get_worker_info` tells a worker who it is. Each worker
    iterates its own copy of an ``IterableDataset``: split the stream with ``get_worker_info()``
    or every sample arrives ``num_workers`` times. A worker's exception is raised again here with
    the worker's traceback; a worker that dies raises ``RuntimeError``; ``timeout`` (seconds, 0 =
    wait forever) bounds the wait for one batch. ``pin_memory`` is accepted and does nothing on CPU.

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
        multiprocessing_context: str | Any | None = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
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
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 1:
            # PyTorch accepts 0 and then yields an empty epoch; ember refuses rather than lose data
            raise ValueError(f"prefetch_factor option should be a positive integer, but got prefetch_factor={prefetch_factor}")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # CPU only: nothing to pin, kept for the interface
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.generator = generator
        self.multiprocessing_context = multiprocessing_context
        self._iterator: _MultiProcessingDataLoaderIter | None = None

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

        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._context = self._check_context(multiprocessing_context) if num_workers > 0 else None
        if num_workers == 0 and multiprocessing_context is not None:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                f"but got num_workers={num_workers}"
            )

    @staticmethod
    def _check_context(context: Any) -> Any:
        if isinstance(context, str):
            methods = multiprocessing.get_all_start_methods()
            if context not in methods:
                raise ValueError(
                    f"multiprocessing_context option should specify a valid start method in {methods!r}, "
                    f"but got multiprocessing_context={context!r}"
                )
        elif context is not None and not all(hasattr(context, name) for name in ("Process", "Queue", "Event")):
            raise TypeError(
                "multiprocessing_context option should be a valid context object or a string specifying "
                f"the start method, but got multiprocessing_context={context}"
            )
        return _resolve_context(context)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Iterable[Any]:
        # what the main process iterates: lists of indices (batching) or single indices
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._is_iterable:
            length = len(self.dataset)  # TypeError for streams without a length, as in PyTorch
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers == 0:
            _draw_base_seed(self.generator)  # drawn as with workers, so both see the same shuffle
            return self._single_process_iter()
        if self.persistent_workers:
            if self._iterator is None or self._iterator._shutdown:
                self._iterator = _MultiProcessingDataLoaderIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessingDataLoaderIter(self)

    def _single_process_iter(self) -> Iterator[Any]:
        fetcher = create_fetcher(self.dataset, self._auto_collation, self.collate_fn, self.drop_last)
        for index in self._index_sampler:
            try:
                batch = fetcher.fetch(index)
            except StopIteration:
                if self._is_iterable:
                    return
                raise
            yield batch


def _draw_base_seed(generator: Generator | None) -> int:
    return int(F.randint(0, 2**63 - 1, (), dtype=dtypes.int64, generator=generator).item())


# Iterators with live workers, shut down at interpreter exit before multiprocessing's own
# exit handler terminates daemonic children (atexit runs handlers last-in first-out).
_LIVE_ITERATORS: weakref.WeakSet[_MultiProcessingDataLoaderIter] = weakref.WeakSet()


@atexit.register
def _shutdown_live_iterators() -> None:
    for iterator in list(_LIVE_ITERATORS):
        iterator._shutdown_workers()


class _MultiProcessingDataLoaderIter:
    """One epoch (or, with persistent workers, every epoch) of batches made by worker processes."""

    def __init__(self, loader: DataLoader) -> None:
        self._shutdown = True  # until the workers exist, there is nothing to shut down
        self._exhausted = False
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._persistent_workers = loader.persistent_workers
        self._timeout = loader.timeout
        self._owner_pid = os.getpid()
        base_seed = _draw_base_seed(loader.generator)

        ctx = loader._context
        self._worker_result_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        self._fd_sockets: list[Any] = []  # main ends of the workers' descriptor channels
        self._workers_status = [True] * self._num_workers
        self._shutdown = False
        _LIVE_ITERATORS.add(self)
        # descriptors travel beside the batches when ember's shared memory is there to make them
        use_fds = _ember_multiprocessing() is not None
        try:
            for worker_id in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()  # exiting never waits on a worker that stopped reading
                main_end, worker_end = fd_channel() if use_fds else (None, None)
                worker = ctx.Process(
                    target=_worker_loop,
                    args=(
                        loader.dataset,
                        index_queue,
                        self._worker_result_queue,
                        self._workers_done_event,
                        loader._auto_collation,
                        loader.collate_fn,
                        loader.drop_last,
                        base_seed,
                        loader.worker_init_fn,
                        worker_id,
                        self._num_workers,
                        worker_end,
                        main_end,
                    ),
                    daemon=True,  # terminated by multiprocessing if the main process exits first
                )
                self._fd_sockets.append(main_end)
                try:
                    worker.start()
                finally:
                    if worker_end is not None:
                        worker_end.close()  # the worker has its own copy
                self._index_queues.append(index_queue)
                self._workers.append(worker)
            self._reset(loader, first_iter=True)
        except BaseException:
            self._shutdown_workers()
            raise

    def __iter__(self) -> _MultiProcessingDataLoaderIter:
        return self

    def __len__(self) -> int:
        loader = self._loader_ref()
        if loader is None:
            raise TypeError("len() of a DataLoader iterator whose DataLoader is gone")
        return len(loader)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        self._loader_ref = weakref.ref(loader)  # the loader holds persistent iterators: no cycle
        self._sampler_iter = iter(loader._index_sampler)
        self._send_idx = 0  # next task index to send
        self._rcvd_idx = 0  # next task index to return
        # task index -> (worker_id,) while in flight, (worker_id, data) once arrived out of order
        self._task_info: dict[int, tuple] = {}
        self._tasks_outstanding = 0
        self._exhausted = False
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # persistent workers: each echoes the resume marker after the last task of the old
            # epoch, so everything received before all the echoes is stale and dropped
            for index_queue in self._index_queues:
                index_queue.put(_ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        if self._tasks_outstanding >= self._prefetch_factor * self._num_workers:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return  # every worker's stream has ended
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def __next__(self) -> Any:
        if self._shutdown:
            if self._exhausted:
                raise StopIteration
            raise RuntimeError("DataLoader iterator was shut down (a worker failed, timed out or the loading was interrupted)")
        try:
            return self._next_data()
        except KeyboardInterrupt:
            self._shutdown_workers()
            raise

    def _next_data(self) -> Any:
        while True:
            # skip the tasks of workers whose stream ended (their results will never come)
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                self._exhausted = True
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # arrived earlier, out of order
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[1])

            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _IterableDatasetStopIteration):
                self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process_data(data)

    def _process_data(self, data: Any) -> Any:
        if isinstance(data, ExceptionWrapper):
            # the exception's traceback keeps this iterator alive: stop the workers now, not at GC
            self._shutdown_workers()
            data.reraise()
        self._try_put_index()
        return data

    def _get_data(self) -> tuple[Any, Any]:
        if self._timeout > 0:
            found, data = self._try_get_data(self._timeout)
            if found:
                return data
            self._shutdown_workers()
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            found, data = self._try_get_data(MP_STATUS_CHECK_INTERVAL)
            if found:
                return data

    def _try_get_data(self, timeout: float) -> tuple[bool, Any]:
        """One bounded wait on the result queue; a worker found dead on the way is an error."""
        try:
            idx, data = self._worker_result_queue.get(timeout=timeout)
            if type(data) is _FdBatch:  # now, in arrival order: the descriptors wait in that order
                data = unpack(data, self._fd_sockets[data.worker_id])
            return True, (idx, data)
        except Exception as exc:
            dead = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            if dead:
                pids = ", ".join(str(w.pid) for w in dead)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from exc
            if isinstance(exc, queue.Empty):
                return False, None
            raise

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        # a persistent worker whose stream ended stays alive for the next epoch
        if not shutdown and self._persistent_workers:
            self._workers_status[worker_id] = False
            return
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        """Stop the workers, release every batch still in flight, and reap the processes."""
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        _LIVE_ITERATORS.discard(self)
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            # keep reading while they exit: a worker blocked on a full pipe gets unblocked, and
            # each batch taken out of the queue is dropped here, which frees its shared memory
            deadline = time.monotonic() + MP_STATUS_CHECK_INTERVAL
            while any(w.is_alive() for w in self._workers) and time.monotonic() < deadline:
                self._drain(0.02)
        finally:
            for worker in self._workers:
                if worker.is_alive():
                    worker.terminate()
            for worker in self._workers:
                worker.join(timeout=MP_STATUS_CHECK_INTERVAL)
            self._drain(0)
            for index_queue in self._index_queues:
                index_queue.cancel_join_thread()
                index_queue.close()
            for sock in self._fd_sockets:
                if sock is not None:
                    sock.close()  # descriptors still in flight close with it
            self._worker_result_queue.cancel_join_thread()
            self._worker_result_queue.close()
            self._task_info = {}

    def _drain(self, timeout: float) -> None:
        try:
            while True:
                self._worker_result_queue.get(timeout=timeout) if timeout else self._worker_result_queue.get_nowait()
        except Exception:  # Empty, or a message cut short by a killed worker
            pass

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter teardown: modules may already be gone
            self._shutdown_workers()
