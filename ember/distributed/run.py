"""The launcher: ``ember-run -n 4 train.py --args`` (or ``python -m ember.distributed.run``).

It wraps the ``mpiexec`` that came with the ``mpich`` wheel (beside this Python first, then
``EMBER_MPIEXEC``'s, then ``PATH``'s) and starts every rank through the per-rank wrapper
(``_worker.py``), which gives each rank torchrun's variables, so programs written for
``torchrun`` run unchanged. It accepts torchrun's ``--nproc-per-node``/``--nproc_per_node``,
passes ``--hosts``/``--hostfile`` to ``mpiexec``, forwards Ctrl-C and SIGTERM, and returns the
worst exit code, with one rule MPI lacks: a rank that ended without recording a clean finish
(``os._exit(0)`` in the middle of a job ends it with code 0) turns success into failure, and
the summary names the rank.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from . import _status
from .timeline import merge

__all__ = ["find_mpiexec", "main"]

INSTALL = 'pip install "ember[distributed]"'


def find_mpiexec() -> str:
    """The ``mpiexec`` to use: ``EMBER_MPIEXEC``, else the one beside this Python, else PATH's."""
    override = os.environ.get("EMBER_MPIEXEC")
    if override:
        if not (os.path.isfile(override) and os.access(override, os.X_OK)):
            raise FileNotFoundError(f"EMBER_MPIEXEC={override!r} is not an executable file")
        return override
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("mpiexec")
    if found:
        return found
    raise FileNotFoundError(
        f"ember-run: no mpiexec found (looked beside {sys.executable}, in EMBER_MPIEXEC and on PATH); "
        f"install MPI with: {INSTALL}"
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ember-run",
        description="Run a Python program on N processes over MPI (torchrun-compatible environment).",
    )
    p.add_argument("-n", "--nproc-per-node", "--nproc_per_node", dest="nproc", type=int, default=1,
                   help="number of processes (ranks) to start (default 1)")
    p.add_argument("--hosts", help="comma-separated hosts, passed to mpiexec -hosts")
    p.add_argument("--hostfile", help="a host file, passed to mpiexec -f")
    p.add_argument("--tag-output", action="store_true", help="prefix every output line with its rank ([0] ...)")
    p.add_argument("--timeout", type=float, help="seconds one collective may take before the job aborts (default 600)")
    p.add_argument("--max-time", type=float, help="seconds the whole job may take (MPIEXEC_TIMEOUT)")
    p.add_argument("--timeline", help="write a Chrome trace of every rank's collectives and spans to this file")
    p.add_argument("--master-addr", "--master_addr", dest="master_addr", help="MASTER_ADDR for the ranks (informational under MPI)")
    p.add_argument("--master-port", "--master_port", dest="master_port", type=int, help="MASTER_PORT for the ranks")
    p.add_argument("--nnodes", default="1", help="accepted for torchrun compatibility; hosts come from --hosts/--hostfile")
    p.add_argument("--standalone", action="store_true", help="accepted for torchrun compatibility (always standalone)")
    p.add_argument("--mpiexec-arg", action="append", default=[], help="an extra argument for mpiexec (repeatable)")
    p.add_argument("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    p.add_argument("target", help="the script (or module with -m)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    return p


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _environment(opts) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // max(1, opts.nproc))))
    remote = bool(opts.hosts or opts.hostfile)
    env["MASTER_ADDR"] = opts.master_addr or env.get("MASTER_ADDR") or (socket.gethostname() if remote else "127.0.0.1")
    env["MASTER_PORT"] = str(opts.master_port or env.get("MASTER_PORT") or _free_port())
    env["EMBER_RUN_ID"] = f"{socket.gethostname()}-{os.getpid()}"
    if opts.timeout is not None:
        env["EMBER_DISTRIBUTED_TIMEOUT"] = str(opts.timeout)
    if opts.max_time is not None:
        env["MPIEXEC_TIMEOUT"] = str(max(1, int(opts.max_time)))
    if opts.timeline:
        env["EMBER_TIMELINE"] = os.path.abspath(opts.timeline)
    return env


def _command(opts, mpiexec: str) -> list[str]:
    cmd = [mpiexec, "-n", str(opts.nproc)]
    if opts.tag_output:
        cmd.append("-prepend-rank")
    if opts.hosts:
        cmd += ["-hosts", opts.hosts]
    if opts.hostfile:
        cmd += ["-f", opts.hostfile]
    cmd += opts.mpiexec_arg
    cmd += [sys.executable, "-m", "ember.distributed._worker"]
    cmd += ["-m", opts.target] if opts.module else [opts.target]
    return cmd + list(opts.args)


class _ExitOrder:
    """Notes the order in which this host's ranks end (pidfds), to name the one that went first."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.order: list[int] = []
        self.watched: dict[int, int] = {}  # pidfd -> rank
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="ember-run-exits", daemon=True)
        if hasattr(os, "pidfd_open"):
            self.thread.start()

    def _run(self) -> None:
        host = socket.gethostname()
        while not self.stop.is_set():
            for rank, rec in _status.read(self.folder).items():
                started = rec.get("started", "").split()
                if len(started) == 2 and started[1] == host and rank not in self.watched.values() and rank not in self.order:
                    with contextlib.suppress(OSError):
                        self.watched[os.pidfd_open(int(started[0]))] = rank
            ready = select.select(list(self.watched), [], [], 0.01)[0] if self.watched else time.sleep(0.01)
            for fd in ready or ():
                self.order.append(self.watched.pop(fd))
                os.close(fd)

    def close(self) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=1.0)
        for fd in self.watched:
            os.close(fd)


def _summary(folder: str, nproc: int, rc: int, order: list[int]) -> tuple[int, list[str]]:
    """The job's exit code after the completion check, and lines that explain a failure."""
    records = _status.read(folder)
    done = sorted(r for r, rec in records.items() if "done" in rec)
    errors = {r: rec["error"] for r, rec in records.items() if "error" in rec}
    started = sorted(r for r, rec in records.items() if "started" in rec)
    vanished = [r for r in started if r not in done and r not in errors]
    if rc == 0 and not vanished:
        return 0, []
    lines = [f"ember-run: the job failed (mpiexec exit code {rc})" if rc else "ember-run: the job failed although mpiexec reported success"]
    first = next((r for r in order if r in vanished), None)
    for r in range(nproc):
        if r in done:
            lines.append(f"  rank {r}: finished its script")
        elif r in errors:
            lines.append(f"  rank {r}: {errors[r].strip().splitlines()[0]}")
        elif r in vanished:
            why = "ended first, without finishing its script (exited early or was killed)" if r == first else \
                "ended without finishing its script (exited early, or was stopped by mpiexec after another rank ended)"
            lines.append(f"  rank {r}: {why}")
        else:
            lines.append(f"  rank {r}: left no record (did not start, or its host does not share the status folder)")
    return (rc or 1), lines


def main(argv: list[str] | None = None) -> int:
    opts = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if opts.nproc < 1:
        print(f"ember-run: -n must be at least 1, got {opts.nproc}", file=sys.stderr)
        return 2
    try:
        mpiexec = find_mpiexec()
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 127
    folder = tempfile.mkdtemp(prefix="ember-run-")
    env = _environment(opts)
    env[_status.ENV] = folder
    exits = _ExitOrder(folder)
    proc = subprocess.Popen(_command(opts, mpiexec), env=env, start_new_session=True, preexec_fn=_die_with_parent)
    previous = {sig: signal.signal(sig, _forward(proc)) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        rc = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    time.sleep(0.02)  # let the exit watcher see the last pidfds
    exits.close()
    rc = 128 - rc if rc < 0 else rc
    rc, lines = _summary(folder, opts.nproc, rc, exits.order)
    _status.remove_segments(_status.read(folder))
    if lines:
        print("\n".join(lines), file=sys.stderr, flush=True)
    if opts.timeline:
        parts = [os.path.join(os.path.dirname(env["EMBER_TIMELINE"]), f) for f in sorted(os.listdir(os.path.dirname(env["EMBER_TIMELINE"])))
                 if f.startswith(os.path.basename(env["EMBER_TIMELINE"]) + ".rank")]
        if parts:
            merge(parts, env["EMBER_TIMELINE"])
            for p in parts:
                os.remove(p)
    shutil.rmtree(folder, ignore_errors=True)
    return rc


def _forward(proc: subprocess.Popen):
    count = [0]

    def handler(signum, frame) -> None:
        count[0] += 1
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGKILL if count[0] > 2 else signum)

    return handler


def _die_with_parent() -> None:
    """mpiexec dies with the launcher (so its ranks do too): no orphans if ember-run is killed."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


if __name__ == "__main__":
    sys.exit(main())
