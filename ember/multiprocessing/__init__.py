"""``ember.multiprocessing``: the standard library's ``multiprocessing``, sending tensors as shared memory.

A drop-in for ``multiprocessing`` (every name of it is here), as ``torch.multiprocessing`` is for
PyTorch: a tensor put on a ``Queue`` or sent through a ``Pipe`` travels as a handle to its
storage's shared memory (name or file descriptor, offset, shape, strides, dtype), and the receiver
maps the same bytes, so writes are seen by both sides. A tensor not yet shared moves into shared
memory when first sent; tensors made inside ``with shared_memory():`` are born there, so sending
them costs nothing. Importing this module registers the reductions (``reductions.py``) and raises
the soft limit on open files to the hard limit (each shared storage holds a descriptor under the
``file_descriptor`` strategy). Lifetimes, strategies and the ``file_system`` manager are described
in ``ember._core.shared_memory``: a segment goes away as soon as no process holds it, however the
processes ended.

>>> import ember, ember.multiprocessing as emp
>>> q = emp.get_context("fork").SimpleQueue()
>>> t = ember.zeros(3)
>>> q.put(t); r = q.get()
>>> r[0] = 5.0; t.tolist()
[5.0, 0.0, 0.0]
"""

from __future__ import annotations

import contextlib
import multiprocessing as _mp
from collections.abc import Iterator

from .._core import shared_memory as _shm
from .._core.allocator import using_allocator
from .._core.shared_memory import (
    SharedMemoryAllocator,
    SharedSegment,
    get_all_sharing_strategies,
    get_sharing_strategy,
    list_shared,
    set_sharing_strategy,
)
from . import reductions
from .context import _DEFAULT, DefaultContext, Process, get_context

# the standard library's names, bound to ember's default context
Array = _DEFAULT.Array
Barrier = _DEFAULT.Barrier
BoundedSemaphore = _DEFAULT.BoundedSemaphore
Condition = _DEFAULT.Condition
Event = _DEFAULT.Event
JoinableQueue = _DEFAULT.JoinableQueue
Lock = _DEFAULT.Lock
Manager = _DEFAULT.Manager
Pipe = _DEFAULT.Pipe
Pool = _DEFAULT.Pool
Queue = _DEFAULT.Queue
RLock = _DEFAULT.RLock
RawArray = _DEFAULT.RawArray
RawValue = _DEFAULT.RawValue
Semaphore = _DEFAULT.Semaphore
SimpleQueue = _DEFAULT.SimpleQueue
Value = _DEFAULT.Value
active_children = _DEFAULT.active_children
allow_connection_pickling = _DEFAULT.allow_connection_pickling
cpu_count = _DEFAULT.cpu_count
current_process = _DEFAULT.current_process
freeze_support = _DEFAULT.freeze_support
get_all_start_methods = _DEFAULT.get_all_start_methods
get_logger = _DEFAULT.get_logger
get_start_method = _DEFAULT.get_start_method
log_to_stderr = _DEFAULT.log_to_stderr
parent_process = _DEFAULT.parent_process
set_executable = _DEFAULT.set_executable
set_forkserver_preload = _DEFAULT.set_forkserver_preload
set_start_method = _DEFAULT.set_start_method
AuthenticationError = _mp.AuthenticationError
BufferTooShort = _mp.BufferTooShort
ProcessError = _mp.ProcessError
TimeoutError = _mp.TimeoutError  # noqa: A001 - multiprocessing's own name

__all__ = [
    # ember's own
    "DefaultContext",
    "SharedMemoryAllocator",
    "SharedSegment",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "list_shared",
    "reductions",
    "set_sharing_strategy",
    "shared_memory",
    # the standard library's
    "Array",
    "AuthenticationError",
    "Barrier",
    "BoundedSemaphore",
    "BufferTooShort",
    "Condition",
    "Event",
    "JoinableQueue",
    "Lock",
    "Manager",
    "Pipe",
    "Pool",
    "Process",
    "ProcessError",
    "Queue",
    "RLock",
    "RawArray",
    "RawValue",
    "Semaphore",
    "SimpleQueue",
    "TimeoutError",
    "Value",
    "active_children",
    "allow_connection_pickling",
    "cpu_count",
    "current_process",
    "freeze_support",
    "get_all_start_methods",
    "get_context",
    "get_logger",
    "get_start_method",
    "log_to_stderr",
    "parent_process",
    "set_executable",
    "set_forkserver_preload",
    "set_start_method",
]


@contextlib.contextmanager
def shared_memory(strategy: str | None = None) -> Iterator[SharedMemoryAllocator]:
    """Scope in which new storages, kernel outputs included, are born in shared memory.

    Sending such tensors to another process costs no copy. The previous CPU allocator comes
    back on exit; ``strategy`` overrides :func:`get_sharing_strategy` for the block.

    >>> import ember
    >>> with shared_memory():
    ...     batch = ember.stack([ember.randn(2), ember.randn(2)])
    >>> batch.is_shared(), ember.randn(2).is_shared()
    (True, False)
    """
    allocator = _shm.SHARED_ALLOCATOR if strategy is None else SharedMemoryAllocator(strategy)
    with using_allocator(allocator):
        yield allocator


_shm.raise_fd_limit()
