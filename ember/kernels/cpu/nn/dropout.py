"""dropout: a keep-mask drawn from the op's generator, written as the second output.

The mask comes from the generator's raw 32-bit words (an element is kept where its word is at or
above p * 2^32, so P(keep) = 1 - p to within 2^-32): ~2.5x faster than drawing float64 uniforms
and comparing them. The product takes the mask as 0/1 bytes cast to the compute dtype (a cast
from uint8 is ~20x faster than NumPy's bool-times-float loop).
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ._common import _work

_WORDS = 2**32


def keep_mask(rng: np.random.Generator, p: float, mask: np.ndarray) -> None:
    """Fill the boolean array ``mask`` with True at probability 1 - p, from ``rng``'s raw bits."""
    n = mask.size
    if p <= 0 or n == 0:
        mask[...] = True
        return
    if p >= 1:
        mask[...] = False
        return
    words = rng.bit_generator.random_raw((n + 1) // 2).view(np.uint32)[:n]
    np.greater_equal(words.reshape(mask.shape), np.uint32(min(round(p * _WORDS), _WORDS - 1)), out=mask)


@register_kernel("dropout")
def _dropout(outs, ins, attrs):
    mask = outs[1]
    x = ins[0]
    p = attrs["p"]
    keep_mask(attrs["generator"].numpy(), p, mask)
    _scale_by_mask(outs[0], x, mask, 0 if p >= 1 else 1 / (1 - p))


@register_kernel("dropout_backward")
def _dropout_backward(outs, ins, attrs):
    g, mask = ins
    _scale_by_mask(outs[0], g, mask, attrs["scale"])


def _scale_by_mask(out: np.ndarray, x: np.ndarray, mask: np.ndarray, scale: float) -> None:
    """out = x * mask * scale, ``mask`` boolean and broadcastable to ``x``."""
    ct = compute_dtype(out.dtype)
    bytes_ = mask.view(np.uint8) if mask.flags.c_contiguous else mask.astype(np.uint8)
    factor = bytes_.astype(ct)
    np.multiply(factor, ct.type(scale), out=factor)
    work = _work(out, ct)
    np.multiply(x, factor, out=work, casting="unsafe")
    store(out, work)
