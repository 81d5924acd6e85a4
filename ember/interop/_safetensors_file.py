"""The safetensors file layer of ember checkpoints: header, entries, layout, reads and writes.

A safetensors file is an 8-byte little-endian header length N, N bytes of JSON header
(``{name: {"dtype", "shape", "data_offsets"}, "__metadata__": {str: str}}``), then the data
region, which the entries tile exactly: sorted by offset, no holes, no overlaps, nothing after.
This module writes such files with every entry aligned, and reads them back refusing any
header that does not obey those rules, before a byte of data is touched.

>>> [(e.name, e.begin) for e in layout([Entry("a", "U8", [3], 3, None, 1), Entry("b", "F32", [1], 4, None, 4)])]
[('b', 0), ('a', 4)]
"""

from __future__ import annotations

import contextlib
import io
import json
import mmap
import os
import secrets
import sys
from typing import IO

import numpy as np

from .._core import dtype as _dt
from .._core.allocator import DataPtr
from .._core.storage import Storage

__all__ = ["DATA_ALIGNMENT", "FROM_SAFETENSORS", "MAX_HEADER_BYTES", "RESERVED_PREFIX", "TO_SAFETENSORS", "Entry", "Source", "bad", "check_view",
           "check_entries", "check_metadata", "encode_header", "int_list", "layout", "map_file", "parse_json", "read_header",
           "read_storage", "save_atomically", "write"]

MAX_HEADER_BYTES = 100_000_000  # safetensors' own cap: a larger header is refused unread
DATA_ALIGNMENT = 64  # the header is padded with spaces so that the data region starts here
RESERVED_PREFIX = "__ember_"

# safetensors' dtype names; complex128 and string have none and travel as U8 bytes.
TO_SAFETENSORS = {
    _dt.bool_: "BOOL", _dt.uint8: "U8", _dt.int8: "I8", _dt.int16: "I16", _dt.uint16: "U16",
    _dt.float16: "F16", _dt.bfloat16: "BF16", _dt.int32: "I32", _dt.uint32: "U32", _dt.float32: "F32",
    _dt.complex64: "C64", _dt.float64: "F64", _dt.int64: "I64", _dt.uint64: "U64",
}  # fmt: skip
FROM_SAFETENSORS = {name: dtype for dtype, name in TO_SAFETENSORS.items()}
_ITEMSIZE = {name: dtype.itemsize for name, dtype in FROM_SAFETENSORS.items()}

if sys.byteorder != "little":  # pragma: no cover - the format is little-endian, and so are ember's hosts
    raise ImportError("ember checkpoints are little-endian; this host is big-endian")


class Entry:
    """One safetensors entry: a storage's bytes (or padding), with its name, dtype and shape."""

    __slots__ = ("alignment", "begin", "dtype", "name", "nbytes", "shape", "source")

    def __init__(self, name: str, dtype: str, shape: list[int], nbytes: int, source: object, alignment: int) -> None:
        self.name, self.dtype, self.shape, self.nbytes = name, dtype, shape, nbytes
        self.source = source  # a flat uint8 array, bytes, or None for zeros
        self.alignment = alignment
        self.begin = 0


def layout(entries: list[Entry]) -> list[Entry]:
    """Order entries by falling alignment so that each starts aligned with no gap; where an
    odd size breaks that, an explicit padding entry fills the gap (safetensors allows no holes)."""
    entries = sorted(entries, key=lambda e: -e.alignment)
    out: list[Entry] = []
    offset = 0
    for e in entries:
        gap = -offset % e.alignment
        if gap:
            pad = Entry(f"{RESERVED_PREFIX}pad_{len(out)}", "U8", [gap], gap, None, 1)
            pad.begin = offset
            out.append(pad)
            offset += gap
        e.begin = offset
        offset += e.nbytes
        out.append(e)
    return out


def encode_header(metadata: dict[str, str], entries: list[Entry]) -> bytes:
    """The JSON header, padded with spaces so that the data region starts 64-byte aligned."""
    header: dict[str, object] = {"__metadata__": metadata}
    for e in entries:
        header[e.name] = {"dtype": e.dtype, "shape": e.shape, "data_offsets": [e.begin, e.begin + e.nbytes]}
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return text + b" " * (-(8 + len(text)) % DATA_ALIGNMENT)


