"""dropout: a keep-mask drawn from the op's generator, written as the second output."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ._common import _work


@register_kernel("dropout")
def _dropout(outs, ins, attrs):
    out, mask = outs
    x = ins[0]
    p = attrs["p"]
    rng = attrs["generator"].numpy()
    keep = rng.random(mask.shape) >= p
    mask[...] = keep
    ct = compute_dtype(out.dtype)
    scale = ct.type(0 if p >= 1 else 1 / (1 - p))
    work = _work(out, ct)
    np.multiply(x, keep * scale, out=work, casting="unsafe")
    store(out, work)
