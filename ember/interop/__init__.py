"""Borders with other array libraries and formats: NumPy zero-copy, DLPack, TensorProto, checkpoints.

The checkpoint module (``load``, ``save``: zip, pickle and safetensors readers) loads on first
use, so that the DLPack and NumPy borders do not pay for it.
"""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING

from .dlpack import from_dlpack
from .numpy import as_tensor, from_numpy, frombuffer

if _TYPE_CHECKING:
    from .checkpoint import load, save

__all__ = ["as_tensor", "from_dlpack", "from_numpy", "frombuffer", "load", "save"]


def __getattr__(name: str):
    """``load`` and ``save``, from the checkpoint module, imported on first use (PEP 562)."""
    if name not in ("load", "save"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.checkpoint"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
