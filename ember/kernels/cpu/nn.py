"""CPU kernels of the nn ops: softmax, losses, linear, convolution, pooling, norms, dropout,
embedding, one-hot, interpolation and attention.

The functors (``ember/ops/nn.py``) have checked every argument; these kernels only compute.
Half types (float16, bfloat16) compute in float32 and are written back at the end. Heavy ops
are vectorized: a convolution is one strided window view (im2col) and one batched matmul per
call, pooling reduces over a window view, separable resampling is a small matrix per axis.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...dispatch.opexpr import register_kernel
from .common import compute_dtype, store
from .elementwise import quiet


def _work(out: np.ndarray, ct: np.dtype) -> np.ndarray:
    """``out`` itself when it holds the compute dtype, else a scratch array to copy back."""
    return out if out.dtype == ct else np.empty(out.shape, ct)


def _reduce(loss: np.ndarray, reduction: str, out: np.ndarray) -> None:
    with np.errstate(invalid="ignore", divide="ignore"):
        if reduction == "none":
            store(out, loss)
        elif reduction == "sum":
            out[...] = loss.sum()
        else:
            out[...] = loss.sum() / loss.size if loss.size else np.nan


# --- softmax ----------------------------------------------------------------------------


def _log_softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    m = x.max(axis=axis, keepdims=True)
    if not np.isfinite(m).all():  # rare: a row of infinities or nans (the masked write costs ~3 us on small rows)
        m[~np.isfinite(m)] = 0
    out = np.subtract(x, m, out=out)
    s = np.exp(out).sum(axis=axis, keepdims=True)
    np.log(s, out=s)
    out -= s
    return out


def _softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    m = x.max(axis=axis, keepdims=True)
    if not np.isfinite(m).all():  # rare: a row of -inf (all masked) gives zeros, not nans
        m[np.isneginf(m)] = 0
    out = np.subtract(x, m, out=out)
    np.exp(out, out=out)
    out /= out.sum(axis=axis, keepdims=True)
    return out


def _softmax_kernel(log: bool):
    def kernel(outs, ins, attrs):
        out, x = outs[0], ins[0]
        if x.ndim == 0:
            x, out = x.reshape(1), out.reshape(1)
        if x.size == 0:
            return
        ct = compute_dtype(out.dtype)
        work = _work(out, ct)
        with np.errstate(invalid="ignore", divide="ignore"):
            (_log_softmax if log else _softmax)(x.astype(ct, copy=False), attrs["dim"], work)
        store(out, work)

    return kernel


register_kernel("softmax")(_softmax_kernel(False))
register_kernel("log_softmax")(_softmax_kernel(True))


# --- losses -----------------------------------------------------------------------------


def _classes_last(x: np.ndarray) -> np.ndarray:
    """(N, C, d1, ...) or (C,) as a (M, C) matrix of rows."""
    if x.ndim == 1:
        return x.reshape(1, x.shape[0])
    rows = x.shape[0] * math.prod(x.shape[2:])  # explicit: reshape(-1, 0) is ambiguous when empty
    return np.moveaxis(x, 1, -1).reshape(rows, x.shape[1])


# Rows of few classes (a classifier's logits) reduce faster down the columns of the transposed
# (C, N) copy than along (N, C)'s short rows: NumPy's inner loop then runs over N.


def _cross_entropy_mean(out: np.ndarray, x: np.ndarray, target: np.ndarray, ignore_index: int) -> bool:
    """Cross entropy of (N, C) rows against class indices, averaged: the training loop's case in
    a few whole-array calls. False (nothing written) when a target is out of range or ignored, or
    the loss is not finite: the general path then says so or handles it."""
    if np.minimum.reduce(target) < 0 or 0 <= ignore_index < x.shape[1]:
        return False
    xt = x.T.copy()  # (C, N)
    try:
        picked = xt[target, _arange(x.shape[0])]
    except IndexError:  # a target >= C: the general path raises PyTorch's message
        return False
    top = np.maximum.reduce(xt, axis=0)
    xt -= top
    np.exp(xt, out=xt)
    lse = np.add.reduce(xt, axis=0)
    np.log(lse, out=lse)
    lse += top
    lse -= picked
    total = float(np.add.reduce(lse)) / x.shape[0]
    if not math.isfinite(total):
        return False
    out[...] = total
    return True


@register_kernel("cross_entropy_with_probs")
@quiet  # a row holding an infinity gives NaN probabilities, as the composite formula's softmax does
def _cross_entropy_with_probs(outs, ins, attrs):
    """The mean cross entropy of (N, C) logits, and softmax(x) transposed to (C, N) for the backward."""
    out, probs = outs
    x, target = ins
    np.copyto(probs, x.T)
    top = np.maximum.reduce(probs, axis=0)
    probs -= top
    fast = np.minimum.reduce(target) >= 0
    if fast:
        try:
            picked = probs[target, _arange(x.shape[0])]  # each row's logit at its target, less the row's max
        except IndexError:  # a target >= C: the general path below raises PyTorch's message
            fast = False
    np.exp(probs, out=probs)
    sums = np.add.reduce(probs, axis=0)
    probs /= sums
    if fast:
        np.log(sums, out=sums)
        sums -= picked
        total = float(np.add.reduce(sums)) / x.shape[0]
        if math.isfinite(total):
            out[...] = total
            return
    _nll_kernel((out,), (x, target), attrs)  # errors, infinities and NaN as the plain op has them


@register_kernel("cross_entropy_probs_backward")
def _cross_entropy_probs_backward(outs, ins, attrs):
    """(probs - one_hot(target)) * g / N, from the (C, N) probabilities the forward saved."""
    out = outs[0]
    g, probs, target = ins
    rows = probs.shape[1]
    scale = float(g) / rows
    np.multiply(probs.T, scale, out=out)
    out[_arange(rows), target] -= scale


def _arange(n: int) -> np.ndarray:
    """0..n-1, shared read-only: the row index of every gather by class."""
    rows = _ARANGES.get(n)
    if rows is None:
        if len(_ARANGES) > 64:
            _ARANGES.clear()
        rows = _ARANGES[n] = np.arange(n)
        rows.flags.writeable = False
    return rows


_ARANGES: dict[int, np.ndarray] = {}


def _nll_kernel(outs, ins, attrs):
    """nll_loss and cross_entropy (``log_softmax`` attr): class-index or probability targets."""
    out = outs[0]
    x, target = ins[0], ins[1]
    weight = ins[2] if len(ins) > 2 else None
    ct = compute_dtype(out.dtype)
    if (
        x.ndim == 2 and x.dtype == ct and x.size and weight is None and attrs["log_softmax"] and attrs["reduction"] == "mean"
        and not attrs["probs"] and attrs["label_smoothing"] == 0
        and _cross_entropy_mean(out, x, target, attrs["ignore_index"])
    ):  # fmt: skip
        return
    n_classes = x.shape[0] if x.ndim == 1 else x.shape[1]
    logp = _classes_last(x).astype(ct, copy=False)
    reduction, ls = attrs["reduction"], attrs["label_smoothing"]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ls_per_class = float(np.divide(ls, n_classes))  # inf with no classes, as PyTorch (0 * inf = nan)
        if attrs["log_softmax"] and logp.size:
            logp = _log_softmax(logp, 1, np.empty(logp.shape, ct))
        w = None if weight is None else weight.astype(ct, copy=False)
        if attrs["probs"]:
            t = _classes_last(target).astype(ct, copy=False)
            if ls > 0:
                t = t * (1 - ls) + ls_per_class
            prod = logp * t
            if w is not None:
                prod *= w
            per = -prod.sum(axis=1)
            if reduction == "none":
                store(out, per.reshape(out.shape))
            elif reduction == "sum":
                out[...] = per.sum()
            else:  # PyTorch divides by input.numel() / C and gives nan for an empty input
                out[...] = per.sum() / per.size if x.size else np.nan
            return
        t = target.reshape(-1)
        if reduction == "mean" and w is None and ls == 0 and t.size and n_classes and logp.ndim == 2:
            # the common case, in a few whole-array calls: every target valid and none ignored
            lo, hi = t.min(), t.max()
            if lo >= 0 and hi < n_classes and not (lo <= attrs["ignore_index"] <= hi and (t == attrs["ignore_index"]).any()):
                out[...] = -logp[np.arange(t.size), t].sum() / t.size
                return
        valid = t != attrs["ignore_index"]
        bad = valid & ((t < 0) | (t >= n_classes))
        if bad.any():
            raise IndexError(f"Target {t[bad][0]} is out of bounds.")
        ts = np.where(valid, t, 0)
        gather = t.size and n_classes  # with no classes every target is ignored (or out of bounds above)
        picked = logp[np.arange(t.size), ts] if gather else np.zeros(t.size, ct)
        wt = valid.astype(ct) if w is None else np.where(valid, w[ts] if gather else np.zeros(t.size, ct), 0).astype(ct)
        loss = -(picked * wt)
        if ls > 0:
            smooth = -(logp * w).sum(axis=1) if w is not None else -logp.sum(axis=1)
            smooth[~valid] = 0
        if reduction == "none":
            if ls > 0:
                loss = (1 - ls) * loss + smooth * ls_per_class
            store(out, loss.reshape(out.shape))
            return
        total = loss.sum()
        if ls > 0:
            total = (1 - ls) * total + smooth.sum() * ls_per_class
        out[...] = total / wt.sum() if reduction == "mean" else total


register_kernel("nll_loss")(_nll_kernel)
register_kernel("cross_entropy")(quiet(_nll_kernel))  # the fast path's NaN and infinity checks come after


def _weighted(loss, ins, attrs, out):
    """Apply the optional elementwise weight (the third input) and reduce."""
    reduction = attrs["reduction"]
    if len(ins) > 2:
        w = ins[2].astype(loss.dtype, copy=False)
        loss = loss * w
        if reduction == "mean" and attrs["weight_mean"] == "weight_sum":
            with np.errstate(invalid="ignore", divide="ignore"):
                out[...] = loss.sum() / w.sum()
            return
    _reduce(loss, reduction, out)


def _pointwise_loss(name: str, fn):
    def kernel(outs, ins, attrs):
        out = outs[0]
        # integers (l1_loss): the difference wraps in the promoted dtype, as PyTorch's, before an int64 sum
        promoted = np.result_type(ins[0].dtype, ins[1].dtype)
        ct = compute_dtype(out.dtype) if out.dtype.kind == "f" and promoted.kind != "c" else promoted
        a, b = ins[0].astype(ct, copy=False), ins[1].astype(ct, copy=False)
        with np.errstate(invalid="ignore", over="ignore"):
            loss = fn(a - b, attrs)
        _weighted(np.broadcast_to(loss, out.shape if attrs["reduction"] == "none" else loss.shape), ins, attrs, out)

    register_kernel(name)(kernel)


def _huber(d, attrs):
    delta = attrs["delta"]
    ad = np.abs(d)
    return np.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))


def _smooth_l1(d, attrs):
    beta = attrs["beta"]
    ad = np.abs(d)
    if beta == 0:
        return ad
    return np.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)


_pointwise_loss("mse_loss", lambda d, attrs: np.square(d))
_pointwise_loss("l1_loss", lambda d, attrs: np.abs(d))
_pointwise_loss("huber_loss", _huber)
_pointwise_loss("smooth_l1_loss", _smooth_l1)


@register_kernel("binary_cross_entropy")
def _bce(outs, ins, attrs):
    out = outs[0]
    ct = compute_dtype(out.dtype)
    x, t = ins[0].astype(ct, copy=False), ins[1].astype(ct, copy=False)
    if x.size and ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x = np.maximum(np.log(x), -100)
        log_1mx = np.maximum(np.log1p(-x), -100)
        loss = -(t * log_x + (1 - t) * log_1mx)
    _weighted(loss, ins, {**attrs, "weight_mean": "mean"}, out)


@register_kernel("binary_cross_entropy_with_logits")
def _bce_logits(outs, ins, attrs):
    out = outs[0]
    ct = compute_dtype(out.dtype)
    x, t = ins[0].astype(ct, copy=False), ins[1].astype(ct, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        log_sigmoid = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
        if attrs["has_pos_weight"]:
            pw = ins[-1].astype(ct, copy=False)
            loss = (1 - t) * x - ((pw - 1) * t + 1) * log_sigmoid
        else:
            loss = (1 - t) * x - log_sigmoid
        if attrs["has_weight"]:
            loss = loss * ins[2].astype(ct, copy=False)
    _reduce(np.broadcast_to(loss, out.shape) if attrs["reduction"] == "none" else loss, attrs["reduction"], out)


@register_kernel("kl_div")
def _kl_div(outs, ins, attrs):
    out = outs[0]
    ct = compute_dtype(out.dtype)
    x, t = ins[0].astype(ct, copy=False), ins[1].astype(ct, copy=False)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if attrs["log_target"]:
            loss = np.exp(t) * (t - x)
        else:
            loss = np.where(t == 0, 0, t * np.log(np.where(t == 0, 1, t))) - t * x
            loss = np.where(np.isnan(t), np.nan, loss)
    reduction = attrs["reduction"]
    if reduction == "batchmean":
        with np.errstate(invalid="ignore", divide="ignore"):
            out[...] = loss.sum() / (x.shape[0] if x.ndim else 1)
        return
    _reduce(np.broadcast_to(loss, out.shape) if reduction == "none" else loss, reduction, out)


# --- linear -----------------------------------------------------------------------------

_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@register_kernel("linear")
def _linear(outs, ins, attrs):
    out = outs[0]
    x, w = ins[0], ins[1]
    dtype = out.dtype
    if x.ndim == 2 and w.ndim == 2 and x.dtype is dtype and w.dtype is dtype and dtype in _BLAS_FLOATS and out.flags.c_contiguous:
        np.matmul(x, w.T, out=out)  # a layer's common case: straight into the output, no casts
        if len(ins) > 2:
            np.add(out, ins[2], out=out)
        return
    ct = compute_dtype(out.dtype)
    rows, k = math.prod(x.shape[:-1]), x.shape[-1]  # explicit sizes: reshape(-1, 0) is ambiguous when empty
    x2 = x.reshape(rows, k).astype(ct, copy=False)
    w = w.astype(ct, copy=False)
    direct = w.ndim == 2 and out.dtype == ct and out.flags.c_contiguous
    if w.ndim == 1:
        res = x2 @ w
    elif direct:  # the matmul writes straight into the output buffer
        res = np.matmul(x2, w.T, out=out.reshape(rows, w.shape[0]))
    else:
        res = np.matmul(x2, w.T)
    if len(ins) > 2:
        res += ins[2].astype(ct, copy=False)
    if not direct:
        store(out, res.reshape(out.shape))


@register_kernel("linear_backward")
def _linear_backward(outs, ins, attrs):
    """linear's gradients, those ``output_mask`` asks for, in this order: grad_output @ weight,
    grad_output^T @ input, grad_output summed over the rows (one dtype, float32 or float64)."""
    g, x, w = ins
    n_out, k = w.shape
    rows = math.prod(x.shape[:-1])
    g2 = g.reshape(rows, n_out)
    results = iter(outs)
    need_x, need_w, need_b = attrs["output_mask"]
    if need_x:
        _matmul_into(next(results), g2, w, (rows, k))
    if need_w:
        _matmul_into(next(results), g2.T, x.reshape(rows, k), (n_out, k))
    if need_b:
        out = next(results)
        if out.flags.c_contiguous:
            np.add.reduce(g2, axis=0, out=out)
        else:
            store(out, g2.sum(0))


def _matmul_into(out: np.ndarray, a: np.ndarray, b: np.ndarray, shape: tuple) -> None:
    """``a @ b`` written into ``out`` (straight into its buffer when it is contiguous)."""
    if out.flags.c_contiguous:
        np.matmul(a, b, out=out.reshape(shape))
    else:
        store(out, np.matmul(a, b).reshape(out.shape))


@register_kernel("bilinear")
def _bilinear(outs, ins, attrs):
    out = outs[0]
    ct = compute_dtype(out.dtype)
    x1, x2, w = (a.astype(ct, copy=False) for a in ins[:3])
    o, i1, i2 = w.shape
    rows = math.prod(x1.shape[:-1])
    a = x1.reshape(rows, i1)
    b = x2.reshape(rows, i2)
    tmp = (a @ w.transpose(1, 0, 2).reshape(i1, o * i2)).reshape(rows, o, i2)
    res = np.matmul(tmp, b[:, :, None])[..., 0]
    if len(ins) > 3:
        res += ins[3].astype(ct, copy=False)
    store(out, res.reshape(out.shape))


# --- convolution and pooling --------------------------------------------------------------


def _padded(x: np.ndarray, pads, ct: np.dtype, fill=0) -> np.ndarray:
    """``x`` (N, C, *S) padded on its spatial axes by ``pads`` ((lo, hi) per axis, >= 0)."""
    if all(lo == 0 and hi == 0 for lo, hi in pads):
        return x.astype(ct, copy=False)
    spatial = x.shape[2:]
    shape = x.shape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads, strict=True))
    xp = np.full(shape, fill, ct)
    xp[(slice(None), slice(None), *(slice(lo, lo + s) for s, (lo, _) in zip(spatial, pads, strict=True)))] = x
    return xp


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
    col = win.transpose(perm).reshape(n, groups, cg * kp, op)  # im2col: one copy
    wm = w.astype(ct, copy=False).reshape(groups, cog, cg * kp)
    direct = out.dtype == ct
    res = out.reshape(n, groups, cog, op) if direct else np.empty((n, groups, cog, op), ct)
    np.matmul(wm, col, out=res)
    if bias is not None:
        res += bias.astype(ct, copy=False).reshape(groups, cog, 1)
    if not direct:
        store(out, res.reshape(out.shape))


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
    col = win.transpose(perm).reshape(n, groups, cg * kp, op)  # im2col: one copy
    gm = gout.astype(ct, copy=False).reshape(n, groups, cog, op)
    if n == 1:
        res = np.matmul(gm[0], col[0].swapaxes(-1, -2))
    else:
        res = np.matmul(gm, col.swapaxes(-1, -2)).sum(0)  # (groups, cog, cg * kp)
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
    per kernel offset (a loop over the kernel's taps, never over pixels)."""
    groups = attrs["groups"]
    n, c_in = x.shape[:2]
    spatial = x.shape[2:]
    kernel = w.shape[2:]
    cig, cog = c_in // groups, w.shape[1]
    kp, sp = math.prod(kernel), math.prod(spatial)
    stride, dilation = attrs["stride"], attrs["dilation"]
    xm = x.astype(ct, copy=False).reshape(n, groups, cig, sp)
    # taps first: cols[:, g, tap] is one contiguous (cog, *spatial) block per sample
    wm = w.astype(ct, copy=False).reshape(groups, cig, cog, kp).transpose(0, 3, 2, 1).reshape(groups, kp * cog, cig)
    cols = np.matmul(wm, xm).reshape(n, groups, kp, cog, *spatial)
    full_size = tuple((s - 1) * st + d * (k - 1) + 1 + op
                      for s, st, d, k, op in zip(spatial, stride, dilation, kernel, attrs["output_padding"], strict=True))
    full = np.zeros((n, groups, cog, *full_size), ct)
    for i, taps in enumerate(np.ndindex(*kernel)):
        region = tuple(slice(t * d, t * d + st * (s - 1) + 1, st) for t, d, st, s in zip(taps, dilation, stride, spatial, strict=True))
        full[(slice(None), slice(None), slice(None), *region)] += cols[:, :, i]
    full = full.reshape(n, groups * cog, *full_size)
    crop = full[(slice(None), slice(None), *(slice(lo, lo + o) for (lo, _), o in zip(attrs["padding"], out.shape[2:], strict=True)))]
    if bias is not None:
        crop += bias.astype(ct, copy=False).reshape((-1,) + (1,) * len(kernel))
    store(out, crop)


