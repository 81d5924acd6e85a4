"""Per-rank records the launcher reads after the job: started, done, error.

``ember-run`` gives every rank a status directory (``EMBER_RUN_STATUS_DIR``). A rank writes
``rank-K.started`` (its pid and host) when it begins, ``rank-K.done`` when its script
returned, and ``rank-K.error`` with the reason when the excepthook or the watchdog ends the
job. A rank that vanished leaves no ``done``: the launcher reports it, even when MPI's own
exit code says 0. Outside the launcher there is no directory and nothing is written.
"""

from __future__ import annotations

import contextlib
import os
import socket

__all__ = ["ENV", "note_done", "note_error", "note_shm", "note_started", "read", "remove_segments"]

ENV = "EMBER_RUN_STATUS_DIR"


def _path(rank: int, kind: str) -> str | None:
    folder = os.environ.get(ENV)
    if not folder:
        return None
    return os.path.join(folder, f"rank-{rank}.{kind}")


def _write(rank: int, kind: str, text: str) -> None:
    path = _path(rank, kind)
    if path is None:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)  # the launcher never reads half a record
    except OSError:
        pass  # a record is a courtesy to the launcher; never fail the rank over it


def note_started(rank: int) -> None:
    """Record that ``rank`` runs (pid and host): the launcher orders exits by pid."""
    path = _path(rank, "started")
    if path is not None and not os.path.exists(path):
        _write(rank, "started", f"{os.getpid()} {socket.gethostname()}\n")


def note_shm(rank: int, paths: list[str]) -> None:
    """Record the MPI library's shared-memory segments: the launcher unlinks them if the job is
    killed before MPI_Finalize could (a rank killed by SIGKILL cleans nothing up)."""
    if paths:
        _write(rank, "shm", "\n".join(paths) + "\n")


def remove_segments(records: dict) -> None:
    """Unlink every recorded segment still present (after the job ended)."""
    for rec in records.values():
        for path in rec.get("shm", "").split():
            if path.startswith("/dev/shm/"):
                with contextlib.suppress(OSError):
                    os.unlink(path)


def note_done(rank: int) -> None:
    _write(rank, "done", "")


def note_error(rank: int, text: str) -> None:
    _write(rank, "error", text)


def read(folder: str) -> dict[int, dict[str, str]]:
    """``{rank: {kind: text}}`` of every record in ``folder``."""
    out: dict[int, dict[str, str]] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return out
    for name in names:
        stem, _, kind = name.partition(".")
        if not stem.startswith("rank-") or kind not in ("started", "done", "error", "shm"):
            continue
        try:
            rank = int(stem[5:])
            with open(os.path.join(folder, name)) as f:
                out.setdefault(rank, {})[kind] = f.read()
        except (ValueError, OSError):
            continue
    return out
