"""The training demo (`make demo`, examples/train_digits.py) and a small convergence check of ember's training stack."""

import importlib.util
import pathlib

import numpy as np
import pytest

import ember
import ember.nn as nn

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_digits.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("train_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_layer_mlp_learns_a_separable_toy_problem():
    # Two Gaussian blobs per class at the corners of a square (an XOR layout: no linear model solves
    # it), full-batch Adam; no scikit-learn needed.
    rng = np.random.default_rng(0)
    centres = np.array([[-2, -2], [2, 2], [-2, 2], [2, -2]], dtype=np.float32)
    labels = np.array([0, 0, 1, 1])
    which = rng.integers(0, 4, size=256)
    x = ember.from_numpy((centres[which] + 0.4 * rng.standard_normal((256, 2))).astype(np.float32))
    y = ember.from_numpy(labels[which].astype(np.int64))

    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = ember.optim.Adam(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(60):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with ember.no_grad():
        train_accuracy = float((model(x).argmax(dim=1) == y).float().mean())
    assert train_accuracy >= 0.95
    assert losses[-1] < 0.25 * losses[0]


def test_tiny_model_is_the_seeds():
    module = _load_example()
    assert repr(module.TinyModel()) == (
        "TinyModel(\n"
        "  (linear1): Linear(in_features=64, out_features=200, bias=True)\n"
        "  (activation): ReLU()\n"
        "  (linear2): Linear(in_features=200, out_features=10, bias=True)\n"
        "  (softmax): Softmax(dim=None)\n"
        ")"
    )


def test_train_digits_reaches_accuracy_and_is_reproducible(tmp_path):
    pytest.importorskip("sklearn")
    module = _load_example()
    argv = ["--epochs", "6", "--batch-size", "64", "--lr", "2e-3", "--seed", "3", "--quiet", "--no-plot", "--out", str(tmp_path)]
    first = module.main(argv)
    second = module.main(argv)
    assert first["test_accuracy"] >= 0.9
    assert first["train_accuracy"] >= first["test_accuracy"] - 0.05
    assert first["losses"] == second["losses"]
    assert first["test_accuracy"] == second["test_accuracy"]
    assert first["steps"] == 6 * 23  # 1438 train digits in batches of 64

    # graph mode and the compiled step train the same model on the same batches
    assert first["graph"]["test_accuracy"] >= 0.9 and first["graph"]["ops"] > 50
    assert first["graph"]["events"].startswith(str(tmp_path / "graph"))  # TensorBoard's event file with the graph
    assert abs(first["graph"]["final_loss"] - first["final_loss"]) < 0.05  # TensorFlow's Adam: close, not equal
    assert abs(first["compiled"]["test_accuracy"] - first["replayed"]["test_accuracy"]) <= 1 / 359
    assert first["replayed"]["test_accuracy"] == first["test_accuracy"]  # replaying the batches is the same training

    # the checkpoint: reloaded into a fresh model it gives the same logits, and it reloads from disk again
    checkpoint = first["checkpoint"]
    assert checkpoint["path"] == tmp_path / "tiny_model.ckpt" and checkpoint["identical"]
    assert checkpoint["test_accuracy"] == first["test_accuracy"]
    saved = ember.load(checkpoint["path"])
    assert saved["epochs"] == 6 and saved["optimizer"]["param_groups"][0]["lr"] == 2e-3
    model = module.TinyModel()
    model.load_state_dict(saved["model"])
    assert all(bool((a == b).all()) for a, b in zip(model.state_dict().values(), saved["model"].values(), strict=True))


def test_train_digits_draws_the_loss_curve(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    module = _load_example()
    result = module.main(["--epochs", "1", "--seed", "1", "--quiet", "--out", str(tmp_path)])
    assert result["plot"] == tmp_path / "loss_curve.png"
    assert result["plot"].read_bytes().startswith(b"\x89PNG")
