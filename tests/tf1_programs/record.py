"""Record what TensorFlow prints for each program into ``expected/<program>.txt``.

Run from the repository root in an environment with ``tensorflow-cpu`` (and ``tf_keras`` for
``tf.layers``), never ember's own:

    python -m tests.tf1_programs.record              # every program
    python -m tests.tf1_programs.record cnn_nhwc     # some
    python -m tests.tf1_programs.record --check      # rerun and compare with the recording

A program that fails under TensorFlow stops the recording of that program with its stderr shown;
each program is run twice, and a program whose two runs disagree is not recorded (its output would
not be a fair expectation).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor

from .harness import EXPECTED, PROGRAMS, compare, run_program, tolerance


def _record(name: str, check: bool) -> str | None:
    """None when ``name`` was recorded (or, with ``check``, agrees with its recording); else what went wrong."""
    runs = [run_program(name, "tensorflow") for _ in range(1 if check else 2)]
    for result in runs:
        if result.returncode != 0:
            return f"{name}: exit status {result.returncode} under TensorFlow\n{result.stderr[-3000:]}"
    path = EXPECTED / f"{name}.txt"
    if check:
        problems = compare(path.read_text(), runs[0].stdout, tolerance(name))
        return f"{name}: differs from its recording\n  " + "\n  ".join(problems) if problems else None
    if runs[0].stdout != runs[1].stdout:
        problems = compare(runs[0].stdout, runs[1].stdout, tolerance(name))
        return f"{name}: two runs under TensorFlow printed different text\n  " + "\n  ".join(problems or ["(within tolerance)"])
    path.write_text(runs[0].stdout)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", metavar="PROGRAM", help=f"some of: {', '.join(PROGRAMS)} (default: all)")
    parser.add_argument("--check", action="store_true", help="compare with the recordings instead of writing them")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.programs) - set(PROGRAMS))
    if unknown:
        parser.error(f"no such program: {', '.join(unknown)}")
    EXPECTED.mkdir(exist_ok=True)
    names = args.programs or list(PROGRAMS)
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda name: _record(name, args.check), names))
    failures = [outcome for outcome in outcomes if outcome is not None]
    for name, outcome in zip(names, outcomes, strict=True):
        print(f"{name}: {'ok' if outcome is None else 'FAILED'}")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
