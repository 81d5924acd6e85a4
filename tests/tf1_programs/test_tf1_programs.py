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

from .harness import EMBER_IMPORT, EXPECTED, HERE, PROGRAMS, TENSORFLOW_NEEDS, compare, run_program, source_path, tolerance


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
        assert "tensorflow" not in source.replace("TensorFlow", ""), f"{name} names tensorflow beyond its docstring"


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