def write(f: IO[bytes], header: bytes, entries: list[Entry]) -> None:
    _write_all(f, len(header).to_bytes(8, "little"))
    _write_all(f, header)
    for e in entries:
        if e.nbytes:
            # the storage's own memory goes to the file: no intermediate bytes copy
            _write_all(f, bytes(e.nbytes) if e.source is None else e.source)


def _write_all(f: IO[bytes], data: object) -> None:
    view = memoryview(data).cast("B")
    while view.nbytes:
        written = f.write(view)
        if written is None:  # a non-blocking raw file that could take nothing now
            raise BlockingIOError("ember.save(): the file object accepted no bytes (non-blocking?)")
        view = view[written:]


def save_atomically(path: str, header: bytes, entries: list[Entry]) -> None:
    """Write beside the target, then rename over it: a failure never leaves a partial file there."""
    if os.path.islink(path):
        path = os.path.realpath(path)  # replace the file the link points to, not the link
    directory, name = os.path.split(os.path.abspath(path))
    temporary = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(temporary, "xb") as out:
            write(out, header, entries)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class Source:
    """The file being loaded: a binary file object, where the checkpoint starts, its size."""

    def __init__(self, f: object, op: str) -> None:
        self.owned = isinstance(f, (str, os.PathLike))
        if self.owned:
            self.name = os.fspath(f)
            self.file = open(self.name, "rb")  # noqa: SIM115 - closed by load()
        elif isinstance(f, io.TextIOBase):
            raise TypeError(f"{op}: the file object is in text mode; open it with 'rb'")
        elif hasattr(f, "read") and hasattr(f, "seek"):
            if hasattr(f, "seekable") and not f.seekable():
                raise ValueError(f"{op}: the file object must be seekable (read it into io.BytesIO first)")
            name = getattr(f, "name", None)
            self.name = repr(name) if isinstance(name, (str, bytes)) else f"<{type(f).__name__}>"
            self.file = f
        else:
            raise TypeError(f"{op}: argument 'f' must be a path or a readable, seekable binary file object, not {type(f).__name__}")
        self.base = self.file.tell()
        self.size = self.file.seek(0, io.SEEK_END) - self.base
        self.file.seek(self.base)

    def read_exact(self, position: int, count: int, what: str) -> bytes:
        self.file.seek(self.base + position)
        data = self.file.read(count)
        if len(data) != count:
            raise bad(self, f"truncated: {what} needs {count} bytes at offset {position}, the file has {len(data)}")
        return data

    def read_into(self, position: int, buffer: np.ndarray) -> None:
        self.file.seek(self.base + position)
        view = memoryview(buffer).cast("B")
        while view.nbytes:
            count = self.file.readinto(view)
            if not count:
                raise bad(self, "truncated: the data region ended early (was the file changed while loading?)")
            view = view[count:]


def bad(source: Source, what: str) -> ValueError:
    return ValueError(f"ember.load(): {source.name}: {what}")


def read_header(source: Source) -> tuple[dict, int]:
    if source.size < 8:
        raise bad(source, f"too short ({source.size} bytes) to hold the 8-byte header length: not a checkpoint, or truncated")
    head = source.read_exact(0, 8, "the header length")
    if head.startswith(b"PK\x03\x04"):
        raise bad(source, "this is a zip archive (PyTorch's torch.save format?); ember.load reads the safetensors layout only and never unpickles")
    if head[0] == 0x80 and 2 <= head[1] <= 5:
        raise bad(source, "this looks like a pickle; ember.load never unpickles (a pickle can run code). Convert it with safetensors")
    n = int.from_bytes(head, "little")
    if n > MAX_HEADER_BYTES:
        raise bad(source, f"header length {n} is over the {MAX_HEADER_BYTES}-byte limit: not a checkpoint, or corrupt")
    if 8 + n > source.size:
        raise bad(source, f"truncated in the header: it is {n} bytes but the file has {source.size - 8} after the length")
    header = parse_json(source, source.read_exact(8, n, "the header"), "the header")
    if type(header) is not dict:
        raise bad(source, f"the header must be a JSON object, got {type(header).__name__}")
    return header, 8 + n