def _pool_pads(spatial, kernel, stride, padding, dilation, o_size):
    """(lo, hi) pads that make every window of the output lie inside the padded input."""
    pads = []
    for s, k, st, p, d, o in zip(spatial, kernel, stride, padding, dilation, o_size, strict=True):
        need = (o - 1) * st + d * (k - 1) + 1 if o > 0 else 0
        pads.append((p, max(need - s - p, 0)))
    return pads


def _tap_slices(kernel, stride, dilation, o_size):
    """For each kernel tap, the strided slice of the padded input that the tap sees at every
    output position: pooling and depthwise convolution loop over taps, never over pixels."""
    for taps in np.ndindex(*kernel):
        yield taps, (slice(None), slice(None), *(slice(t * d, t * d + s * (o - 1) + 1, s)
                                                 for t, d, s, o in zip(taps, dilation, stride, o_size, strict=True)))


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


@register_kernel("cross_entropy_backward")
@quiet  # a row holding an infinity gives NaN, as the composite formula does
def _cross_entropy_backward(outs, ins, attrs):
    """(softmax(x) - one_hot(target)) * scale into the output: class targets, none ignored. The
    softmax runs on the transposed (C, N) copy (see above)."""
    out = outs[0]
    g, x, target = ins
    rows, n_classes = (x.shape[0], x.shape[1]) if x.ndim == 2 else (1, x.shape[0])
    xt = x.reshape(rows, n_classes).T.copy()
    top = np.maximum.reduce(xt, axis=0)
    xt -= top
    np.exp(xt, out=xt)
    reduction = attrs["reduction"]
    if reduction == "none":
        scale = g.reshape(rows)
    else:  # a Python number: NumPy's operations on a 0-d array cost a microsecond each
        scale = float(g) / rows if reduction == "mean" else float(g)
    np.divide(scale, np.add.reduce(xt, axis=0), out=top)
    xt *= top
    picked = (target.reshape(rows), _arange(rows))
    xt[picked] -= scale
    if out.flags.c_contiguous:
        np.copyto(out.reshape(rows, n_classes).T, xt)
    else:
        store(out, xt.T.reshape(out.shape))


