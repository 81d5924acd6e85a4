"""One rank of a DDP-step benchmark job (see ddp.py): trains an MLP step by step on command.

Started by ``ddp.py`` under the launcher (``-n N``); every rank blocks reading its own FIFO
(``cmd-<rank>`` in ``--fifo-dir``) between commands, so an idle job uses no CPU while the
other implementations are timed. Commands, one a line:

    step N   run N training steps; rank 0 answers with the nanoseconds they took
    comm N   N rounds of blocking all-reduces of the DDP's gradient buckets alone (ember DDP only)
    stats    rank 0 answers with JSON: the DDP's bucket plan and its per-step overlap records
    quit     end

Modes: ``ember`` (no DDP), ``ember-ddp``, ``ember-ddp-view`` (gradient_as_bucket_view=True),
``torch`` (no DDP) and ``torch-ddp`` (gloo, as torchrun would start it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

IN, HIDDEN, OUT, BATCH = 784, 1024, 10, 256


def _data(rank: int):
    rng = np.random.default_rng(rank)
    return rng.standard_normal((BATCH, IN)).astype(np.float32), rng.integers(0, OUT, BATCH)


def _ember(mode: str, rank: int):
    import ember
    import ember.distributed as dist
    import ember.nn as nn

    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    ddp = None
    if mode != "ember":
        dist.init_process_group()
        ddp = model = nn.parallel.DistributedDataParallel(model, gradient_as_bucket_view=mode == "ember-ddp-view")
    opt = ember.optim.SGD(model.parameters(), lr=0.01)
    x, y = (ember.from_numpy(a) for a in _data(rank))
    records: list[dict] = []

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        if ddp is not None and ddp.last_iteration() is not None:
            records.append(ddp.last_iteration())

    def comm(n: int) -> None:
        buffers = [b.buffer for b in ddp.reducer.buckets]
        for _ in range(n):
            for buffer in buffers:
                dist.all_reduce(buffer)

    def stats() -> dict:
        if ddp is None:
            return {}
        return {
            "plan": [(b["parameters"], b["bytes"]) for b in ddp.bucket_plan()],
            "waited_ms": statistics.median(r["waited_ms"] for r in records) if records else None,
            "backward_ms": statistics.median(r["backward_ms"] for r in records) if records else None,
            "communication_ms": statistics.median(r["communication_ms"] for r in records) if records else None,
            "hidden_fraction": statistics.median(r["hidden_fraction"] for r in records) if records else None,
            "steps": len(records),
        }

    barrier = dist.barrier if ddp is not None else (lambda: None)
    return step, comm, stats, barrier


def _torch(mode: str, rank: int):
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, OUT)
    )
    barrier = lambda: None  # noqa: E731
    if mode == "torch-ddp":
        import torch.distributed as tdist

        tdist.init_process_group("gloo", init_method="env://")
        model = torch.nn.parallel.DistributedDataParallel(model)
        barrier = tdist.barrier
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = (torch.from_numpy(a) for a in _data(rank))

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    return step, None, dict, barrier


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True, choices=["ember", "ember-ddp", "ember-ddp-view", "torch", "torch-ddp"])
    parser.add_argument("--fifo-dir", required=True)
    args = parser.parse_args()
    rank = int(os.environ.get("RANK", "0"))
    build = _torch if args.mode.startswith("torch") else _ember
    step, comm, stats, barrier = build(args.mode, rank)
    for _ in range(3):  # warm-up: first-touch memory, caches, the bucket rebuild
        step()
    barrier()
    answer = open(os.path.join(args.fifo_dir, "result"), "w") if rank == 0 else None  # noqa: SIM115 - lives as long as the job
    if answer is not None:
        answer.write("ready\n")
        answer.flush()
    with open(os.path.join(args.fifo_dir, f"cmd-{rank}")) as commands:
        for line in commands:
            verb, _, count = line.strip().partition(" ")
            if verb == "quit":
                break
            if verb == "stats":
                reply = json.dumps(stats())
            else:
                n = int(count)
                barrier()
                start = time.perf_counter_ns()
                for _ in range(n):
                    step() if verb == "step" else comm(1)
                reply = str(time.perf_counter_ns() - start)
            if answer is not None:
                answer.write(reply + "\n")
                answer.flush()
    if answer is not None:
        answer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
