"""CPU kernels of the conversion ops: casting copies.

NumPy's ``copyto(casting="unsafe")`` truncates floats toward zero when writing integers and
wraps integers modulo 2**bits, as PyTorch's casts do; complex -> real keeps the real part
(the functor has warned), except into bool, where either nonzero part makes it true. NaN or out-of-range floats written into integers are undefined in
C, so NumPy's warning about them is silenced, as PyTorch is silent.
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel


def cast_copy(dst: np.ndarray, src: np.ndarray) -> None:
    """Write ``src`` (broadcast) into ``dst`` with PyTorch's casting."""
    if src.dtype.kind == "c" and dst.dtype.kind == "b":
        src = src != 0  # a complex number is true when either part is nonzero, as in PyTorch
    elif src.dtype.kind == "c" and dst.dtype.kind != "c":
        src = src.real
    if src.dtype.kind == "f" and dst.dtype.kind in "iu":
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(dst, src, casting="unsafe")
    else:
        np.copyto(dst, src, casting="unsafe")


@register_kernel("_to_copy")
def to_copy(outs, ins, attrs):
    cast_copy(outs[0], ins[0])


@register_kernel("copy_")
def copy_(outs, ins, attrs):
    cast_copy(outs[0], ins[1])
