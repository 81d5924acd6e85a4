"""``ember.backends``: the switches PyTorch programs set on their backends, kept and reported.

ember computes on the CPU through NumPy: cuDNN, MPS and TF32 do not exist here, so their flags are
stored (a program may read back what it set) and change nothing, and ``is_available()`` is False.
The process-wide switches PyTorch keeps at its top level (matmul precision, deterministic
algorithms) live here too and are re-exported by ``ember``; ember's kernels are deterministic and
compute float32 matmuls in float32 whatever they say.

>>> import ember.backends.cudnn as cudnn
>>> cudnn.benchmark = True
>>> cudnn.benchmark, cudnn.is_available(), ember.backends.mps.is_available()
(True, False, False)
>>> cudnn.benchmark = False
"""

from __future__ import annotations

import warnings

from . import cuda, cudnn, mps

__all__ = [
    "are_deterministic_algorithms_enabled", "cuda", "cudnn", "get_float32_matmul_precision",
    "is_deterministic_algorithms_warn_only_enabled", "mps", "set_float32_matmul_precision", "use_deterministic_algorithms",
]  # fmt: skip

_PRECISIONS = ("highest", "high", "medium")
_settings = {"float32_matmul_precision": "highest", "deterministic": False, "warn_only": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Record the float32 matmul precision a program asks for ('highest', 'high' or 'medium').

    >>> ember.set_float32_matmul_precision("high"); ember.get_float32_matmul_precision()
    'high'
    >>> ember.set_float32_matmul_precision("highest")
    """
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _settings["float32_matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _settings["float32_matmul_precision"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record whether a program wants deterministic algorithms (ember's kernels always are)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'warn_only' must be bool, not {type(warn_only).__name__}")
    _settings["deterministic"], _settings["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _settings["warn_only"]
