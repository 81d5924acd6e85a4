"""``EMBER_DISTRIBUTED_DEBUG=DETAIL``: check that every rank calls the same collective.

PyTorch's ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` in ember's words. Before each collective the
members all-gather a small fingerprint (the collective's number on the group, its name and
the fields that must agree: shapes, dtypes, the reduction, the root) over a duplicate of the
group's communicator. When they differ, every rank raises the same error, naming each field
that differs and what each rank passed, instead of hanging or computing garbage. It costs one
small all-gather per collective, so it is for finding bugs, not for production runs.
``TORCH_DISTRIBUTED_DEBUG`` is read when ``EMBER_DISTRIBUTED_DEBUG`` is not set.
"""

from __future__ import annotations

import enum
import os

__all__ = ["DebugLevel", "check", "get_debug_level", "set_debug_level", "set_debug_level_from_env"]


class DebugLevel(enum.IntEnum):
    """PyTorch's debug levels: OFF, INFO, DETAIL (only DETAIL adds checks)."""

    OFF = 0
    INFO = 1
    DETAIL = 2


_LEVEL: list = []
DETAIL = [False]  # read on every collective: one index, no call


def set_debug_level_from_env() -> None:
    """Read ``EMBER_DISTRIBUTED_DEBUG`` (or ``TORCH_DISTRIBUTED_DEBUG``): OFF, INFO or DETAIL."""
    raw = os.environ.get("EMBER_DISTRIBUTED_DEBUG") or os.environ.get("TORCH_DISTRIBUTED_DEBUG") or "OFF"
    try:
        set_debug_level(DebugLevel[raw.strip().upper()])
    except KeyError:
        raise ValueError(f"EMBER_DISTRIBUTED_DEBUG must be OFF, INFO or DETAIL, got {raw!r}") from None


def set_debug_level(level: DebugLevel) -> None:
    """Set the level for this process (every rank must agree: DETAIL adds a collective)."""
    _LEVEL[:] = [DebugLevel(level)]
    DETAIL[0] = _LEVEL[0] is DebugLevel.DETAIL


def get_debug_level() -> DebugLevel:
    if not _LEVEL:
        set_debug_level_from_env()
    return _LEVEL[0]


def check(pg, name: str, fields: tuple) -> None:
    """All-gather ``(number, name, fields)`` over ``pg`` and raise on every rank if they differ.

    ``fields`` is a tuple of ``(field, value)`` pairs that must be equal on every member.
    """
    if pg._debug_comm is None:
        pg._debug_comm = pg._comm.dup()  # collective: every member reaches its first check together
    mine = (pg._seq + 1, name, fields)  # the number this collective is about to take
    everyone = pg._debug_comm.allgather_object(mine)
    if all(fp == mine for fp in everyone):
        return
    raise RuntimeError(_describe(pg, everyone))


def _describe(pg, everyone: list) -> str:
    ranks = pg.ranks
    lines = [f"Detected mismatch between collectives on ranks of {pg.describe()} (EMBER_DISTRIBUTED_DEBUG=DETAIL):"]
    columns = {"collective number": [fp[0] for fp in everyone], "collective": [fp[1] for fp in everyone]}
    names: list = []
    for fp in everyone:
        for key, _ in fp[2]:
            if key not in names:
                names.append(key)
    for key in names:
        columns[key] = [dict(fp[2]).get(key, "(not passed)") for fp in everyone]
    for key, values in columns.items():
        if any(v != values[0] for v in values):
            per_rank = ", ".join(f"rank {r} {_show(v)}" for r, v in zip(ranks, values, strict=True))
            lines.append(f"  {key} differs: {per_rank}")
    for r, (seq, name, fields) in zip(ranks, everyone, strict=True):
        args = ", ".join(f"{k}={_show(v)}" for k, v in fields)
        lines.append(f"  rank {r} is running collective #{seq}: {name}({args})")
    return "\n".join(lines)


def _show(value) -> str:
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return str(list(value))
    return str(value)
