"""Import time: ``python -c "import X"`` in a fresh process, for ember, NumPy and PyTorch.

One call is one whole child process, as ``time python -c "import ember"`` measures it, so every
column includes the interpreter's own start; the "python" column (``python -c pass``) is that
floor. The children run the same interpreter with the same environment, after warm-up runs have
filled every cache a user's second import finds: the bytecode (``__pycache__``; in a private
folder when ``PYTHONDONTWRITEBYTECODE`` is set, which would otherwise compile ember's sources
anew at each import) and ember's compiled functional API (``$XDG_CACHE_HOME/ember``).

Each round starts four processes, and the harness runs at least 20 rounds after its warm-up
calls: about a minute on a quiet machine, most of it PyTorch's imports (``--quick``: 5 rounds).

Target (reported, never asserted): ``import ember`` <= 0.2 s on the machine where PyTorch's
takes 1.4 s and NumPy's 0.1 s; read the ratios against NumPy and PyTorch on a slower machine.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile

from harness import case, torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT_S = 120


@functools.cache
def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    if env.pop("PYTHONDONTWRITEBYTECODE", None) and "PYTHONPYCACHEPREFIX" not in env:
        prefix = tempfile.mkdtemp(prefix="ember-bench-pycache-")
        atexit.register(shutil.rmtree, prefix, True)
        env["PYTHONPYCACHEPREFIX"] = prefix
    return env


def _importer(statement: str):
    command = [sys.executable, "-c", statement]
    env = _child_env()

    def run() -> None:
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, timeout=TIMEOUT_S)
        if done.returncode != 0:
            raise RuntimeError(f"{statement!r} failed in a fresh process: {done.stderr.decode()[-2000:]}")

    return run


@case("startup/import in a fresh process", target_us=200_000.0,
      note="python -c 'import X', whole process; 'python' is `python -c pass`, the floor in every column; target <= 0.2 s (PyTorch 1.4 s, NumPy 0.1 s there)")  # fmt: skip
def _import():
    impls = {"ember": _importer("import ember"), "numpy": _importer("import numpy"), "python": _importer("pass")}
    if torch is not None:
        impls["torch"] = _importer("import torch")
    return impls
