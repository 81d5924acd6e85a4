"""The elementwise losses, binary cross entropy (on probabilities and on logits) and
kl_div: the loss per element, then the optional weight and the reduction.
"""

from __future__ import annotations

import numpy as np

from ...._core.dtype import from_numpy_dtype, promote_types
from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store


def _reduce(loss: np.ndarray, reduction: str, out: np.ndarray) -> None:
    with np.errstate(invalid="ignore", divide="ignore"):
        if reduction == "none":
            store(out, loss)
        elif reduction == "sum":
            out[...] = loss.sum()
        else:
            out[...] = loss.sum() / loss.size if loss.size else np.nan


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
        # ember's promotion, not NumPy's: NumPy has no common type for bfloat16 and an integer
        promoted = promote_types(from_numpy_dtype(ins[0].dtype), from_numpy_dtype(ins[1].dtype)).numpy_dtype
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


def _check_probabilities(x: np.ndarray, t: np.ndarray) -> None:
    """PyTorch's element-wise check, NaN included: the first element outside [0, 1] names its
    argument (input before target at the same element)."""
    if not x.size:
        return
    with np.errstate(invalid="ignore"):
        bad_x = ~((x >= 0) & (x <= 1))
        bad_t = ~((t >= 0) & (t <= 1))
    bad = bad_x | bad_t
    if bad.any():
        first = np.unravel_index(int(np.argmax(bad)), bad.shape)
        name = "input" if np.broadcast_to(bad_x, bad.shape)[first] else "target"
        raise RuntimeError(f"all elements of {name} should be between 0 and 1")


@register_kernel("binary_cross_entropy")
def _bce(outs, ins, attrs):
    out = outs[0]
    ct = compute_dtype(out.dtype)
    x, t = ins[0].astype(ct, copy=False), ins[1].astype(ct, copy=False)
    _check_probabilities(x, t)
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
