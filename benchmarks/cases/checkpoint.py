"""Checkpoints: save a large state_dict, load it by reading and by mapping; ember, PyTorch, safetensors.

The state_dict is 50 float32 tensors of equal size, 500 MB in all (100 MB when less than 3 GB of
memory is available, since a load holds a second copy). Files go to a temporary directory, so
saves write into the page cache and loads read from it: these are the costs of ember's own
path (serialising, copying, mapping), not of the disk. Targets: save >= 1 GB/s, mmap load <= 10 ms.
"""

import tempfile

import numpy as np
from harness import Compare, case, torch

import ember

try:
    import safetensors.numpy as st_numpy
except ImportError:  # the safetensors columns are skipped
    st_numpy = None


def _available_bytes() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


TOTAL_MB = 500 if _available_bytes() >= 3 << 30 else 100
COUNT = 50


class _Files:
    """One temporary directory per case, removed when the case's callables are dropped."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="ember-bench-")
        rng = np.random.default_rng(0)
        per = TOTAL_MB * 1_000_000 // 4 // COUNT
        self.arrays = {f"layer{i}.weight": rng.standard_normal(per, dtype=np.float32) for i in range(COUNT)}
        self.ember = {k: ember.from_numpy(a) for k, a in self.arrays.items()}
        self.torch = {k: torch.from_numpy(a) for k, a in self.arrays.items()} if torch is not None else None

    def path(self, name: str) -> str:
        return f"{self._dir.name}/{name}"


@case(
    f"checkpoint/save {TOTAL_MB}MB state_dict",
    note=f"{COUNT} float32 tensors, into the page cache; GB/s = {TOTAL_MB / 1000:g} / seconds. Target >= 1 GB/s",
    compare=(Compare("torch/ember", "torch", "ember", target=1.0), Compare("safetensors/ember", "safetensors", "ember")),
)
def _save():
    files = _Files()
    impls = {"ember": lambda: ember.save(files.ember, files.path("e.ckpt"))}
    if torch is not None:
        impls["torch"] = lambda: torch.save(files.torch, files.path("t.pt"))
    if st_numpy is not None:
        impls["safetensors"] = lambda: st_numpy.save_file(files.arrays, files.path("s.safetensors"))
    return impls


def _saved_files() -> _Files:
    files = _Files()
    ember.save(files.ember, files.path("e.ckpt"))
    if torch is not None:
        torch.save(files.torch, files.path("t.pt"))
    return files


@case(
    f"checkpoint/load mmap {TOTAL_MB}MB state_dict",
    note="maps the file: the header is parsed and views are made, no data is read. Target <= 10 ms",
    compare=(Compare("torch/ember", "torch", "ember"),),
)
def _load_mmap():
    files = _saved_files()
    impls = {"ember": lambda: ember.load(files.path("e.ckpt"), mmap=True)}
    if torch is not None:
        impls["torch"] = lambda: torch.load(files.path("t.pt"), mmap=True, weights_only=True)
    return impls


@case(
    f"checkpoint/load read {TOTAL_MB}MB state_dict",
    note="reads every byte into fresh memory (one readinto per storage), from the page cache",
    compare=(Compare("torch/ember", "torch", "ember"), Compare("safetensors/ember", "safetensors", "ember")),
)
def _load_read():
    files = _saved_files()
    impls = {"ember": lambda: ember.load(files.path("e.ckpt"))}
    if torch is not None:
        impls["torch"] = lambda: torch.load(files.path("t.pt"), weights_only=True)
    if st_numpy is not None:
        impls["safetensors"] = lambda: st_numpy.load_file(files.path("e.ckpt"))  # ember's file, read by safetensors
    return impls
