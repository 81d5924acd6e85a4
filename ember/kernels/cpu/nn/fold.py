"""im2col and col2im (``nn.functional.unfold`` / ``fold``): one strided slice of the padded
image per kernel tap, copied out (im2col) or added back (col2im); the loops run over the
kh * kw taps, never over pixels.
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ....ops.nn.fold import sliding_blocks
from ..common import compute_dtype, store
from ._common import _padded


def _tap_region(i: int, j: int, attrs, blocks) -> tuple:
    """The slice of the padded image that tap (i, j) sees at every block position."""
    (dh, dw), (sh, sw) = attrs["dilation"], attrs["stride"]
    bh, bw = blocks
    return (
        slice(None),
        slice(None),
        slice(i * dh, i * dh + sh * (bh - 1) + 1, sh),
        slice(j * dw, j * dw + sw * (bw - 1) + 1, sw),
    )


@register_kernel("im2col")
def _im2col(outs, ins, attrs):
    out, x = outs[0], ins[0]
    if out.size == 0:
        return
    n, c, h, w = x.shape
    (kh, kw), (ph, pw) = attrs["kernel_size"], attrs["padding"]
    blocks = sliding_blocks((h, w), attrs["kernel_size"], attrs["dilation"], attrs["padding"], attrs["stride"])
    xp = _padded(x, ((ph, ph), (pw, pw)), x.dtype)
    cols = out.reshape(n, c, kh, kw, *blocks)  # a view of out: it is contiguous
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[_tap_region(i, j, attrs, blocks)]


@register_kernel("col2im")
def _col2im(outs, ins, attrs):
    out, x = outs[0], ins[0]
    if out.size == 0:
        return
    n, c, h, w = out.shape
    (kh, kw), (ph, pw) = attrs["kernel_size"], attrs["padding"]
    blocks = sliding_blocks((h, w), attrs["kernel_size"], attrs["dilation"], attrs["padding"], attrs["stride"])
    ct = compute_dtype(out.dtype)
    ct = np.dtype(np.int64) if ct == np.bool_ else ct  # bool blocks add up as counts, then say "any"
    grid = np.zeros((n, c, h + 2 * ph, w + 2 * pw), ct)
    cols = x.reshape(n, c, kh, kw, *blocks)
    half = ct != out.dtype and out.dtype != np.bool_
    for i in range(kh):
        for j in range(kw):
            region = _tap_region(i, j, attrs, blocks)
            grid[region] += cols[:, :, i, j]
            if half:  # PyTorch adds in the half type itself, rounding after each tap (taps in this order)
                grid[region] = grid[region].astype(out.dtype)
    store(out, grid[:, :, ph : ph + h, pw : pw + w])
