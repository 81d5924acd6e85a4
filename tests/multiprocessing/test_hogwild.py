"""Hogwild (examples/hogwild.py): two processes train one model in shared memory, without locks."""

import importlib.util
import pathlib

import pytest

import ember
import ember.nn as nn
from ember.utils.data import TensorDataset

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "hogwild.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("hogwild_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _disjoint_regression(n=256):
    """y = x @ w_true, where the rows process 0 trains on (even rows: its shard) use features 0-1
    only and those of process 1 (odd rows) features 2-3 only: each half of the weights can only
    move if that process's writes reach the shared parameters."""
    g = ember.Generator().manual_seed(0)
    x = ember.randn(n, 4, generator=g)
    mask = ember.zeros(n, 4)
    mask[0::2, :2] = 1.0
    mask[1::2, 2:] = 1.0
    x = x * mask
    w_true = ember.tensor([[1.0], [-2.0], [3.0], [-1.5]])
    return TensorDataset(x, x @ w_true), w_true


def test_both_processes_write_the_shared_parameters():
    hogwild = _load_example()
    dataset, w_true = _disjoint_regression()
    model = nn.Linear(4, 1, bias=False)
    with ember.no_grad():
        model.weight.zero_()
    loss_fn = nn.MSELoss()
    loss_before = float(loss_fn(model(dataset.tensors[0]), dataset.tensors[1]).item())

    steps = hogwild.hogwild(model, dataset, processes=2, epochs=8, lr=0.1, batch_size=16, loss_fn=loss_fn, start_method="fork")

    assert steps == [8 * 8, 8 * 8]  # 128 rows per shard, batches of 16: every step counted in shared memory
    weight = model.weight.detach().reshape(4)
    # process 0 alone can move weight[:2], process 1 alone weight[2:]: both moved to the truth
    assert weight.tolist() == pytest.approx(w_true.reshape(4).tolist(), abs=0.05)
    loss_after = float(loss_fn(model(dataset.tensors[0]), dataset.tensors[1]).item())
    assert loss_after < 0.01 * loss_before


def test_example_main_learns():
    result = _load_example().main(["--processes", "2", "--epochs", "2"])
    assert result["steps"] == [63 * 2, 63 * 2]  # 2000 samples per shard, batches of 32
    assert result["loss_after"] < 0.6 * result["loss_before"] and result["acc_after"] > 0.8
