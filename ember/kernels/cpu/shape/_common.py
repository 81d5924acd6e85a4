"""What the shape kernels share: a copy that casts (dropping an imaginary part, as PyTorch does
when a complex value goes into a real tensor) and the in-place test.

>>> import numpy as np
>>> out = np.zeros(2)
>>> copy_into(out, np.array([1 + 2j, 3 - 1j]))
>>> out.tolist()
[1.0, 3.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["copy_into", "same_memory"]


def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """``src`` written into ``dst``, cast to its dtype (the real part for a real ``dst``)."""
    if src.dtype.kind == "c" and dst.dtype.kind != "c":
        src = src.real
    np.copyto(dst, src, casting="unsafe")


def same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """The same elements at the same addresses (an in-place op's input and output)."""
    return a.ctypes.data == b.ctypes.data and a.strides == b.strides and a.shape == b.shape
