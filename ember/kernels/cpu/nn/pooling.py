"""Pooling: max and average pooling loop over the kernel's taps (never over pixels)
of the padded input; max pooling's backward keeps each window's winning tap; adaptive average
pooling sums its windows' taps one axis at a time; adaptive max pooling is separable too.
"""

from __future__ import annotations

import math

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ._common import _padded, _tap_slices, _work


def _pool_pads(spatial, kernel, stride, padding, dilation, o_size):
    """(lo, hi) pads that make every window of the output lie inside the padded input."""
    pads = []
    for s, k, st, p, d, o in zip(spatial, kernel, stride, padding, dilation, o_size, strict=True):
        need = (o - 1) * st + d * (k - 1) + 1 if o > 0 else 0
        pads.append((p, max(need - s - p, 0)))
    return pads


@register_kernel("max_pool")
@register_kernel("max_pool_with_indices")
def _max_pool(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype)
    kernel, stride, padding, dilation = attrs["kernel_size"], attrs["stride"], attrs["padding"], attrs["dilation"]
    spatial, o_size = x.shape[2:], out.shape[2:]
    if out.size == 0:
        return
    fill = -np.inf if ct.kind == "f" else (np.iinfo(ct).min if ct.kind in "iu" else False)
    xp = _padded(x, _pool_pads(spatial, kernel, stride, padding, dilation, o_size), ct, fill)
    if len(outs) == 1:
        work = _work(out, ct)
        for i, (_, region) in enumerate(_tap_slices(kernel, stride, dilation, o_size)):
            if i == 0:
                np.copyto(work, xp[region])
            else:
                np.maximum(work, xp[region], out=work)
        store(out, work)
        return
    # with indices: PyTorch's scan, a tap replaces the running max when strictly greater (or
    # NaN); a window with nothing above the fill keeps its first in-bounds position
    nd = len(kernel)
    best = np.full(out.shape, fill, ct)
    index = outs[1]
    starts = []
    first = np.zeros((1,) * out.ndim, np.int64)
    for i in range(nd):
        shape = [1] * out.ndim
        shape[2 + i] = o_size[i]
        start = np.arange(o_size[i]).reshape(shape) * stride[i] - padding[i]
        starts.append(start)
        d = dilation[i]
        first = first * spatial[i] + np.where(start < 0, start + d * ((-start + d - 1) // d), start)
    index[...] = first
    for taps, region in _tap_slices(kernel, stride, dilation, o_size):
        v = xp[region]
        better = v > best
        if ct.kind == "f":
            better |= np.isnan(v)
        np.copyto(best, v, where=better)
        at = np.zeros((1,) * out.ndim, np.int64)
        for i in range(nd):
            at = at * spatial[i] + starts[i] + taps[i] * dilation[i]
        np.copyto(index, np.broadcast_to(at, out.shape), where=better)
    store(out, best)


@register_kernel("max_pool_backward")
def _max_pool_backward(outs, ins, attrs):
    """The input gradient of max pooling: the forward's scan (a tap replaces the running max
    when strictly greater, or NaN; a window with nothing above the fill keeps its first
    in-bounds position) finds the winning tap per window, and ``g`` goes there. Disjoint
    windows without padding (the usual 2x2 stride-2 pooling) take a faster path."""
    out = outs[0]
    g, x = ins[0], ins[1]
    kernel, stride, padding, dilation = attrs["kernel_size"], attrs["stride"], attrs["padding"], attrs["dilation"]
    spatial, o_size = x.shape[2:], g.shape[2:]
    if out.size == 0:
        return
    if g.size == 0:
        out[...] = 0
        return
    xt = compute_dtype(x.dtype)
    gt = compute_dtype(out.dtype)
    pads = _pool_pads(spatial, kernel, stride, padding, dilation, o_size)
    disjoint = all(st >= d * (k - 1) + 1 for st, d, k in zip(stride, dilation, kernel, strict=True))
    if disjoint and xt.kind in "fiu" and not any(lo or hi for lo, hi in pads):
        _max_pool_backward_disjoint(out, g, x.astype(xt, copy=False), kernel, stride, dilation, gt)
    else:
        _max_pool_backward_scan(out, g, x, attrs, pads, disjoint, xt, gt)


def _max_pool_backward_scan(out, g, x, attrs, pads, disjoint, xt, gt):
    """The general input gradient (padding, overlapping windows, bool): the winning tap of
    every window in one scan over the kernel's taps, then one strided add per tap."""
    kernel, stride, padding, dilation = attrs["kernel_size"], attrs["stride"], attrs["padding"], attrs["dilation"]
    spatial, o_size = x.shape[2:], g.shape[2:]
    fill = -np.inf if xt.kind == "f" else (np.iinfo(xt).min if xt.kind in "iu" else False)
    xp = _padded(x, pads, xt, fill)
    kp = math.prod(kernel)
    tap_dtype = np.int8 if kp < 127 else np.int32
    taps_list = list(_tap_slices(kernel, stride, dilation, o_size))
    nd = len(kernel)
    # the first in-bounds tap of every window (tap 0 unless the window starts in the padding)
    if any(p for p in padding):
        first = np.full((1, 1, *o_size), -1, tap_dtype)
        for i, (taps, _) in enumerate(taps_list):
            inside = np.ones((1, 1) + (1,) * nd, bool)
            for a in range(nd):
                shape = [1] * (nd + 2)
                shape[2 + a] = o_size[a]
                pos = np.arange(o_size[a]).reshape(shape) * stride[a] - padding[a] + taps[a] * dilation[a]
                inside = inside & (pos >= 0) & (pos < spatial[a])
            first = np.where((first < 0) & inside, np.asarray(i, tap_dtype), first)
        tap = np.broadcast_to(first, g.shape).copy()
    else:
        tap = np.zeros(g.shape, tap_dtype)
    best = np.full(g.shape, fill, xt)
    better = np.empty(g.shape, bool)
    flip = np.empty(g.shape, tap_dtype)
    for i, (_, region) in enumerate(taps_list):
        v = xp[region]
        np.greater(v, best, out=better)
        if xt.kind == "f":
            better |= np.isnan(v)
        np.maximum(best, v, out=best)  # the running max (NaN sticks), branch-free
        # tap = i where better, branch-free: tap ^= (tap ^ i) & -better
        np.bitwise_xor(tap, np.asarray(i, tap_dtype), out=flip)
        flip &= np.negative(better.view(np.int8), dtype=tap_dtype) if tap_dtype == np.int8 else -better.astype(tap_dtype)
        tap ^= flip
    gc = np.ascontiguousarray(g, dtype=gt)
    bits = np.dtype(f"u{gt.itemsize}")
    gbits = gc.view(bits)
    lo = [p[0] for p in pads]
    direct = out.dtype == gt and out.flags.c_contiguous and not any(p[0] or p[1] for p in pads)
    gxp = out if direct else np.zeros(xp.shape, gt)
    if direct:
        gxp[...] = 0
    hit = np.empty(g.shape, bool)
    mask = np.empty(g.shape, bits)
    for i, (_, region) in enumerate(taps_list):
        # g where this tap won, else +0.0: a bit mask (no branches, and NaN/inf never leak)
        np.equal(tap, i, out=hit)
        np.negative(hit.view(np.uint8), dtype=bits, out=mask)
        contrib = np.bitwise_and(gbits, mask).view(gt)
        if disjoint:
            gxp[region] = contrib
        else:
            gxp[region] += contrib
    if not direct:
        crop = gxp[(slice(None), slice(None), *(slice(lo_, lo_ + s) for lo_, s in zip(lo, spatial, strict=True)))]
        store(out, crop)


def _winning_tap(x: np.ndarray, regions, nan_aware: bool) -> tuple[np.ndarray, np.ndarray]:
    """The window maxima and, per window, the tap holding it: PyTorch's scan in the kernel's
    row-major order (replace when strictly greater, or NaN) keeps the first largest value or
    the last NaN. Each tap's strided view is copied to a contiguous buffer first: NumPy's
    loops over a stride-2 innermost axis run several times slower than one copy does."""
    best = np.ascontiguousarray(x[regions[0]])
    tap = np.zeros(best.shape, np.int8 if len(regions) < 127 else np.int32)
    v = np.empty_like(best)
    better = np.empty(best.shape, bool)
    flip = np.empty(best.shape, tap.dtype)
    for t, region in enumerate(regions[1:], 1):
        np.copyto(v, x[region])
        np.greater(v, best, out=better)
        if nan_aware:
            better |= np.isnan(v)
        np.maximum(best, v, out=best)  # NaN sticks, as the scan's
        # tap = t where better, branch-free: tap ^= (tap ^ t) & -better
        np.bitwise_xor(tap, tap.dtype.type(t), out=flip)
        flip &= np.negative(better.view(np.int8), dtype=tap.dtype)
        tap ^= flip
    return best, tap


def _max_pool_backward_disjoint(out, g, x, kernel, stride, dilation, gt):
    """Disjoint windows, no padding (the usual 2x2 stride-2 pooling): the winning tap per
    window from contiguous copies of the taps, then one strided store of ``g`` per tap,
    selected by a bit mask (never multiplied: a NaN or inf gradient stays where it goes)."""
    regions = [region for _, region in _tap_slices(kernel, stride, dilation, g.shape[2:])]
    best, tap = _winning_tap(x, regions, False)
    if x.dtype.kind == "f" and np.isnan(best).any():  # rare: rescan with NaN's rule
        _, tap = _winning_tap(x, regions, True)
    bits = np.dtype(f"u{gt.itemsize}")
    gbits = np.ascontiguousarray(g, dtype=gt).view(bits)
    direct = out.dtype == gt
    work = out if direct else np.empty(out.shape, gt)
    covered = all((d == 1 or k == 1) and k == st and st * o == s
                  for k, st, d, o, s in zip(kernel, stride, dilation, g.shape[2:], x.shape[2:], strict=True))
    if not covered:
        work[...] = 0  # positions no window sees
    hit = np.empty(g.shape, bool)
    mask = np.empty(g.shape, bits)
    share = np.empty(g.shape, bits)
    for t, region in enumerate(regions):
        np.equal(tap, t, out=hit)
        np.negative(hit.view(np.uint8), dtype=bits, out=mask)
        np.bitwise_and(gbits, mask, out=share)
        work[region] = share.view(gt)
    if not direct:
        store(out, work)


@register_kernel("avg_pool")
def _avg_pool(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype) if out.dtype.kind == "f" else np.dtype(np.float64)
    kernel, stride, padding = attrs["kernel_size"], attrs["stride"], attrs["padding"]
    spatial, o_size = x.shape[2:], out.shape[2:]
    ones = (1,) * len(kernel)
    if out.size == 0:
        return
    xp = _padded(x, _pool_pads(spatial, kernel, stride, padding, ones, o_size), ct)
    total = np.zeros(out.shape, ct)
    for _, region in _tap_slices(kernel, stride, ones, o_size):
        total += xp[region]
    if attrs["divisor_override"] is not None:
        total /= attrs["divisor_override"]
    else:
        divisor = np.ones((), ct)
        for s, k, st, p, o in zip(spatial, kernel, stride, padding, o_size, strict=True):
            start = np.arange(o) * st - p
            end = np.minimum(start + k, s + p)
            count = end - start if attrs["count_include_pad"] else np.minimum(end, s) - np.maximum(start, 0)
            divisor = np.multiply.outer(divisor, count.astype(ct))
        with np.errstate(invalid="ignore", divide="ignore"):
            total /= divisor
    store(out, np.trunc(total) if out.dtype.kind in "iu" else total)


@register_kernel("adaptive_avg_pool")
def _adaptive_avg_pool(outs, ins, attrs):
    """One axis at a time: each window's sum over its taps, then its mean. Taps past a shorter
    window are left out, not weighted by 0 (an averaging matrix would make inf * 0 = NaN of an
    inf anywhere on the axis; PyTorch's windows never see it)."""
    out = outs[0]
    x = ins[0]
    if out.size == 0:
        return
    cur = x.astype(compute_dtype(out.dtype), copy=False)
    nd = len(attrs["output_size"])
    for axis in range(x.ndim - nd, x.ndim):
        size, o = cur.shape[axis], out.shape[axis]
        i = np.arange(o)
        start = (i * size) // o
        end = -((-(i + 1) * size) // o)
        count = end - start
        shape = [1] * cur.ndim
        shape[axis] = o
        total = cur.take(start, axis=axis)
        for k in range(1, int(count.max())):
            v = cur.take(np.minimum(start + k, end - 1), axis=axis)
            inside = k < count
            total += v if inside.all() else np.where(inside.reshape(shape), v, 0)
        cur = total / count.reshape(shape).astype(cur.dtype)
    store(out, cur)


def _adaptive_windows(size: int, out: int) -> np.ndarray:
    """(out, longest window) input positions of adaptive pooling along one axis: window ``i``
    spans floor(i * size / out) to ceil((i + 1) * size / out); a shorter window repeats its last
    position, which changes neither its maximum nor which position holds it."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    width = int((end - start).max()) if out else 1
    return np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)


@register_kernel("adaptive_max_pool")
def _adaptive_max_pool(outs, ins, attrs):
    """Separable: the windows are products of per-axis windows, so the maximum is taken one axis
    at a time (last axis first), each by a loop over its window's taps. PyTorch scans a window in
    row-major order, replacing the maximum when a value is strictly greater or NaN: the first
    largest value wins, or the last NaN, and per axis the same rule picks the same position."""
    out, index = outs
    x = ins[0]
    if out.size == 0:
        return
    spatial = x.shape[2:]
    cur = x.astype(compute_dtype(out.dtype), copy=False)
    flat = None  # the flat position along the axes already reduced
    for a in range(len(spatial) - 1, -1, -1):
        axis, o = 2 + a, out.shape[2 + a]
        wins = _adaptive_windows(spatial[a], o)
        best = cur.take(wins[:, 0], axis=axis)
        tap = np.zeros(best.shape, np.int8 if wins.shape[1] < 127 else np.int32)
        for k in range(1, wins.shape[1]):
            v = cur.take(wins[:, k], axis=axis)
            better = np.greater(v, best)
            better |= np.isnan(v)
            np.maximum(best, v, out=best)  # NaN sticks, as the scan's
            tap ^= (tap ^ tap.dtype.type(k)) & -better.astype(tap.dtype)  # tap = k where better, branch-free
        shape = [1] * x.ndim
        shape[axis] = o
        rows = np.arange(o).reshape(shape)
        pos = wins[rows, tap]  # the input coordinate along this axis of each window's winner
        step = math.prod(spatial[a + 1 :])
        flat = pos * step if flat is None else np.take_along_axis(flat, pos, axis=axis) + pos * step
        cur = best
    store(out, cur)
    index[...] = flat
