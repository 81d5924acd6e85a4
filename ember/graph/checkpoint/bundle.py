"""TensorFlow's tensor bundle (the V2 checkpoint format): ``<prefix>.index`` and the data file.

``<prefix>.data-00000-of-00001`` holds the tensors' bytes one after another, in key order,
without padding: numbers as their little-endian values (bool one byte, complex as real and
imaginary parts, bfloat16 and float16 as their 16-bit patterns); a string tensor as every
length (varint64), the masked CRC32C of those lengths (each as a little-endian uint32), then
every string's bytes. ``<prefix>.index`` is a table (``table.py``) whose entry ``""`` is a
``BundleHeaderProto`` and whose other entries map each tensor's name to a ``BundleEntryProto``:
dtype, shape, data file, offset, size and the masked CRC32C of its bytes (for a string tensor,
of the lengths as uint32s, the lengths' masked CRC, and the strings). The files are written
beside the target and renamed over it, so a reader never sees half of one.

>>> import os, tempfile, numpy as np
>>> from ember.interop.numpy import from_numpy
>>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> write_bundle(prefix, {"w": from_numpy(np.arange(3, dtype=np.float32))})
>>> BundleReader(prefix).get_tensor("w")
array([0., 1., 2.], dtype=float32)
"""

from __future__ import annotations

import os
import secrets
import struct
import sys

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ..crc32c import crc32c, mask, unmask
from ..errors import DataLossError, NotFoundError
from ..proto import VersionDef
from ..proto.checkpoint import BundleEntryProto, BundleHeaderProto
from .table import TableError, read_table, write_table

__all__ = ["BundleReader", "atomic_write", "data_filename", "index_filename", "write_bundle"]

VERSION = 1  # the format's version (kTensorBundleVersion); readers from version 0 on read it
_BIG_ENDIAN = sys.byteorder == "big"
_DTYPE_OF_ENUM = {d.tf_enum: d for d in _dt.ALL_DTYPES}


def index_filename(prefix: str) -> str:
    return f"{prefix}.index"


