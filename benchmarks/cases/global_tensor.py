"""Global tensors' boxing on 2 ranks: each kind of layout change against the raw mpi4py call it uses.

    python benchmarks/run.py --filter global --threads 1
    python benchmarks/cases/global_tensor.py --threads 1 [--quick]

One MPI job (``ember-run -n 2``) boxes a float32 tensor of [rows, 256] (1 MiB and 100 MiB) from
one layout to another with ``ember.distributed.tensor.box`` (the same call ``to_global`` makes,
without autograd) and runs, on the same ranks, the mpi4py call that boxing uses:

    S(0) -> B     Allgather              P -> B      Allreduce (out of place; in place also shown)
    P -> S(0)     Reduce_scatter_block   S(0) -> S(1)  Alltoall (the parts packed as they are sent)
    [0] -> [1]    Send/Recv of the whole tensor (a change of placement)

and, for the layout changes that move nothing (B -> S(0), B -> P, S(0) -> P), the time alone.
Boxing returns a new tensor, so it allocates its output on every call; "raw" reuses one buffer
(the collective alone) and "raw+alloc" allocates a fresh one per call like boxing must. A trial
is a barrier, N calls, and the slowest rank's mean per call; each figure is the median of the
trials, the variants interleaved in a shuffled order that all ranks share. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

try:
    from harness import job
except ImportError:  # a rank of the job: started as a script, without the runner's harness
    job = None

MIB = 1024 * 1024
SIZES = {"1 MiB": MIB, "100 MiB": 100 * MIB}
ITERS = {MIB: 100, 100 * MIB: 3}
COLS = 256
TARGET = 1.15  # boxing <= 1.15x the raw collective it uses


def _launch(quick: bool) -> dict:
    cmd = [sys.executable, "-m", "ember.distributed.run", "-n", "2", os.path.abspath(__file__), "--rank-job"]
    proc = subprocess.run(cmd + (["--quick"] if quick else []), capture_output=True, text=True, timeout=900)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULTS "):
            return json.loads(line[len("RESULTS ") :])
    raise RuntimeError(f"the boxing benchmark job failed (code {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


def _fmt(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:.1f} us" if us < 1000 else f"{us / 1000:.2f} ms"


def report(results: dict, busy: float) -> None:
    noisy = " (NOISY: gave up waiting for a quiet machine)" if busy >= 0.15 else ""
    print(f"2 ranks; foreign CPU use before the job: {busy:.0%}{noisy}")
    print(f"  {results['environment']}")
    for size, rows in results["sizes"].items():
        for kind, row in rows.items():
            cells = "  ".join(f"{k} {_fmt(v)}" for k, v in row.items())
            ratios = ""
            if "raw" in row:
                ratios = f"  | ember/raw {row['ember'] / row['raw']:.2f}x"
                if "raw+alloc" in row:
                    ratios += f", ember/raw+alloc {row['ember'] / row['raw+alloc']:.2f}x"
                ratios += f"   [target: <= {TARGET}x]"
            print(f"  {size:>8} {kind:<16} {cells}{ratios}")


def run_all(quick: bool) -> list[dict]:
    try:
        from .distributed import wait_for_quiet  # the collectives' case: the same load gate
    except ImportError:  # run as a script
        from distributed import wait_for_quiet

    busy = wait_for_quiet()
    results = _launch(quick)
    report(results, busy)
    return [{"ranks": 2, "foreign_busy": busy, **results}]


if job is not None:
    job("global_tensor/boxing: each kind vs the raw mpi4py collective it uses (2 ranks, 1 MiB and 100 MiB float32)")(run_all)


# -- one rank of the job ----------------------------------------------------------------------------


def _rank_job(quick: bool) -> None:
    import numpy as np

    import ember  # a rank imports the measured libraries only here, after the runner forked it
    from ember.dispatch.sbp import broadcast, partial_sum, split
    from ember.distributed.tensor import box, distribute

    p = ember.placement("cpu", [0, 1])  # starts the process group
    from mpi4py import MPI

    comm = MPI.COMM_WORLD.Dup()
    rank, n = comm.rank, comm.size
    scale = 3 if quick else 1

    def trial(fn, iters: int) -> float:
        comm.Barrier()
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        return comm.allreduce((time.perf_counter() - start) / iters, op=MPI.MAX)

    def interleaved(variants: dict, iters: int, rounds: int) -> dict:
        samples: dict = {k: [] for k in variants}
        order = list(variants)
        for r in range(rounds):
            random.Random(r).shuffle(order)  # the same order on every rank
            for name in order:
                samples[name].append(trial(variants[name], iters))
        return {k: statistics.median(v) for k, v in samples.items()}

    def measure(nbytes: int) -> dict:
        rows = nbytes // 4 // COLS
        whole = ember.zeros(rows, COLS)  # zeros: repeated sums stay finite
        full = whole.numpy()
        half = full[: rows // n].copy()
        s0 = distribute(whole, p, split(0))
        b = distribute(whole, p, broadcast)
        pp = distribute(whole, p, partial_sum)
        one, other = ember.placement("cpu", [0]), ember.placement("cpu", [1])
        on_one = distribute(whole, one, broadcast)
        out_full = np.empty_like(full)
        out_half = np.empty_like(half)
        packed = np.empty_like(half)

        def alltoall_raw(out=None):
            # S(0) -> S(1): pack the column parts back to back (what boxing sends), exchange
            cols = COLS // n
            for j in range(n):
                packed.reshape(n, -1)[j].reshape(rows // n, cols)[...] = half[:, j * cols : (j + 1) * cols]
            comm.Alltoall(packed, out if out is not None else np.empty_like(half))

        def send_recv(buf):
            if rank == 0:
                comm.Send(full, dest=1, tag=7)
            else:
                comm.Recv(buf if buf is not None else np.empty_like(full), source=0, tag=7)

        kinds = {
            "S(0) -> B": {"ember": lambda: box(s0, (broadcast,)), "raw": lambda: comm.Allgather(half, out_full),
                          "raw+alloc": lambda: comm.Allgather(half, np.empty_like(full))},
            "P -> B": {"ember": lambda: box(pp, (broadcast,)), "raw": lambda: comm.Allreduce(full, out_full),
                       "raw+alloc": lambda: comm.Allreduce(full, np.empty_like(full)),
                       "raw in place": lambda: comm.Allreduce(MPI.IN_PLACE, out_full)},
            "P -> S(0)": {"ember": lambda: box(pp, (split(0),)), "raw": lambda: comm.Reduce_scatter_block(full, out_half),
                          "raw+alloc": lambda: comm.Reduce_scatter_block(full, np.empty_like(half))},
            "S(0) -> S(1)": {"ember": lambda: box(s0, (split(1),)), "raw": lambda: alltoall_raw(out_half),
                             "raw+alloc": lambda: alltoall_raw()},
            "[0] -> [1]": {"ember": lambda: box(on_one, (broadcast,), other), "raw": lambda: send_recv(out_full),
                           "raw+alloc": lambda: send_recv(None)},
            "B -> S(0)": {"ember": lambda: box(b, (split(0),))},
            "B -> P": {"ember": lambda: box(b, (partial_sum,))},
            "S(0) -> P": {"ember": lambda: box(s0, (partial_sum,))},
        }  # fmt: skip
        iters = max(1, ITERS[nbytes] // scale)
        return {kind: interleaved(variants, iters, rounds=3 if quick else 5) for kind, variants in kinds.items()}

    sizes = {label: measure(nbytes) for label, nbytes in SIZES.items()}
    if rank == 0:
        threads = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"))
        env = (
            f"python {sys.version.split()[0]}, numpy {np.__version__}, ember {ember.__version__}, "
            f"{MPI.Get_library_version().splitlines()[0].strip()}, mpi4py {sys.modules['mpi4py'].__version__}, {threads}, "
            f"chunk {os.environ.get('EMBER_DIST_CHUNK_BYTES', '4194304 (default)')} B"
        )
        print("RESULTS " + json.dumps({"environment": env, "sizes": sizes}), flush=True)
    comm.Barrier()
    comm.Free()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="global tensors' boxing benchmarks")
    parser.add_argument("--rank-job", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer iterations: a smoke check")
    parser.add_argument("--threads", type=int, help="OMP/BLAS threads per rank")
    args = parser.parse_args()
    if args.threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    if args.rank_job:
        _rank_job(args.quick)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        run_all(args.quick)
