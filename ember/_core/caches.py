"""The CPU's data cache sizes, read once from the OS, for code that sizes its blocks to them
(graph mode's fused elementwise programs keep one tile's temporaries in L2).

Linux reports them under ``/sys/devices/system/cpu/cpu0/cache/index*/`` (``level``, ``type``
and ``size`` such as ``512K``); elsewhere, or where a level is missing, the fallbacks below
stand in: 32 KiB L1, 1 MiB L2, 8 MiB L3, sizes common to the x86 and ARM server cores of the
last years.

>>> sizes = cache_sizes()
>>> sorted(sizes) == [1, 2, 3] and all(v > 0 for v in sizes.values())
True
"""

from __future__ import annotations

import functools
import os

__all__ = ["FALLBACK", "cache_sizes", "parse_size"]

FALLBACK = {1: 32 << 10, 2: 1 << 20, 3: 8 << 20}
_SYSFS = "/sys/devices/system/cpu/cpu0/cache"
_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int | None:
    """``"512K"`` -> 524288; None for what is not a size.

    >>> parse_size("32768K"), parse_size("2M"), parse_size("64"), parse_size("x")
    (33554432, 2097152, 64, None)
    """
    text = text.strip().upper()
    scale = _UNITS.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in _UNITS else text
    return int(digits) * scale if digits.isdigit() and int(digits) > 0 else None


def _read_sysfs(root: str) -> dict[int, int]:
    sizes: dict[int, int] = {}
    try:
        entries = sorted(e for e in os.listdir(root) if e.startswith("index"))
    except OSError:
        return sizes
    for entry in entries:
        try:
            with open(os.path.join(root, entry, "level")) as f:
                level = int(f.read())
            with open(os.path.join(root, entry, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(root, entry, "size")) as f:
                size = parse_size(f.read())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size:
            sizes[level] = size
    return sizes


@functools.cache
def cache_sizes(root: str = _SYSFS) -> dict[int, int]:
    """Bytes of the L1 data, L2 and L3 caches of one core (L3 as a whole), by level."""
    found = _read_sysfs(root)
    return {level: found.get(level, fallback) for level, fallback in FALLBACK.items()}
