"""CPU kernels of where and lerp (a tensor weight, or a scalar one: lerp_scalar)."""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ....dispatch.opexpr import register_kernel
from .factories import EMBER, cast, compute_dtype, quiet

__all__ = ["lerp", "lerp_scalar", "where"]


@quiet
def where(outs, ins, attrs):
    """``a`` where ``c``, ``b`` elsewhere, both in their promoted dtype."""
    c, a, b = ins
    if a.dtype == object:  # strings (promotion made sure both are): selected as they are
        np.copyto(outs[0], np.where(c, a, b))
        return
    promoted = _dt.promote_types(EMBER[a.dtype], EMBER[b.dtype]).numpy_dtype
    np.copyto(outs[0], np.where(c, cast(a, promoted), cast(b, promoted)), casting="unsafe")


register_kernel("where")(where)


def _lerp(a, b, w):
    # PyTorch's form: exact at both ends, monotone
    d = b - a
    return np.where(np.abs(w) < 0.5, a + w * d, b - d * (1 - w))


@quiet
def lerp(outs, ins, attrs):
    """``a + w * (b - a)`` with a tensor weight ``w``."""
    a, b, w = ins
    ct = compute_dtype(a.dtype, True)
    np.copyto(outs[0], _lerp(cast(a, ct), cast(b, ct), cast(w, ct)), casting="unsafe")


@quiet
def lerp_scalar(outs, ins, attrs):
    """``a + w * (b - a)`` with the scalar weight ``attrs["weight"]``."""
    a, b = ins
    ct = compute_dtype(a.dtype, True)
    a, b, w = cast(a, ct), cast(b, ct), np.asarray(attrs["weight"]).astype(ct)
    d = b - a  # _lerp's formula, its branch chosen once for the one weight
    np.copyto(outs[0], a + w * d if np.abs(w) < 0.5 else b - d * (1 - w), casting="unsafe")


register_kernel("lerp")(lerp)
register_kernel("lerp_scalar")(lerp_scalar)
