"""Models and data shared by the DDP tests: the demo's TinyModel and batches every rank can rebuild."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np

import ember
import ember.nn as nn

_EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "train_digits.py"


def _demo():
    spec = importlib.util.spec_from_file_location("train_digits_for_ddp_tests", _EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_DEMO = _demo()
TinyModel = _DEMO.TinyModel
loss_fn = _DEMO.loss_fn


def batches(steps: int, world: int, per_rank: int, features: int = 64, seed: int = 0):
    """``steps`` global batches of ``world * per_rank`` samples, the same on every rank."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = rng.standard_normal((world * per_rank, features)).astype(np.float32)
        y = rng.integers(0, 10, world * per_rank)
        yield ember.from_numpy(x), ember.from_numpy(y)


def shard(t: ember.Tensor, rank: int, per_rank: int) -> ember.Tensor:
    return t[rank * per_rank : (rank + 1) * per_rank]


def max_difference(a: nn.Module, b: nn.Module) -> float:
    return max(float((p - q).abs().max()) for p, q in zip(a.parameters(), b.parameters(), strict=True))


class TwoBranch(nn.Module):
    """A trunk and two heads; ``forward(x, use)`` adds the heads named in ``use``."""

    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Linear(6, 5)
        self.left = nn.Linear(5, 3)
        self.right = nn.Linear(5, 3)

    def forward(self, x, use=("left", "right")):
        h = self.trunk(x).relu()
        out = ember.zeros(x.shape[0], 3)
        for name in use:
            out = out + getattr(self, name)(h)
        return out
