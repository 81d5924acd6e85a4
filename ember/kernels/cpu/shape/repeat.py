"""The kernels of ``repeat`` (and ``tile``) and ``repeat_interleave``."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel


@register_kernel("repeat")
def repeat(outs, ins, attrs):
    out = outs[0]
    repeats = attrs["repeats"]
    x = ins[0]
    if out.size == 0:
        return
    x = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
    # out (r0*s0, r1*s1, ...) seen as (r0, s0, r1, s1, ...), x broadcast into it: no temporary
    interleaved = tuple(v for r, s in zip(repeats, x.shape, strict=True) for v in (r, s))
    source = x.reshape(tuple(v for s in x.shape for v in (1, s)))
    np.copyto(out.reshape(interleaved), source)


@register_kernel("repeat_interleave")
def repeat_interleave(outs, ins, attrs):
    x, repeats = ins
    out = outs[0]
    if out.size == 0:
        return
    r = repeats.reshape(-1)
    if r.size == 1:
        r = r[0]
    elif r.min() < 0:
        raise RuntimeError("repeat_interleave(): repeats can not be negative")
    result = np.repeat(x, r, axis=attrs["dim"])
    if result.shape != out.shape:
        raise RuntimeError(
            f"repeat_interleave(): output_size {out.shape[attrs['dim']]} does not match the sum of repeats {result.shape[attrs['dim']]}"
        )
    np.copyto(out, result)
