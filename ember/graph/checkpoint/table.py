"""The sorted key-value table of a checkpoint's ``.index`` file (LevelDB's table format).

A table is data blocks, a metaindex block (empty here), an index block and a 48-byte footer::

    block   = entries, restart offsets (uint32 each), their count (uint32)
    entry   = varint32 shared key bytes, varint32 unshared, varint32 value size, key tail, value
    trailer = compression byte (0: none, 1: snappy), masked CRC32C of block + that byte
    handle  = varint64 offset, varint64 size (the block without its trailer)
    footer  = metaindex handle, index handle, zeros up to 40 bytes, magic 0xdb4775248b80fb57

A key shares its prefix with the key before it, except at a restart point (every 16th entry of
a data block, every entry of the index block), where it is whole. The index block maps, for each
data block, a key at least as large as the block's last key and smaller than the next block's
first key to the block's handle. ``write_table`` makes the same bytes TensorFlow's table builder
makes (no compression, 256 KiB blocks); ``read_table`` checks every block's CRC.

>>> items = read_table(write_table([(b"", b"header"), (b"apple", b"1"), (b"apricot", b"2")]))
>>> items == [(b"", b"header"), (b"apple", b"1"), (b"apricot", b"2")]
True
"""

from __future__ import annotations

import itertools
import struct

from ..crc32c import crc32c, mask, unmask

__all__ = ["BLOCK_SIZE", "MAGIC", "TableError", "read_table", "write_table"]

MAGIC = 0xDB4775248B80FB57
BLOCK_SIZE = 256 * 1024  # TensorFlow's table option (LevelDB's default is 4 KiB)
RESTART_INTERVAL = 16
FOOTER_SIZE = 48  # two handles of at most 10 + 10 bytes, padded, then the 8-byte magic
_TRAILER_SIZE = 5
_NO_COMPRESSION = 0
_SNAPPY = 1


class TableError(ValueError):
    """A table file that is not one, or is damaged (the message says where)."""


# -- varints ------------------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_varint(data, pos: int, limit: int, what: str) -> tuple[int, int]:
    result = shift = 0
    while pos < limit and shift < 64:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
    raise TableError(f"bad varint in {what}")


# -- writing ------------------------------------------------------------------------------------


class _Block:
    """Entries of one block, keys prefix-compressed between restart points."""

    def __init__(self, restart_interval: int) -> None:
        self.interval = restart_interval
        self.parts: list[bytes] = []
        self.size = 0
        self.restarts = [0]
        self.count = 0  # entries since the last restart
        self.last_key = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.count < self.interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(self.size)
            self.count = 0
        entry = b"".join([_varint(shared), _varint(len(key) - shared), _varint(len(value)), key[shared:], value])
        self.parts.append(entry)
        self.size += len(entry)
        self.count += 1
        self.last_key = key

    def estimate(self) -> int:
        return self.size + 4 * len(self.restarts) + 4

    def empty(self) -> bool:
        return not self.parts

    def finish(self) -> bytes:
        return b"".join(self.parts) + struct.pack(f"<{len(self.restarts) + 1}I", *self.restarts, len(self.restarts))


