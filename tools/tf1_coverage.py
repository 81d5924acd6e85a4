"""Print docs/tf1-coverage.md: which of TensorFlow 1's public names ``ember.compat.v1`` has.

    python tools/tf1_coverage.py > docs/tf1-coverage.md

TensorFlow's lists of names come from ``tools/tf1_names.json``, captured once from TensorFlow
itself (it is not in ember's environment); refresh that file, in an environment with TensorFlow,
with ``python tools/tf1_coverage.py --capture``. A name counts as present when the namesake
namespace of ``ember.compat.v1`` has an attribute of that name; a missing name is sorted into a
reason by the rules in ``REASONS`` (the first that matches), else "not yet". A last section lists,
per program of the TF1 corpus (``tests/tf1_programs``), the ``tf.*`` names it uses that ember lacks.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES_FILE = ROOT / "tools" / "tf1_names.json"
CORPUS = ROOT / "tests" / "tf1_programs"
TOP = "tensorflow.compat.v1"
# TensorFlow 1's namespaces a training program draws on, below tensorflow.compat.v1 (and ember.compat.v1)
SUBMODULES = [
    "nn",
    "layers",
    "losses",
    "train",
    "summary",
    "math",
    "random",
    "sparse",
    "errors",
    "gfile",
    "initializers",
    "linalg",
]

# (reason, pattern on the name): first match wins; names matching none are "not yet"
REASONS = [
    (
        "out of scope: TPUs, XLA and distributed execution",
        r"[Tt]pu|TPU|[Xx]la|XLA|[Dd]istribut|Cluster|Server|[Rr]eplica|[Cc]ollective|cuda|CUDA|_built_with|nccl|^experimental_",
    ),
    (
        "out of scope: queues, readers and queue runners (the input pipeline before tf.data)",
        r"Queue|queue|(?<!Checkpoint)Reader$|input_producer|^batch$|batch_join|shuffle_batch|^maybe_batch|^maybe_shuffle_batch|^limit_epochs$|^match_filenames_once$|^Coordinator$|^LooseCoordinator$",
    ),
    (
        "out of scope: session hooks, monitored sessions and supervisors (Estimator-era training loops)",
        r"Hook$|^SessionRun|Monitored|Scaffold|SessionManager|Supervisor|SessionCreator|^basic_train_loop$|^FileWriterCache$|^summary_writer_cache|^ChiefSessionCreator$|^WorkerSessionCreator$",
    ),
    ("out of scope: quantization", r"[Qq]uantiz|^qu?int\d+$|fake_quant"),
    ("out of scope: ragged tensors", r"[Rr]agged"),
    (
        "out of scope: C++ op libraries, build information and the TF2 module system",
        r"^load_(op_|file_system_)?library$|^load_library$|^COMPILER|^CXX|^GIT_VERSION|^MONOLITHIC|^sysconfig$|^Module$|^resource_loader$",
    ),
]
_REASONS = [(why, re.compile(pattern)) for why, pattern in REASONS]
NOT_YET = "not yet"


def reason(name: str) -> str:
    for why, pattern in _REASONS:
        if pattern.search(name):
            return why
    return NOT_YET


def public_names(namespace) -> list[str]:
    """The public names a program uses: not underscored, not a submodule, not a bare constant."""
    names = []
    for name in dir(namespace):
        if name.startswith("_"):
            continue
        try:
            value = getattr(namespace, name)
        except Exception:  # a lazily loaded attribute that fails on this host
            continue
        if isinstance(value, (types.ModuleType, bool, int, float, str)):
            continue
        names.append(name)
    return sorted(names)


def capture() -> int:
    """Write TensorFlow's lists of names into ``tools/tf1_names.json`` (run where TensorFlow is installed)."""
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers lives in the legacy Keras
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module(TOP)
    lists = {TOP: public_names(tf)}
    for submodule in SUBMODULES:
        lists[f"{TOP}.{submodule}"] = public_names(getattr(tf, submodule))
    version = importlib.import_module("tensorflow").__version__
    NAMES_FILE.write_text(json.dumps({"tensorflow": version, "names": lists}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {sum(map(len, lists.values()))} names of tensorflow {version} to {NAMES_FILE.name}", file=sys.stderr)
    return 0


def ember_namespace(tf_name: str):
    """``tensorflow.compat.v1.nn`` -> ``ember.compat.v1.nn``, by attributes (None where ember lacks it)."""
    value = importlib.import_module("ember.compat.v1")
    for part in tf_name[len(TOP) :].split(".")[1:]:
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def section(tf_name: str, names: list[str]) -> tuple[str, tuple]:
    ember_name = "ember" + tf_name[len("tensorflow") :]
    ours = ember_namespace(tf_name)
    have = [n for n in names if ours is not None and hasattr(ours, n)]
    missing: dict[str, list[str]] = {}
    for n in names:
        if ours is None or not hasattr(ours, n):
            missing.setdefault(reason(n), []).append(n)
    lines = [f"## `{tf_name}` -> `{ember_name}`", ""]
    if ours is None:
        lines += [f"`{ember_name}` does not exist yet.", ""]
    lines += [f"**Has ({len(have)}):** " + (", ".join(f"`{n}`" for n in have) or "none"), ""]
    for why in [NOT_YET, *(w for w, _ in REASONS)]:
        if why in missing:
            lines += [f"**Missing, {why} ({len(missing[why])}):** " + ", ".join(f"`{n}`" for n in missing[why]), ""]
    out_of_scope = sum(len(v) for k, v in missing.items() if k != NOT_YET)
    return "\n".join(lines), (tf_name, len(names), len(have), len(missing.get(NOT_YET, [])), out_of_scope)


def names_used(source: str) -> list[str]:
    """The dotted ``tf.*`` names a program's source uses (``tf.train.AdamOptimizer``, ``tf.losses.Reduction.SUM``).

    >>> names_used("import x as tf\\ny = tf.nn.relu(tf.constant(1.0)).op.type\\n")
    ['tf.constant', 'tf.nn.relu']
    """
    used = set()
    for node in ast.walk(ast.parse(source)):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id == "tf" and parts:
            used.add(".".join(["tf", *reversed(parts)]))
    return sorted(name for name in used if not any(other.startswith(name + ".") for other in used))


def first_missing(dotted: str) -> str | None:
    """The shortest prefix of ``tf.a.b.c`` that ``ember.compat.v1`` lacks, or None when it has all of it."""
    value = importlib.import_module("ember.compat.v1")
    parts = dotted.split(".")
    for i, part in enumerate(parts[1:], start=2):
        if not hasattr(value, part):
            return ".".join(parts[:i])
        value = getattr(value, part)
    return None


def corpus_section() -> str:
    lines = ["## The TF1 corpus (`tests/tf1_programs`): names each program uses that ember lacks", ""]
    lines += ["| program | `tf.*` names used | missing |", "| --- | ---: | --- |"]
    for path in sorted(CORPUS.glob("*.py")):
        if path.stem in ("__init__", "harness", "record", "test_tf1_programs"):
            continue
        used = names_used(path.read_text())
        missing = sorted({m for m in map(first_missing, used) if m is not None})
        lines.append(f"| `{path.stem}` | {len(used)} | " + (", ".join(f"`{m}`" for m in missing) or "none") + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv[1:] == ["--capture"]:
        return capture()
    if argv[1:]:
        print("usage: python tools/tf1_coverage.py [--capture]", file=sys.stderr)
        return 2
    import ember  # the face, for its version; this script is a tool above the package, not a part of it

    captured = json.loads(NAMES_FILE.read_text())
    sections, rows = [], []
    for tf_name in [TOP, *(f"{TOP}.{s}" for s in SUBMODULES)]:
        text, row = section(tf_name, captured["names"][tf_name])
        sections.append(text)
        rows.append(row)
    print("# TensorFlow 1 API coverage")
    print()
    print(
        f"Generated by `tools/tf1_coverage.py` from tensorflow {captured['tensorflow']}'s `tf.compat.v1` and ember {ember.__version__};"
    )
    print("refresh with `python tools/tf1_coverage.py > docs/tf1-coverage.md` (TensorFlow's names are read from")
    print("`tools/tf1_names.json`). A name is present when the namesake namespace of `ember.compat.v1` has an")
    print("attribute of that name (its behaviour is what the tests check, not this table). Missing names are sorted")
    print("by the script's rules into out-of-scope groups (TPUs, XLA and distributed execution, the queue-based")
    print("input pipeline, session hooks and supervisors, quantization, ragged tensors, C++ op libraries and build")
    print('information) and the rest, "not yet". Submodules and bare constants (version strings, error codes) are')
    print("not counted.")
    print()
    print("| namespace | public names | in ember | missing: not yet | missing: out of scope |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for tf_name, total, have, not_yet, out in rows:
        print(f"| `{tf_name}` | {total} | {have} | {not_yet} | {out} |")
    print()
    print(corpus_section())
    print("\n".join(sections).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
