"""The kernel of ``cat`` (``stack`` and the other joins are composites over it)."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel


@register_kernel("cat")
def cat(outs, ins, attrs):
    out = outs[0]
    arrays = [a for a in ins if not (a.ndim == 1 and a.shape[0] == 0)]
    if not arrays or out.size == 0:
        return
    d = attrs["dim"] % out.ndim
    if any(a.dtype.kind == "c" for a in arrays) and out.dtype.kind != "c":
        arrays = [a.real if a.dtype.kind == "c" else a for a in arrays]
    if all(a.dtype == out.dtype for a in arrays):
        np.concatenate(arrays, axis=d, out=out)
        return
    start = 0  # mixed dtypes (bfloat16 has no concatenate casts): one copy per piece
    for a in arrays:
        n = a.shape[d]
        np.copyto(out[(slice(None),) * d + (slice(start, start + n),)], a, casting="unsafe")
        start += n
