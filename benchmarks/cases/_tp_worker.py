"""One rank of a tensor-parallel benchmark job (see tensor_parallel.py): trains a Megatron MLP
step by step on command, through the same FIFO protocol as ``_ddp_worker.py`` (``step N``,
``stats``, ``quit``).

Modes: ``ember`` (one process, local tensors), ``ember-tp`` (global tensors: first Linear split
by output features, second by input features), ``torch`` (one process) and ``torch-tp``
(DTensor's ColwiseParallel / RowwiseParallel on a gloo mesh of the job's ranks).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

IN, HIDDEN, OUT, BATCH = 784, 2048, 10, 256


def _data():
    rng = np.random.default_rng(0)  # the same batch on every rank: tensor parallelism splits the model, not the data
    return rng.standard_normal((BATCH, IN)).astype(np.float32), rng.integers(0, OUT, BATCH)


def _ember(mode: str):
    import ember
    import ember.nn as nn
    from ember.dispatch.sbp import broadcast, split

    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    x, y = (ember.from_numpy(a) for a in _data())
    barrier = lambda: None  # noqa: E731
    if mode == "ember-tp":
        import ember.distributed as dist
        from ember.distributed.tensor import current_world, distribute

        dist.init_process_group()
        p = ember.placement("cpu", list(range(current_world().size)))
        model.to_global(p, {"0.weight": split(0), "0.bias": split(0), "2.weight": split(1), "2.bias": broadcast})
        x, y = distribute(x, p, broadcast), distribute(y, p, broadcast)
        barrier = dist.barrier
    opt = ember.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    return step, barrier


def _torch(mode: str):
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, OUT))
    barrier = lambda: None  # noqa: E731
    if mode == "torch-tp":
        import torch.distributed as tdist
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

        tdist.init_process_group("gloo", init_method="env://")
        mesh = init_device_mesh("cpu", (tdist.get_world_size(),))
        model = parallelize_module(model, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
        barrier = tdist.barrier
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = (torch.from_numpy(a) for a in _data())

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    return step, barrier


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True, choices=["ember", "ember-tp", "torch", "torch-tp"])
    parser.add_argument("--fifo-dir", required=True)
    args = parser.parse_args()
    rank = int(os.environ.get("RANK", "0"))
    step, barrier = (_torch if args.mode.startswith("torch") else _ember)(args.mode)
    for _ in range(3):  # warm-up
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
                reply = json.dumps({})
            else:
                barrier()
                start = time.perf_counter_ns()
                for _ in range(int(count)):
                    step()
                reply = str(time.perf_counter_ns() - start)
            if answer is not None:
                answer.write(reply + "\n")
                answer.flush()
    if answer is not None:
        answer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
