"""Zero-copy with NumPy: ``from_numpy``, ``as_tensor`` and ``frombuffer``.

They are constructors of a tensor over NumPy memory and live in ``ember._core.tensor_numpy``;
this is their face among the other borders (DLPack, TensorProto, checkpoints).
"""

from .._core.tensor_numpy import as_tensor, from_numpy, frombuffer

__all__ = ["as_tensor", "from_numpy", "frombuffer"]
