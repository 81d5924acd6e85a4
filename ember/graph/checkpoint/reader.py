"""Reading a checkpoint by name: TensorFlow 1's ``NewCheckpointReader``, ``list_variables``,
``load_variable`` and ``load_checkpoint``, on checkpoints ember or TensorFlow wrote.

>>> import os, tempfile, numpy as np
>>> from ember.interop.numpy import from_numpy
>>> from .bundle import write_bundle
>>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> write_bundle(prefix, {"w": from_numpy(np.ones((2, 3), np.float32)), "step": from_numpy(np.array(7))})
>>> list_variables(prefix)
[('step', []), ('w', [2, 3])]
>>> NewCheckpointReader(prefix).get_tensor("step")
array(7)
"""

from __future__ import annotations

import os

import numpy as np

from ..proto import DataType
from .bundle import BundleReader
from .state import latest_checkpoint

__all__ = ["CheckpointReader", "NewCheckpointReader", "list_variables", "load_checkpoint", "load_variable"]


class CheckpointReader:
    """The tensors of one checkpoint: ``get_tensor``, ``has_tensor`` and maps of every
    variable's shape and dtype. NotFoundError when ``filepattern`` names no checkpoint."""

    def __init__(self, filepattern) -> None:
        self._bundle = BundleReader(os.fspath(filepattern))

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The tensor's value as a new NumPy array (a 0-d array for a scalar, bytes objects for
        strings); NotFoundError "Key <name> not found in checkpoint" if there is none."""
        return self._bundle.get_tensor(tensor_str)

    def has_tensor(self, tensor_str: str) -> bool:
        return self._bundle.has_tensor(tensor_str)

    def get_variable_to_shape_map(self) -> dict:
        """name -> shape (a list of ints) of every tensor in the checkpoint."""
        return {name: self._bundle.shape(name) for name in self._bundle.tensor_names()}

    def get_variable_to_dtype_map(self) -> dict:
        """name -> ember dtype of every tensor in the checkpoint."""
        return {name: self._bundle.dtype(name) for name in self._bundle.tensor_names()}

    def debug_string(self) -> bytes:
        """One line per tensor, ``name (DT_...) [dims]``, as TensorFlow's reader prints them."""
        lines = [
            f"{name} ({DataType.Name(self._bundle.dtype(name).tf_enum)}) {self._bundle.shape(name)}"
            for name in self._bundle.tensor_names()
        ]
        return ("\n".join(lines) + "\n" if lines else "").encode()


def NewCheckpointReader(filepattern) -> CheckpointReader:
    """A :class:`CheckpointReader` for the checkpoint prefix ``filepattern``."""
    return CheckpointReader(filepattern)


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A reader of ``ckpt_dir_or_file``: a checkpoint prefix, or a directory whose state file
    names the latest checkpoint."""
    path = os.fspath(ckpt_dir_or_file)
    prefix = latest_checkpoint(path) if os.path.isdir(path) else path
    if prefix is None:
        raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
    return CheckpointReader(prefix)


def list_variables(ckpt_dir_or_file) -> list[tuple[str, list[int]]]:
    """(name, shape) of every tensor in the checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file, name: str) -> np.ndarray:
    """The value of the tensor ``name`` (a trailing ``:0`` is ignored) in the checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
