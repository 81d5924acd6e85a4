"""Faults on 2 ranks under the launcher: nothing hangs, nothing passes for success.

Each case runs a small script with ``ember-run -n 2`` under a subprocess timeout: rank 0
waits in a collective that can only end if the fault ends the job. After each case no process
of the job is left and no new shared-memory segment is in /dev/shm.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from .conftest import mpi_missing

TIMEOUT_S = 90  # a bound for the test only: the faults end the job in well under a second after the imports

pytestmark = pytest.mark.skipif(mpi_missing() is not None, reason=f"multi-process test needs MPI: {mpi_missing()}")

PRELUDE = """
import os, sys, time, signal
import ember, ember.distributed as dist
dist.init_process_group()
rank = dist.get_rank()
"""


def _shm() -> set[str]:
    """Segments in /dev/shm that no live process maps (a concurrent job's are not leftovers)."""
    try:
        names = set(os.listdir("/dev/shm"))
    except OSError:
        return set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/maps") as f:
                    names -= {line.rsplit("/", 1)[-1].strip() for line in f if "/dev/shm/" in line}
            except OSError:
                continue
    return names


def _leftovers(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found


def _launch(tmp_path, body: str, *launcher_args, env=None, use_launcher=True, n=2):
    script = tmp_path / "job.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    if use_launcher:
        cmd = [sys.executable, "-m", "ember.distributed.run", "-n", str(n), *launcher_args, str(script)]
    else:
        mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
        cmd = [mpiexec, "-n", str(n), sys.executable, str(script)]
    return cmd, str(script)


def run_job(tmp_path, body: str, *launcher_args, env=None, use_launcher=True, n=2):
    cmd, marker = _launch(tmp_path, body, *launcher_args, use_launcher=use_launcher, n=n)
    before = _shm()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, env={**os.environ, **(env or {})})
    _check_clean(marker, before, proc.stderr)
    return proc


def _check_clean(marker: str, shm_before: set[str], stderr: str) -> None:
    """No process of the job left (a killed one may take a moment to be reaped) and no segment."""
    deadline = time.monotonic() + 5.0
    while _leftovers(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _leftovers(marker) == [], f"processes of the job were left behind; its stderr:\n{stderr}"
    assert _shm() - shm_before == set(), f"the job left shared-memory segments behind; its stderr:\n{stderr}"


def test_uncaught_exception_aborts_the_job_with_rank_and_traceback(tmp_path):
    proc = run_job(tmp_path, """
        if rank == 1:
            raise RuntimeError("boom on purpose")
        dist.all_reduce(ember.ones(4))   # would wait forever for rank 1
    """)
    assert proc.returncode != 0
    assert "[ember rank 1] uncaught exception; aborting the job" in proc.stderr
    assert "Traceback (most recent call last)" in proc.stderr and "RuntimeError: boom on purpose" in proc.stderr
    assert "rank 1: [ember rank 1] uncaught exception" in proc.stderr  # the launcher's summary


def test_rank_exiting_with_code_0_mid_job_is_a_failure_naming_it(tmp_path):
    proc = run_job(tmp_path, """
        if rank == 1:
            time.sleep(0.5)
            os._exit(0)
        dist.all_reduce(ember.ones(4))
    """)
    assert proc.returncode == 1, proc.stderr
    assert "the job failed although mpiexec reported success" in proc.stderr
    assert "rank 1: ended first, without finishing its script" in proc.stderr or "rank 1: ended without finishing" in proc.stderr


def test_rank_exiting_with_an_error_code(tmp_path):
    proc = run_job(tmp_path, """
        if rank == 1:
            sys.exit(3)
        dist.all_reduce(ember.ones(4))
    """)
    assert proc.returncode == 3
    assert "rank 1: [ember rank 1] exited with code 3" in proc.stderr


def test_sigkill_of_a_rank_ends_the_job(tmp_path):
    proc = run_job(tmp_path, """
        if rank == 1:
            time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGKILL)
        while True:
            dist.all_reduce(ember.ones(1000))
    """)
    assert proc.returncode != 0
    assert "rank 1: ended" in proc.stderr


def test_a_hung_collective_is_aborted_by_the_watchdog_naming_who_is_missing(tmp_path):
    proc = run_job(tmp_path, """
        dist.barrier()
        if rank == 1:
            time.sleep(60)               # never joins the next collective
        dist.all_reduce(ember.ones(256))
    """, "--timeout", "2")
    assert proc.returncode == 124, proc.stderr
    err = proc.stderr
    assert "[ember rank 0] waiting" in err  # the stall warning came first, at half the timeout
    assert "collective #2 all_reduce (1.0 KiB of float32) on group WORLD" in err
    assert "did not complete within the group's timeout of 2.0 s" in err
    assert "rank 1: not in a collective" in err and "has not arrived at #2" in err
    assert "ranks that had not arrived: [1]" in err


def test_a_users_own_mpiexec_gets_the_abort_on_exception(tmp_path):
    proc = run_job(tmp_path, """
        if rank == 0:
            raise ValueError("plain mpiexec")
        dist.barrier()
    """, use_launcher=False)
    assert proc.returncode != 0
    assert "[ember rank 0] uncaught exception" in proc.stderr and "ValueError: plain mpiexec" in proc.stderr


def test_ctrl_c_is_forwarded_and_ends_every_rank(tmp_path):
    cmd, marker = _launch(tmp_path, """
        print("ready", flush=True)
        while True:
            dist.all_reduce(ember.ones(10))
    """)
    before = _shm()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(2):
            assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    _check_clean(marker, before, "")


def test_detail_debug_mode_names_the_ranks_and_fields_that_differ(tmp_path):
    proc = run_job(tmp_path, """
        try:
            dist.all_reduce(ember.ones(4 if rank == 0 else 5))
        except RuntimeError as exc:
            print(f"rank {rank} caught:", exc, flush=True)
        try:
            if rank == 0:
                dist.all_reduce(ember.ones(2))
            else:
                dist.broadcast(ember.ones(2), src=0)
        except RuntimeError as exc:
            print(f"rank {rank} caught:", exc, flush=True)
        dist.barrier()
    """, env={"EMBER_DISTRIBUTED_DEBUG": "DETAIL"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for rank in (0, 1):
        assert f"rank {rank} caught: Detected mismatch between collectives" in out
    assert "shape differs: rank 0 [4], rank 1 [5]" in out
    assert "collective differs: rank 0 all_reduce, rank 1 broadcast" in out
    assert "rank 1 is running collective #1: broadcast(shape=[2], dtype=float32, src=0)" in out


def test_torchrun_environment_and_plain_python_world_of_one(tmp_path):
    proc = run_job(tmp_path, """
        keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]
        print("env", rank, [os.environ.get(k) is not None for k in keys], os.environ["RANK"], os.environ["WORLD_SIZE"], dist.get_local_rank())
        with dist.record_span("work", category="user"):
            dist.barrier()
    """, "--nproc_per_node", "2", "--timeline", str(tmp_path / "job.json"))
    assert proc.returncode == 0, proc.stderr
    events = json.loads((tmp_path / "job.json").read_text())["traceEvents"]
    assert {(e["pid"], e["name"]) for e in events if e["ph"] == "X"} == {(0, "work"), (1, "work"), (0, "barrier"), (1, "barrier")}
    assert "env 0 [True, True, True, True, True, True] 0 2 0" in proc.stdout
    assert "env 1 [True, True, True, True, True, True] 1 2 1" in proc.stdout
    script = tmp_path / "plain.py"
    script.write_text(textwrap.dedent("""
        import warnings, ember, ember.distributed as dist
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dist.init_process_group("gloo", init_method="env://")
        t = ember.ones(3)
        dist.all_reduce(t)
        print(dist.get_rank(), dist.get_world_size(), t.tolist(), [str(w.message) for w in caught])
    """))
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "PMI_FD")}
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.startswith("0 1 [1.0, 1.0, 1.0] [\"init_process_group: ember.distributed runs on MPI; backend 'gloo' is served by MPI\"]")


def test_launcher_without_mpiexec_says_how_to_install(tmp_path):
    env = {**os.environ, "EMBER_MPIEXEC": str(tmp_path / "missing")}
    proc = subprocess.run([sys.executable, "-m", "ember.distributed.run", "-n", "2", "x.py"], capture_output=True, text=True,
                          timeout=TIMEOUT_S, env=env)
    assert proc.returncode == 127 and "EMBER_MPIEXEC" in proc.stderr
