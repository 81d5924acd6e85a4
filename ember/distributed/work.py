"""Work: the handle an ``async_op=True`` collective returns, over MPI's non-blocking requests.

``wait()`` blocks until the collective completed (bounded by the group's timeout through the
watchdog) and then finishes it: copies out of scratch buffers, rounds widened half types
back, divides for AVG, bumps the version counters of tensors written in place.
``wait(timeout=...)`` polls instead and raises :class:`DistBackendError` when the time is up;
the group cannot be trusted after that, since MPI cannot cancel a started collective.
"""

from __future__ import annotations

import datetime
import time

from . import observe

__all__ = ["DistBackendError", "DistError", "Work"]


class DistError(RuntimeError):
    """A distributed operation failed (PyTorch's ``torch.distributed.DistError``)."""


class DistBackendError(DistError):
    """The communication backend failed or timed out (PyTorch's ``DistBackendError``)."""


class Work:
    """A collective (or send/recv) in flight. ``wait()``, ``is_completed()``, ``result()``."""

    __slots__ = ("_done", "_finish", "_info", "_request", "_result", "_source", "_start")

    def __init__(self, request, finish, info: tuple | None, result: list | None = None) -> None:
        self._request = request  # an _mpi.Request, or None when nothing is pending
        self._finish = finish  # called once after completion; may return a source rank (irecv)
        self._info = info  # (name, group, number, detail) for the watchdog, the trace and the timeline
        self._result = result or []
        self._source = -1
        self._start = time.perf_counter()
        self._done = request is None
        if self._done:
            self._complete()

    def is_completed(self) -> bool:
        """Whether the operation finished (finishing it if MPI says it is done). Never blocks."""
        if not self._done and self._request.test():
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def exception(self):
        return None

    def wait(self, timeout=None) -> bool:
        """Block until done; with ``timeout`` (a timedelta or seconds) raise DistBackendError past it."""
        if self._done:
            return True
        seconds = _seconds(timeout)
        if seconds is None:
            observe.waiting(self._info, self._start)
            try:
                self._request.wait()
            finally:
                observe.waited()
        else:
            deadline = time.perf_counter() + seconds
            while not self._request.test():
                if time.perf_counter() > deadline:
                    name, pg, seq, _ = self._info
                    raise DistBackendError(
                        f"Work.wait: collective #{seq} {name} on {pg.describe()} did not complete within {seconds:.3f} s; "
                        f"MPI cannot cancel it, so the group should not be used again"
                    )
        self._complete()
        return True

    synchronize = wait

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            source = self._finish()
            if source is not None:
                self._source = source
        if self._info is not None and self._request is not None:
            observe.finished_async(self._info, self._start)

    def result(self) -> list:
        """The tensors the operation wrote (or read), as PyTorch's ``Work.result()``."""
        self.wait()
        return self._result

    def source_rank(self) -> int:
        """The sender of a completed ``irecv`` (group rank)."""
        self.wait()
        return self._source

    def __repr__(self) -> str:
        what = self._info[0] if self._info else "operation"
        return f"<Work {what} {'completed' if self._done else 'pending'}>"


def _seconds(timeout) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, datetime.timedelta):
        value = timeout.total_seconds()
        return None if value == 0 else value  # PyTorch's default timedelta(0) means: no timeout
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    raise TypeError(f"Work.wait: timeout must be a datetime.timedelta or seconds, not {type(timeout).__name__}")
