"""TensorBoard event files: ``FileWriter`` and the TFRecord framing they use; ``tf.summary``.

A record is ``uint64 length``, the masked CRC32C of those 8 bytes, the data, and the masked
CRC32C of the data (all little-endian). An event file's first record is an ``Event`` with
``file_version = "brain.Event:2"``; ``add_graph`` appends one whose ``graph_def`` is a
serialized ``GraphDef``, ``add_summary`` one whose ``summary`` is what a summary op computed
(``summary_ops.py``, re-exported here so this module is TensorFlow 1's ``tf.summary``). CRC32C (Castagnoli) comes from
``crc32c.py``, in Python and NumPy, so writing needs nothing beyond protobuf.

>>> hex(crc32c(b"123456789"))
'0xe3069283'
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
import time
from typing import ClassVar

from .crc32c import crc32c, masked_crc32c
from .export import _as_graph_def_message
from .proto import Event, RunMetadata, SessionLog, Summary, SummaryMetadata, TaggedRunMetadata
from .summary_ops import SUMMARIES, audio, histogram, image, merge, merge_all, scalar, tensor_summary, text

__all__ = [
    "FILE_VERSION", "SUMMARIES", "Event", "FileWriter", "FileWriterCache", "SessionLog", "Summary", "SummaryMetadata",
    "TaggedRunMetadata", "audio", "crc32c", "histogram", "image", "masked_crc32c", "merge", "merge_all", "read_records",
    "scalar", "summary_iterator", "tensor_summary", "text", "tfrecord",
]

FILE_VERSION = "brain.Event:2"


def tfrecord(data: bytes) -> bytes:
    """One TFRecord: length, its masked CRC, the data, its masked CRC."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


def read_records(path: str | os.PathLike):
    """Yields the data of each TFRecord in a file, checking both CRCs (ValueError on a bad one or a truncated record)."""
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise ValueError(f"{path}: truncated record header")
            (length,), (crc,) = struct.unpack("<Q", header[:8]), struct.unpack("<I", header[8:])
            if crc != masked_crc32c(header[:8]):
                raise ValueError(f"{path}: bad CRC on a record's length")
            body = f.read(length + 4)
            if len(body) < length + 4:
                raise ValueError(f"{path}: truncated record")
            data, (crc,) = body[:length], struct.unpack("<I", body[length:])
            if crc != masked_crc32c(data):
                raise ValueError(f"{path}: bad CRC on a record's data")
            yield data


def summary_iterator(path: str | os.PathLike):
    """Yields the ``Event`` messages of an event file, in order (TensorFlow 1's
    ``tf.compat.v1.train.summary_iterator``)."""
    for record in read_records(path):
        yield Event.FromString(record)


