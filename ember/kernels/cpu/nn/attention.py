"""scaled_dot_product_attention: scores, masks, a safe softmax (fully masked rows give
zeros) and the weighted sum of values, with grouped-query heads repeated.
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from .dropout import keep_mask


@register_kernel("scaled_dot_product_attention")
def _sdpa(outs, ins, attrs):
    out = outs[0]
    if out.size == 0:
        return
    if ins[1].shape[-2] == 0:  # no keys: every row attends to nothing and gives zeros
        out[...] = 0
        return
    ct = compute_dtype(out.dtype)
    q, k, v = (a.astype(ct, copy=False) for a in ins[:3])
    rep = attrs["gqa_repeat"]
    if rep != 1:
        k = np.repeat(k, rep, axis=-3)
        v = np.repeat(v, rep, axis=-3)
    s = np.matmul(q, np.swapaxes(k, -1, -2))
    s *= ct.type(attrs["scale"])
    length, src_len = q.shape[-2], k.shape[-2]
    if attrs["has_mask"]:
        mask = ins[3]
        if mask.dtype == np.bool_:
            s = np.where(mask, s, -np.inf).astype(ct, copy=False)
        else:
            s = s + mask.astype(ct, copy=False)
    if attrs["is_causal"]:
        s = np.where(np.tri(length, src_len, dtype=bool), s, -np.inf).astype(ct, copy=False)
    with np.errstate(invalid="ignore", over="ignore"):
        m = s.max(axis=-1, keepdims=True) if src_len else np.zeros((*s.shape[:-1], 1), ct)
        m[np.isneginf(m)] = 0
        e = np.exp(s - m)
        denom = e.sum(axis=-1, keepdims=True)
        denom[denom == 0] = 1  # fully masked rows give zeros, as PyTorch's safe softmax
        e /= denom
    p = attrs["dropout_p"]
    if p > 0:
        keep = np.empty(e.shape, np.bool_)
        keep_mask(attrs["generator"].numpy(), p, keep)
        e *= keep.view(np.uint8).astype(ct) * ct.type(0 if p >= 1 else 1 / (1 - p))
    store(out, np.matmul(e, v))
