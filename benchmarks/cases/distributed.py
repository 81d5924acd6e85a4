"""Collectives across processes: ember against raw mpi4py and torch.distributed (gloo), interleaved.

    python benchmarks/run.py --filter distributed --threads 1
    python benchmarks/cases/distributed.py --threads 1 [--quick] [--ranks 2,4]

One MPI job per world size (2 ranks, and 4 ranks on 2 cores, which is oversubscribed and marked
so) runs every variant on the same buffers, round-robin in a shuffled order that all ranks
share, as the design notes measured: a trial is a barrier, N calls, and the slowest rank's mean
per call; each figure is the median of the trials. "mpi4py" is ``comm.Allreduce(IN_PLACE, buf)``
on the NumPy view of ember's tensor (the same memory ember hands MPI); "mpi4py chunked" reduces
the buffer in pieces of the given size. Before each job the runner waits (up to 180 s) until the
machine's other processes use under 15% of the CPU, since MPI ranks busy-poll and one foreign
busy core ruins every figure; it says so when it gave up waiting. The job start time is the wall
time of ``ember-run -n 2`` on an empty script, against ``import ember`` alone and ``mpiexec -n 2``
running ``import ember``. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    from harness import job
except ImportError:  # a rank of the job: started as a script, without the runner's harness
    job = None

KIB, MIB = 1024, 1024 * 1024
SIZES = {"1 KiB": KIB, "1 MiB": MIB, "100 MiB": 100 * MIB}
ITERS = {KIB: 3000, MIB: 300, 100 * MIB: 5}
CHUNKS_MIB = (1, 2, 4, 8, 16)
TARGETS = {"1 KiB": "ember <= mpi4py + 1.5 us", "1 MiB": "ember <= 1.1x mpi4py", "100 MiB": "ember <= 17 ms (2 ranks)"}


# -- the runner's side: gate on load, launch the jobs, print the tables ---------------------------

def _cpu_times() -> tuple[int, int]:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields)  # idle + iowait, total


def wait_for_quiet(limit_s: float = 180.0, busy_max: float = 0.15) -> float:
    """Wait until other processes use under ``busy_max`` of the CPU; return the last share seen."""
    deadline = time.monotonic() + limit_s
    while True:
        idle0, total0 = _cpu_times()
        time.sleep(0.5)
        idle1, total1 = _cpu_times()
        busy = 1.0 - (idle1 - idle0) / max(1, total1 - total0)
        if busy < busy_max or time.monotonic() > deadline:
            return busy


def _launch(n: int, quick: bool) -> dict:
    cmd = [sys.executable, "-m", "ember.distributed.run", "-n", str(n), os.path.abspath(__file__), "--rank-job"]
    proc = subprocess.run(cmd + (["--quick"] if quick else []), capture_output=True, text=True, timeout=900)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULTS "):
            return json.loads(line[len("RESULTS "):])
    raise RuntimeError(f"the {n}-rank benchmark job failed (code {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


def _start_times(rounds: int) -> dict[str, float]:
    """Wall time of starting jobs, interleaved: import ember / mpiexec -n 2 / ember-run -n 2."""
    python = sys.executable
    mpiexec = os.path.join(os.path.dirname(python), "mpiexec")
    folder = tempfile.mkdtemp()
    empty, init = os.path.join(folder, "empty.py"), os.path.join(folder, "init.py")
    with open(empty, "w"), open(init, "w") as f:
        f.write("import ember.distributed as dist\ndist.init_process_group()\n")
    variants = {
        "python -c 'import ember'": [python, "-c", "import ember"],
        "mpiexec -n 2 python -c 'import ember'": [mpiexec, "-n", "2", python, "-c", "import ember"],
        "ember-run -n 2 empty.py": [python, "-m", "ember.distributed.run", "-n", "2", empty],
        "ember-run -n 2 init_process_group.py": [python, "-m", "ember.distributed.run", "-n", "2", init],
    }
    times: dict[str, list[float]] = {k: [] for k in variants}
    order = list(variants)
    for r in range(rounds):
        random.Random(r).shuffle(order)
        for name in order:
            start = time.perf_counter()
            subprocess.run(variants[name], capture_output=True, check=True, timeout=120)
            times[name].append(time.perf_counter() - start)
    shutil.rmtree(folder)
    return {k: statistics.median(v) for k, v in times.items()}


def _fmt(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:.1f} us" if us < 1000 else f"{us / 1000:.2f} ms" if us < 1e6 else f"{us / 1e6:.2f} s"


def report(results: dict, n: int, busy: float) -> None:
    marks = " (4 ranks on 2 cores: OVERSUBSCRIBED)" if n > (os.cpu_count() or 1) else ""
    print(f"\n{n} ranks{marks}; foreign CPU use before the job: {busy:.0%}{' (NOISY: gave up waiting for a quiet machine)' if busy >= 0.15 else ''}")
    print(f"  {results['environment']}")
    for size, row in results["sizes"].items():
        cells = "  ".join(f"{k} {_fmt(v)}" for k, v in row.items())
        extra = ""
        if "ember" in row and "mpi4py" in row:
            extra = f"  | ember/mpi4py {row['ember'] / row['mpi4py']:.2f}x, +{(row['ember'] - row['mpi4py']) * 1e6:.1f} us"
            if "gloo" in row:
                extra += f", gloo/ember {row['gloo'] / row['ember']:.1f}x"
        print(f"  all_reduce f32 {size:>8}: {cells}{extra}   [target: {TARGETS.get(size, '')}]")
    for name, row in results["other"].items():
        print(f"  {name}: " + "  ".join(f"{k} {_fmt(v)}" for k, v in row.items()))


def run_all(quick: bool, ranks: tuple[int, ...] = (2, 4)) -> list[dict]:
    records = []
    for n in ranks:
        busy = wait_for_quiet()
        results = _launch(n, quick)
        report(results, n, busy)
        records.append({"ranks": n, "foreign_busy": busy, **results})
    busy = wait_for_quiet()
    start = _start_times(3 if quick else 7)
    print(f"\njob start (median wall time; foreign CPU use before: {busy:.0%}): " + "  ".join(f"{k} {_fmt(v)}" for k, v in start.items()))
    print(f"  ember-run overhead over import ember: {_fmt(start['ember-run -n 2 empty.py'] - start[next(iter(start))])} "
          f"[target: <= import ember + 0.2 s]")
    records.append({"job_start_s": start, "foreign_busy": busy})
    return records


if job is not None:
    job("distributed/all_reduce, barrier, job start: ember vs mpi4py vs gloo (2 ranks, 4 oversubscribed)")(run_all)


# -- one rank of the job ----------------------------------------------------------------------------

def _rank_job(quick: bool) -> None:
    import ember  # noqa: I001 - a rank imports the measured libraries only here, after the runner forked it
    import ember.distributed as dist
    import numpy as np

    dist.init_process_group()
    from mpi4py import MPI

    comm = MPI.COMM_WORLD.Dup()
    rank, n = comm.rank, comm.size
    scale = 10 if quick else 1
    tdist = _torch_group()

    def trial(fn, iters: int) -> float:
        comm.Barrier()
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        return comm.allreduce((time.perf_counter() - start) / iters, op=MPI.MAX)

    def interleaved(variants: dict, iters: dict, rounds: int = 5) -> dict:
        samples: dict = {k: [] for k in variants}
        order = list(variants)
        for r in range(rounds):
            random.Random(r).shuffle(order)  # the same order on every rank
            for name in order:
                samples[name].append(trial(variants[name], iters[name]))
        return {k: statistics.median(v) for k, v in samples.items()}

    sizes = {}
    for label, nbytes in SIZES.items():
        t = ember.zeros(nbytes // 4)  # zeros: in-place sums stay finite
        buf = t.numpy()
        base = max(1, ITERS[nbytes] // scale // (4 if n > 2 else 1))
        variants = {"ember": lambda t=t: dist.all_reduce(t), "mpi4py": lambda buf=buf: comm.Allreduce(MPI.IN_PLACE, buf)}
        iters = {"ember": base, "mpi4py": base}
        if nbytes >= 16 * MIB:
            step = 4 * MIB // 4
            variants["mpi4py chunked 4 MiB"] = lambda buf=buf, step=step: [comm.Allreduce(MPI.IN_PLACE, buf[o : o + step]) for o in range(0, buf.size, step)]
            iters["mpi4py chunked 4 MiB"] = base
        if tdist is not None:
            import torch

            tt = torch.zeros(nbytes // 4)
            variants["gloo"] = lambda tt=tt: tdist.all_reduce(tt)
            iters["gloo"] = max(1, base // 10)
        sizes[label] = interleaved(variants, iters)
        del t, buf

    other = {}
    big = np.zeros(100 * MIB // 4, np.float32)
    chunked = {"one call": lambda big=big: comm.Allreduce(MPI.IN_PLACE, big)}
    for c in CHUNKS_MIB:
        step = c * MIB // 4
        chunked[f"{c} MiB"] = lambda big=big, step=step: [comm.Allreduce(MPI.IN_PLACE, big[o : o + step]) for o in range(0, big.size, step)]
    other["mpi4py 100 MiB by chunk size"] = interleaved(chunked, dict.fromkeys(chunked, max(1, 4 // scale)), rounds=3)
    chunked.clear()
    del big
    half = {"ember f32": ember.zeros(MIB // 4), "ember bf16 (widened)": ember.zeros(MIB // 2, dtype=ember.bfloat16),
            "ember f16 (widened)": ember.zeros(MIB // 2, dtype=ember.float16)}
    f16 = np.zeros(MIB // 2, np.float16)
    variants = {k: (lambda t=t: dist.all_reduce(t)) for k, t in half.items()}
    variants["mpi4py f16 (MPICH's own)"] = lambda: comm.Allreduce(MPI.IN_PLACE, f16)
    other["all_reduce 1 MiB by dtype"] = interleaved(variants, dict.fromkeys(variants, max(1, 300 // scale // (4 if n > 2 else 1))))
    variants = {"ember": dist.barrier, "mpi4py": comm.Barrier}
    iters = {"ember": 3000 // scale, "mpi4py": 3000 // scale}
    if tdist is not None:
        variants["gloo"] = tdist.barrier
        iters["gloo"] = 300 // scale
    other["barrier"] = interleaved(variants, iters)
    if rank == 0:
        threads = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"))
        env = (f"python {sys.version.split()[0]}, numpy {np.__version__}, ember {ember.__version__}, "
               f"{MPI.Get_library_version().splitlines()[0].strip()}, mpi4py {sys.modules['mpi4py'].__version__}, "
               f"torch {'(gloo) ' + sys.modules['torch'].__version__ if tdist is not None else 'not installed'}, {threads}, "
               f"chunk {os.environ.get('EMBER_DIST_CHUNK_BYTES', '4194304 (default)')} B")
        print("RESULTS " + json.dumps({"environment": env, "sizes": sizes, "other": other}), flush=True)
    comm.Barrier()
    if tdist is not None:
        tdist.destroy_process_group()
    comm.Free()


def _torch_group():
    """torch.distributed over gloo in the same ranks (MASTER_ADDR/PORT come from the launcher)."""
    try:
        import torch
        import torch.distributed as tdist
    except ImportError:
        return None
    if os.environ.get("OMP_NUM_THREADS") == "1":
        torch.set_num_threads(1)
    tdist.init_process_group("gloo", init_method="env://")
    return tdist


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="ember.distributed benchmarks")
    parser.add_argument("--rank-job", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer iterations: a smoke check")
    parser.add_argument("--threads", type=int, help="OMP/BLAS threads per rank")
    parser.add_argument("--ranks", default="2,4", help="world sizes to run, comma-separated")
    args = parser.parse_args()
    if args.threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    if args.rank_job:
        _rank_job(args.quick)
    else:
        run_all(args.quick, tuple(int(x) for x in args.ranks.split(",")))
