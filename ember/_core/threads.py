"""How many threads ember's own parallel loops may use (the fused elementwise programs of graph
mode split their chunks over them; NumPy's loops release the GIL). BLAS keeps its own setting.

The default follows ``OMP_NUM_THREADS`` when it is set, else the usable cores, like PyTorch's
``get_num_threads``.

>>> from ember._core.threads import get_num_threads, set_num_threads
>>> previous = get_num_threads(); set_num_threads(1); get_num_threads()
1
>>> set_num_threads(previous)
"""

from __future__ import annotations

import os

__all__ = ["get_num_threads", "set_num_threads"]


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
    return _NUM_THREADS[0]


def set_num_threads(n: int) -> None:
    """Use at most ``n`` threads in ember's parallel loops."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads(): expected a positive int, got {n!r}")
    _NUM_THREADS[0] = n
