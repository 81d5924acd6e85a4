"""Nothing hangs: the collective watchdog and the abort-on-exception hook.

**Watchdog.** Before a collective waits, the calling thread stores one tuple, ``(name, group,
number, detail, start)``, and clears it after (two attribute writes). A daemon thread looks
every 100 ms. At ``min(60 s, timeout / 2)`` it prints a stall warning; at the group's timeout
it writes the rank's error record and calls ``MPI_Abort``, which ends every process of the
job. Both messages say which collective (its number on the group, its size), which group,
how long it waited, and what every other member was doing: each rank's watchdog answers
questions from the others over its own duplicate of the world communicator, so a waiting rank
learns that rank 1 "is not in a collective; started 40 on this group" and names it as not
arrived. MPI cannot repair a communicator after a timeout, so ending the job is the only way
out of a blocking collective; ``Work.wait(timeout=...)`` raises instead.

**Excepthook.** An uncaught exception prints ``[ember rank K]`` with the traceback and aborts the
job at once (an MPI program that merely exits leaves the other ranks waiting forever).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback

from . import _status

__all__ = ["Watchdog", "abort_on_exception", "install_excepthook", "start"]

POLL_S = 0.1
ANSWER_WAIT_S = 1.0
STALL_WARN_CAP_S = 60.0
TIMEOUT_EXIT_CODE = 124
_QUERY, _REPLY = 11, 12


class Watchdog:
    """A daemon thread that bounds every collective of this process."""

    def __init__(self, comm, state) -> None:
        self.comm = comm  # a duplicate of the world: questions and answers between watchdogs only
        self.state = state  # process_group's state: the live groups
        self.rank = comm.rank
        self.pending = None  # (name, group, number, detail, start) of the collective being waited on
        self.last_end = time.perf_counter()
        self._warned = None
        self._count = 0
        self._round = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ember-distributed-watchdog", daemon=True)

    def start(self) -> Watchdog:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self.comm.free()

    # -- the thread ------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                self._tick()
            except Exception as exc:  # the watchdog must outlive its own bugs and say so
                print(f"[ember rank {self.rank}] watchdog error (ignored): {exc!r}", file=sys.stderr, flush=True)

    def _tick(self) -> None:
        self._answer()
        pending = self.pending
        count = sum(pg._seq for pg in list(self.state.groups))
        if pending is not None or count != self._count:  # "idle" counts from the last tick that saw a collective
            self._count = count
            self.last_end = time.perf_counter()
        if pending is None:
            return
        name, pg, seq, detail, start = pending
        detail = describe_detail(detail)
        waited = time.perf_counter() - start
        timeout = pg.timeout
        if waited >= timeout:
            self._abort(pending, waited)
        elif waited >= min(STALL_WARN_CAP_S, timeout / 2) and self._warned is not pending:
            self._warned = pending
            head = (f"[ember rank {self.rank}] waiting {waited:.1f} s in collective #{seq} {name} ({detail}) on "
                    f"{pg.describe()}; the job aborts at {timeout:.1f} s")
            print(head + "\n" + "\n".join(self._peer_report(pg, seq)[0]), file=sys.stderr, flush=True)

    def _abort(self, pending, waited: float) -> None:
        name, pg, seq, detail, _ = pending
        detail = describe_detail(detail)
        lines, missing = self._peer_report(pg, seq)
        text = (f"[ember rank {self.rank}] collective #{seq} {name} ({detail}) on {pg.describe()} did not complete "
                f"within the group's timeout of {pg.timeout:.1f} s (waited {waited:.1f} s); aborting the job\n"
                + "\n".join(lines) + f"\n  ranks that had not arrived: {missing if missing else 'none found'}\n")
        sys.stderr.write(text)
        sys.stderr.flush()
        _status.note_error(self.rank, text)
        self.state.mpi.abort(TIMEOUT_EXIT_CODE)

    # -- asking the other ranks --------------------------------------------------------

    def _snapshot(self) -> dict:
        now = time.perf_counter()
        pending = self.pending
        return {
            "pending": None if pending is None else (pending[0], pending[1]._key, pending[2], now - pending[4]),
            "seqs": {pg._key: pg._seq for pg in list(self.state.groups)},
            "idle": now - self.last_end,
        }

    def _answer(self) -> None:
        while True:
            message = self.comm.poll_object(_QUERY)
            if message is None:
                return
            source, round_id = message
            self.comm.send_object((round_id, self._snapshot()), source, _REPLY)

    def _ask(self, peers: list[int]) -> dict[int, dict]:
        self._round += 1
        for peer in peers:
            self.comm.send_object(self._round, peer, _QUERY)
        answers: dict[int, dict] = {}
        deadline = time.perf_counter() + ANSWER_WAIT_S
        while len(answers) < len(peers) and time.perf_counter() < deadline:
            self._answer()  # a peer may be asking us at the same moment
            message = self.comm.poll_object(_REPLY)
            if message is None:
                time.sleep(0.005)
                continue
            source, (round_id, snapshot) = message
            if round_id == self._round:
                answers[source] = snapshot
        return answers

    def _peer_report(self, pg, seq: int) -> tuple[list[str], list[int]]:
        peers = [r for r in pg.ranks if r != self.rank]
        answers = self._ask(peers)
        lines, missing = [], []
        for r in peers:
            snap = answers.get(r)
            if snap is None:
                lines.append(f"  rank {r}: no answer within {ANSWER_WAIT_S:.0f} s (busy outside Python, or exiting)")
                missing.append(r)
                continue
            started = snap["seqs"].get(pg._key, 0)
            pending = snap["pending"]
            if pending is not None:
                p_name, p_key, p_seq, p_waited = pending
                where = "this group" if p_key == pg._key else "another group"
                doing = f"waiting {p_waited:.1f} s in collective #{p_seq} {p_name} on {where}"
            else:
                doing = f"not in a collective (the last one ended {snap['idle']:.1f} s ago)"
            arrived = started >= seq
            lines.append(f"  rank {r}: {doing}; collectives started on this group: {started}"
                         f"{'' if arrived else f' -> has not arrived at #{seq}'}")
            if not arrived:
                missing.append(r)
        return lines, missing


def describe_detail(detail) -> str:
    """A collective's detail (``(nbytes, dtype)`` or its tensor) as ``4.0 KiB of float32``."""
    if not isinstance(detail, tuple):
        detail = (detail._dtype.itemsize * detail.numel(), detail._dtype.name)
    nbytes, dtype = detail
    size = f"{nbytes} B" if nbytes < 1024 else f"{nbytes / 1024:.1f} KiB" if nbytes < 1 << 20 else f"{nbytes / (1 << 20):.1f} MiB"
    return size if dtype is None else f"{size} of {dtype}"


def start(world, state) -> Watchdog:
    """Start this process's watchdog over a duplicate of ``world`` (collective)."""
    return Watchdog(world.dup(), state).start()


def abort_on_exception(rank: int, etype, value, tb) -> None:
    """Print the rank and traceback, record it for the launcher, and end the whole job."""
    if issubclass(etype, KeyboardInterrupt):
        text = f"[ember rank {rank}] interrupted (KeyboardInterrupt); aborting the job\n"
    else:
        body = "".join(traceback.format_exception(etype, value, tb))
        text = f"[ember rank {rank}] uncaught exception; aborting the job\n{body}[ember rank {rank}] {etype.__name__}: {value}\n"
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    _status.note_error(rank, text)
    mpi = sys.modules.get(__package__ + "._mpi")  # loaded only if this process started MPI
    if mpi is not None:
        mpi.abort(1)
    os._exit(1)


def install_excepthook(rank: int) -> None:
    """Make an uncaught exception in this process abort the job (idempotent)."""
    if getattr(sys.excepthook, "ember_rank", None) is not None:
        return

    def hook(etype, value, tb) -> None:
        abort_on_exception(rank, etype, value, tb)

    hook.ember_rank = rank
    sys.excepthook = hook
