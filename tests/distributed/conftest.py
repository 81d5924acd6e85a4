"""The multi-rank test harness: one MPI job runs every multi-rank test of a world size.

How to add a multi-rank test: put it in a module under ``tests/distributed/`` and mark it
``@pytest.mark.mpi(n=2)`` (or ``pytestmark = pytest.mark.mpi(n=2)`` for the module; ``n=4``
for the few tests where four ranks matter, ``n=1`` for a plain ``python`` process that is a
world of one). Write its body as one rank's view: the default group is initialised (30 s
collective timeout), so call ``dist.get_rank()`` and the collectives directly, and assert
what this rank must see. Every rank must take the same path through the test (skip on all
ranks or none), and a test must not destroy the default group.

How it runs: the ordinary pytest process never starts MPI. The first multi-rank test of a
world size n launches one job, ``ember-run -n n -m pytest <every such test>``, under a
timeout; each rank writes its outcome per test to a results folder, and each test in the
parent passes when every rank passed, fails with the ranks' tracebacks otherwise, or fails
naming what ended the job. After a test that failed on some rank, the ranks check within
10 s that they all left it; if one is stuck in a collective the job is aborted (the later
tests then fail as "not run"), so one broken test cannot hang the suite. The tests skip,
saying why, only where mpi4py or mpiexec cannot be found.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

RESULTS_ENV = "EMBER_TEST_MPI_RESULTS"
COLLECTIVE_TIMEOUT_S = 30
JOB_TIMEOUT_S = {1: 120, 2: 240, 4: 180}
_WORKER = os.environ.get(RESULTS_ENV)
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "mpi(n): a test run on n ranks in one MPI job per world size (see tests/distributed/conftest.py)")


def _world_size(item) -> int | None:
    marker = item.get_closest_marker("mpi")
    if marker is None:
        return None
    return int(marker.kwargs.get("n", marker.args[0] if marker.args else 2))


def mpi_missing() -> str | None:
    """Why multi-process tests cannot run here, or None."""
    if importlib.util.find_spec("mpi4py") is None:
        return 'mpi4py is not installed (pip install "ember[distributed]")'
    from ember.distributed.run import find_mpiexec  # the launcher's own search

    try:
        find_mpiexec()
    except FileNotFoundError as exc:
        return str(exc)
    return None


# -- the parent: one job per world size, results read per test ------------------------------

class _Jobs:
    def __init__(self) -> None:
        self.nodeids: dict[int, list[str]] = {}
        self.results: dict[int, dict] = {}


_JOBS = _Jobs()


def pytest_collection_modifyitems(session, config, items) -> None:
    if _WORKER:
        return
    for item in items:
        n = _world_size(item)
        if n is not None:
            _JOBS.nodeids.setdefault(n, []).append(item.nodeid)


def _run_job(n: int) -> dict:
    folder = tempfile.mkdtemp(prefix=f"ember-mpi-tests-{n}-")
    # Small chunks, so that modest tensors take the chunked path of large reductions too.
    env = dict(os.environ, **{RESULTS_ENV: folder, "EMBER_DISTRIBUTED_TIMEOUT": str(COLLECTIVE_TIMEOUT_S), "OMP_NUM_THREADS": "1",
                              "EMBER_DIST_CHUNK_BYTES": "4096"})
    pytest_args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", _ROOT, *_JOBS.nodeids[n]]
    if n == 1:  # a plain process: MPI's singleton world
        cmd = [sys.executable, *pytest_args]
    else:
        cmd = [sys.executable, "-m", "ember.distributed.run", "-n", str(n), "-m", *pytest_args[1:]]
    try:
        proc = subprocess.run(cmd, env=env, cwd=_ROOT, capture_output=True, text=True, timeout=JOB_TIMEOUT_S[n])
        output, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        output = f"{exc.stdout or ''}{exc.stderr or ''}\nthe job did not end within {JOB_TIMEOUT_S[n]} s and was killed"
        rc = None
    per_rank: dict[int, dict] = {}
    for name in os.listdir(folder):
        rank = int(name.split("-")[1].split(".")[0])
        with open(os.path.join(folder, name)) as f:
            per_rank[rank] = {r["nodeid"]: r for r in map(json.loads, f)}
    shutil.rmtree(folder, ignore_errors=True)
    return {"ranks": per_rank, "output": output, "rc": rc}


def pytest_pyfunc_call(pyfuncitem):
    n = _world_size(pyfuncitem)
    if n is None or _WORKER:
        return None
    reason = mpi_missing()
    if reason:
        pytest.skip(f"multi-process test needs MPI: {reason}")
    if n not in _JOBS.results:
        _JOBS.results[n] = _run_job(n)
    job = _JOBS.results[n]
    nodeid = pyfuncitem.nodeid
    outcomes = {rank: results.get(nodeid) for rank, results in sorted(job["ranks"].items())}
    missing = [rank for rank in range(n) if outcomes.get(rank) is None]
    failed = {rank: r for rank, r in outcomes.items() if r is not None and r["outcome"] == "failed"}
    if failed:
        pytest.fail("\n\n".join(f"---- rank {rank} ----\n{r['longrepr']}" for rank, r in failed.items()), pytrace=False)
    if missing:
        tail = job["output"][-6000:]
        pytest.fail(f"did not run on ranks {missing} (the {n}-rank job ended with code {job['rc']}); its output ends:\n{tail}", pytrace=False)
    if all(r["outcome"] == "skipped" for r in outcomes.values()):
        pytest.skip(next(iter(outcomes.values()))["longrepr"])
    return True


# -- a rank: run the tests for real, report each outcome, keep the ranks in step ------------------

@pytest.fixture(scope="session")
def _mpi_world():
    import ember.distributed as dist  # only rank processes start MPI

    if not dist.is_initialized():
        dist.init_process_group()
    return dist


@pytest.fixture(autouse=True)
def _mpi_rank_test(request):
    if not _WORKER or _world_size(request.node) is None:
        yield
        return
    dist = request.getfixturevalue("_mpi_world")
    yield
    failed = any(getattr(request.node, f"rep_{when}", None) is not None and getattr(request.node, f"rep_{when}").failed
                 for when in ("setup", "call"))
    _agree_after(dist, failed, request.node.nodeid)


def _agree_after(dist, failed: bool, nodeid: str) -> None:
    """All ranks left the test: go on. A rank still stuck in it after a failure: end the job."""
    import ember  # only rank processes get here

    flag = ember.tensor([1 if failed else 0], dtype=ember.int32)
    work = dist.all_reduce(flag, op=dist.ReduceOp.MAX, async_op=True)
    try:
        work.wait(timeout=10.0 if failed else COLLECTIVE_TIMEOUT_S)
    except dist.DistBackendError:
        sys.stderr.write(f"[harness rank {dist.get_rank()}] other ranks did not leave {nodeid}; ending the job\n")
        sys.stderr.flush()
        from ember.distributed import _mpi  # the job ends here

        _mpi.abort(1)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


def pytest_runtest_logreport(report) -> None:
    if not _WORKER:
        return
    if report.when != "call" and not (report.failed or report.skipped):
        return
    rank = int(os.environ.get("RANK", "0"))
    record = {"nodeid": report.nodeid, "outcome": report.outcome, "when": report.when,
              "longrepr": "" if report.passed else (report.longrepr[2] if report.skipped and isinstance(report.longrepr, tuple) else str(report.longrepr))}
    with open(os.path.join(_WORKER, f"rank-{rank}.jsonl"), "a") as f:
        f.write(json.dumps(record) + "\n")
