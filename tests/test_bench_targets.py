"""The issue-targets table of the benchmark runner: which case feeds a row, the ratio, the verdict,
and why a row did not run. Figures are made up here; nothing is timed."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import issue_targets as it


def _row(rows, work):
    return next(r for r in rows if r["work"] == work)


@pytest.mark.parametrize(
    "pattern, name, expected",
    [
        ("rnn/(a)*", "rnn/(a) 2-layer LSTM(32,128)+head train step", True),
        ("rnn/(a)*", "rnn/(b) LSTM", False),
        ("transformer/*256*", "transformer/(b) encoder d256", True),
        ("transformer/*256*", "transformer/(a) encoder d128", False),
        ("ops/a + b 100 f32", "ops/a + b 100 f32", True),
        ("ops/a + b 100 f32", "ops/a + b 100 f32 (breakdown)", False),
        ("a*b*b", "ab", False),
    ],
)
def test_case_patterns(pattern, name, expected):
    assert it._matches(pattern, name) is expected


def test_ratio_absolute_and_cost_rows_get_their_verdicts(capsys):
    found = {
        "ops/a + b 100 f32": {"ember": (1400.0, "ns"), "numpy": (500.0, "ns"), "torch": (4400.0, "ns")},
        "training/(c) CNN 3x32x32 batch 32": {"ember": (30e6, "ns"), "torch": (20e6, "ns")},
        "overhead/a * b 100 f32, recorded (requires grad) vs plain": {
            "ember": (2000.0, "ns"),
            "ember[recorded]": (2700.0, "ns"),
            "torch": (1000.0, "ns"),
            "torch[recorded]": (1500.0, "ns"),
        },
        "peak_memory/MLP 784-1024-1024-10 train loop, batch 256, SGD (fresh process)": {
            "ember": (20_000, "KiB"),
            "torch": (100_000, "KiB"),
        },
    }
    rows = it.evaluate(found, cases=list(found), jobs=["peak_memory/train loops"])
    add = _row(rows, "eager a + b, 100 float32")
    assert add["met"] is True and add["ratio"] == pytest.approx(1400 / 4400)
    cnn = _row(rows, "small CNN train step, batch 32, 3x32x32")
    assert cnn["met"] is False and cnn["status"] == "NOT met" and cnn["ratio"] == pytest.approx(1.5)
    cost = _row(rows, "autograd cost per recorded op")
    assert cost["cost"] == pytest.approx(700.0) and cost["met"] is True  # the target is ember's cost alone
    assert cost["reference_cost"] == pytest.approx(500.0) and cost["ratio"] == pytest.approx(1.4)
    memory = _row(rows, "peak memory, MLP 784-1024-1024-10 train loop (fresh process)")
    assert memory["unit"] == "KiB" and memory["met"] is True
    assert _row(rows, "peak memory, CNN 3x32x32 train loop (fresh process)")["status"] == "not run (filtered out)"
    assert _row(rows, "import ember")["status"] == "not run (no such case yet)"
    assert _row(rows, "view op: view")["status"] == "not run (no such case yet)"
    it.print_table(rows)
    out = capsys.readouterr().out
    assert "+700 ns/op" in out and "+500 ns/op" in out and "1.40x torch" in out


def test_job_records_and_the_printed_table(capsys):
    class Case:
        name = "views/view(9) 3x3 f32"

    class Result:
        def __init__(self, impl, median):
            self.impl, self.median = impl, median

    records = {
        "peak_memory/job": [
            {"case": "peak_memory/CNN 3x32x32 train loop, batch 32, SGD (fresh process)", "impl": "ember", "kib": 30_000},
            {"other": 1},
        ]
    }
    found = it.figures([(Case, [Result("ember", 900.0), Result("torch", 1000.0)])], records)
    assert found["views/view(9) 3x3 f32"]["torch"] == (1000.0, "ns")
    rows = it.evaluate(found, cases=[Case.name], jobs=list(records))
    cnn = _row(rows, "peak memory, CNN 3x32x32 train loop (fresh process)")
    assert cnn["status"] == "no reference in this run" and cnn["met"] is None
    it.print_table(rows)
    out = capsys.readouterr().out
    assert "issue targets" in out and "29.3 MiB" in out and "900 ns" in out and "0.90x torch" in out
    assert "+700 ns/op" not in out  # no cost row ran in this table
    assert f"1 of 1 rows that ran meet their target; {len(rows) - 1} not run or without a reference" in out


def test_issue_selection_takes_each_rows_first_registered_candidate_and_job_families():
    cases = [
        "ops/sum 16M f32",
        "ops/sum 16M f32 (2 threads)",
        "overhead/a * b 100 f32, recorded (requires grad) vs plain",
        "training/autograd cost per recorded op: a*b 100 f32",
        "views/view(9) 3x3 f32",
        "graph/unrelated",
    ]
    jobs = ["peak_memory/train loops", "distributed/all_reduce"]
    chosen = it.selected(cases, jobs)
    assert chosen == {
        "ops/sum 16M f32 (2 threads)",
        "overhead/a * b 100 f32, recorded (requires grad) vs plain",
        "views/view(9) 3x3 f32",
        "peak_memory/train loops",
    }
    assert "ops/sum 16M f32" in it.selected(cases[:1], [])  # the fallback when the first is missing


def test_an_absolute_target_is_carried_to_this_machine_by_its_reference():
    # the issue's 1.5 us for a + b was set where torch took 1.3 us: here torch takes 4 us, so the
    # target is 1.5 / 1.3 of torch; 4.4 us is within it although it is far above 1.5 us
    found = {"ops/a + b 100 f32": {"ember": (4400.0, "ns"), "torch": (4000.0, "ns")}}
    add = _row(it.evaluate(found, cases=list(found), jobs=[]), "eager a + b, 100 float32")
    assert add["met"] is True and "1.15x torch" in add["target"]
    found["ops/a + b 100 f32"]["ember"] = (4800.0, "ns")  # 1.2x torch: over 1.15x
    assert _row(it.evaluate(found, cases=list(found), jobs=[]), "eager a + b, 100 float32")["met"] is False
    # without the reference in the run, the absolute figure decides
    found = {"ops/a + b 100 f32": {"ember": (1400.0, "ns")}}
    assert _row(it.evaluate(found, cases=list(found), jobs=[]), "eager a + b, 100 float32")["met"] is True
