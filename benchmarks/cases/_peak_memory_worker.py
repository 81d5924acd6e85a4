"""One fresh process of the peak-memory benchmark (see peak_memory.py): train one model, report memory.

    python _peak_memory_worker.py {ember,torch} {mlp,cnn} STEPS

Only NumPy and the framework under test are imported. The baseline is the resident set after
the imports and the input batch (``VmRSS``); the kernel's high-water mark (``VmHWM``) is then
reset (``/proc/self/clear_refs``, "5"), the model is built and trained for STEPS steps (forward,
cross-entropy, backward, SGD step), and the new ``VmHWM`` minus the baseline is what training
took at its peak. The same sequence runs for either framework; the answer is one JSON line.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import os
import sys

# Run as a script, this folder leads sys.path, where multiprocessing.py (the benchmark module)
# would shadow the standard library's for both frameworks: take it off first.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import numpy as np

_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
SHAPES = {"mlp": ((784,), 256), "cnn": ((3, 32, 32), 32)}


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _reset_high_water_mark() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def _build(nn, model: str):
    if model == "mlp":
        return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 10),
    )  # fmt: skip


def main(framework: str, model: str, steps: int) -> dict:
    if framework == "torch":
        import torch as lib

        nn, functional, optim = lib.nn, lib.nn.functional, lib.optim
    else:
        import ember as lib
        import ember.nn as nn
        import ember.nn.functional as functional
        import ember.optim as optim

    shape, batch = SHAPES[model]
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((batch, *shape)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, 10, batch))
    net = opt = None

    def step() -> None:
        opt.zero_grad()
        loss = functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()

    # cold: from the imports to the end of the first steps (model, lazy set-up, every step)
    after_imports = _measure_start()
    net = _build(nn, model)
    opt = optim.SGD(net.parameters(), lr=0.01)
    for _ in range(steps):
        step()
    cold = _status_kib("VmHWM") - after_imports
    # warm: the same steps again, above the trained model with its gradients set to None:
    # what each step holds at its peak (activations, gradients, temporaries)
    opt.zero_grad()
    before_steps = _measure_start()
    for _ in range(steps):
        step()
    warm = _status_kib("VmHWM") - before_steps
    return {
        "framework": framework,
        "model": model,
        "steps": steps,
        "cold_kib": cold,
        "warm_kib": warm,
        "after_imports_kib": after_imports,
    }


def _measure_start() -> int:
    """The resident set now, with the high-water mark reset to it: what a later VmHWM is above.

    Freed heap memory goes back to the system first (glibc's ``malloc_trim``), so that memory
    a framework has released counts again when a later step touches it, whichever allocator
    released it: the peak is what the steps hold, not what the C library kept mapped.
    """
    gc.collect()
    _LIBC.malloc_trim(0)
    if not _reset_high_water_mark():
        raise RuntimeError("this kernel refuses /proc/self/clear_refs: the peak cannot be reset")
    return _status_kib("VmRSS")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
