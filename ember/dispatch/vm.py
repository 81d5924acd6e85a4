"""The VM: kernels run as instructions on a per-device stream.

A stream is synchronous by default: ``launch`` runs the kernel at once and a kernel error is
raised at the call. Inside ``with ember.vm.asynchronous():`` the CPU stream is a worker
thread fed through a queue: ``launch`` returns as soon as the instruction is queued, so Python
can dispatch the next op while NumPy computes (NumPy releases the GIL in its loops). Host
code that touches memory (``numpy()``, ``item()``, printing, storage access) is a sync point:
it waits for the queue to drain. A kernel error surfaces at the next sync point, naming the
op and the line of user code that called it; the instructions queued after a failed one are
dropped, since their inputs may be garbage.

>>> import ember
>>> with ember.vm.asynchronous():
...     y = ember.relu(ember.tensor([-1.0, 2.0]))
...     y.tolist()                         # a sync point
[0.0, 2.0]
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator

from .._core.device import Device
from .._core.storage import sync_point
from .opexpr import OpExpr

__all__ = ["AsyncKernelError", "Instruction", "Stream", "asynchronous", "is_asynchronous", "stream_for", "synchronize"]


class AsyncKernelError(RuntimeError):
    """A kernel that failed on an asynchronous stream, raised at the next sync point."""


class Instruction:
    """One kernel launch: the op, its kernel, the NumPy arrays in and out, the attributes,
    and (asynchronous streams only) the user's call site, for error messages."""

    __slots__ = ("attrs", "callsite", "ins", "kernel", "op", "outs")

    def __init__(self, op: OpExpr, kernel: Callable, outs: tuple, ins: tuple, attrs: dict, callsite: str) -> None:
        self.op = op
        self.kernel = kernel
        self.outs = outs
        self.ins = ins
        self.attrs = attrs
        self.callsite = callsite

    def __repr__(self) -> str:
        return f"Instruction({self.op.name}, ins={len(self.ins)}, outs={len(self.outs)})"


class Stream:
    """The synchronous stream of a device: a launch is a call."""

    asynchronous = False

    def __init__(self, device: Device) -> None:
        self.device = device

    def launch(self, op: OpExpr, kernel: Callable, outs: tuple, ins: tuple, attrs: dict) -> None:
        kernel(outs, ins, attrs)

    def synchronize(self) -> None:
        """Nothing is ever in flight on a synchronous stream."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.device}>"


class AsyncStream(Stream):
    """A worker thread that runs instructions in order, fed through a queue."""

    asynchronous = True

    def __init__(self, device: Device) -> None:
        super().__init__(device)
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._submitted = 0  # written by the launching thread only
        self._done = 0  # written by the worker only
        self._error: tuple[Instruction, BaseException] | None = None
        self._worker = threading.Thread(target=self._run, name=f"ember-stream-{device}", daemon=True)
        self._worker.start()

    def launch(self, op: OpExpr, kernel: Callable, outs: tuple, ins: tuple, attrs: dict) -> None:
        self._submitted += 1
        self._queue.put(Instruction(op, kernel, outs, ins, attrs, _user_callsite()))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            if self._error is None:
                try:
                    item.kernel(item.outs, item.ins, item.attrs)
                except BaseException as exc:  # reported at the next sync point
                    self._error = (item, exc)
            self._done += 1

    def synchronize(self) -> None:
        if self._done != self._submitted:
            done = threading.Event()
            self._queue.put(done)
            done.wait()
        if self._error is not None:
            instruction, exc = self._error
            self._error = None
            raise AsyncKernelError(
                f"kernel {instruction.op.name} failed on the asynchronous {self.device} stream "
                f"(called at {instruction.callsite}): {type(exc).__name__}: {exc}"
            ) from exc

    def close(self) -> None:
        self.synchronize()
        self._queue.put(None)
        self._worker.join()


_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_callsite() -> str:
    """file:line of the innermost frame outside ember (the user's call)."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_EMBER_DIR) and not filename.startswith("<ember"):
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


# ---------------------------------------------------------------------------------------
# which stream a device uses, per thread and scoped

_SYNC_STREAMS: dict[Device, Stream] = {}


class _StreamMode(threading.local):
    def __init__(self) -> None:
        self.streams: dict[Device, Stream] = _SYNC_STREAMS


_mode = _StreamMode()

# Why kernels cannot be called straight from the eager interpreter now: one count per open
# ``asynchronous()`` block (on any thread) and per open ``ember.trace()`` (which watches the
# launch). At 0 every thread's CPU stream is the synchronous one, whose launch is a call, so
# the interpreter skips the stream lookup and the launch frame.
LONG_ROAD = [0]


@contextlib.contextmanager
def long_road() -> Iterator[None]:
    """Route every launch through its stream inside the block (a tracer watches launches)."""
    LONG_ROAD[0] += 1
    try:
        yield
    finally:
        LONG_ROAD[0] -= 1


def stream_for(device: Device) -> Stream:
    """The stream that kernels for ``device`` are launched on, on this thread now."""
    stream = _mode.streams.get(device)
    if stream is None:
        stream = _mode.streams[device] = (AsyncStream if _mode.streams is not _SYNC_STREAMS else Stream)(device)
    return stream


def is_asynchronous() -> bool:
    return _mode.streams is not _SYNC_STREAMS


def synchronize() -> None:
    """Wait for every kernel queued on this thread's streams; raise the first kernel error."""
    for stream in list(_mode.streams.values()):
        stream.synchronize()


@contextlib.contextmanager
def asynchronous() -> Iterator[None]:
    """Run kernels on worker-thread streams inside the block (this thread); sync on exit."""
    previous_streams, previous_wait = _mode.streams, sync_point.wait
    _mode.streams = {}
    sync_point.wait = synchronize
    LONG_ROAD[0] += 1
    try:
        yield
    finally:
        LONG_ROAD[0] -= 1
        streams = _mode.streams
        _mode.streams, sync_point.wait = previous_streams, previous_wait
        error = None
        for stream in streams.values():
            try:
                stream.close()
            except AsyncKernelError as exc:
                error = error or exc
        if error is not None and sys.exc_info()[0] is None:
            raise error