def data_filename(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _string_parts(flat: list[bytes]) -> tuple[list[bytes], int]:
    """A string tensor's bytes in the data file (as parts to join) and their CRC."""
    lengths = b"".join(_varint(len(s)) for s in flat)
    crc = 0
    for s in flat:
        crc = crc32c(struct.pack("<I" if len(s) <= 0xFFFFFFFF else "<Q", len(s)), crc)
    length_crc = struct.pack("<I", mask(crc))
    crc = crc32c(length_crc, crc)
    for s in flat:
        crc = crc32c(s, crc)
    return [lengths, length_crc, *flat], crc


def _tensor_parts(tensor: Tensor) -> tuple[list, int]:
    array = np.ascontiguousarray(tensor._host_array())
    if tensor.dtype is _dt.string:
        return _string_parts([x if type(x) is bytes else bytes(x) for x in array.reshape(-1).tolist()])
    if _BIG_ENDIAN:
        array = array.byteswap()
    raw = memoryview(array.reshape(-1).view(np.uint8))
    return [raw], crc32c(raw)


def atomic_write(path: str, parts) -> None:
    """Writes ``parts`` (bytes-like) to a temporary file beside ``path``, then renames it over
    ``path``: a reader sees the old file or the whole new one. The file's mode follows the umask."""
    temp = f"{path}.tempstate{secrets.randbits(64)}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                f.write(part)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def write_bundle(prefix: str, tensors: dict) -> None:
    """Writes ``tensors`` (name -> ember tensor) as the checkpoint ``prefix``: its data file,
    then its index (so an index always names a complete data file)."""
    entries, parts, offset = [], [], 0
    for name in sorted(tensors):
        if not name:
            raise ValueError("write_bundle(): a tensor's name must not be empty (the empty key holds the header)")
        tensor = tensors[name]
        if tensor.dtype.tf_enum is None:
            raise TypeError(f"write_bundle(): {name} has dtype {tensor.dtype.name}, which checkpoints cannot hold")
        tensor_parts, crc = _tensor_parts(tensor)
        size = sum(memoryview(p).nbytes for p in tensor_parts)
        entry = BundleEntryProto(dtype=tensor.dtype.tf_enum, shard_id=0, offset=offset, size=size, crc32c=mask(crc))
        entry.shape.SetInParent()
        for d in tensor.shape:
            entry.shape.dim.add(size=d)
        entries.append((name.encode(), entry.SerializeToString()))
        parts.extend(tensor_parts)
        offset += size
    header = BundleHeaderProto(num_shards=1, endianness=BundleHeaderProto.LITTLE, version=VersionDef(producer=VERSION))
    atomic_write(data_filename(prefix), parts)
    atomic_write(index_filename(prefix), [write_table([(b"", header.SerializeToString()), *entries])])


class BundleReader:
    """The tensors of the checkpoint ``prefix``, read on demand (each one's size and CRC checked).

    NotFoundError if there is no ``<prefix>.index``; DataLossError if the index is damaged.
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = os.fspath(prefix)
        path = index_filename(self.prefix)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise NotFoundError(
                None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {self.prefix}"
            ) from None
        try:
            items = read_table(data)
        except TableError as error:
            raise DataLossError(
                None,
                None,
                f"Unable to read file ({path}). Perhaps the file is corrupt or was produced by a newer version of TensorFlow with format changes ({error})",
            ) from None
        if not items or items[0][0] != b"":
            raise DataLossError(None, None, f"Unable to read file ({path}): the table has no header entry")
        header = BundleHeaderProto.FromString(items[0][1])
        version = header.version
        if version.min_consumer > VERSION or VERSION in version.bad_consumers:
            raise DataLossError(
                None,
                None,
                f"{path}: the checkpoint needs a reader of version {version.min_consumer} or later; ember reads version {VERSION}",
            )
        self._swap = (header.endianness == BundleHeaderProto.BIG) != _BIG_ENDIAN
        self.num_shards = header.num_shards
        self._entries = {key.decode(): value for key, value in items[1:]}

    def tensor_names(self) -> list[str]:
        """Every tensor's name, sorted."""
        return list(self._entries)

    def has_tensor(self, name: str) -> bool:
        return name in self._entries

    def entry(self, name: str) -> BundleEntryProto:
        """The ``BundleEntryProto`` of ``name``; NotFoundError if the checkpoint lacks it."""
        raw = self._entries.get(name)
        if raw is None:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        entry = BundleEntryProto.FromString(raw)
        if any(d.size < 0 for d in entry.shape.dim) or entry.shape.unknown_rank:
            raise DataLossError(None, None, f"Invalid tensor shape: {name} {[d.size for d in entry.shape.dim]}")
        return entry

    def dtype(self, name: str) -> _dt.DType:
        enum = self.entry(name).dtype
        dtype = _DTYPE_OF_ENUM.get(enum)
        if dtype is None:
            raise TypeError(f"checkpoint {self.prefix}: {name} has TensorFlow dtype number {enum}, which ember has no dtype for")
        return dtype

    def shape(self, name: str) -> list[int]:
        return [d.size for d in self.entry(name).shape.dim]

    def get_tensor(self, name: str) -> np.ndarray:
        """The value of ``name`` as a new NumPy array (strings: an object array of bytes)."""
        entry = self.entry(name)
        dtype = self.dtype(name)
        shape = tuple(d.size for d in entry.shape.dim)
        if entry.slices:
            raise NotImplementedError(
                f"checkpoint {self.prefix}: {name} is saved as slices of a partitioned variable, which ember does not read"
            )
        n = int(np.prod(shape, dtype=np.int64))
        if dtype is not _dt.string and entry.size != n * dtype.itemsize:
            raise DataLossError(
                None,
                None,
                f"Invalid size in bundle entry: key {name}; stored size {entry.size}; expected size {n * dtype.itemsize}",
            )
        raw = self._read(name, entry)
        strings, actual = self._strings(name, raw, n) if dtype is _dt.string else (None, crc32c(raw))
        if unmask(entry.crc32c) != actual:
            raise DataLossError(
                None,
                None,
                f"Checksum does not match: stored {unmask(entry.crc32c)} vs. calculated on the restored bytes {actual} (tensor {name} of {self.prefix})",
            )
        if strings is not None:
            out = np.empty(n, dtype=object)
            out[:] = strings
            return out.reshape(shape)
        values = np.frombuffer(raw, dtype=dtype.numpy_dtype)
        if self._swap:
            values = values.byteswap()
        return values.reshape(shape)

    def _read(self, name: str, entry: BundleEntryProto) -> bytearray:
        if not 0 <= entry.shard_id < max(self.num_shards, 1):
            raise DataLossError(
                None, None, f"checkpoint {self.prefix}: {name} names data file {entry.shard_id} of {self.num_shards}"
            )
        path = data_filename(self.prefix, entry.shard_id, self.num_shards)
        raw = bytearray(entry.size)  # writable: the array made from it is the caller's own
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                got = f.readinto(raw)
        except FileNotFoundError:
            raise NotFoundError(None, None, f"{path}; No such file or directory") from None
        if got != entry.size:
            raise DataLossError(
                None, None, f"{path}: {name} needs bytes [{entry.offset}, {entry.offset + entry.size}), but the file ends before"
            )
        return raw

    def _strings(self, name: str, raw: bytearray, n: int) -> tuple[list[bytes], int]:
        """The strings of a string tensor's bytes, and the CRC the entry holds for them."""
        lengths, pos = [], 0
        for _ in range(n):
            length = shift = 0
            while True:
                if pos >= len(raw) or shift > 63:
                    raise DataLossError(None, None, f"checkpoint {self.prefix}: {name} has a malformed string length")
                byte = raw[pos]
                pos += 1
                length |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            lengths.append(length)
        if pos + 4 + sum(lengths) != len(raw):
            raise DataLossError(
                None, None, f"checkpoint {self.prefix}: {name}'s string lengths do not add up to its {len(raw)} bytes"
            )
        crc = 0
        for length in lengths:
            crc = crc32c(struct.pack("<I" if length <= 0xFFFFFFFF else "<Q", length), crc)
        (stored,) = struct.unpack_from("<I", raw, pos)
        if unmask(stored) != crc:
            raise DataLossError(
                None,
                None,
                f"The length checksum does not match: expected {unmask(stored)} but actual is {crc} (tensor {name} of {self.prefix})",
            )
        crc = crc32c(raw[pos : pos + 4], crc)
        pos += 4
        out = []
        for length in lengths:
            out.append(bytes(raw[pos : pos + length]))
            pos += length
        return out, crc32c(raw[pos - sum(lengths) :], crc)
