"""tools/tf1_coverage.py, the generator of docs/tf1-coverage.md: its reasons, its name lists, its counts."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "tf1_coverage.py"


def _load():
    spec = importlib.util.spec_from_file_location("tf1_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("name", "group"),
    [
        ("TPUEstimator", "TPUs"), ("SyncReplicasOptimizer", "distributed"), ("ClusterSpec", "distributed"),
        ("string_input_producer", "queues"), ("FIFOQueue", "queues"), ("TFRecordReader", "queues"),
        ("MonitoredTrainingSession", "hooks"), ("StopAtStepHook", "hooks"), ("quantize_v2", "quantization"),
        ("qint8", "quantization"), ("RaggedTensor", "ragged"), ("load_op_library", "C++"),
        ("int32", "not yet"), ("NewCheckpointReader", "not yet"), ("GPUOptions", "not yet"),
        ("while_loop", "not yet"), ("Saver", "not yet"), ("batch_norm", "not yet"),
    ],
)  # fmt: skip
def test_missing_names_are_sorted_into_their_reasons(name, group):
    assert group in _load().reason(name)


def test_the_captured_lists_cover_every_namespace():
    coverage = _load()
    captured = json.loads(coverage.NAMES_FILE.read_text())
    expected = {coverage.TOP, *(f"{coverage.TOP}.{s}" for s in coverage.SUBMODULES)}
    assert set(captured["names"]) == expected
    top = captured["names"][coverage.TOP]
    assert {"Session", "placeholder", "Variable", "while_loop", "get_variable"} <= set(top)
    assert all(names == sorted(names) and not any(n.startswith("_") for n in names) for names in captured["names"].values())


def test_a_section_counts_what_it_lists():
    coverage = _load()
    names = ["Graph", "Session", "FIFOQueue", "no_such_name_in_ember"]
    text, (namespace, total, have, not_yet, out_of_scope) = coverage.section(coverage.TOP, names)
    assert (namespace, total, have, not_yet, out_of_scope) == (coverage.TOP, 4, 2, 1, 1)
    assert "**Has (2):** `Graph`, `Session`" in text
    assert "`no_such_name_in_ember`" in text and "`FIFOQueue`" in text


def test_a_missing_dotted_name_is_reported_at_its_first_missing_part():
    coverage = _load()
    assert coverage.first_missing("tf.Session") is None
    assert coverage.first_missing("tf.no_such_namespace.thing.more") == "tf.no_such_namespace"
    assert coverage.names_used("y = tf.train.AdamOptimizer(0.1).minimize(tf.losses.Reduction.SUM)") == [
        "tf.losses.Reduction.SUM",
        "tf.train.AdamOptimizer",
    ]
