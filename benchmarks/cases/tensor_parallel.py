"""A Megatron tensor-parallel MLP training step: 784-2048-10, batch 256, SGD, 1 thread a rank.

The first Linear is split by output features, the second by input features; a step's only
collective is the all-reduce of the (256, 10) logits. Rows: ember on one process with local
tensors; ember's global tensors on 2 ranks (``examples/tensor_parallel_mlp.py``'s layout); and,
when torch is installed, torch on one process and DTensor's ColwiseParallel/RowwiseParallel on a
gloo mesh of 2 ranks. Each is a job of ``_tp_worker.py`` driven one step at a time through FIFOs
(``ddp.py``'s Job), so the harness interleaves them like any other case. Reported, never
asserted: each rank does half the matmul work, so the 2-rank step can beat one process only when
the per-op overhead of the global interpreter stays well below the halved arithmetic.
"""

from __future__ import annotations

import atexit
import os

from harness import Compare, case, torch

from .ddp import Job
from .distributed import wait_for_quiet

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_tp_worker.py")
_JOBS: dict[tuple[str, int], Job] = {}


def _stepper(mode: str, n: int):
    if (mode, n) not in _JOBS:
        _JOBS[(mode, n)] = Job(mode, n, worker=WORKER)
    job = _JOBS[(mode, n)]
    return lambda: job.ask("step 1")


@case(
    "tensor_parallel/step MLP 784-2048-10 b256 SGD",
    compare=(
        Compare("ember TP 2 ranks / ember 1 process", "ember TP 2 ranks", "ember"),
        Compare("torch DTensor TP 2 ranks / ember TP 2 ranks", "torch DTensor TP 2 ranks", "ember TP 2 ranks"),
    ),
    note="1 thread a rank; the 2-rank rows pay one (256, 10) float32 all-reduce a step",
)
def _tp_step():
    wait_for_quiet()  # ranks busy-poll: a foreign busy core ruins the multi-rank rows
    impls = {"ember": _stepper("ember", 1), "ember TP 2 ranks": _stepper("ember-tp", 2)}
    if torch is not None:
        impls["torch"] = _stepper("torch", 1)
        impls["torch DTensor TP 2 ranks"] = _stepper("torch-tp", 2)
    return impls


@atexit.register
def _close_all() -> None:
    for job in _JOBS.values():
        job.close()
