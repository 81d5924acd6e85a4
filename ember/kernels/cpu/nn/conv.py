"""Convolutions: im2col over a strided window view and one batched matmul, a
multiply-add per tap for depthwise ones, col2im for the transposed ones, and the weight
gradient as one im2col and one matmul.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ._common import _padded, _tap_slices

# The im2col columns of a whole batch are kernel-size times larger than its input (9x for 3x3):
# they are made a few samples at a time, so that a step's peak memory holds one chunk's columns
# (about this many bytes), not the batch's, as PyTorch's per-sample im2col does.
COLUMN_BYTES = 2 << 20


def _batch_chunks(n: int, per_sample_bytes: int):
    """Slices of the batch whose temporaries stay near COLUMN_BYTES (one sample at least)."""
    step = max(1, COLUMN_BYTES // max(per_sample_bytes, 1))
    return [slice(start, min(start + step, n)) for start in range(0, n, step)]


def _windows(xp: np.ndarray, kernel, stride, dilation, out_size) -> np.ndarray:
    """A read-only (N, C, *out_size, *kernel) view of the windows of ``xp``; no copy."""
    st = xp.strides
    sp = st[2:]
    shape = xp.shape[:2] + tuple(out_size) + tuple(kernel)
    strides = st[:2] + tuple(s * k for s, k in zip(sp, stride, strict=True)) + tuple(s * d for s, d in zip(sp, dilation, strict=True))
    return as_strided(xp, shape, strides, writeable=False)


@register_kernel("convolution")
def _convolution(outs, ins, attrs):
    out = outs[0]
    x, w = ins[0], ins[1]
    bias = ins[2] if len(ins) > 2 else None
    if out.size == 0:
        return
    ct = compute_dtype(out.dtype)
    groups = attrs["groups"]
    if attrs["transposed"]:
        _conv_transpose(out, x, w, bias, attrs, ct)
        return
    n = x.shape[0]
    c_out = w.shape[0]
    kernel = w.shape[2:]
    nd = len(kernel)
    o_size = out.shape[2:]
    kp, op = math.prod(kernel), math.prod(o_size)
    cg, cog = x.shape[1] // groups, c_out // groups
    xp = _padded(x, attrs["padding"], ct)
    if cg == 1 and groups > 1:
        _depthwise(out, xp, w, bias, attrs, ct)
        return
    win = _windows(xp, kernel, attrs["stride"], attrs["dilation"], o_size)
    perm = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
    wm = w.astype(ct, copy=False).reshape(groups, cog, cg * kp)
    direct = out.dtype == ct
    res = out.reshape(n, groups, cog, op) if direct else np.empty((n, groups, cog, op), ct)
    for part in _batch_chunks(n, groups * cg * kp * op * np.dtype(ct).itemsize):
        col = win[part].transpose(perm).reshape(-1, groups, cg * kp, op)  # im2col: one copy
        np.matmul(wm, col, out=res[part])
    if bias is not None:
        res += bias.astype(ct, copy=False).reshape(groups, cog, 1)
    if not direct:
        store(out, res.reshape(out.shape))


def _depthwise(out, xp, w, bias, attrs, ct):
    """One input channel per group: a multiply-add per kernel tap beats tiny matmuls."""
    groups = attrs["groups"]
    n, c_out = out.shape[:2]
    cog = c_out // groups
    nd = out.ndim - 2
    o_size = out.shape[2:]
    wk = w.astype(ct, copy=False).reshape(groups, cog, -1)
    acc = np.zeros((n, groups, cog, *o_size), ct)
    tmp = np.empty_like(acc)
    for i, (_, region) in enumerate(_tap_slices(w.shape[2:], attrs["stride"], attrs["dilation"], o_size)):
        np.multiply(xp[region][:, :, None], wk[:, :, i].reshape((groups, cog) + (1,) * nd), out=tmp)
        acc += tmp
    if bias is not None:
        acc += bias.astype(ct, copy=False).reshape((groups, cog) + (1,) * nd)
    store(out, acc.reshape(out.shape))


def _conv_transpose(out, x, w, bias, attrs, ct):
    """col2im: one batched matmul gives every kernel tap's contribution, then one strided add
    per kernel tap straight into the output (a loop over the kernel's taps, never over pixels);
    a tap that covers the whole output (the centre one, at stride 1) is stored, not added."""
    groups = attrs["groups"]
    n, c_in = x.shape[:2]
    spatial = x.shape[2:]
    kernel = w.shape[2:]
    cig, cog = c_in // groups, w.shape[1]
    kp, sp = math.prod(kernel), math.prod(spatial)
    xm = x.astype(ct, copy=False).reshape(n, groups, cig, sp)
    # taps first: cols[:, g, tap] is one contiguous (cog, *spatial) block per sample
    wm = w.astype(ct, copy=False).reshape(groups, cig, cog, kp).transpose(0, 3, 2, 1).reshape(groups, kp * cog, cig)
    work = out if out.dtype == ct and out.flags.c_contiguous else np.empty(out.shape, ct)
    acc = work.reshape(n, groups, cog, *out.shape[2:])
    places = [_tap_place(taps, attrs, spatial, out.shape[2:]) for taps in np.ndindex(*kernel)]
    whole = tuple(slice(0, o, 1) for o in out.shape[2:])
    first = next((i for i, place in enumerate(places) if place is not None and place[1] == whole), None)
    head = (slice(None),) * 3
    if first is None:
        acc[...] = 0
    for part in _batch_chunks(n, groups * kp * cog * sp * np.dtype(ct).itemsize):
        cols = np.matmul(wm, xm[part]).reshape(-1, groups, kp, cog, *spatial)
        acc_part = acc[part]
        if first is not None:
            np.copyto(acc_part, cols[(slice(None), slice(None), first, slice(None), *places[first][0])])
        for i, place in enumerate(places):
            if place is not None and i != first:
                src, dst = place
                acc_part[(*head, *dst)] += cols[(slice(None), slice(None), i, slice(None), *src)]
    if bias is not None:
        work += bias.astype(ct, copy=False).reshape((-1,) + (1,) * len(kernel))
    if work is not out:
        store(out, work)


def _tap_place(taps, attrs, spatial, o_size):
    """Where one kernel tap of a transposed convolution lands: (input slices, output slices),
    the input positions whose contribution falls inside the (cropped) output; None if none do."""
    src, dst = [], []
    for t, d, st, s, (lo, _), o in zip(taps, attrs["dilation"], attrs["stride"], spatial, attrs["padding"], o_size, strict=True):
        start = t * d - lo  # the output position of input position 0
        j0 = max(0, -(start // st))  # first input position landing at >= 0
        j1 = min(s, (o - 1 - start) // st + 1)  # one past the last landing at <= o - 1
        if j1 <= j0:
            return None
        src.append(slice(j0, j1))
        dst.append(slice(start + st * j0, start + st * (j1 - 1) + 1, st))
    return tuple(src), tuple(dst)


@register_kernel("convolution_backward_weight")
def _convolution_backward_weight(outs, ins, attrs):
    """d <gout, conv(x, w)> / d w: one im2col of ``x`` (the forward's) and one batched matmul
    with ``gout``, summed over the batch. ``gout``'s spatial size sets the windows."""
    out = outs[0]
    x, gout = ins[0], ins[1]
    if out.size == 0:
        return
    ct = compute_dtype(out.dtype)
    groups = attrs["groups"]
    kernel = attrs["kernel_size"]
    nd = len(kernel)
    n, c_in = x.shape[:2]
    c_out = gout.shape[1]
    o_size = gout.shape[2:]
    kp, op = math.prod(kernel), math.prod(o_size)
    cg, cog = c_in // groups, c_out // groups
    if n == 0 or op == 0:
        out[...] = 0
        return
    xp = _padded(x, attrs["padding"], ct)
    win = _windows(xp, kernel, attrs["stride"], attrs["dilation"], o_size)
    perm = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
    gm = gout.astype(ct, copy=False).reshape(n, groups, cog, op)
    res = None  # (groups, cog, cg * kp), summed over the batch chunk by chunk
    for part in _batch_chunks(n, groups * cg * kp * op * np.dtype(ct).itemsize):
        col = win[part].transpose(perm).reshape(-1, groups, cg * kp, op)  # im2col: one copy
        if col.shape[0] == 1:
            term = np.matmul(gm[part][0], col[0].swapaxes(-1, -2))
        else:
            term = np.matmul(gm[part], col.swapaxes(-1, -2)).sum(0)
        if res is None:
            res = term
        else:
            res += term
    store(out, res.reshape(out.shape))
