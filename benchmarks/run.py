"""Run ember's benchmarks: ember against NumPy and PyTorch, interleaved in one run.

    python benchmarks/run.py                      # every case, default threads
    python benchmarks/run.py --threads 1          # BLAS/OpenMP/torch pinned to one thread
    python benchmarks/run.py --filter views --quick --json out.json
    python benchmarks/run.py --threads 1 --issue  # only the cases of the issue's targets (`make bench`)

After the cases, a table "issue targets" lists every row of the speed issue with ember's median,
NumPy's and PyTorch's, the ratio to the row's reference and whether its target is met (rows
whose case did not run say so).

The thread variables must be set before NumPy or torch is first imported (BLAS and OpenMP
read them when they load), so this file parses its arguments before importing anything else.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys

THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filter", default="", metavar="SUBSTRING", help="run only cases whose name contains SUBSTRING")
    parser.add_argument("--threads", type=int, metavar="N", help="thread count for BLAS, OpenMP and torch")
    parser.add_argument("--quick", action="store_true", help="few repetitions: a smoke check, not a measurement")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch column even when torch is importable")
    parser.add_argument("--issue", action="store_true", help="run only the cases (and jobs) behind the issue-targets table")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--seed", type=int, default=0, help="seed of the shuffled round-robin order")
    args = parser.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        parser.error("--threads must be at least 1")
    return args


def configure_threads(threads: int | None) -> None:
    if threads is None:
        return
    if "numpy" in sys.modules or "torch" in sys.modules:
        print("warning: numpy/torch already imported; --threads may not reach their BLAS", file=sys.stderr)
    for var in THREAD_ENV_VARS:
        os.environ[var] = str(threads)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_threads(args.threads)
    if args.no_torch:
        sys.modules["torch"] = None  # makes `import torch` raise ImportError: the skip path
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # ember without an install

    # Only now: these import numpy (and torch, when present).
    import cases  # noqa: F401 - registers the cases
    import harness
    import issue_targets
    import report

    if args.threads is not None and harness.torch is not None:
        harness.torch.set_num_threads(args.threads)
        with contextlib.suppress(RuntimeError):  # only settable before torch's first parallel work
            harness.torch.set_num_interop_threads(args.threads)
    issue = issue_targets.selected([c.name for c in harness.CASES], [j.name for j in harness.JOBS]) if args.issue else None
    selected = [c for c in harness.CASES if args.filter in c.name and (issue is None or c.name in issue)]
    jobs = [j for j in harness.JOBS if args.filter in j.name and (issue is None or j.name in issue)]
    if args.list:
        print("\n".join(c.name for c in [*selected, *jobs]))
        return 0
    if not selected and not jobs:
        print(f"no case matches {args.filter!r}; cases are:\n  " + "\n  ".join(c.name for c in harness.CASES), file=sys.stderr)
        return 2

    settings = harness.QUICK if args.quick else harness.Settings()
    env = report.environment(harness.call_overhead_ns(settings))
    report.print_environment(env)
    print("The machine may be shared: compare a `--threads 1` run with a default (multi-thread) run before trusting a figure.")
    if args.quick:
        print("--quick: few repetitions, a smoke check; do not quote these figures.")
    print()

    rng = random.Random(args.seed)
    progress = sys.stderr.isatty()
    done = []
    for bench in selected:
        if progress:
            print(f"\r\033[K  running {bench.name} ...", end="", file=sys.stderr, flush=True)
        done.append((bench, harness.run_case(bench, settings, rng)))
    if progress:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    if done:
        report.print_table(done)
    records = report.comparisons(done)
    report.print_comparisons(records, done)
    job_records = {}
    for j in jobs:  # multi-process cases time themselves in their own processes and print their own tables
        print(f"\n{j.name}")
        job_records[j.name] = j.run(args.quick)
    found = issue_targets.figures(done, job_records)
    targets = issue_targets.evaluate(found, [c.name for c in harness.CASES], [j.name for j in harness.JOBS])
    issue_targets.print_table(targets)

    if args.json:
        payload = {
            "environment": env,
            "settings": {**vars(settings), "threads": args.threads, "quick": args.quick, "filter": args.filter, "issue": args.issue, "seed": args.seed},
            "results": [r.to_dict() for _, results in done for r in results],
            "comparisons": records,
            "jobs": job_records,
            "issue_targets": targets,
        }
        with open(args.json, "w") as f:
            json.dump(payload, f, indent=1)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
