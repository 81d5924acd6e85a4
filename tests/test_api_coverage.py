"""tools/api_coverage.py, the generator of docs/pytorch-coverage.md: its reasons, and its output."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "api_coverage.py"


def _load():
    spec = importlib.util.spec_from_file_location("api_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("name", "group"),
    [
        ("cuda", "CUDA"), ("pin_memory", "CUDA"), ("cudnn_convolution", "CUDA"),
        ("quantize_per_tensor", "quantized"), ("int_repr", "quantized"),
        ("to_sparse_csr", "sparse"), ("sparse_coo_tensor", "sparse"),
        ("refine_names", "named"), ("FloatStorage", "typed storages"), ("ScriptModule", "TorchScript"),
        ("float8_e4m3fn", "float8"), ("diagonal_copy", "_copy"), ("handle_torch_function", "not API"),
        ("addmm", "not yet"), ("kron", "not yet"), ("median", "not yet"),
    ],
)  # fmt: skip
def test_missing_names_are_sorted_into_their_reasons(name, group):
    assert group in _load().reason(name)


def test_the_table_is_deterministic_and_counts_what_it_lists():
    pytest.importorskip("torch")
    coverage = _load()
    first, row = coverage.section("torch.optim", "ember.optim")
    again, _ = coverage.section("torch.optim", "ember.optim")
    assert first == again
    torch_name, total, have, not_yet, out = row
    assert torch_name == "torch.optim" and total == have + not_yet + out and have > 0
    assert "`SGD`" in first.split("**Has")[1].split("\n")[0] and "`Adam`" in first


def test_a_missing_namespace_is_said_to_be_missing():
    pytest.importorskip("torch")
    text, row = _load().section("torch.optim", "ember.no_such_namespace")
    assert "does not exist yet" in text and row[2] == 0
