"""TensorFlow's V2 checkpoints: CRC32C of 4 MB, and ``Saver`` save/restore of a 100 MB model.

CRC32C is pure Python and NumPy (NumPy lanes, slice-by-4 tables); ``zlib.crc32`` (a different
polynomial, in C) is the native speed it is compared with. ``Saver`` writes every variable's
bytes and their CRC32C; ``ember.save`` (safetensors, no checksum) of the same arrays is the peer.
Files go to a temporary directory, so they land in the page cache.
"""

import os
import tempfile
import zlib

import numpy as np
from harness import Compare, case

import ember
from ember.graph.crc32c import crc32c
from ember.graph.saver import Saver

TOTAL_MB = 100
COUNT = 50


@case(
    "tf_checkpoint/crc32c 4MB",
    note="zlib.crc32 is CRC-32 in C: the native peer",
    compare=(Compare("ember/zlib", "ember", "zlib"),),
)
def _crc():
    data = np.random.default_rng(0).integers(0, 256, 4 << 20, dtype=np.uint8).tobytes()
    return {"ember": lambda: crc32c(data), "zlib": lambda: zlib.crc32(data)}


class _Model:
    """A graph of COUNT float32 variables, TOTAL_MB in all, in a session, and a directory."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="ember-bench-")
        rng = np.random.default_rng(0)
        per = TOTAL_MB * 1_000_000 // 4 // COUNT
        self.arrays = {f"layer{i}/w": rng.standard_normal(per, dtype=np.float32) for i in range(COUNT)}
        with ember.Graph().as_default() as g:
            self.variables = [ember.Variable(np.zeros(per, np.float32), name=k) for k in self.arrays]
            self.saver = Saver()
        self.sess = ember.Session(graph=g)
        for var, array in zip(self.variables, self.arrays.values(), strict=True):
            var.load(array, self.sess)
        self.tensors = {k: ember.from_numpy(a) for k, a in self.arrays.items()}

    def path(self, name: str) -> str:
        return os.path.join(self._dir.name, name)


@case(
    f"tf_checkpoint/Saver.save {TOTAL_MB}MB",
    note=f"{COUNT} float32 variables, no meta graph; ember.save is safetensors without checksums",
    compare=(Compare("Saver/ember.save", "Saver", "ember.save"),),
)
def _save():
    model = _Model()
    return {
        "Saver": lambda: model.saver.save(model.sess, model.path("model.ckpt"), write_meta_graph=False),
        "ember.save": lambda: ember.save(model.tensors, model.path("e.ckpt")),
    }


@case(
    f"tf_checkpoint/Saver.restore {TOTAL_MB}MB",
    note="reads, checks the CRC32C of, and assigns every variable; ember.load reads without checksums",
    compare=(Compare("Saver/ember.load", "Saver", "ember.load"),),
)
def _restore():
    model = _Model()
    model.saver.save(model.sess, model.path("model.ckpt"), write_meta_graph=False)
    ember.save(model.tensors, model.path("e.ckpt"))
    return {
        "Saver": lambda: model.saver.restore(model.sess, model.path("model.ckpt")),
        "ember.load": lambda: ember.load(model.path("e.ckpt")),
    }
