"""TensorFlow 1 programs run unchanged under ember: each prints what TensorFlow printed.

Each program of this folder runs in its own process under ember (the import line as written) and
must exit 0 and print what real TensorFlow printed when it was recorded (``expected/``). Where
TensorFlow is installed, the same source also runs under it, with only the import line changed,
and must still print the recording: a stale or unfair recording fails there.
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from .harness import (
    EMBER_IMPORT,
    EXPECTED,
    HERE,
    PROGRAMS,
    TENSORFLOW_IMPORT,
    TENSORFLOW_NEEDS,
    compare,
    run_program,
    source_path,
    tensorflow_source,
    tolerance,
)


def _check_exit(name, framework, result):
    if result.returncode != 0:
        pytest.fail(f"{name} exited with status {result.returncode} under {framework}:\n{result.stderr[-4000:]}", pytrace=False)


def test_every_program_is_listed_and_recorded():
    on_disk = {path.stem for path in HERE.glob("*.py")} - {"__init__", "harness", "record", "test_tf1_programs"}
    assert on_disk == set(PROGRAMS)
    assert {path.stem for path in EXPECTED.glob("*.txt")} == set(PROGRAMS)
    for name in PROGRAMS:
        source = source_path(name).read_text()
        assert re.search(rf"^{re.escape(EMBER_IMPORT)}\b", source, re.MULTILINE), f"{name} does not import {EMBER_IMPORT}"
        assert "tensorflow" not in source.replace("TensorFlow", ""), (
            f"{name} names the tensorflow module: only its import line may differ"
        )


@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [
        ("loss 0.250000\n", "loss 0.250100\n", True),  # within rtol=1e-3
        ("loss 0.250000\n", "loss 0.251000\n", False),
        ("w [ 1.5 -0.25]\n", "w [1.5000001 -0.25]\n", True),  # NumPy's padding is not compared
        ("dense_1/kernel:0 [2, 32]\n", "dense_2/kernel:0 [2, 32]\n", False),  # names are text
        ("after 3 steps\n", "after 3.0 steps\n", False),  # an int printed as a float is a dtype change
        ("value nan\n", "value nan\n", True),
        ("value nan\n", "value 0.0\n", False),
        ("model.ckpt-15\n", "model.ckpt-16\n", False),
        ("a 1\nb 2\n", "a 1\n", False),
        ('Tensor("add:0", shape=(?, 3), dtype=float32)\n', 'Tensor("add:0", shape=(None, 3), dtype=float32)\n', False),
    ],
)
def test_outputs_compare_numbers_within_tolerance_and_text_exactly(expected, actual, same):
    assert (compare(expected, actual) == []) is same


def test_the_import_line_is_the_only_change():
    source = source_path("softmax_regression").read_text()
    swapped = tensorflow_source(source)
    assert swapped.replace(TENSORFLOW_IMPORT, EMBER_IMPORT) == source and TENSORFLOW_IMPORT in swapped
    with pytest.raises(ValueError, match="exactly one line"):
        tensorflow_source("import numpy as np\n")


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_what_tensorflow_printed(name):
    result = run_program(name, "ember")
    _check_exit(name, "ember", result)
    problems = compare((EXPECTED / f"{name}.txt").read_text(), result.stdout, tolerance(name))
    assert not problems, f"{name} under ember differs from TensorFlow's output:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", PROGRAMS)
def test_recording_is_what_tensorflow_prints(name):
    for module in ("tensorflow", TENSORFLOW_NEEDS.get(name)):
        if module and importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")  # found, not imported: the program's own process imports it
    result = run_program(name, "tensorflow")
    _check_exit(name, "tensorflow", result)
    problems = compare((EXPECTED / f"{name}.txt").read_text(), result.stdout, tolerance(name))
    assert not problems, f"{name}: TensorFlow now prints other than its recording:\n" + "\n".join(problems)
