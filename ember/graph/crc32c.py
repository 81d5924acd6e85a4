"""CRC32C (Castagnoli), the checksum of TFRecord files and of TensorFlow's checkpoints.

Short data goes through the byte table in Python. Long data is cut into equal lanes whose CRCs
NumPy advances side by side, four bytes a step (one table per half word); the CRC is linear, so
the lanes' CRCs are then folded pairwise with the tables of "this many zero bytes follow".

>>> hex(crc32c(b"123456789"))
'0xe3069283'
>>> crc32c(b"6789", crc32c(b"12345")) == crc32c(b"123456789")
True
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["crc32c", "mask", "masked_crc32c", "unmask"]

_POLY = 0x82F63B78  # Castagnoli, bit-reversed
_MASK_DELTA = 0xA282EAD8
_LONG = 1 << 14  # from this many bytes on, the NumPy lanes pay for themselves
_MAX_LANE = 256  # bytes per lane at most: longer data gets more lanes (wider NumPy steps), not longer ones


def _byte_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _byte_table()


def _slice_tables() -> np.ndarray:
    """Row k maps a byte to the CRC change it makes when k more bytes follow it in a word."""
    tables = np.zeros((4, 256), dtype=np.uint32)
    tables[0] = _TABLE
    for k in range(1, 4):
        prev = tables[k - 1]
        tables[k] = (prev >> 8) ^ tables[0][prev & 0xFF]
    return tables


_T0, _T1, _T2, _T3 = _slice_tables()


@functools.cache
def _half_word_tables() -> tuple[np.ndarray, np.ndarray]:
    """The CRC change of a word's low and high 16 bits (256 KiB each): two lookups a word
    instead of four, which is fewer NumPy passes over the lanes. Built on first long use."""
    v = np.arange(1 << 16, dtype=np.uint32)
    return _T3[v & 0xFF] ^ _T2[v >> 8], _T1[v & 0xFF] ^ _T0[v >> 8]


def _update(state: int, data) -> int:
    table = _TABLE
    for byte in data:
        state = table[(state ^ byte) & 0xFF] ^ (state >> 8)
    return state


def _apply(matrix: list[int], vector: int) -> int:
    """A 32x32 matrix over GF(2), given as its 32 columns, times a 32-bit vector."""
    out = 0
    i = 0
    while vector:
        if vector & 1:
            out ^= matrix[i]
        vector >>= 1
        i += 1
    return out


@functools.lru_cache(maxsize=64)
def _zeros_operator(nbytes: int) -> tuple[int, ...]:
    """The linear map of a zero-initialised CRC state over ``nbytes`` zero bytes, as columns."""
    if nbytes == 1:
        return tuple(_update(1 << i, b"\0") for i in range(32))
    half = _zeros_operator(nbytes // 2)
    square = [_apply(half, col) for col in half]
    if nbytes % 2:
        one = _zeros_operator(1)
        square = [_apply(one, col) for col in square]
    return tuple(square)


@functools.lru_cache(maxsize=64)
def _zeros_tables(nbytes: int) -> np.ndarray:
    """``_zeros_operator(nbytes)`` as four byte tables, to apply it to many states at once."""
    columns = np.array(_zeros_operator(nbytes), dtype=np.uint32)
    tables = np.zeros((4, 256), dtype=np.uint32)
    for k in range(4):
        for bit in range(8):
            step = 1 << bit
            tables[k, step : 2 * step] = tables[k, :step] ^ columns[8 * k + bit]
    return tables


def _apply_many(tables: np.ndarray, states: np.ndarray) -> np.ndarray:
    return tables[0][states & 0xFF] ^ tables[1][(states >> 8) & 0xFF] ^ tables[2][(states >> 16) & 0xFF] ^ tables[3][states >> 24]


def _update_long(state: int, data: memoryview) -> int:
    # Lanes of `lane` bytes (a multiple of 4), `lanes` of them. The initial state is xored into
    # the first word, so every lane starts from zero and a zero lane in front changes nothing.
    lane = min(_MAX_LANE, len(data) // 64 // 4 * 4)
    lanes = len(data) // lane
    words = np.frombuffer(data, dtype="<u4", count=lanes * lane // 4).reshape(lanes, lane // 4).T.copy()
    words[0, 0] ^= state
    low, high = _half_word_tables()
    crcs = np.zeros(lanes, dtype=np.uint32)
    for row in words:
        x = crcs ^ row
        crcs = low[x & 0xFFFF] ^ high[x >> 16]
    span = lane
    while len(crcs) > 1:
        if len(crcs) % 2:
            crcs = np.concatenate([np.zeros(1, dtype=np.uint32), crcs])
        crcs = _apply_many(_zeros_tables(span), crcs[0::2]) ^ crcs[1::2]
        span *= 2
    return _update(int(crcs[0]), data[lanes * lane :])


def crc32c(data, crc: int = 0) -> int:
    """The CRC32C of ``data`` (any bytes-like object); ``crc`` is the CRC of what came before."""
    view = memoryview(data).cast("B")
    state = crc ^ 0xFFFFFFFF
    state = _update_long(state, view) if len(view) >= _LONG else _update(state, view)
    return state ^ 0xFFFFFFFF


def mask(crc: int) -> int:
    """TensorFlow's masked CRC: rotated right by 15 bits plus a constant, so that the CRC of data
    that holds CRCs is not trivially related to them."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The CRC that :func:`mask` turned into ``masked``."""
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


def masked_crc32c(data) -> int:
    """``mask(crc32c(data))``, as TFRecord framing and checkpoint entries store it."""
    return mask(crc32c(data))
