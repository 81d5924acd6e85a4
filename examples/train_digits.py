"""Train the seed's TinyModel on scikit-learn's 1,797 handwritten 8x8 digits, with ember.

Run with `make demo` (which installs the optional `demo` extra: scikit-learn and matplotlib) or
`python examples/train_digits.py --epochs 30 --batch-size 64 --lr 1e-3 --seed 0 --out build/demo`.

The digits ship inside scikit-learn's wheel (`sklearn.datasets.load_digits()`): nothing is
downloaded. The script splits them 80/20 with a seeded `ember.Generator`, standardises the
features with the train split's statistics, trains with Adam behind a tqdm progress bar, reports
train and test accuracy and time per step, and draws the loss curve to `<out>/loss_curve.png`
when matplotlib is installed. It then saves the trained model and Adam's state with `ember.save` to
`<out>/tiny_model.ckpt` (a safetensors file, no pickle), loads it into a fresh model with
`ember.load(..., mmap=True)` and checks that the test logits are identical. The same seed gives the
same numbers, run after run. Finally it trains the same model from the same initial weights on the
same batches twice more: in graph mode (placeholders, Variables, ember.train.AdamOptimizer, a
Session) and as the eager step compiled by ember.compile, and prints the time per step of each.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm

import ember
import ember.nn as nn
from ember.utils.data import DataLoader, TensorDataset, random_split

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "build" / "demo"


class TinyModel(nn.Module):
    """The seed's TinyModel, exactly (Softmax head included); only the input width follows the data."""

    def __init__(self, in_features: int = 64, hidden: int = 200, classes: int = 10) -> None:
        super().__init__()
        self.linear1 = nn.Linear(in_features, hidden)
        self.activation = nn.ReLU()
        self.linear2 = nn.Linear(hidden, classes)
        self.softmax = nn.Softmax()

    def forward(self, x: ember.Tensor) -> ember.Tensor:
        return self.softmax(self.linear2(self.activation(self.linear1(x))))


def loss_fn(probs: ember.Tensor, target: ember.Tensor) -> ember.Tensor:
    # The model stays as the seed wrote it, ending in Softmax, so it hands out probabilities and
    # evaluation reads them directly. Cross-entropy is then the negative log-likelihood of their log;
    # the 1e-9 keeps log finite when a probability underflows to 0 (a log_softmax head would be
    # exact, but would change the model the seed prints).
    return nn.functional.nll_loss(ember.log(probs + 1e-9), target)