def _separator(start: bytes, limit: bytes) -> bytes:
    """A short key >= start and < limit (TensorFlow's FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n and start[i] < 0xFF and start[i] + 1 < limit[i]:
        return start[:i] + bytes([start[i] + 1])
    return start


def _successor(key: bytes) -> bytes:
    """A short key >= key (TensorFlow's FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def write_table(items, block_size: int = BLOCK_SIZE) -> bytes:
    """The bytes of a table holding ``items``, (key, value) byte pairs in strictly increasing
    key order."""
    out: list[bytes] = []
    offset = 0

    def write_block(block: _Block) -> bytes:
        nonlocal offset
        contents = block.finish()
        trailer_type = bytes([_NO_COMPRESSION])
        out.extend([contents, trailer_type, struct.pack("<I", mask(crc32c(trailer_type, crc32c(contents))))])
        handle = _varint(offset) + _varint(len(contents))
        offset += len(contents) + _TRAILER_SIZE
        return handle

    data, index = _Block(RESTART_INTERVAL), _Block(1)
    pending = None  # the handle of the last block written, indexed once the next key is known
    last_key = None
    for key, value in items:
        key, value = bytes(key), bytes(value)
        if last_key is not None and key <= last_key:
            raise TableError(f"write_table(): keys must be strictly increasing, got {key!r} after {last_key!r}")
        if pending is not None:
            index.add(_separator(last_key, key), pending)
            pending = None
        data.add(key, value)
        last_key = key
        if data.estimate() >= block_size:
            pending = write_block(data)
            data = _Block(RESTART_INTERVAL)
    if not data.empty():
        pending = write_block(data)
    metaindex = write_block(_Block(RESTART_INTERVAL))
    if pending is not None:
        index.add(_successor(last_key), pending)
    index_handle = write_block(index)
    footer = (metaindex + index_handle).ljust(FOOTER_SIZE - 8, b"\0") + struct.pack("<Q", MAGIC)
    out.append(footer)
    return b"".join(out)


# -- reading ------------------------------------------------------------------------------------


def _read_handle(data, pos: int, limit: int, what: str) -> tuple[int, int, int]:
    offset, pos = _read_varint(data, pos, limit, what)
    size, pos = _read_varint(data, pos, limit, what)
    return offset, size, pos


def _block(data, offset: int, size: int, what: str) -> memoryview:
    """A block's contents, its trailer checked."""
    end = offset + size
    if offset < 0 or end + _TRAILER_SIZE > len(data) - FOOTER_SIZE:
        raise TableError(f"{what} at bytes [{offset}, {end}) lies outside the table")
    kind = data[end]
    (stored,) = struct.unpack_from("<I", data, end + 1)
    contents = memoryview(data)[offset:end]
    actual = crc32c(data[end : end + 1], crc32c(contents))
    if unmask(stored) != actual:
        raise TableError(
            f"{what} at byte {offset}: block checksum mismatch (stored {unmask(stored):#010x}, computed {actual:#010x})"
        )
    if kind == _SNAPPY:
        raise TableError(f"{what} at byte {offset} is snappy-compressed, which ember does not read; re-save it uncompressed")
    if kind != _NO_COMPRESSION:
        raise TableError(f"{what} at byte {offset}: unknown compression type {kind}")
    return contents


def _entries(block: memoryview, what: str):
    """The (key, value) pairs of a block, in order."""
    if len(block) < 4:
        raise TableError(f"{what} is too short to hold its restart count")
    (restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * restarts
    if restarts < 1 or limit < 0:
        raise TableError(f"{what} has a bad restart count {restarts}")
    key = b""
    pos = 0
    while pos < limit:
        shared, pos = _read_varint(block, pos, limit, what)
        unshared, pos = _read_varint(block, pos, limit, what)
        size, pos = _read_varint(block, pos, limit, what)
        if shared > len(key) or pos + unshared + size > limit:
            raise TableError(f"{what} has a corrupt entry at byte {pos}")
        key = key[:shared] + bytes(block[pos : pos + unshared])
        pos += unshared
        yield key, bytes(block[pos : pos + size])
        pos += size


def read_table(data) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of a table's bytes, in key order; TableError if it is not a table,
    is damaged (a block's CRC, a handle outside the file) or uses compression."""
    data = bytes(data)
    if len(data) < FOOTER_SIZE:
        raise TableError(f"a table has a {FOOTER_SIZE}-byte footer, but the file holds {len(data)} bytes")
    (magic,) = struct.unpack_from("<Q", data, len(data) - 8)
    if magic != MAGIC:
        raise TableError(f"not a table: the footer's magic number is {magic:#018x}, not {MAGIC:#018x}")
    footer = len(data) - FOOTER_SIZE
    _, _, pos = _read_handle(data, footer, len(data) - 8, "the footer")
    index_offset, index_size, _ = _read_handle(data, pos, len(data) - 8, "the footer")
    items = []
    for _, handle in _entries(_block(data, index_offset, index_size, "the index block"), "the index block"):
        offset, size, _ = _read_handle(handle, 0, len(handle), "an index entry")
        items.extend(_entries(_block(data, offset, size, "a data block"), f"the data block at byte {offset}"))
    for (before, _), (after, _) in itertools.pairwise(items):
        if after <= before:
            raise TableError(f"the table's keys are out of order: {after!r} after {before!r}")
    return items