def parse_json(source: Source, text: bytes | str, what: str) -> object:
    """Strict JSON: no NaN/Infinity literals, no duplicate keys, bounded nesting."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise bad(source, f"{what} is not valid JSON ({e})") from None


def _no_duplicates(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"duplicate key {duplicate!r}")
    return out


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def check_entries(source: Source, header: dict, data_start: int) -> dict[str, tuple[str, list[int], int, int]]:
    """Every entry as (dtype, shape, begin, end), checked: known dtype, sizes that match, and
    offsets that tile the data region exactly (sorted, no holes, no overlaps, nothing after)."""
    entries = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if type(info) is not dict:
            raise bad(source, f"entry {name!r} must be an object with dtype, shape and data_offsets")
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if dtype not in _ITEMSIZE:
            raise bad(source, f"entry {name!r} has dtype {dtype!r}, which ember does not read (known: {', '.join(_ITEMSIZE)})")
        if not int_list(shape) or any(s < 0 for s in shape):
            raise bad(source, f"entry {name!r} has shape {shape!r}; expected a list of non-negative ints")
        if not int_list(offsets) or len(offsets) != 2 or not 0 <= offsets[0] <= offsets[1]:
            raise bad(source, f"entry {name!r} has data_offsets {offsets!r}; expected [begin, end] with 0 <= begin <= end")
        count = 1
        for s in shape:
            count *= s
        if count * _ITEMSIZE[dtype] != offsets[1] - offsets[0]:
            raise bad(source, f"entry {name!r}: shape {shape} of {dtype} is {count * _ITEMSIZE[dtype]} bytes, but data_offsets span {offsets[1] - offsets[0]}")
        entries[name] = (dtype, shape, offsets[0], offsets[1])
    end = 0
    for name, (_, _, begin, stop) in sorted(entries.items(), key=lambda item: (item[1][2], item[1][3])):
        if begin != end:
            what = "overlaps the entry before it" if begin < end else f"leaves a hole of {begin - end} bytes before it"
            raise bad(source, f"entry {name!r} at data_offsets [{begin}, {stop}] {what}")
        end = stop
    available = source.size - data_start
    if end > available:
        raise bad(source, f"truncated: the header describes {end} bytes of data, the file holds {available}")
    if end < available:
        raise bad(source, f"{available - end} unexpected bytes after the data that the header describes")
    return entries


def int_list(value: object) -> bool:
    return type(value) is list and all(type(v) is int for v in value)


def check_metadata(source: Source, header: dict) -> dict:
    metadata = header.get("__metadata__", {})
    if type(metadata) is not dict or any(type(v) is not str for v in metadata.values()):
        raise bad(source, "__metadata__ must be an object of strings")
    return metadata


def map_file(source: Source) -> np.ndarray:
    """The whole file mapped copy-on-write, as a flat uint8 array (its base chain holds the map)."""
    try:
        fileno = source.file.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        raise ValueError(
            f"ember.load(): mmap=True needs a path or a real file with fileno(), got {source.name}; pass mmap=False to read it"
        ) from None
    # ACCESS_COPY is MAP_PRIVATE: tensors are writable, and their writes never reach the file
    mapped = mmap.mmap(fileno, 0, access=mmap.ACCESS_COPY)
    whole = np.frombuffer(mapped, np.uint8)
    if whole.size != source.base + source.size:
        raise bad(source, "the file changed size while loading")
    return whole[source.base :]


def read_storage(source: Source, begin: int, end: int, data_start: int, mapping: np.ndarray | None) -> Storage:
    if mapping is not None:
        buffer = mapping[data_start + begin : data_start + end]
        return Storage._from_dataptr(DataPtr(None, buffer, buffer, None))
    storage = Storage(end - begin)
    if end > begin:
        source.read_into(data_start + begin, storage._buffer())
    return storage




def check_view(source: Source, what: str, storage: Storage, offset: int, shape: list, stride: list, dtype: _dt.DType) -> None:
    """Refuse a view that would reach bytes outside its storage (or sizes no tensor can have)."""
    count = 1
    for s in shape:
        count *= s
    itemsize = dtype.itemsize
    if count:
        low = offset + sum((n - 1) * s for n, s in zip(shape, stride, strict=True) if s < 0)
        high = offset + sum((n - 1) * s for n, s in zip(shape, stride, strict=True) if s > 0)
        if low < 0 or (high + 1) * itemsize > storage._nbytes or count > sys.maxsize or any(abs(s) * itemsize > sys.maxsize for s in stride):
            raise bad(source, f"{what} (offset {offset}, shape {shape}, stride {stride}, {dtype.name}) reaches outside its storage of {storage._nbytes} bytes")
    elif offset > sys.maxsize:  # an empty view reads nothing: any offset within reason is legal (t[:, 5:] of an empty t)
        raise bad(source, f"{what}: offset {offset} is out of range")
