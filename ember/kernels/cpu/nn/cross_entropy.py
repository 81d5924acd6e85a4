"""nll_loss and cross_entropy, the training loop's cross entropy that keeps its
probabilities, and the one-kernel backwards of both.

Rows of few classes (a classifier's logits) reduce faster down the columns of the transposed
(C, N) copy than along (N, C)'s short rows: NumPy's inner loop then runs over N.
"""

from __future__ import annotations

import math

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ..elementwise import quiet
from .softmax import _log_softmax


def _classes_last(x: np.ndarray) -> np.ndarray:
    """(N, C, d1, ...) or (C,) as a (M, C) matrix of rows."""
    if x.ndim == 1:
        return x.reshape(1, x.shape[0])
    rows = x.shape[0] * math.prod(x.shape[2:])  # explicit: reshape(-1, 0) is ambiguous when empty
    return np.moveaxis(x, 1, -1).reshape(rows, x.shape[1])


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


@register_kernel("cross_entropy_backward")
@quiet  # a row holding an infinity gives NaN, as the composite formula does
def _cross_entropy_backward(outs, ins, attrs):
    """(softmax(x) - one_hot(target)) * scale into the output: class targets, none ignored. The
    softmax runs on the transposed (C, N) copy (see the module's docstring)."""
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
