"""Hogwild: several processes train one model whose parameters live in shared memory, without locks.

``model.share_memory()`` moves every parameter into shared memory; each process started with
``ember.multiprocessing`` sees the same bytes, computes gradients on its own shard of the data
with its own optimizer, and writes its updates straight into the shared parameters. Updates
may interleave and overwrite each other now and then; for sparse-enough problems SGD converges
anyway (Niu et al., "Hogwild!", 2011). This is the training procedure that PyTorch's shared
memory was built for.

    .venv/bin/python examples/hogwild.py --processes 2 --epochs 3

Each process keeps BLAS to one thread (``OMP_NUM_THREADS`` and friends, set below before NumPy
loads: NumPy's thread pools cannot be resized once loaded without ``threadpoolctl``), so N
processes use N cores rather than fighting over them.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402

import ember  # noqa: E402
import ember.multiprocessing as emp  # noqa: E402
import ember.nn as nn  # noqa: E402
from ember.utils.data import DataLoader, Subset, TensorDataset  # noqa: E402


def make_data(n: int = 4000, features: int = 20, classes: int = 4, seed: int = 0) -> TensorDataset:
    """A synthetic classification problem: labels from a random linear teacher."""
    g = ember.Generator().manual_seed(seed)
    x = ember.randn(n, features, generator=g)
    teacher = ember.randn(features, classes, generator=g)
    y = (x @ teacher).argmax(1)
    return TensorDataset(x, y)


def make_model(features: int = 20, classes: int = 4) -> nn.Module:
    return nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, classes))


def evaluate(model: nn.Module, dataset: TensorDataset, loss_fn: nn.Module | None = None) -> tuple[float, float]:
    """(mean loss, accuracy) over the whole dataset."""
    loss_fn = loss_fn or nn.CrossEntropyLoss()
    x, y = dataset.tensors
    with ember.no_grad():
        logits = model(x)
        return float(loss_fn(logits, y).item()), float((logits.argmax(1) == y).float().mean().item())


def train(
    rank: int,
    world: int,
    model: nn.Module,
    dataset: TensorDataset,
    steps: ember.Tensor,
    epochs: int,
    lr: float,
    batch_size: int,
    seed: int,
    loss_fn: nn.Module | None = None,
) -> None:
    """One Hogwild process: SGD on shard ``rank`` of ``world``, writing into the shared parameters.

    ``steps[rank]`` counts this process's optimizer steps (``steps`` lives in shared memory too).
    """
    ember.manual_seed(seed + rank)
    shard = Subset(dataset, range(rank, len(dataset), world))
    loader = DataLoader(shard, batch_size=batch_size, shuffle=True, generator=ember.Generator().manual_seed(seed + rank))
    optimizer = ember.optim.SGD(model.parameters(), lr=lr)  # its own optimizer over the shared parameters
    loss_fn = loss_fn or nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()  # in place, no lock: other processes see it at once
            steps[rank] += 1


def hogwild(
    model: nn.Module,
    dataset: TensorDataset,
    processes: int,
    epochs: int,
    lr: float = 0.05,
    batch_size: int = 32,
    seed: int = 0,
    start_method: str | None = None,
    loss_fn: nn.Module | None = None,
) -> list[int]:
    """Train ``model`` in place with ``processes`` Hogwild processes; returns each one's step count."""
    model.share_memory()
    not_shared = [name for name, p in model.named_parameters() if not p.is_shared()]
    if not_shared:
        raise RuntimeError(f"hogwild(): model.share_memory() left parameters {not_shared} in private memory")
    steps = ember.zeros(processes, dtype=ember.int64).share_memory_()
    ctx = emp.get_context(start_method)
    workers = [
        ctx.Process(target=train, args=(rank, processes, model, dataset, steps, epochs, lr, batch_size, seed, loss_fn))
        for rank in range(processes)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    failed = [(w.pid, w.exitcode) for w in workers if w.exitcode != 0]
    if failed:
        raise RuntimeError(f"hogwild(): training processes failed (pid, exit code): {failed}")
    return steps.tolist()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start-method", choices=emp.get_all_start_methods(), default=None)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(argv)
    ember.manual_seed(args.seed)
    dataset = make_data(seed=args.seed)
    model = make_model()
    loss_before, acc_before = evaluate(model, dataset)
    start = time.perf_counter()
    steps = hogwild(model, dataset, args.processes, args.epochs, args.lr, args.batch_size, args.seed, args.start_method)
    seconds = time.perf_counter() - start
    loss_after, acc_after = evaluate(model, dataset)  # the parent's model: the processes trained it
    print(f"hogwild: {args.processes} processes x {args.epochs} epochs on {len(dataset)} samples in {seconds:.2f} s")
    print(f"  steps per process: {steps}")
    print(f"  loss {loss_before:.4f} -> {loss_after:.4f}, accuracy {acc_before:.1%} -> {acc_after:.1%}")
    return {"steps": steps, "loss_before": loss_before, "loss_after": loss_after, "acc_before": acc_before, "acc_after": acc_after}


if __name__ == "__main__":
    main()
