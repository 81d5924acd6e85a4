"""Borders with other array libraries: NumPy zero-copy (DLPack and TensorProto come next)."""

from .numpy import as_tensor, from_numpy, frombuffer

__all__ = ["as_tensor", "from_numpy", "frombuffer"]
