"""How many threads ember's own parallel loops may use, and the pool they run on.

ember's parallel loops are NumPy calls that release the GIL: the chunks of graph mode's fused
elementwise programs and the blocks of large reductions. BLAS keeps its own setting.

The default follows ``OMP_NUM_THREADS`` when it is set, else the usable cores, like PyTorch's
``get_num_threads``; ``set_num_threads`` refuses what PyTorch refuses, with its texts.

>>> from ember._core.threads import get_num_threads, set_num_threads, parallel_map
>>> previous = get_num_threads(); set_num_threads(2); get_num_threads()
2
>>> parallel_map(lambda xs: [x * x for x in xs], [1, 2, 3, 4, 5])
[1, 4, 9, 16, 25]
>>> set_num_threads(previous)
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Sequence

__all__ = ["get_num_threads", "parallel_map", "set_num_threads"]


def _default() -> int:
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_NUM_THREADS = [_default()]


def get_num_threads() -> int:
    """The number of threads ember's parallel loops use."""
    return _NUM_THREADS[0]


def set_num_threads(n: int) -> None:
    """Use at most ``n`` threads in ember's parallel loops."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    _NUM_THREADS[0] = n


# --- the pool ------------------------------------------------------------------------------

_POOL: list = [None, 0, None]  # executor, its worker count, the pid that made it
_POOL_LOCK = threading.Lock()
_IN_WORKER = threading.local()  # set inside a pool worker: a nested parallel_map runs inline


def _forget_pool_in_child() -> None:
    """A forked child has the parent's pool object but none of its threads, and the lock may
    have been held by a parent thread at the fork: it starts with neither."""
    global _POOL_LOCK
    _POOL_LOCK = threading.Lock()
    _POOL[:] = [None, 0, None]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def _executor(workers: int):
    """The process's pool with at least ``workers`` threads (a forked child makes its own)."""
    with _POOL_LOCK:
        executor, size, pid = _POOL
        if executor is None or size < workers or pid != os.getpid():
            # imported on first parallel call: concurrent.futures costs `import ember` ~10 ms
            from concurrent.futures import ThreadPoolExecutor

            if executor is not None and pid == os.getpid():
                executor.shutdown(wait=False)  # its running tasks finish; new ones go to the larger pool
            size = max(workers, (os.cpu_count() or 2) - 1)
            executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="ember-worker")
            _POOL[:] = [executor, size, os.getpid()]
        return executor


def _run_in_worker(context: contextvars.Context, fn: Callable, items: Sequence) -> list:
    _IN_WORKER.active = True
    try:
        return context.run(fn, items)
    finally:
        _IN_WORKER.active = False


def parallel_map(fn: Callable[[Sequence], list], items: Sequence, threads: int | None = None) -> list:
    """``fn`` over ``items`` cut into contiguous runs, one run per thread, the calling thread
    taking the first; the results of the runs, concatenated in order.

    ``fn(run)`` gets a slice of ``items`` and returns a list of results (one per item, or
    any list: the runs' lists are joined). ``threads`` defaults to :func:`get_num_threads`.
    Workers run in a copy of the caller's context (NumPy's ``errstate`` and ember's modes
    follow), a worker's exception reaches the caller after every run has finished, and a call
    from inside a worker runs inline (no pool thread ever waits on the pool).

    >>> parallel_map(lambda run: [sum(run)], [1, 2, 3, 4], threads=2)
    [3, 7]
    """
    n = len(items)
    workers = min(get_num_threads() if threads is None else threads, n)
    if workers <= 1 or getattr(_IN_WORKER, "active", False):
        return fn(items)
    bounds = [n * w // workers for w in range(workers + 1)]
    executor = _executor(workers - 1)
    context = contextvars.copy_context()
    futures = [executor.submit(_run_in_worker, context.copy(), fn, items[bounds[w] : bounds[w + 1]]) for w in range(1, workers)]
    try:
        results = list(fn(items[: bounds[1]]))
    finally:
        for f in futures:
            f.exception()  # waits: no worker still reads the caller's arrays once we return or raise
    for f in futures:
        results.extend(f.result())  # re-raises a worker's error
    return results
