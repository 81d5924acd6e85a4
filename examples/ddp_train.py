"""Train the demo's TinyModel on the 8x8 digits on several processes with DistributedDataParallel.

Run on 2 processes (the launcher wraps the `mpiexec` that ships with the `distributed` extra):

    python -m ember.distributed.run -n 2 examples/ddp_train.py --epochs 30

or started plainly (`python examples/ddp_train.py`) as a world of one process, with the same code.
Every rank loads the same split of scikit-learn's digits (`examples/train_digits.py` does the
loading, seeded), a DistributedSampler gives each rank its own share of every epoch, and
DistributedDataParallel averages the gradients, so each step trains on `batch-size x ranks`
samples. Only rank 0 draws the tqdm bar, prints, and writes the checkpoint
(`<out>/tiny_model_ddp.ckpt`: the model's and Adam's state, safetensors layout); at the end every
rank checks that all hold the same parameters. The launcher's `--timeline run.json` writes every
rank's timeline as one Chrome trace: each backward, and each gradient bucket's all-reduce in it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

import ember
import ember.distributed as dist
from ember.nn.parallel import DistributedDataParallel
from ember.utils.data import DataLoader, DistributedSampler, TensorDataset

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the demo's model and data, shared with it
from train_digits import TinyModel, accuracy, load_data, loss_fn

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "build" / "ddp"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32, help="per rank: a step trains on batch-size x ranks samples")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seeds the init, the split and the shuffle")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where rank 0 writes the checkpoint (default: build/ddp)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no printing (for tests)")
    return parser.parse_args(argv)


def parameters_agree(model: ember.nn.Module) -> bool:
    """True on every rank when every rank holds the same parameters (a checksum per tensor, compared by MIN and MAX)."""
    sums = ember.stack([p.detach().double().sum() for p in model.parameters()])
    low, high = sums.clone(), sums.clone()
    dist.all_reduce(low, op=dist.ReduceOp.MIN)
    dist.all_reduce(high, op=dist.ReduceOp.MAX)
    return bool((low == high).all())


def train(args: argparse.Namespace) -> dict:
    rank, world = dist.get_rank(), dist.get_world_size()
    say = print if rank == 0 and not args.quiet else (lambda *a, **k: None)

    ember.manual_seed(args.seed)  # the same initial weights everywhere (DDP broadcasts rank 0's anyway)
    x_train, y_train, x_test, y_test = load_data(args.seed)
    dataset = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(dataset, shuffle=True, seed=args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    model = DistributedDataParallel(TinyModel(in_features=x_train.shape[1]))
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)
    say(
        f"{world} rank(s): {len(dataset)} train / {len(x_test)} test digits, {len(sampler)} per rank per epoch, "
        f"{args.epochs} epochs of {len(loader)} steps, batch {args.batch_size} per rank ({args.batch_size * world} per step)"
    )
    say(f"gradient buckets: {[(b['parameters'], b['bytes']) for b in model.bucket_plan()]}")

    losses: list[float] = []
    bar = tqdm(total=args.epochs * len(loader), unit="step", disable=args.quiet or rank != 0, dynamic_ncols=True)
    start = time.perf_counter()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        epoch_loss = ember.zeros((), dtype=ember.float64)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()  # returns once every gradient bucket is averaged over the ranks
            optimizer.step()
            epoch_loss += loss.detach().double()
            bar.update()
        dist.all_reduce(epoch_loss, op=dist.ReduceOp.AVG)  # the mean over ranks, for the bar
        losses.append(epoch_loss.item() / len(loader))
        bar.set_postfix(epoch=epoch + 1, loss=f"{losses[-1]:.4f}")
    seconds = time.perf_counter() - start
    bar.close()

    model.eval()
    result = {
        "world_size": world,
        "steps": args.epochs * len(loader),
        "ms_per_step": 1e3 * seconds / max(1, args.epochs * len(loader)),
        "losses": losses,
        "test_accuracy": accuracy(model.module, x_test, y_test),
        "train_accuracy": accuracy(model.module, x_train, y_train),
        "parameters_agree": parameters_agree(model.module),
    }
    if rank == 0:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "tiny_model_ddp.ckpt"
        ember.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "epochs": args.epochs, "world_size": world}, path)
        result["checkpoint"] = path
    dist.barrier()  # nobody reads the checkpoint before rank 0 has written it
    say(f"  parameters      identical on all {world} ranks: {result['parameters_agree']}")
    say(f"  train accuracy  {result['train_accuracy']:.2%}")
    say(f"  test accuracy   {result['test_accuracy']:.2%}  ({len(x_test)} held-out digits)")
    say(f"  final loss      {losses[-1]:.4f}")
    say(f"  time            {seconds:.2f} s for {result['steps']} steps: {result['ms_per_step']:.2f} ms/step")
    if rank == 0:
        say(f"  checkpoint      {result['checkpoint']} (model and optimizer, written by rank 0)")
    return result


def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(argv)
    if not dist.is_initialized():
        dist.init_process_group()  # under the launcher or mpiexec: the job's ranks; started plainly: a world of one
    return train(args)


if __name__ == "__main__":
    main()
