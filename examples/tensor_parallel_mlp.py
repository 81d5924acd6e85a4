"""Train an MLP with Megatron-style tensor parallelism on global tensors (and data parallelism on 4 ranks).

The model is Linear(d, h) -> ReLU -> Linear(h, classes). Its first Linear is split by output
features (weight S(0), bias S(0): each rank computes its slice of the hidden layer), its second by
input features (weight S(1), bias B: each rank's product is a partial sum of the logits). The only
communication of a step is Megatron's: one all-reduce of the logits (P -> B) before the loss; the
hidden layer never leaves its rank, and every gradient comes out in its parameter's own layout.

    python -m ember.distributed.run -n 2 examples/tensor_parallel_mlp.py          # 1-D mesh [0, 1]
    python -m ember.distributed.run -n 4 examples/tensor_parallel_mlp.py          # 2x2 mesh [[0, 1], [2, 3]]
    python examples/tensor_parallel_mlp.py --single                               # one process, for comparison
    python examples/tensor_parallel_mlp.py --simulate 4                           # 4 ranks inside one process

On 4 ranks mesh dim 0 is data parallel (the batch is S(0) there, the parameters B: their gradients
come out as partial sums and the optimizer's step all-reduces them, which is DDP) and mesh dim 1
is tensor parallel as above. The dataset is generated (a random teacher network labels Gaussian
points), the same on every rank; each step trains on one batch. The loss curve matches --single
to float32 rounding.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

import ember
import ember.nn as nn
from ember.dispatch.sbp import broadcast, split
from ember.distributed.tensor import current_world, distribute, simulated_world


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64, help="the whole batch of a step (split over data-parallel ranks)")
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--optimizer", choices=("sgd", "adam", "adamw"), default="adam")
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--single", action="store_true", help="train on one process with local tensors")
    parser.add_argument("--simulate", type=int, default=0, metavar="N", help="N ranks simulated in this process (2 or 4)")
    parser.add_argument("--quiet", action="store_true")
    return parser.parse_args(argv)


def make_model(args: argparse.Namespace) -> nn.Module:
    ember.manual_seed(args.seed)  # the same initial weights on every rank and in --single
    return nn.Sequential(nn.Linear(args.features, args.hidden), nn.ReLU(), nn.Linear(args.hidden, args.classes))


def make_data(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` batches of Gaussian points labelled by a random two-layer teacher."""
    rng = np.random.default_rng(args.seed + 1)
    n = args.steps * args.batch_size
    x = rng.standard_normal((n, args.features)).astype(np.float32)
    teacher = rng.standard_normal((args.features, args.classes)).astype(np.float32)
    y = np.argmax(np.tanh(x @ teacher) + 0.1 * rng.standard_normal((n, args.classes)), axis=1)
    return x, y.astype(np.int64)


def megatron_plan(mesh_ndim: int) -> tuple[dict, tuple]:
    """The parameters' layouts by name and the batch's layout, for a 1-D (tensor parallel) or
    2-D (data parallel x tensor parallel) mesh."""
    tp = {"0.weight": split(0), "0.bias": split(0), "2.weight": split(1), "2.bias": broadcast}
    if mesh_ndim == 1:
        return tp, (broadcast,)
    return {name: (broadcast, entry) for name, entry in tp.items()}, (split(0), broadcast)


def mesh_for(world_size: int) -> ember.placement:
    if world_size == 2:
        return ember.placement("cpu", [0, 1])
    if world_size == 4:
        return ember.placement("cpu", [[0, 1], [2, 3]])
    raise SystemExit(f"tensor_parallel_mlp: run on 2 or 4 ranks (got {world_size}), or with --single")


def make_optimizer(args: argparse.Namespace, params) -> ember.optim.Optimizer:
    kind = {"sgd": ember.optim.SGD, "adam": ember.optim.Adam, "adamw": ember.optim.AdamW}[args.optimizer]
    return kind(params, lr=args.lr)


def train(args: argparse.Namespace, placement=None) -> dict:
    """Train for ``args.steps`` steps, on global tensors over ``placement`` or locally (None).
    Returns the losses, the seconds per step and the final parameters (gathered, NumPy)."""
    model = make_model(args)
    batch_sbp = None
    if placement is not None:
        layouts, batch_sbp = megatron_plan(placement.ndim)
        model.to_global(placement, layouts)
    optimizer = make_optimizer(args, model.parameters())
    x, y = make_data(args)
    losses = []
    start = time.perf_counter()
    for step in range(args.steps):
        rows = slice(step * args.batch_size, (step + 1) * args.batch_size)
        xb, yb = ember.from_numpy(x[rows]), ember.from_numpy(y[rows])
        if placement is not None:  # every rank has the batch; each keeps its slice (no communication)
            xb, yb = distribute(xb, placement, batch_sbp), distribute(yb, placement, batch_sbp)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    seconds = (time.perf_counter() - start) / max(1, args.steps)
    params = {name: p.detach().numpy() for name, p in model.named_parameters()}
    return {"losses": losses, "seconds_per_step": seconds, "parameters": params, "model": model}


def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(argv)
    if args.single:
        result = train(args)
        where = "1 process, local tensors"
    elif args.simulate:
        with simulated_world(args.simulate):
            result = train(args, mesh_for(args.simulate))
        where = f"{args.simulate} simulated ranks"
    else:
        import ember.distributed as dist

        if not dist.is_initialized():
            dist.init_process_group()
        world = current_world()
        placement = mesh_for(world.size)
        result = train(args, placement)
        where = f"{world.size} ranks, mesh {list(placement.mesh_shape)}"
        args.quiet = args.quiet or world.rank != 0
    if not args.quiet:
        print(f"tensor-parallel MLP ({where}), {args.optimizer}, {args.steps} steps of batch {args.batch_size}")
        for step, loss in enumerate(result["losses"]):
            print(f"  step {step:3d}  loss {loss:.6f}")
        print(f"  {1e3 * result['seconds_per_step']:.2f} ms/step")
    return result


if __name__ == "__main__":
    main()
