"""CPU kernels of the random ops: draws from the op's ``Generator`` (``generator.numpy()``,
NumPy's PCG64), cast into the output.

Single-precision outputs (float32, float16, bfloat16, complex64) draw in float32, the others
in float64; float16 and bfloat16 uniforms come from as many random bits as their mantissa
holds, so ``rand`` never rounds up to 1. Complex outputs draw the real and imaginary parts
independently (a complex normal has variance 1 in all, as PyTorch's).
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _draw_dtype(out: np.ndarray) -> np.dtype:
    if out.dtype.kind == "c":
        return _F32 if out.dtype.itemsize == 8 else _F64
    return _F64 if out.dtype == _F64 else _F32


def _parts_shape(out: np.ndarray) -> tuple:
    return (*out.shape, 2) if out.dtype.kind == "c" else out.shape


def _write(out: np.ndarray, values: np.ndarray) -> None:
    if out.dtype.kind == "c" and values.dtype.kind != "c":
        values = values[..., 0] + 1j * values[..., 1]
    np.copyto(out, values, casting="unsafe")


def _uniform01(rng: np.random.Generator, shape: tuple, out_dtype: np.dtype) -> np.ndarray:
    bits = {"float16": 11, "bfloat16": 8}.get(out_dtype.name)
    if bits is not None:
        return rng.integers(0, 1 << bits, size=shape, dtype=np.int64).astype(_F32) * np.float32(2.0**-bits)
    return rng.random(shape, dtype=_F32 if out_dtype in (_F32, np.dtype(np.complex64)) else _F64)


@register_kernel("uniform")
def uniform(outs, ins, attrs):
    out = outs[0]
    if out.size == 0:
        return
    u = _uniform01(attrs["generator"].numpy(), _parts_shape(out), out.dtype)
    low, high = attrs["low"], attrs["high"]
    if low != 0.0 or high != 1.0:
        u = low + (high - low) * u.astype(_F64)
    _write(out, u)


@register_kernel("normal")
def normal(outs, ins, attrs):
    out = outs[0]
    if out.size == 0:
        return
    ct = _draw_dtype(out)
    rng = attrs["generator"].numpy()
    z = rng.standard_normal(_parts_shape(out), dtype=ct)
    bound = attrs.get("truncate")
    if bound is not None:  # graph mode's TruncatedNormal: draw again where |z| > bound
        while (far := np.abs(z) > bound).any():
            z[far] = rng.standard_normal(int(far.sum()), dtype=ct)
    if out.dtype.kind == "c":
        z *= ct.type(np.sqrt(0.5))
    mean, std = attrs["mean"], attrs["std"]
    if mean != 0.0 or std != 1.0:
        z = ct.type(mean) + ct.type(std) * z
    _write(out, z)


@register_kernel("normal_tensor")
def normal_tensor(outs, ins, attrs):
    out = outs[0]
    mean, std = ins
    if std.size and not np.all(std >= 0):
        raise RuntimeError("normal(): expects all elements of std >= 0.0")
    if out.size == 0:
        return
    ct = _draw_dtype(out)
    z = attrs["generator"].numpy().standard_normal(out.shape, dtype=ct)
    np.copyto(out, mean.astype(ct) + std.astype(ct) * z, casting="unsafe")


@register_kernel("randint")
def randint(outs, ins, attrs):
    out = outs[0]
    if out.size == 0:
        return
    low, high = attrs["low"], attrs["high"]
    draw = np.uint64 if high - 1 > np.iinfo(np.int64).max else np.int64
    np.copyto(out, attrs["generator"].numpy().integers(low, high, size=out.shape, dtype=draw), casting="unsafe")


@register_kernel("randperm")
def randperm(outs, ins, attrs):
    out = outs[0]
    if out.size:
        np.copyto(out, attrs["generator"].numpy().permutation(out.shape[0]), casting="unsafe")


@register_kernel("bernoulli_scalar")
def bernoulli_scalar(outs, ins, attrs):
    out = outs[0]
    if out.size:
        np.copyto(out, attrs["generator"].numpy().random(out.shape) < attrs["p"], casting="unsafe")


@register_kernel("bernoulli")
def bernoulli(outs, ins, attrs):
    out = outs[0]
    p = ins[0]
    if p.dtype not in (_F32, _F64):
        p = p.astype(_F32)
    if p.size and not np.all((p >= 0) & (p <= 1)):
        raise RuntimeError("bernoulli(): expects all elements of p to be in [0, 1]")
    if out.size:
        np.copyto(out, attrs["generator"].numpy().random(out.shape) < p, casting="unsafe")


@register_kernel("multinomial")
def multinomial(outs, ins, attrs):
    out = outs[0]
    probs = ins[0]
    n_cat = probs.shape[-1]
    k = attrs["num_samples"]
    p = probs.astype(_F64).reshape(-1, n_cat)
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise RuntimeError("multinomial(): probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(p.sum(axis=-1) <= 0):
        raise RuntimeError("multinomial(): invalid multinomial distribution (sum of probabilities <= 0)")
    rng = attrs["generator"].numpy()
    rows = p.shape[0]
    if attrs["replacement"]:
        cdf = np.cumsum(p, axis=-1)
        cdf /= cdf[:, -1:]  # the last entry is exactly 1, so u < 1 never runs past it
        u = rng.random((rows, k))
        idx = np.empty((rows, k), dtype=np.int64)
        for r in range(rows):
            idx[r] = np.searchsorted(cdf[r], u[r], side="right")
    else:
        if np.any(np.count_nonzero(p, axis=-1) < k):
            raise RuntimeError(
                "multinomial(): invalid multinomial distribution (with replacement=False, not enough non-negative category to sample)"
            )
        # PyTorch's algorithm: the k largest p / q with q ~ Exp(1) (exponential races)
        with np.errstate(divide="ignore"):
            keys = p / rng.standard_exponential(p.shape)
        idx = np.argsort(-keys, axis=-1, kind="stable")[:, :k]
    np.copyto(out, idx.reshape(out.shape), casting="unsafe")


@register_kernel("exponential")
def exponential(outs, ins, attrs):
    out = outs[0]
    if out.size:
        ct = _draw_dtype(out)
        _write(out, attrs["generator"].numpy().standard_exponential(out.shape, dtype=ct) / ct.type(attrs["lambd"]))


@register_kernel("geometric")
def geometric(outs, ins, attrs):
    out = outs[0]
    if out.size:
        np.copyto(out, attrs["generator"].numpy().geometric(attrs["p"], size=out.shape), casting="unsafe")


@register_kernel("log_normal")
def log_normal(outs, ins, attrs):
    out = outs[0]
    if out.size:
        np.copyto(out, attrs["generator"].numpy().lognormal(attrs["mean"], attrs["std"], size=out.shape), casting="unsafe")


@register_kernel("cauchy")
def cauchy(outs, ins, attrs):
    out = outs[0]
    if out.size:
        values = attrs["median"] + attrs["sigma"] * attrs["generator"].numpy().standard_cauchy(out.shape)
        np.copyto(out, values, casting="unsafe")
