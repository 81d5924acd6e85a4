"""Peak resident memory of two training loops, ember against PyTorch, each in a fresh process.

The loops are those of ``training.py``: (b) the MLP 784-1024-1024-10, batch 256, and (c) the CNN
on 3x32x32, batch 32; SGD, 5 steps. ``_peak_memory_worker.py`` runs one framework and one model in
a new interpreter and reads ``/proc/self/status``: the kernel's high-water mark of the resident set
(``VmHWM``, reset through ``/proc/self/clear_refs`` once the imports and the input batch are done)
minus the resident set at that point (``VmRSS``). Two figures per loop:

- **cold** (the issue's row): from after the imports to the end of the first 5 steps; it holds the
  model, its gradients, each step's activations and temporaries, and whatever the framework sets up
  lazily on first use (PyTorch maps most of its kernels' code then).
- **warm**: 5 more steps above the trained model (gradients set to None, freed heap handed back
  to the system first): what a step holds at its peak.

Both frameworks run the same sequence; the figures are exact, not timed, but depend a little on
how the C library's heap lies (a few MiB between runs of different layouts).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from harness import job, torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORKER = os.path.join(HERE, "_peak_memory_worker.py")
STEPS = 5
MODELS = {
    "mlp": "peak_memory/MLP 784-1024-1024-10 train loop, batch 256, SGD (fresh process)",
    "cnn": "peak_memory/CNN 3x32x32 train loop, batch 32, SGD (fresh process)",
}


def _measure(framework: str, model: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, WORKER, framework, model, str(STEPS)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {framework} {model} peak-memory process failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(quick: bool) -> list[dict]:
    """Measure each loop in fresh processes (3 each, the median; 1 with --quick) and print a table."""
    repeats = 1 if quick else 2
    frameworks = ["ember"] + (["torch"] if torch is not None else [])
    records = []
    for model, name in MODELS.items():
        for framework in frameworks:
            runs = [_measure(framework, model) for _ in range(repeats)]
            for phase in ("cold", "warm"):
                value = statistics.median(r[f"{phase}_kib"] for r in runs)
                records.append(
                    {
                        "case": name if phase == "cold" else f"{name}, warm step",
                        "impl": framework,
                        "kib": value,
                        "runs": [r[f"{phase}_kib"] for r in runs],
                    }
                )
    _print(records)
    return records


def _print(records: list[dict]) -> None:
    by_case: dict[str, dict[str, float]] = {}
    for rec in records:
        by_case.setdefault(rec["case"], {})[rec["impl"]] = rec["kib"]
    width = max(len(c) for c in by_case)
    print(f"  {'case':<{width}}  {'ember':>10}  {'torch':>10}  ember/torch")
    for name, values in by_case.items():
        ember, ref = values.get("ember"), values.get("torch")
        ratio = f"{ember / ref:.2f}x" if ember is not None and ref else ""
        cells = [f"{v / 1024:.1f} MiB" if v is not None else "" for v in (ember, ref)]
        print(f"  {name:<{width}}  {cells[0]:>10}  {cells[1]:>10}  {ratio:>11}")
    print("  peak VmHWM above VmRSS after the imports (cold) or above the trained model (warm); target: ember <= torch")


job("peak_memory/MLP and CNN train loops, ember vs torch, fresh processes (VmHWM)")(run)
