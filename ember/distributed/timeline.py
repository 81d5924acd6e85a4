"""A per-rank timeline of collectives and named spans, written as a Chrome trace.

``with ember.distributed.timeline("run.json"):`` records every collective this process runs
(name, bytes, group, its number on the group) and every span a program marks with
:func:`record_span`, then writes them in the Chrome trace-event format (open it in
``chrome://tracing`` or https://ui.perfetto.dev). Each rank is one "process" row, named
``rank K``, and times are wall-clock microseconds, so the files of one job line up when
merged: ``ember-run --timeline run.json`` does that and writes one file for the whole job.
Recording is off unless a timeline is open; then each event costs about a microsecond.

>>> import json, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "t.json")
>>> with timeline(path):
...     with record_span("bucket 0", category="ddp", nbytes=4096):
...         pass
>>> [e["name"] for e in json.load(open(path))["traceEvents"] if e["ph"] == "X"]
['bucket 0']
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator

__all__ = ["Timeline", "active_timeline", "merge", "record", "record_span", "timeline"]

# Maps time.perf_counter() to wall-clock microseconds, so ranks' timelines line up.
_WALL_OFFSET_US = (time.time() - time.perf_counter()) * 1e6


class Timeline:
    """The events recorded while a :func:`timeline` block is open, in trace-event form."""

    def __init__(self, path: str | None, rank: int) -> None:
        self.path = path
        self.rank = rank
        self.events: list[dict] = []
        self._threads: dict[int, int] = {}

    def add(self, name: str, start: float, end: float, category: str = "user", args: dict | None = None) -> None:
        """One complete span; ``start``/``end`` are ``time.perf_counter()`` values."""
        ident = threading.get_ident()
        tid = self._threads.get(ident)
        if tid is None:
            tid = self._threads[ident] = len(self._threads)
            self.events.append({"ph": "M", "name": "thread_name", "pid": self.rank, "tid": tid,
                                "args": {"name": threading.current_thread().name}})
        self.events.append({
            "name": name, "cat": category, "ph": "X", "pid": self.rank, "tid": tid,
            "ts": round(start * 1e6 + _WALL_OFFSET_US, 3), "dur": round((end - start) * 1e6, 3), "args": args or {},
        })

    def to_json(self) -> dict:
        head = [{"ph": "M", "name": "process_name", "pid": self.rank, "args": {"name": f"rank {self.rank}"}},
                {"ph": "M", "name": "process_sort_index", "pid": self.rank, "args": {"sort_index": self.rank}}]
        return {"traceEvents": head + self.events, "displayTimeUnit": "ms"}

    def save(self, path: str | None = None) -> str:
        """Write the Chrome trace to ``path`` (or the path given when the timeline opened)."""
        path = path or self.path
        if path is None:
            raise ValueError("Timeline.save: no path given")
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(self.to_json(), f)
        os.replace(tmp, path)
        return path


_ACTIVE: list[Timeline] = []


def active_timeline() -> Timeline | None:
    """The innermost open timeline of this process, or None."""
    return _ACTIVE[-1] if _ACTIVE else None


@contextlib.contextmanager
def timeline(path: str | None = None, *, rank: int | None = None) -> Iterator[Timeline]:
    """Record collectives and spans in the block; write a Chrome trace to ``path`` at its end.

    ``rank`` labels the rows (default: the rank in the default group, else 0). ``path`` may be
    None to keep the events in memory (``Timeline.events``, ``Timeline.save(path)``).
    """
    if rank is None:
        rank = _default_rank()
    tl = Timeline(path, rank)
    _ACTIVE.append(tl)
    try:
        yield tl
    finally:
        _ACTIVE.remove(tl)
        if path is not None:
            tl.save()


def _default_rank() -> int:
    for var in ("RANK", "PMI_RANK"):
        value = os.environ.get(var)
        if value is not None and value.isdigit():
            return int(value)
    return 0


@contextlib.contextmanager
def record_span(name: str, category: str = "user", **args) -> Iterator[None]:
    """Mark the block as a named span on the open timeline (nothing when none is open).

    ``args`` are shown with the span (bytes, bucket index, ...). DDP marks its buckets so.
    """
    if not _ACTIVE:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        end = time.perf_counter()
        for tl in _ACTIVE:
            tl.add(name, start, end, category, args)


def record(name: str, start: float, end: float, category: str = "user", **args) -> None:
    """Add a span measured elsewhere (``time.perf_counter()`` values), e.g. from an async
    collective's launch to its completion. Nothing happens when no timeline is open."""
    for tl in _ACTIVE:
        tl.add(name, start, end, category, args)


def merge(paths: list[str], out: str) -> str:
    """Join per-rank trace files into one (the launcher's ``--timeline``)."""
    events: list = []
    for p in paths:
        with open(p) as f:
            events.extend(json.load(f)["traceEvents"])
    with open(out, "w") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)
    return out