@register_kernel("max_pool_backward")
def _max_pool_backward(outs, ins, attrs):
    """The input gradient of max pooling: the forward's scan (a tap replaces the running max
    when strictly greater, or NaN; a window with nothing above the fill keeps its first
    in-bounds position) keeps the winning tap per window, then one strided add per tap."""
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
    fill = -np.inf if xt.kind == "f" else (np.iinfo(xt).min if xt.kind in "iu" else False)
    pads = _pool_pads(spatial, kernel, stride, padding, dilation, o_size)
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
    disjoint = all(st >= d * (k - 1) + 1 for st, d, k in zip(stride, dilation, kernel, strict=True))
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


def _adaptive_matrix(size: int, out: int, ct: np.dtype) -> np.ndarray:
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    j = np.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return inside.astype(ct) / (end - start).astype(ct)[:, None]


def _along_axes(x: np.ndarray, matrices) -> np.ndarray:
    """Apply one (out, in) matrix per trailing spatial axis (separable resampling)."""
    nd = len(matrices)
    for i, m in enumerate(matrices):
        axis = x.ndim - nd + i
        x = np.moveaxis(np.moveaxis(x, axis, -1) @ m.T, -1, axis)
    return x


@register_kernel("adaptive_avg_pool")
def _adaptive_avg_pool(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    if out.size == 0:
        return
    ct = compute_dtype(out.dtype)
    nd = len(attrs["output_size"])
    mats = [_adaptive_matrix(s, o, ct) for s, o in zip(x.shape[-nd:], out.shape[-nd:], strict=True)]
    store(out, _along_axes(x.astype(ct, copy=False), mats))


# --- normalization ------------------------------------------------------------------------


@register_kernel("batch_norm")
def _batch_norm(outs, ins, attrs):
    out, mean_out, var_out = outs
    x = ins[0]
    if x.size == 0:  # nothing to normalize (any dtype): the statistics of no values
        mean_out[...] = var_out[...] = np.nan if mean_out.dtype.kind == "f" else 0
        return
    ct = compute_dtype(out.dtype)
    rest = list(ins[1:])
    c = x.shape[1]
    axes = (0, *range(2, x.ndim))
    xf = x.astype(ct, copy=False)
    if attrs["training"]:
        mean = xf.mean(axis=axes, dtype=ct) if xf.size else np.full(c, np.nan, ct)
        var = xf.var(axis=axes, dtype=ct) if xf.size else np.full(c, np.nan, ct)
    else:
        mean, var = rest.pop(0).astype(ct).reshape(c), rest.pop(0).astype(ct).reshape(c)
    weight = rest.pop(0).astype(ct, copy=False).reshape(c) if attrs["has_weight"] else None
    bias = rest.pop(0).astype(ct, copy=False).reshape(c) if attrs["has_bias"] else None
    scale = 1 / np.sqrt(var + ct.type(attrs["eps"]))
    if weight is not None:
        scale = scale * weight
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias
    bshape = (c,) + (1,) * (x.ndim - 2)
    work = _work(out, ct)
    np.multiply(xf, scale.reshape(bshape), out=work)
    work += shift.reshape(bshape)
    store(out, work)
    store(mean_out, mean)
    store(var_out, var)


def _centered_rows(x2: np.ndarray, eps: float, ct: np.dtype, out2: np.ndarray) -> np.ndarray:
    """Write ``x2 - mean`` (per row) into ``out2``; return 1 / sqrt(var + eps) per row, (rows, 1)."""
    m = x2.shape[1]
    np.subtract(x2, x2.mean(axis=1, keepdims=True, dtype=ct), out=out2)
    var = np.einsum("ij,ij->i", out2, out2)[:, None] / ct.type(m)
    return 1 / np.sqrt(var + ct.type(eps))


@register_kernel("layer_norm")
def _layer_norm(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype)
    k = attrs["ndim"]
    if x.size == 0:
        return
    m = math.prod(x.shape[x.ndim - k:])
    work = _work(out, ct)
    y = work.reshape(-1, m)
    y *= _centered_rows(x.astype(ct, copy=False).reshape(-1, m), attrs["eps"], ct, y)
    rest = list(ins[1:])
    if attrs["has_weight"]:
        work *= rest.pop(0).astype(ct, copy=False)
    if attrs["has_bias"]:
        work += rest.pop(0).astype(ct, copy=False)
    store(out, work)


@register_kernel("rms_norm")
def _rms_norm(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype)
    k = attrs["ndim"]
    if x.size == 0:
        return
    xf = x.astype(ct, copy=False)
    ms = np.mean(np.square(xf), axis=tuple(range(x.ndim - k, x.ndim)), keepdims=True, dtype=ct)
    y = xf * (1 / np.sqrt(ms + ct.type(attrs["eps"])))
    if len(ins) > 1:
        y *= ins[1].astype(ct, copy=False)
    store(out, y)


@register_kernel("group_norm")
def _group_norm(outs, ins, attrs):
    out = outs[0]
    x = ins[0]
    ct = compute_dtype(out.dtype)
    if x.size == 0:
        return
    n, c = x.shape[:2]
    g = attrs["num_groups"]
    work = _work(out, ct)
    y = work.reshape(n * g, -1)
    rstd = _centered_rows(x.astype(ct, copy=False).reshape(n * g, -1), attrs["eps"], ct, y)
    scale = np.broadcast_to(rstd.reshape(n, g, 1), (n, g, c // g)).reshape(n, c)
    rest = list(ins[1:])
    if attrs["has_weight"]:
        scale = scale * rest.pop(0).astype(ct, copy=False)
    y = work.reshape(n, c, -1)
    y *= scale[:, :, None]
    if attrs["has_bias"]:
        y += rest.pop(0).astype(ct, copy=False)[:, None]
    store(out, work)


# --- dropout, embedding, one_hot ----------------------------------------------------------


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


@register_kernel("embedding")
def _embedding(outs, ins, attrs):
    weight, idx = ins
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    np.take(weight, idx, axis=0, out=outs[0], mode="clip")


@register_kernel("embedding_renorm")
def _embedding_renorm(outs, ins, attrs):
    weight, idx = outs[0], ins[1]
    if idx.size == 0:
        return
    if idx.min() < 0 or idx.max() >= weight.shape[0]:
        raise IndexError("index out of range in self")
    rows = np.unique(idx)
    ct = compute_dtype(weight.dtype)
    sel = weight[rows].astype(ct)
    norms = np.linalg.norm(sel, ord=attrs["norm_type"], axis=1)
    max_norm = attrs["max_norm"]
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1).astype(ct)
    weight[rows] = (sel * scale[:, None]).astype(weight.dtype)


@register_kernel("one_hot")
def _one_hot(outs, ins, attrs):
    out, idx = outs[0], ins[0]
    n = out.shape[-1]
    if idx.size:
        if idx.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if idx.max() >= n:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out[...] = 0
    if idx.size:
        flat = out.reshape(-1, n)
        flat[np.arange(flat.shape[0]), idx.reshape(-1)] = 1


# --- interpolation ------------------------------------------------------------------------


def _nearest_index(size: int, out: int, scale, exact: bool) -> np.ndarray:
    """PyTorch's nearest source indices, in float32 arithmetic as its kernels compute them."""
    dst = np.arange(out)
    if not exact and out == size:
        return dst
    if not exact and out == 2 * size:
        return dst >> 1
    r = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(size) / np.float32(out)
    pos = (dst.astype(np.float32) + np.float32(0.5)) * r if exact else dst.astype(np.float32) * r
    return np.minimum(np.floor(pos).astype(np.int64), size - 1)


def _linear_matrix(size: int, out: int, scale, align_corners: bool, cubic: bool, ct: np.dtype) -> np.ndarray:
    op = np.float64 if ct == np.float64 else np.float32
    dst = np.arange(out).astype(op)
    if align_corners:
        r = op((size - 1) / (out - 1)) if out > 1 else op(0)
        src = dst * r
    else:
        r = op(1.0 / scale) if scale is not None and scale > 0 else op(size) / op(out)
        src = r * (dst + op(0.5)) - op(0.5)
        if not cubic:
            src = np.maximum(src, 0)
    m = np.zeros((out, size), np.float64)
    rows = np.arange(out)
    if not cubic:
        i0 = np.minimum(np.floor(src).astype(np.int64), size - 1)
        i1 = np.where(i0 < size - 1, i0 + 1, i0)
        l1 = (src - i0).astype(np.float64)
        np.add.at(m, (rows, i0), 1 - l1)
        np.add.at(m, (rows, i1), l1)
        return m.astype(ct)
    i = np.floor(src).astype(np.int64)
    t = (src - i).astype(np.float64)
    a = -0.75

    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    coeffs = (far(t + 1), near(t), near(1 - t), far(2 - t))
    for k, c in enumerate(coeffs):
        np.add.at(m, (rows, np.clip(i - 1 + k, 0, size - 1)), c)
    return m.astype(ct)


@register_kernel("interpolate")
def _interpolate(outs, ins, attrs):
    out, x = outs[0], ins[0]
    mode = attrs["mode"]
    spatial, o_size = x.shape[2:], out.shape[2:]
    scales = attrs["scales"]
    if out.size == 0:
        return
    if mode in ("nearest", "nearest-exact"):
        res = x
        for i, (s, o, sc) in enumerate(zip(spatial, o_size, scales, strict=True)):
            res = np.take(res, _nearest_index(s, o, sc, mode == "nearest-exact"), axis=2 + i)
        store(out, res)
        return
    ct = compute_dtype(out.dtype)
    cubic = mode == "bicubic"
    mats = [_linear_matrix(s, o, sc, attrs["align_corners"], cubic, ct) for s, o, sc in zip(spatial, o_size, scales, strict=True)]
    store(out, _along_axes(x.astype(ct, copy=False), mats))


# --- attention ----------------------------------------------------------------------------


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
        keep = attrs["generator"].numpy().random(e.shape) >= p
        e *= keep * ct.type(0 if p >= 1 else 1 / (1 - p))
    store(out, np.matmul(e, v))
