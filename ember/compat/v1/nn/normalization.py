"""``tf.nn``'s statistics and normalizations (``moments``, ``batch_normalization``,
``fused_batch_norm``, ``l2_normalize``, ``lrn``) and ``dropout`` with TF1's signature."""

from __future__ import annotations

import numbers

import numpy as np

from ...._core import dtype as _dt
from ...._core.tensor import Tensor
from ....graph.graph import in_graph_scope
from ....graph.tensor import GraphTensor
from ....ops import functional as F
from ..random_ops import random_uniform
from ._common import convert, convert_like, named, op_scope, outputs, rank_of, static_shape

__all__ = [
    "batch_normalization",
    "dropout",
    "fused_batch_norm",
    "l2_normalize",
    "local_response_normalization",
    "lrn",
    "moments",
    "normalize_moments",
    "sufficient_statistics",
    "weighted_moments",
    "zero_fraction",
]


def _axes(axes, rank: int, op: str) -> list[int]:
    axes = [axes] if isinstance(axes, numbers.Integral) else list(axes)
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"{op}(): axis {a} is out of range for a tensor of rank {rank}")
        out.append(a % rank)
    return out


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of ``x`` over ``axes``; the variance is the population one (divided by n).
    ``shift`` is accepted and unused, as in TensorFlow."""
    if keep_dims is not None and keepdims is not None:
        raise ValueError("moments(): cannot specify both 'keep_dims' and 'keepdims'")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    t = convert(x, "moments", "x")
    dims = _axes(axes, rank_of(t), "moments")
    with op_scope(name, "moments"):
        mean = F.mean(t, dims, True)
        variance = F.mean(F.square(F.sub(t, F.detach(mean))), dims, True)
        if not keep:
            mean, variance = F.squeeze(mean, dims), F.squeeze(variance, dims)
        return outputs(mean, variance)


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset; ``offset`` and ``scale``
    may be None."""
    t = convert(x, "batch_normalization", "x")
    with op_scope(name, "batchnorm") as scope:
        inv = F.rsqrt(F.add(convert_like(variance, t, "batch_normalization", "variance"), float(variance_epsilon)))
        if scale is not None:
            inv = F.mul(inv, convert_like(scale, t, "batch_normalization", "scale"))
        shift = F.neg(F.mul(convert_like(mean, t, "batch_normalization", "mean"), inv))
        if offset is not None:
            shift = F.add(shift, convert_like(offset, t, "batch_normalization", "offset"))
        return named(F.add(F.mul(t, inv), shift), scope)


