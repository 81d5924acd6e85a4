"""What runs inside a DataLoader worker process: the fetchers, the worker loop, ``get_worker_info``.

A worker takes ``(task index, sampler indices)`` from its own index queue, fetches the samples,
collates them inside ``ember.multiprocessing.shared_memory()`` (so the batch is born in shared
memory and travels as a handle, never as a copy) and puts ``(task index, batch)`` on the one
result queue that all workers share. The batch's segments go ahead of it as file descriptors on
a socket of the worker's own (:class:`_FdBatch`). ``None`` on the index queue means "exit"; a
:class:`_ResumeIteration` means "a new epoch starts" (persistent workers). A worker ignores
Ctrl-C (the main process handles it) and exits when its parent is gone.

In the main process there is no worker:

>>> get_worker_info() is None
True
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import queue
import random
import signal
import socket
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

from ember._core.storage import Storage

from ..._core import dtype as dtypes
from ..._core.generator import manual_seed
from ...ops import functional as F
from ._collate import default_collate
from .dataset import IterableDataset, TensorDataset

__all__ = ["WorkerInfo", "get_worker_info"]

# How often a blocked process wakes up to check on its peers (a dead worker, a dead main process).
MP_STATUS_CHECK_INTERVAL = 1.0


class WorkerInfo:
    """Who this worker is: ``id``, ``num_workers``, ``seed`` and its copy of the ``dataset``.

    Read-only, as in PyTorch:

    >>> info = WorkerInfo(id=0, num_workers=2, seed=7, dataset=None)
    >>> info.id, info.num_workers, info.seed
    (0, 2, 7)
    >>> info.id = 1
    Traceback (most recent call last):
    ...
    RuntimeError: Cannot assign attributes to WorkerInfo objects
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any

    def __init__(self, **kwargs: Any) -> None:
        for key, value in kwargs.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_keys", tuple(kwargs))

    def __setattr__(self, key: str, value: Any) -> None:
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._keys)
        return f"{type(self).__name__}({fields})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process, this worker's :class:`WorkerInfo`; ``None`` elsewhere.

    An ``IterableDataset`` uses it to split its stream between workers (each worker iterates its
    own copy of the dataset, so without a split every sample would arrive ``num_workers`` times):

    >>> class Range(ember.utils.data.IterableDataset):
    ...     def __iter__(self):
    ...         info = get_worker_info()
    ...         step, first = (1, 0) if info is None else (info.num_workers, info.id)
    ...         return iter(range(first, 6, step))
    >>> [b.tolist() for b in ember.utils.data.DataLoader(Range(), batch_size=3)]
    [[0, 1, 2], [3, 4, 5]]
    """
    return _worker_info


# ---------------------------------------------------------------------------------------
# messages between the main process and the workers


class _ResumeIteration:
    """Sent to persistent workers at the start of each epoch after the first; echoed back."""


class _IterableDatasetStopIteration:
    """A worker's copy of an IterableDataset ran out: that worker gets no more tasks this epoch."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


def _picklable(exc_type: type) -> bool:
    try:
        pickle.dumps(exc_type)
    except Exception:
        return False
    return True


class ExceptionWrapper:
    """An exception and its formatted traceback, to re-raise in another process.

    >>> try:
    ...     raise ValueError("bad sample")
    ... except ValueError:
    ...     wrapped = ExceptionWrapper(where="in DataLoader worker process 0")
    >>> wrapped.reraise()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Caught ValueError in DataLoader worker process 0.
    Original Traceback (most recent call last):
    ...
    ValueError: bad sample
    <BLANKLINE>
    """

    def __init__(self, exc_info: tuple | None = None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        # the traceback itself holds frames and cannot travel: keep its text
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.exc_name = exc_info[0].__name__
        # a class that cannot be pickled (defined inside a function) comes back as RuntimeError
        self.exc_type = exc_info[0] if _picklable(exc_info[0]) else RuntimeError
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)  # KeyError repr()s its argument: keep the text readable
        try:
            exception = self.exc_type(msg)
        except Exception:
            # an exception that cannot be built from one message
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self) -> str:
        return str(self)


# ---------------------------------------------------------------------------------------
# fetchers: turn the sampler's indices into a batch (shared by the main process and workers)


