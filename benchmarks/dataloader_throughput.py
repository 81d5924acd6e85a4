"""DataLoader throughput, ember against PyTorch: samples per second over whole epochs.

The same synthetic dataset on each framework's tensors: N images of 3x32x32 float32 (one tensor,
a sample is a row view of it) with a Python int label; batches of 64 collated by each
framework's default collate, in the main process (num_workers=0) or in worker processes.
Each epoch starts new workers (as a plain ``for batch in loader`` does), so their start-up counts,
unless ``--persistent``. The two frameworks' epochs alternate.

    .venv/bin/python benchmarks/dataloader_throughput.py --workers 0 2 --runs 7

Nothing is asserted: the medians and the ember/torch ratios are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ember
import ember.utils.data as edata


class Images:
    """A map-style dataset over one preallocated image tensor: ``(image view, int label)``."""

    def __init__(self, images, labels):
        self.images = images
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


def _make(n: int, framework: str):
    rng = np.random.default_rng(0)
    images = rng.standard_normal((n, 3, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, n).tolist()
    if framework == "ember":
        return Images(ember.from_numpy(images), labels)
    import torch

    return Images(torch.from_numpy(images), labels)


def _loader(framework: str, dataset, batch_size: int, workers: int, persistent: bool):
    kwargs = {"num_workers": workers, "batch_size": batch_size, "shuffle": True}
    if workers:
        kwargs["persistent_workers"] = persistent
    if framework == "ember":
        return edata.DataLoader(dataset, generator=ember.Generator().manual_seed(0), **kwargs)
    import torch

    return torch.utils.data.DataLoader(dataset, generator=torch.Generator().manual_seed(0), **kwargs)


def _epoch(loader) -> int:
    seen = 0
    for x, y in loader:
        seen += x.shape[0]
        assert y.shape[0] == x.shape[0]
    return seen


def measure(frameworks: list[str], n: int, batch_size: int, workers: int, runs: int, persistent: bool) -> list[float]:
    """Median samples/s per framework; their epochs alternate, so load on the machine hits all alike."""
    loaders = [_loader(f, _make(n, f), batch_size, workers, persistent) for f in frameworks]
    for loader in loaders:
        _epoch(loader)  # warm-up: imports, first-touch of the pages, persistent workers' start
    rates: list[list[float]] = [[] for _ in frameworks]
    for run in range(runs):
        order = range(len(loaders)) if run % 2 == 0 else reversed(range(len(loaders)))
        for i in order:
            start = time.perf_counter()
            seen = _epoch(loaders[i])
            rates[i].append(seen / (time.perf_counter() - start))
    return [statistics.median(r) for r in rates]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 2])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--persistent", action="store_true", help="keep the workers across epochs")
    parser.add_argument("--frameworks", nargs="+", default=["ember", "torch"])
    args = parser.parse_args(argv)

    frameworks = list(args.frameworks)
    if "torch" in frameworks:
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:
            frameworks.remove("torch")
    print(f"{args.samples} samples of 3x32x32 float32 + int label, batch {args.batch_size}, "
          f"median of {args.runs} epochs, {'persistent' if args.persistent else 'new'} workers each epoch")
    print(f"{'num_workers':>11}  " + "  ".join(f"{f + ' samples/s':>17}" for f in frameworks) + ("  ember/torch" if len(frameworks) == 2 else ""))
    for workers in args.workers:
        rates = measure(frameworks, args.samples, args.batch_size, workers, args.runs, args.persistent)
        ratio = f"  {rates[0] / rates[1]:10.2f}x" if len(rates) == 2 else ""
        print(f"{workers:>11}  " + "  ".join(f"{r:17,.0f}" for r in rates) + ratio)


if __name__ == "__main__":
    main()