def fused_batch_norm(
    x,
    scale,
    offset,
    mean=None,
    variance=None,
    epsilon=0.001,
    data_format="NHWC",
    is_training=True,
    name=None,
    exponential_avg_factor=1.0,
):
    """Batch normalization of a 4-D ``x`` over all axes but the channels'; returns (y, mean,
    variance). Training uses the batch's statistics and returns the variance with Bessel's
    correction (n / (n - 1)), as TensorFlow does, for the moving averages; with
    ``exponential_avg_factor`` < 1 the returned statistics are already blended into ``mean`` and
    ``variance``. Inference uses the given ``mean`` and ``variance``."""
    op = "fused_batch_norm"
    t = convert(x, op, "x")
    if rank_of(t) != 4:
        raise ValueError(f"{op}(): x must be 4-D, got shape {static_shape(t)}")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{op}(): data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    reduce = [0, 1, 2] if data_format == "NHWC" else [0, 2, 3]
    shape = (1, 1, 1, -1) if data_format == "NHWC" else (1, -1, 1, 1)

    def channel(v):
        return F.reshape(v, shape)

    gamma = convert_like(scale, t, op, "scale")
    beta = convert_like(offset, t, op, "offset")
    with op_scope(name, "FusedBatchNorm") as scope:
        if is_training:
            batch_mean = F.mean(t, reduce)
            batch_var = F.mean(F.square(F.sub(t, F.detach(channel(batch_mean)))), reduce)
            y = batch_normalization(t, channel(batch_mean), channel(batch_var), channel(beta), channel(gamma), epsilon)
            n = F.sum(F.ones_like(t), reduce)  # per channel; the batch may be unknown when built
            corrected = F.mul(batch_var, F.div(n, F.clamp_min(F.sub(n, 1.0), 1.0)))
            if exponential_avg_factor != 1.0:
                if mean is None or variance is None:
                    raise ValueError(f"{op}(): exponential_avg_factor != 1 needs mean and variance")
                f = float(exponential_avg_factor)
                batch_mean = F.add(F.mul(convert_like(mean, t, op, "mean"), 1.0 - f), F.mul(batch_mean, f))
                corrected = F.add(F.mul(convert_like(variance, t, op, "variance"), 1.0 - f), F.mul(corrected, f))
            return (named(y, scope), *outputs(batch_mean, corrected))
        if mean is None or variance is None:
            raise ValueError(f"{op}(): inference (is_training=False) needs mean and variance")
        m = convert_like(mean, t, op, "mean")
        v = convert_like(variance, t, op, "variance")
        y = batch_normalization(t, channel(m), channel(v), channel(beta), channel(gamma), epsilon)
        return (named(y, scope), *outputs(m, v))


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)); over all axes when ``axis`` is None."""
    if axis is not None and dim is not None:
        raise ValueError("l2_normalize(): cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    t = convert(x, "l2_normalize", "x")
    dims = list(range(rank_of(t))) if axis is None else _axes(axis, rank_of(t), "l2_normalize")
    with op_scope(name, "l2_normalize") as scope:
        square_sum = F.sum(F.square(t), dims, True)
        return named(F.mul(t, F.rsqrt(F.clamp_min(square_sum, float(epsilon)))), scope)


def lrn(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002 - TensorFlow's name
    """Local response normalization along the last axis: input / (bias + alpha * sqr_sum) ** beta,
    sqr_sum being the sum of squares over the ``depth_radius`` neighbours on each side."""
    t = convert(input, "lrn", "input")
    if rank_of(t) != 4:
        raise ValueError(f"lrn(): input must be 4-D, got shape {static_shape(t)}")
    depth = static_shape(t)[-1]
    if depth is None:
        raise ValueError("lrn(): the depth (last dimension) must be known when the graph is built")
    r = int(depth_radius)
    with op_scope(name, "LRN") as scope:
        padded = F.pad(F.square(t), (r, r))
        sqr_sum = padded.narrow(-1, 0, depth)
        for i in range(1, 2 * r + 1):
            sqr_sum = F.add(sqr_sum, padded.narrow(-1, i, depth))
        denom = F.pow(F.add(F.mul(sqr_sum, float(alpha)), float(bias)), float(beta))
        return named(F.div(t, denom), scope, "LRN")


local_response_normalization = lrn


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value``, a float32 scalar."""
    t = convert(value, "zero_fraction", "value")
    with op_scope(name, "zero_fraction") as scope:
        return named(F.mean(F.eq(t, 0).to(_dt.float32)), scope)