class _MapFetcher:
    """Map-style dataset: ``dataset[i]`` for each index (or ``__getitems__`` for the batch)."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool, scope: Callable) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.scope = scope

    def fetch(self, index: Any) -> Any:
        dataset = self.dataset
        if self.auto_collation:
            if self.collate_fn is default_collate and type(dataset) is TensorDataset:
                batch = _gather_rows(dataset.tensors, index, self.scope)
                if batch is not None:
                    return batch
            getitems = getattr(dataset, "__getitems__", None)
            data = getitems(index) if getitems is not None else [dataset[i] for i in index]
        else:
            data = dataset[index]
        with self.scope():  # only the batch is born in shared memory, not the samples
            return self.collate_fn(data)


def _gather_rows(tensors: tuple, index: list, scope: Callable) -> list | None:
    """What ``default_collate([dataset[i] for i in index])`` gives for a TensorDataset, one
    gather per tensor instead of a view per sample and a stack (0.41 ms a batch of 64 for the
    demo's digits). None when the general road must run: autograd, other devices, strings, an
    index out of range (its error names it)."""
    n = len(tensors[0])
    if not index or not all(-n <= i < n for i in index):
        return None
    for t in tensors:
        if t._requires_grad or t._storage._device.type != "cpu" or t._dtype is dtypes.string:
            return None
    rows = np.asarray(index, dtype=np.intp)
    batch = []
    with scope():  # a worker's batch is born in shared memory, as the stack would be
        for t in tensors:
            out = F.empty((len(index), *t._shape[1:]), dtype=t._dtype)
            # mode='wrap' is Python's negative indexing (rows are checked above); the default
            # mode would buffer `out`, three times slower
            np.take(t._host_array(), rows, axis=0, out=out._host_array(), mode="wrap")
            batch.append(out)
    return batch


class _IterableFetcher:
    """IterableDataset: the next ``len(index)`` items of the stream; ``StopIteration`` at its end."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool, scope: Callable) -> None:
        self.dataset_iter: Iterator[Any] = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.scope = scope
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        with self.scope():
            return self.collate_fn(data)


def create_fetcher(dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool, scope: Callable | None = None):
    kind = _IterableFetcher if isinstance(dataset, IterableDataset) else _MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last, scope or contextlib.nullcontext)


def _ember_multiprocessing() -> Any:
    """``ember.multiprocessing`` when it is importable (else the standard library's, pickling copies)."""
    try:
        from ember import multiprocessing as emp
    except ImportError:
        return None
    return emp if hasattr(emp, "get_context") and hasattr(emp, "shared_memory") else None


def _shared_memory_scope() -> Callable[[], AbstractContextManager]:
    """``ember.multiprocessing.shared_memory``: where worker processes allocate their batches."""
    emp = _ember_multiprocessing()
    return contextlib.nullcontext if emp is None else emp.shared_memory


# ---------------------------------------------------------------------------------------
# batches by descriptor: the worker's segments reach the main process with the message itself


class _FdBatch:
    """A pickled batch whose shared storages travel as file descriptors on the worker's socket.

    ``ember.multiprocessing`` sends a segment's descriptor on request: the receiver connects back
    to a thread of the sender and waits for it, once per storage, and that thread competes for
    the worker's interpreter lock with the worker's own loop. Here the worker pushes the
    descriptors down a socket of its own before the message leaves, so the main process finds
    them waiting there: no round trip, no copy.
    """

    __slots__ = ("nfds", "payload", "worker_id")

    def __init__(self, worker_id: int, payload: bytes, nfds: int) -> None:
        self.worker_id = worker_id
        self.payload = payload
        self.nfds = nfds

    def __reduce__(self):
        return (_FdBatch, (self.worker_id, self.payload, self.nfds))


_MAX_FDS = 250  # per message: the kernel takes at most 253 (SCM_MAX_FD)


class _FdPickler(ForkingPickler):
    def __init__(self, file: io.BytesIO, fds: list[int]) -> None:
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.fds = fds

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is not Storage or obj.is_meta or obj._holds_objects or obj._nbytes == 0:
            return None
        fd, nbytes = obj._share_fd_()  # a batch collated in shared memory is already there
        self.fds.append(fd)
        return nbytes


class _FdUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, fds: list[int]) -> None:
        super().__init__(file)
        self.fds = iter(fds)

    def persistent_load(self, nbytes: Any) -> Storage:
        return Storage._new_shared_fd(next(self.fds), nbytes)


def fd_channel() -> tuple[socket.socket, socket.socket]:
    """A (main end, worker end) socket pair; each send is one record with its descriptors."""
    main_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    main_end.settimeout(10 * MP_STATUS_CHECK_INTERVAL)  # the descriptors are sent before the message
    return main_end, worker_end


def _pack(worker_id: int, data: Any, sock: socket.socket, watchdog: _ParentWatchdog) -> Any:
    """Pickle ``data`` with its storages as descriptors, send those on ``sock``; the message to queue."""
    fds: list[int] = []
    buffer = io.BytesIO()
    _FdPickler(buffer, fds).dump(data)
    for start in range(0, len(fds), _MAX_FDS):
        while True:
            try:
                socket.send_fds(sock, [b"f"], fds[start : start + _MAX_FDS])
                break
            except TimeoutError:  # the main process is not reading: is it still there?
                if not watchdog.is_alive():
                    raise
    return _FdBatch(worker_id, buffer.getvalue(), len(fds))


