"""Borders with other array libraries and formats: NumPy zero-copy, DLPack, TensorProto, checkpoints."""

from .checkpoint import load, save
from .dlpack import from_dlpack
from .numpy import as_tensor, from_numpy, frombuffer

__all__ = ["as_tensor", "from_dlpack", "from_numpy", "frombuffer", "load", "save"]
