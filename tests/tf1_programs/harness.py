"""Run a TensorFlow 1 program of this folder under ember or under TensorFlow, and compare printed outputs.

Standard library only: ``record.py`` imports it under TensorFlow's environment, the test under
ember's. A program is a script that begins with ``import ember.compat.v1 as tf``; under TensorFlow
the same source runs with that line replaced by ``import tensorflow.compat.v1 as tf``.

Outputs are compared line by line: the text with numbers taken out must be the same (whitespace
aside, since NumPy pads arrays to their widest value and sign), the same count of numbers, integers
equal, and floats close within the program's tolerance.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EXPECTED = HERE / "expected"
EMBER_IMPORT = "import ember.compat.v1 as tf"
TENSORFLOW_IMPORT = "import tensorflow.compat.v1 as tf"
TIMEOUT_S = 120

PROGRAMS = (
    "cnn_nhwc",
    "control_flow",
    "gradients",
    "graph_inspection",
    "linear_regression",
    "losses_optimizers",
    "mlp_layers_adam",
    "random_ops",
    "saver_checkpoints",
    "softmax_regression",
    "sparse_tensors",
    "summaries",
    "variable_scopes",
)

# What a program needs under TensorFlow beyond tensorflow itself: tf.layers lives in the legacy Keras.
TENSORFLOW_NEEDS = {"mlp_layers_adam": "tf_keras"}

# (rtol, atol) for floats; training runs in float32, where summation order moves the last digits.
DEFAULT_TOLERANCE = (1e-3, 1e-5)
TOLERANCE: dict[str, tuple[float, float]] = {}

# A number standing alone: not the digits inside a name such as ``dense_1`` or ``float32``.
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w.])")


def source_path(name: str) -> Path:
    return HERE / f"{name}.py"


def tensorflow_source(source: str) -> str:
    """The program with its one import line pointed at TensorFlow.

    >>> tensorflow_source("import ember.compat.v1 as tf  # the line\\nx = 1\\n")
    'import tensorflow.compat.v1 as tf  # the line\\nx = 1\\n'
    """
    lines = source.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.startswith(EMBER_IMPORT)]
    if len(hits) != 1:
        raise ValueError(f"a TF1 program imports {EMBER_IMPORT!r} on exactly one line; found {len(hits)}")
    lines[hits[0]] = TENSORFLOW_IMPORT + lines[hits[0]][len(EMBER_IMPORT) :]
    return "".join(lines)


def run_program(name: str, framework: str, python: str = sys.executable) -> subprocess.CompletedProcess:
    """Run program ``name`` in a fresh process under ``framework`` ("ember" or "tensorflow")."""
    env = dict(os.environ, PYTHONWARNINGS="ignore", PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as workdir:
        script = source_path(name)
        if framework == "tensorflow":
            script = Path(workdir) / f"{name}.py"
            script.write_text(tensorflow_source(source_path(name).read_text()))
            env.update(TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1")
        elif framework == "ember":
            env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
        else:
            raise ValueError(f"run_program: framework must be 'ember' or 'tensorflow', got {framework!r}")
        return subprocess.run(
            [python, str(script)], cwd=workdir, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )


def _split(line: str) -> tuple[str, list[str]]:
    template = "".join(_NUMBER.sub(" # ", line).split())
    return template, _NUMBER.findall(line)


def _is_integer(token: str) -> bool:
    return re.fullmatch(r"[-+]?\d+", token) is not None


def _close(expected: str, actual: str, rtol: float, atol: float) -> bool:
    if _is_integer(expected) or _is_integer(actual):
        return _is_integer(expected) and _is_integer(actual) and int(expected) == int(actual)
    want, got = float(expected), float(actual)
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return want == got
    return abs(got - want) <= atol + rtol * abs(want)


def compare(expected: str, actual: str, tolerance: tuple[float, float] = DEFAULT_TOLERANCE) -> list[str]:
    """The differences between two printed outputs, one message each; empty when they agree.

    >>> compare("loss 0.500000 at dense_1:0\\n", "loss 0.500001 at dense_1:0\\n")
    []
    >>> compare("step 3 loss 0.5\\n", "step 4 loss 0.5\\n")
    ["line 1: 3 != 4 in 'step 4 loss 0.5'"]
    """
    rtol, atol = tolerance
    want_lines, got_lines = expected.rstrip("\n").splitlines(), actual.rstrip("\n").splitlines()
    problems = []
    for number, (want, got) in enumerate(zip(want_lines, got_lines, strict=False), start=1):
        want_text, want_numbers = _split(want)
        got_text, got_numbers = _split(got)
        if want_text != got_text or len(want_numbers) != len(got_numbers):
            problems.append(f"line {number}: expected {want!r}, got {got!r}")
            continue
        for a, b in zip(want_numbers, got_numbers, strict=True):
            if not _close(a, b, rtol, atol):
                problems.append(f"line {number}: {a} != {b} in {got!r}")
                break
    if len(want_lines) != len(got_lines):
        problems.append(f"expected {len(want_lines)} lines, got {len(got_lines)}")
    return problems


def tolerance(name: str) -> tuple[float, float]:
    return TOLERANCE.get(name, DEFAULT_TOLERANCE)