class FileWriter:
    """Writes an event file TensorBoard reads, like ``tf.compat.v1.summary.FileWriter``.

    The file is ``logdir/events.out.tfevents.<seconds>.<host><suffix>``; if two writers start in
    the same second, the later adds ``.1``, ``.2``... rather than overwrite the first. Every event
    reaches the file when it is added (TensorBoard sees it at once), so ``max_queue`` and
    ``flush_secs`` are accepted for TensorFlow's signature only. After ``close``, ``reopen``
    starts a new file in the same directory.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as logdir:
    ...     with FileWriter(logdir) as writer:
    ...         writer.add_summary(Summary(value=[Summary.Value(tag="loss", simple_value=0.5)]), global_step=3)
    ...     kinds = [event.WhichOneof("what") for event in summary_iterator(writer.path)]
    >>> kinds
    ['file_version', 'summary']
    """

    def __init__(self, logdir: str | os.PathLike, graph=None, max_queue: int = 10, flush_secs: float = 120,
                 graph_def=None, filename_suffix: str | None = None, session=None) -> None:
        if session is not None:
            raise ValueError("FileWriter(): session= (TensorFlow 2's summary writer behind a v1 FileWriter) is not supported; leave it None")
        self.logdir = os.fspath(logdir)
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._closed = True
        self._seen_summary_tags: set = set()
        self._run_metadata_tags: set = set()
        self._open()
        if graph is not None or graph_def is not None:
            self.add_graph(graph if graph is not None else graph_def)

    def _open(self) -> None:
        os.makedirs(self.logdir, exist_ok=True)
        now = time.time()
        base = os.path.join(self.logdir, f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}{self._suffix}")
        path, n = base, 0
        while True:
            try:
                self._file = open(path, "xb")  # noqa: SIM115 (closed by close())
                break
            except FileExistsError:
                n += 1
                path = f"{base}.{n}"
        self.path = path
        self._closed = False
        self.add_event(Event(wall_time=now, step=0, file_version=FILE_VERSION))

    def get_logdir(self) -> str:
        return self.logdir

    def add_event(self, event: Event) -> None:
        """Appends one Event record to the file."""
        record = tfrecord(event.SerializeToString())
        with self._lock:
            if self._closed:
                raise RuntimeError(f"FileWriter for {self.logdir!r} is closed")
            self._file.write(record)
            self._file.flush()

    def add_graph(self, graph, global_step: int | None = None) -> None:
        """Appends the graph (a Graph or a GraphDef) as a ``graph_def`` event."""
        graph_def = _as_graph_def_message(graph, add_shapes=True)
        self.add_event(Event(wall_time=time.time(), step=global_step or 0, graph_def=graph_def.SerializeToString()))

    def add_meta_graph(self, meta_graph_def, global_step: int | None = None) -> None:
        """Appends a ``MetaGraphDef`` (a message, or its serialized bytes) as a ``meta_graph_def`` event."""
        if isinstance(meta_graph_def, (bytes, bytearray)):
            data = bytes(meta_graph_def)
        elif hasattr(meta_graph_def, "SerializeToString"):
            data = meta_graph_def.SerializeToString()
        else:
            raise TypeError(f"FileWriter.add_meta_graph(): expected a MetaGraphDef protobuf or its bytes, got {type(meta_graph_def).__name__}")
        self.add_event(Event(wall_time=time.time(), step=_step(global_step), meta_graph_def=data))

    def add_summary(self, summary, global_step: int | None = None) -> None:
        """Appends a summary: the bytes a summary op computed, or a ``Summary`` message.

        As TensorFlow, a tag's plugin metadata is written with its first value only (TensorBoard
        reads it from there).
        """
        summary = _as_message(summary, Summary, "add_summary", "summary")
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
            else:
                self._seen_summary_tags.add(value.tag)
        self.add_event(Event(wall_time=time.time(), step=_step(global_step), summary=summary))

    def add_session_log(self, session_log, global_step: int | None = None) -> None:
        """Appends a ``SessionLog`` (START, STOP or CHECKPOINT with its path)."""
        session_log = _as_message(session_log, SessionLog, "add_session_log", "session_log")
        self.add_event(Event(wall_time=time.time(), step=_step(global_step), session_log=session_log))

    def add_run_metadata(self, run_metadata, tag: str, global_step: int | None = None) -> None:
        """Appends a traced run's ``RunMetadata`` under ``tag`` (each tag once per writer)."""
        if tag in self._run_metadata_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._run_metadata_tags.add(tag)
        run_metadata = _as_message(run_metadata, RunMetadata, "add_run_metadata", "run_metadata")
        tagged = TaggedRunMetadata(tag=tag, run_metadata=run_metadata.SerializeToString())
        self.add_event(Event(wall_time=time.time(), step=_step(global_step), tagged_run_metadata=tagged))

    def flush(self) -> None:
        with self._lock:
            if not self._closed:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._file.close()

    def reopen(self) -> None:
        """After ``close``, open a new event file in the same directory (nothing when open)."""
        with self._lock:
            closed = self._closed
        if closed:
            self._open()

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown anything may be gone
            self.close()


def _as_message(value, cls, method: str, arg: str):
    """``value`` as ember's message ``cls``: from its serialized bytes, or from a message of
    another library with the same fields (TensorFlow's, TensorBoard's)."""
    if isinstance(value, cls):
        return cls.FromString(value.SerializeToString())  # a copy: metadata may be cleared below
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
    elif hasattr(value, "SerializeToString"):
        data = value.SerializeToString()
    else:
        raise TypeError(f"FileWriter.{method}(): '{arg}' must be a {cls.__name__} protobuf or its serialized bytes, got {type(value).__name__}")
    try:
        return cls.FromString(data)
    except Exception as error:  # protobuf's DecodeError
        raise ValueError(f"FileWriter.{method}(): '{arg}' is not a serialized {cls.__name__} ({error})") from None


def _step(global_step) -> int:
    if global_step is None:
        return 0
    if hasattr(global_step, "item"):  # a NumPy scalar, as Session.run returns a step
        global_step = global_step.item()
    if isinstance(global_step, bool) or not isinstance(global_step, int):
        raise TypeError(f"FileWriter: global_step must be an int, got {type(global_step).__name__}")
    return global_step


class FileWriterCache:
    """One ``FileWriter`` per log directory for the whole process (``tf.summary.FileWriterCache``)."""

    _writers: ClassVar[dict] = {}
    _lock = threading.Lock()

    @staticmethod
    def get(logdir: str | os.PathLike) -> FileWriter:
        """The cached writer of ``logdir``, made on first use."""
        key = os.path.abspath(os.fspath(logdir))
        with FileWriterCache._lock:
            writer = FileWriterCache._writers.get(key)
            if writer is None:
                writer = FileWriterCache._writers[key] = FileWriter(logdir)
            return writer

    @staticmethod
    def clear() -> None:
        """Close and forget every cached writer."""
        with FileWriterCache._lock:
            writers = list(FileWriterCache._writers.values())
            FileWriterCache._writers.clear()
        for writer in writers:
            writer.close()