def unpack(batch: _FdBatch, sock: socket.socket) -> Any:
    """The main process's side of :func:`_pack`: receive the descriptors, map, unpickle."""
    fds: list[int] = []
    try:
        while len(fds) < batch.nfds:
            _, got, flags, _ = socket.recv_fds(sock, 16, min(_MAX_FDS, batch.nfds - len(fds)))
            fds.extend(got)
            if flags & socket.MSG_CTRUNC or not got:
                raise RuntimeError(
                    f"DataLoader: received {len(fds)} of the {batch.nfds} shared-memory descriptors of a batch from worker "
                    f"{batch.worker_id} (this process may be out of file descriptors: raise the limit with ulimit -n, or "
                    f"call ember.multiprocessing.set_sharing_strategy('file_system'))"
                )
        return _FdUnpickler(io.BytesIO(batch.payload), fds).load()
    finally:
        for fd in fds:  # each storage mapped a duplicate
            os.close(fd)


# ---------------------------------------------------------------------------------------
# the worker process


class _ParentWatchdog:
    """True while the process that started this worker is alive (orphans are re-parented)."""

    def __init__(self) -> None:
        self.parent_pid = os.getppid()
        self.parent_dead = False

    def is_alive(self) -> bool:
        if not self.parent_dead:
            self.parent_dead = os.getppid() != self.parent_pid
        return not self.parent_dead


def _seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed ember's, Python's and NumPy's global RNGs for one worker (PyTorch's recipe: the seed is
    ``base_seed + worker_id``; NumPy's is hashed from both); returns the seed."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed % 2**64)
    # NumPy's legacy seed takes 32-bit words: hash (worker, base seed) into four of them
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    return seed


def _worker_loop(
    dataset: Any,
    index_queue: Any,
    data_queue: Any,
    done_event: Any,
    auto_collation: bool,
    collate_fn: Callable,
    drop_last: bool,
    base_seed: int,
    init_fn: Callable[[int], None] | None,
    worker_id: int,
    num_workers: int,
    fd_socket: socket.socket | None = None,
    main_socket: socket.socket | None = None,
) -> None:
    global _worker_info
    # Ctrl-C reaches the whole process group: the main process handles it and shuts us down
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if main_socket is not None:
        main_socket.close()  # our copy of the main end: with it open, a dead main would never be noticed
    if fd_socket is not None:
        fd_socket.settimeout(MP_STATUS_CHECK_INTERVAL)
    try:
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"
        _report_unpicklable_results(data_queue, where)
        scope = _shared_memory_scope()
        emp = _ember_multiprocessing()
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(dataset, auto_collation, collate_fn, drop_last, scope)
        except Exception:
            init_exception = ExceptionWrapper(where=where)

        iteration_end = False  # this epoch's stream ran out: skip tasks until the next epoch
        watchdog = _ParentWatchdog()
        while watchdog.is_alive():
            try:
                task = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(task, _ResumeIteration):
                data_queue.put((task, None))
                iteration_end = False
                if init_exception is None:
                    fetcher = create_fetcher(dataset, auto_collation, collate_fn, drop_last, scope)
                continue
            if task is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # the main process no longer wants results
            idx, index = task
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not isinstance(fetcher, _IterableFetcher):
                        data = ExceptionWrapper(where=where)
                    else:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:
                    data = ExceptionWrapper(where=where)
            if fd_socket is not None and not isinstance(data, _CONTROL) and emp.get_sharing_strategy() == "file_descriptor":
                try:
                    data = _pack(worker_id, data, fd_socket, watchdog)
                except Exception:  # e.g. something in the batch that cannot be pickled
                    data = ExceptionWrapper(where=where)
            data_queue.put((idx, data))
            del data, idx, index, task  # drop this process's reference to the batch before waiting
    except KeyboardInterrupt:
        pass  # the main process raises it
    if done_event.is_set():
        # the main process stopped reading: exit without waiting for unsent results to flush
        data_queue.cancel_join_thread()
        data_queue.close()


_CONTROL = (ExceptionWrapper, _IterableDatasetStopIteration)


def _report_unpicklable_results(data_queue: Any, where: str) -> None:
    """A result that cannot be pickled is lost in the queue's feeder thread, and the main process
    would wait for it forever: send the pickling error in its place."""
    if not hasattr(data_queue, "_on_queue_feeder_error"):
        return

    def on_error(exc: BaseException, obj: Any) -> None:
        if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], int):
            data_queue.put((obj[0], ExceptionWrapper((type(exc), exc, exc.__traceback__), where=where)))
        else:
            traceback.print_exception(type(exc), exc, exc.__traceback__)

    data_queue._on_queue_feeder_error = on_error