def _keep_probability(keep_prob, rate, like: Tensor):
    """keep_prob, a float in (0, 1] or a tensor, from exactly one of ``keep_prob`` and ``rate``."""
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    if keep_prob is None and rate is None:
        raise ValueError("`rate` must be provided. Received: rate=None")
    if isinstance(keep_prob, Tensor):
        return _scalar(convert_like(keep_prob, like, "dropout", "keep_prob"))
    if isinstance(rate, Tensor):
        return F.rsub(_scalar(convert_like(rate, like, "dropout", "rate")), 1.0)
    rate = 1.0 - float(keep_prob) if keep_prob is not None else float(rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    return 1.0 - rate


def _scalar(p):
    """``keep_prob``/``rate`` is a scalar: a placeholder made without a shape (TF1 programs'
    ``tf.placeholder(tf.float32)``) is given one, so what is computed from it has a known rank."""
    if isinstance(p, GraphTensor) and p.shape.rank is None and not p.consumers():
        p.set_shape(())
    return p


def _uniform_noise(t: Tensor, noise_shape, seed):
    """Uniform [0, 1) noise of ``noise_shape`` (default: t's shape). In a graph, where the shape
    is known when built, it is a ``RandomUniform`` node that follows ``tf.set_random_seed`` and
    ``seed`` as TensorFlow's ops do; otherwise a draw of ember's generator."""
    shape = static_shape(t) if noise_shape is None else [None if isinstance(d, Tensor) else int(d) for d in noise_shape]
    if in_graph_scope() and None not in shape:
        return random_uniform(shape, dtype=t.dtype, seed=seed)
    if noise_shape is None:
        return F.rand_like(t)
    if None in shape:
        raise ValueError(f"dropout(): noise_shape must be known when the graph is built, got {list(noise_shape)}")
    return F.rand(shape, dtype=t.dtype)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes each element with probability ``rate`` (= 1 - ``keep_prob``; give exactly one) and
    scales the kept ones by 1 / keep_prob. ``keep_prob``/``rate`` may be a tensor (a placeholder
    fed 1.0 at evaluation). ``noise_shape`` broadcasts one draw over dimensions of size 1.
    ``seed`` and the graph's seed (``tf.set_random_seed``) fix the draws where the shape is known
    when the graph is built."""
    t = convert(x, "dropout", "x")
    keep = _keep_probability(keep_prob, rate, t)
    if not isinstance(keep, Tensor) and keep == 1.0:
        return outputs(t)[0]
    with op_scope(name, "dropout") as scope:
        noise = _uniform_noise(t, noise_shape, seed)
        mask = F.floor(F.add(noise, keep))  # 1 with probability keep_prob, as TensorFlow draws it
        return named(F.mul(F.div(t, keep), mask), scope)


def _keep(keep_dims, keepdims, op: str) -> bool:
    if keep_dims is not None and keepdims is not None:
        raise ValueError(f"{op}(): cannot specify both 'keep_dims' and 'keepdims'")
    return bool(keepdims if keepdims is not None else keep_dims)


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x - shift, sum of (x - shift) ** 2, shift) over ``axes``; with ``shift``
    None the sums are of x and x ** 2 and the returned shift is None."""
    keep = _keep(keep_dims, keepdims, "sufficient_statistics")
    t = convert(x, "sufficient_statistics", "x")
    dims = _axes(axes, rank_of(t), "sufficient_statistics")
    with op_scope(name, "sufficient_statistics"):
        sizes = [static_shape(t)[d] for d in dims]
        if None in sizes:  # elements of x per element of the sums, from the run's sizes
            count = F.div(F.sum(F.ones_like(t)), F.sum(F.ones_like(F.sum(t, dims))))
        else:
            count = convert(np.asarray(np.prod(sizes, dtype=np.int64), t.dtype.numpy_dtype), "sufficient_statistics", "x")
        shifted = t if shift is None else F.sub(t, convert_like(shift, t, "sufficient_statistics", "shift"))
        return (*outputs(count, F.sum(shifted, dims, keep), F.sum(F.square(shifted), dims, keep)), shift)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from ``sufficient_statistics``' sums."""
    m = convert(mean_ss, "normalize_moments", "mean_ss")
    with op_scope(name, "normalize"):
        divisor = F.reciprocal(convert_like(counts, m, "normalize_moments", "counts"))
        shifted_mean = F.mul(m, divisor)
        mean = shifted_mean if shift is None else F.add(shifted_mean, convert_like(shift, m, "normalize_moments", "shift"))
        variance = F.sub(F.mul(convert_like(variance_ss, m, "normalize_moments", "variance_ss"), divisor), F.square(shifted_mean))
        return outputs(mean, variance)


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) over ``axes`` with each element counted ``frequency_weights`` times
    (weights broadcast against x)."""
    keep = _keep(keep_dims, keepdims, "weighted_moments")
    t = convert(x, "weighted_moments", "x")
    w = convert_like(frequency_weights, t, "weighted_moments", "frequency_weights")
    dims = _axes(axes, rank_of(t), "weighted_moments")
    with op_scope(name, "weighted_moments"):
        divisor = F.reciprocal(F.sum(F.mul(w, F.ones_like(t)), dims, True))
        mean = F.mul(F.sum(F.mul(w, t), dims, True), divisor)
        variance = F.mul(F.sum(F.mul(w, F.square(F.sub(t, mean))), dims, True), divisor)
        if not keep:
            mean, variance = F.squeeze(mean, dims), F.squeeze(variance, dims)
        return outputs(mean, variance)
