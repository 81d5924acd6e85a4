"""The per-rank wrapper the launcher starts: ``python -m ember.distributed._worker script.py args``.

It gives the rank torchrun's variables (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ...) from what ``mpiexec`` told it, records that it started, installs
the abort-on-exception hook, runs the script (or ``-m module``) as ``__main__``, and records
a clean finish. A script that ends by ``sys.exit(0)`` finished; any other exit code, or an
exception, ends the whole job at once (an MPI rank that merely exits leaves the others
waiting in their next collective, or in ``MPI_Finalize``).
"""

from __future__ import annotations

import os
import runpy
import sys

from . import _status, watchdog
from .timeline import timeline

__all__ = ["main", "torchrun_environment"]

# (torchrun's variable, where MPICH's hydra or Open MPI put the value)
_FROM_MPI = (
    ("RANK", ("PMI_RANK", "OMPI_COMM_WORLD_RANK")),
    ("WORLD_SIZE", ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE")),
    ("LOCAL_RANK", ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK")),
    ("LOCAL_WORLD_SIZE", ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")),
)


def torchrun_environment(environ=os.environ) -> dict[str, str]:
    """The variables torchrun would set for this rank, read from the MPI launcher's."""
    out = {}
    for name, sources in _FROM_MPI:
        for source in sources:
            if source in environ:
                out[name] = environ[source]
                break
    if "RANK" in out:
        out.setdefault("LOCAL_RANK", out["RANK"])
        out["ROLE_RANK"] = out["RANK"]
        out["GROUP_RANK"] = str(int(out["RANK"]) // max(1, int(out.get("LOCAL_WORLD_SIZE", "1"))))
    if "WORLD_SIZE" in out:
        out.setdefault("LOCAL_WORLD_SIZE", out["WORLD_SIZE"])
        out["ROLE_WORLD_SIZE"] = out["WORLD_SIZE"]
    out.setdefault("MASTER_ADDR", environ.get("MASTER_ADDR", "127.0.0.1"))
    out.setdefault("MASTER_PORT", environ.get("MASTER_PORT", "29500"))
    out.setdefault("TORCHELASTIC_RESTART_COUNT", "0")
    out.setdefault("TORCHELASTIC_MAX_RESTARTS", "0")
    out.setdefault("TORCHELASTIC_RUN_ID", environ.get("EMBER_RUN_ID", "none"))
    return out


def _run_target(argv: list[str]) -> None:
    if argv[0] == "-m":
        if len(argv) < 2:
            raise SystemExit("ember.distributed._worker: -m needs a module name")
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    script = argv[0]
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message") prints it and means 1
    return 1


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        raise SystemExit("usage: python -m ember.distributed._worker (script.py | -m module) [args...]")
    os.environ.update(torchrun_environment())
    rank = int(os.environ.get("RANK", "0"))
    _status.note_started(rank)
    watchdog.install_excepthook(rank)
    path = os.environ.get("EMBER_TIMELINE")
    try:
        if path:
            with timeline(f"{path}.rank{rank}.json", rank=rank):
                _run_target(argv)
        else:
            _run_target(argv)
    except SystemExit as exc:
        code = _exit_code(exc.code)
        if code != 0:
            _status.note_error(rank, f"[ember rank {rank}] exited with code {code}\n")
            sys.stdout.flush()
            sys.stderr.flush()
            mpi = sys.modules.get(__package__ + "._mpi")
            if mpi is not None:
                mpi.abort(code)  # the others would wait for this rank forever
            os._exit(code)
    except BaseException:
        watchdog.abort_on_exception(rank, *sys.exc_info())
    _status.note_done(rank)


if __name__ == "__main__":
    main()