def load_data(seed: int, test_fraction: float = 0.2):
    """The digits as ember tensors, split with a seeded Generator and standardised on the train split."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:  # pragma: no cover - the message is the point
        sys.exit("train_digits needs scikit-learn (the digits ship in its wheel): pip install -e '.[demo]' or make demo")
    digits = load_digits()
    features = ember.from_numpy(digits.data.astype(np.float32))
    labels = ember.from_numpy(digits.target.astype(np.int64))

    split_generator = ember.Generator().manual_seed(seed)
    train_split, test_split = random_split(
        TensorDataset(features, labels), [1 - test_fraction, test_fraction], generator=split_generator
    )
    train_idx, test_idx = ember.tensor(train_split.indices), ember.tensor(test_split.indices)
    x_train, y_train = features[train_idx], labels[train_idx]
    x_test, y_test = features[test_idx], labels[test_idx]

    # Standardise with the train split's statistics only; a few border pixels are always 0 there
    # (std 0), so they are centred and left unscaled, as scikit-learn's StandardScaler does.
    mean = x_train.mean(0)
    std = x_train.std(0)
    std = ember.where(std > 0, std, ember.ones_like(std))
    return (x_train - mean) / std, y_train, (x_test - mean) / std, y_test


def accuracy(model: nn.Module, x: ember.Tensor, y: ember.Tensor) -> float:
    with ember.no_grad():
        return float((model(x).argmax(dim=1) == y).float().mean())


def save_loss_curve(losses: Sequence[float], steps_per_epoch: int, out_dir: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "loss_curve.png"
    steps = np.arange(1, len(losses) + 1)
    epoch_means = np.asarray(losses[: len(losses) // steps_per_epoch * steps_per_epoch]).reshape(-1, steps_per_epoch).mean(1)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, losses, lw=0.8, alpha=0.5, label="batch loss")
    ax.plot(np.arange(1, len(epoch_means) + 1) * steps_per_epoch, epoch_means, lw=2, label="epoch mean")
    ax.set_xlabel("step")
    ax.set_ylabel("NLL loss")
    ax.set_yscale("log")
    ax.set_title("ember: TinyModel on the 8x8 digits")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def checkpoint_round_trip(model: nn.Module, optimizer, args, x_test: ember.Tensor, y_test: ember.Tensor) -> dict:
    """Save the trained model and Adam's state, load them into fresh objects, compare the test logits.

    The file is a safetensors file (no pickle): `safetensors.numpy.load_file` reads the weights too.
    """
    path = args.out / "tiny_model.ckpt"
    args.out.mkdir(parents=True, exist_ok=True)
    ember.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epochs": args.epochs, "seed": args.seed}, path)
    checkpoint = ember.load(path, mmap=True)  # maps the file: tensors are views of it until copied into the model
    fresh = TinyModel(in_features=x_test.shape[1])
    fresh.load_state_dict(checkpoint["model"])
    ember.optim.Adam(fresh.parameters(), lr=args.lr).load_state_dict(checkpoint["optimizer"])  # ready to resume training
    fresh.eval()
    with ember.no_grad():
        identical = bool((fresh(x_test) == model(x_test)).all())
    return {"path": path, "bytes": path.stat().st_size, "identical": identical, "test_accuracy": accuracy(fresh, x_test, y_test)}


def train_graph_mode(initial: dict, args, data, batches: list) -> dict:
    """The same model and batches in TensorFlow 1 style: placeholders, Variables, one train op
    built by ember.train.AdamOptimizer, run by a Session (TensorFlow's Adam: epsilon sits slightly
    differently from PyTorch's, so the numbers are close, not identical)."""
    x_train, _, x_test, y_test = data
    graph = ember.Graph()
    with graph.as_default():
        x = ember.placeholder(ember.float32, shape=(None, x_train.shape[1]), name="x")
        y = ember.placeholder(ember.int64, shape=(None,), name="y")
        with ember.name_scope("TinyModel"):
            w1, b1 = ember.Variable(initial["linear1.weight"], name="w1"), ember.Variable(initial["linear1.bias"], name="b1")
            w2, b2 = ember.Variable(initial["linear2.weight"], name="w2"), ember.Variable(initial["linear2.bias"], name="b2")
            probs = ember.softmax(ember.relu(x @ w1.T + b1) @ w2.T + b2, dim=-1)
        loss = loss_fn(probs, y)
        train = ember.train.AdamOptimizer(args.lr).minimize(loss)
        correct = ember.eq(probs.argmax(dim=1), y).float().mean()
        init = ember.global_variables_initializer()
    with ember.summary.FileWriter(args.out / "graph") as writer:  # `tensorboard --logdir build/demo/graph` draws it
        writer.add_graph(graph)
    losses = []
    with ember.Session(graph=graph) as sess:
        sess.run(init)
        start = time.perf_counter()
        for xb, yb in batches:
            step_loss, _ = sess.run([loss, train], feed_dict={x: xb, y: yb})
            losses.append(float(step_loss))
        seconds = time.perf_counter() - start
        test = float(sess.run(correct, {x: x_test, y: y_test}))
    return {"ops": len(graph.get_operations()), "events": writer.path, "test_accuracy": test, "final_loss": float(np.mean(losses[-len(batches) // args.epochs :])),
            "ms_per_step": 1e3 * seconds / len(batches)}  # fmt: skip


def train_replayed(initial: dict, args, data, batches: list, compiled: bool) -> dict:
    """The eager training step on the recorded batches (no data loading in the timing), as is
    or traced by ember.compile into a graph and run as its plan (once per batch shape)."""
    x_train, _, x_test, y_test = data
    model = TinyModel(in_features=x_train.shape[1])
    model.load_state_dict(initial)
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)

    def step(xb, yb):
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        return loss

    if compiled:
        step = ember.compile(step)
    start = time.perf_counter()
    for xb, yb in batches:
        step(xb, yb)
    seconds = time.perf_counter() - start
    model.eval()
    return {"test_accuracy": accuracy(model, x_test, y_test), "ms_per_step": 1e3 * seconds / len(batches)}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seeds the init, the split and the shuffle")
    parser.add_argument("--num-workers", type=int, default=0, help="DataLoader worker processes (batches collated in shared memory)")
    parser.add_argument("--no-plot", action="store_true", help="skip the loss-curve PNG")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the PNG and the checkpoint go (default: build/demo)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no printing (for tests)")
    parser.add_argument("--eager-only", action="store_true", help="skip the graph-mode and compiled runs")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(argv)
    say = (lambda *a, **k: None) if args.quiet else print

    ember.manual_seed(args.seed)  # the weights' initialisation
    x_train, y_train, x_test, y_test = load_data(args.seed)
    loader = DataLoader(
        TensorDataset(x_train, y_train),
        batch_size=args.batch_size,
        shuffle=True,
        generator=ember.Generator().manual_seed(args.seed + 1),
        num_workers=args.num_workers,
        persistent_workers=args.num_workers > 0,
    )

    model = TinyModel(in_features=x_train.shape[1])
    initial = {k: v.clone() for k, v in model.state_dict().items()}  # graph mode starts from the same weights
    say(model)
    say(
        f"digits: {len(x_train)} train / {len(x_test)} test, {x_train.shape[1]} features; "
        f"{args.epochs} epochs of {len(loader)} steps, batch {args.batch_size}, Adam lr {args.lr:g}, seed {args.seed}"
    )
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)

    losses: list[float] = []
    batches: list = []  # the same batches, in the same order, for graph mode
    bar = tqdm(total=args.epochs * len(loader), unit="step", disable=args.quiet, dynamic_ncols=True)
    start = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        for xb, yb in loader:
            batches.append((xb, yb))
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            bar.update()
        epoch_losses = losses[-len(loader) :]
        bar.set_postfix(epoch=epoch + 1, loss=f"{sum(epoch_losses) / len(epoch_losses):.4f}")
    seconds = time.perf_counter() - start
    bar.close()

    model.eval()
    result = {
        "train_accuracy": accuracy(model, x_train, y_train),
        "test_accuracy": accuracy(model, x_test, y_test),
        "final_loss": sum(losses[-len(loader) :]) / len(loader),
        "losses": losses,
        "steps": len(losses),
        "seconds": seconds,
        "ms_per_step": 1e3 * seconds / max(1, len(losses)),
        "plot": None if args.no_plot else save_loss_curve(losses, len(loader), args.out),
    }
    result["checkpoint"] = checkpoint_round_trip(model, optimizer, args, x_test, y_test)
    if not args.eager_only:
        data = (x_train, y_train, x_test, y_test)
        result["graph"] = train_graph_mode(initial, args, data, batches)
        result["replayed"] = train_replayed(initial, args, data, batches, compiled=False)
        result["compiled"] = train_replayed(initial, args, data, batches, compiled=True)

    say("\nsummary")
    say(f"  train accuracy  {result['train_accuracy']:.2%}")
    say(f"  test accuracy   {result['test_accuracy']:.2%}  ({len(x_test)} held-out digits)")
    say(f"  final loss      {result['final_loss']:.4f}")
    say(
        f"  time            {seconds:.2f} s for {len(losses)} steps: {result['ms_per_step']:.2f} ms/step "
        f"(batch {args.batch_size}: data, forward, backward, Adam)"
    )
    ckpt = result["checkpoint"]
    say(
        f"  checkpoint      {os.path.relpath(ckpt['path'])} ({ckpt['bytes'] / 1024:.0f} KiB, safetensors layout): reloaded into a fresh "
        f"model, {'identical' if ckpt['identical'] else 'DIFFERENT'} test logits, test accuracy {ckpt['test_accuracy']:.2%}"
    )
    if "graph" in result:
        graph, compiled = result["graph"], result["compiled"]
        say(
            f"  graph mode      Graph + Session, {graph['ops']} ops, TensorFlow's Adam on the same batches: "
            f"test accuracy {graph['test_accuracy']:.2%}, {graph['ms_per_step']:.2f} ms/step; "
            f"TensorBoard event file in {os.path.relpath(args.out / 'graph')}"
        )
        say(
            f"  per step        eager {result['replayed']['ms_per_step']:.2f} ms | graph {graph['ms_per_step']:.2f} ms | "
            f"compiled {compiled['ms_per_step']:.2f} ms (same batches, no data loading; compiled: test accuracy "
            f"{compiled['test_accuracy']:.2%} as eager's {result['replayed']['test_accuracy']:.2%})"
        )
    if args.no_plot:
        say("  loss curve      skipped (--no-plot)")
    elif result["plot"] is None:
        say("  loss curve      not drawn: matplotlib is not installed (pip install -e '.[demo]')")
    else:
        say(f"  loss curve      {os.path.relpath(result['plot'])}")
    return result


if __name__ == "__main__":
    main()
