"""The few pieces of protobuf's wire format that the fast paths write and read themselves.

A message is a sequence of fields, each a varint key ``number << 3 | wire_type`` and a value:
a varint (type 0), 8 bytes (1), a varint length and that many bytes (2), or 4 bytes (5). A
packed repeated field is one length-delimited field whose bytes are the values back to back.

Writing a big ``tensor_content`` or a packed field here, instead of through the message
object, saves the copies that protobuf's runtime makes into and out of its own memory; the
bytes are the same ones ``SerializeToString`` writes (the tests compare them).

>>> varint(300), read_varint(varint(300), 0)
(b'\\xac\\x02', (300, 2))
>>> encode_varints(np.array([1, 300, -1], dtype=np.int64)) == varint(1) + varint(300) + varint((1 << 64) - 1)
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["LENGTH_DELIMITED", "encode_varints", "field_key", "find_length_delimited", "read_varint", "varint"]

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5
_MAX_VARINT_BYTES = 10
_CHUNK = 1 << 18  # values per grid: bounds the temporary memory to a few MB


def field_key(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def varint(value: int) -> bytes:
    """The varint encoding of a non-negative integer below 2**64."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(buf, pos: int) -> tuple[int, int]:
    """(value, position after it); ValueError when the varint runs past the end or is too long."""
    result = 0
    shift = 0
    end = len(buf)
    while True:
        if pos >= end or shift >= 7 * _MAX_VARINT_BYTES:
            raise ValueError("truncated or overlong varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def encode_varints(values: np.ndarray) -> bytes:
    """The varints of an integer array back to back, as a packed repeated field holds them.

    Signed values are sign-extended to 64 bits first, as protobuf does for int32 and int64
    (a negative number takes ten bytes). Vectorized: each chunk of values becomes a grid of
    7-bit groups, one row per value, and a mask keeps each row's first ``length`` bytes.
    """
    if values.dtype.kind == "b":
        return values.astype(np.uint8).tobytes()  # 0 and 1 are one-byte varints
    v = values.astype(np.int64, copy=False).view(np.uint64) if values.dtype.kind == "i" else values.astype(np.uint64, copy=False)
    parts = []
    for i in range(0, v.size, _CHUNK):
        chunk = v[i:i + _CHUNK]
        lengths = np.ones(chunk.shape, dtype=np.uint8)
        width = 1
        top = chunk.max()
        while width < _MAX_VARINT_BYTES and top >= np.uint64(1 << (7 * width)):
            lengths += chunk >= np.uint64(1 << (7 * width))
            width += 1
        grid = np.empty((chunk.size, width), dtype=np.uint8)
        for j in range(width):
            group = (chunk >> np.uint64(7 * j)).astype(np.uint8) & np.uint8(0x7F)
            if j + 1 < width:
                group |= (lengths > j + 1).view(np.uint8) << np.uint8(7)  # the continuation bit
            grid[:, j] = group
        parts.append(grid[np.arange(width, dtype=np.uint8) < lengths[:, None]])
    return b"".join(parts)


def find_length_delimited(buf, number: int, max_fields: int = 64) -> tuple[int, int, int] | None:
    """Where the one top-level length-delimited field ``number`` lies: (key start, data start, end).

    None when the field is absent, occurs more than once, the message has more than
    ``max_fields`` fields (then the caller lets protobuf parse it), or the bytes are
    malformed (protobuf's own parser then says how).
    """
    found = None
    pos = 0
    end = len(buf)
    try:
        for _ in range(max_fields):
            if pos == end:
                return found
            start = pos
            key, pos = read_varint(buf, pos)
            wire_type = key & 7
            if wire_type == VARINT:
                _, pos = read_varint(buf, pos)
            elif wire_type == FIXED64:
                pos += 8
            elif wire_type == FIXED32:
                pos += 4
            elif wire_type == LENGTH_DELIMITED:
                length, pos = read_varint(buf, pos)
                if key >> 3 == number:
                    if found is not None:
                        return None
                    found = (start, pos, pos + length)
                pos += length
            else:
                return None  # groups are not used by these messages
            if pos > end or key >> 3 == 0:
                return None
    except ValueError:
        return None
    return found if pos == end else None
