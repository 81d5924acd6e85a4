"""CPU kernels of the reductions: NumPy's reductions writing into the output array.

``attrs["dims"]`` is a sorted tuple of non-negative axes (``()`` for a 0-d input), so NumPy's
``axis=`` takes it as is. The output's dtype says what to compute in: float16/bfloat16 results
accumulate in float32 and are written back; bool/integer sums already have an int64 output.
When a kernel cannot write into ``out`` directly (``out=`` of another dtype, half precision)
it computes a temporary and copies it in. Inputs over ``LEAF`` elements (sum, prod, mean, amax,
amin) are reduced in blocks on ember's threads, with the same bits on any thread count
(``reduction_blocks.py``). The sections follow the ops modules of
``ember/ops/reduction/`` (sums, extrema, statistics, logical); one module holds them all, as they
share the accumulation rules above and fit in a few screens.
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ...dispatch.opexpr import register_kernel
from .common import F32, HALF, compute_dtype, store
from .elementwise.factories import quiet
from .reduction_blocks import LEAF, reduce_in_blocks

_BF16 = _dt.bfloat16.numpy_dtype


def as_compute(x: np.ndarray, acc: np.dtype) -> np.ndarray:
    """``x`` in a dtype NumPy's reductions can read into ``acc`` without an unsafe cast."""
    if x.dtype == acc or np.can_cast(x.dtype, acc, "same_kind"):
        return x
    return x.astype(acc)


def _size(shape: tuple, dims: tuple) -> int:
    return math.prod(shape[d] for d in dims)


# --- sums: sum, prod, mean, cumsum, cumprod ------------------------------------------------


def _in_blocks(fn, combine, x: np.ndarray, dims: tuple, out: np.ndarray, acc: np.dtype) -> bool:
    """A large input reduced in blocks on ember's threads (reduction_blocks.py); False when small."""

    def reduce(block, **kwargs):
        return fn(as_compute(block, acc), dtype=acc, **kwargs)  # a bfloat16 block converts on its own thread

    return x.size > LEAF and reduce_in_blocks(reduce, combine, x, dims, out, acc)


def _accumulating(fn, combine):
    def kernel(outs, ins, attrs):
        out = outs[0]
        acc = compute_dtype(out.dtype)
        if _in_blocks(fn, combine, ins[0], attrs["dims"], out, acc):
            return
        x = as_compute(ins[0], acc)
        if out.dtype == acc:
            fn(x, axis=attrs["dims"], dtype=acc, keepdims=attrs["keepdim"], out=out)
        else:
            store(out, fn(x, axis=attrs["dims"], dtype=acc, keepdims=attrs["keepdim"]))

    return kernel


# quiet: inf + -inf is NaN, not a NumPy warning (PyTorch says nothing)
register_kernel("sum")(quiet(_accumulating(np.sum, np.add)))
register_kernel("prod")(quiet(_accumulating(np.prod, np.multiply)))


@register_kernel("mean")
@quiet
def mean(outs, ins, attrs):
    out = outs[0]
    dims = attrs["dims"]
    acc = compute_dtype(out.dtype)
    x = ins[0]
    target = out if out.dtype == acc else np.empty(out.shape, acc)
    if not _in_blocks(np.sum, np.add, x, dims, target, acc):
        np.sum(as_compute(x, acc), axis=dims, dtype=acc, keepdims=attrs["keepdim"], out=target)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = _size(x.shape, dims)  # an empty mean is 0/0: nan
        if target.dtype.kind == "c":  # by a real count: a complex division would turn inf+bj into inf+nanj
            np.divide(target.real, n, out=target.real)
            np.divide(target.imag, n, out=target.imag)
        else:
            np.divide(target, n, out=target)
    store(out, target)


def _scan(fn):
    def kernel(outs, ins, attrs):
        out, x = outs[0], ins[0]
        if x.ndim == 0:
            x, out = x.reshape(1), out.reshape(1)
        acc = compute_dtype(out.dtype)
        x = as_compute(x, acc)
        if out.dtype == acc:
            fn(x, axis=attrs["dim"], dtype=acc, out=out)
        else:
            store(out, fn(x, axis=attrs["dim"], dtype=acc))

    return kernel


register_kernel("cumsum")(quiet(_scan(np.cumsum)))
register_kernel("cumprod")(quiet(_scan(np.cumprod)))


# --- extrema: amax, amin, max/min along a dim, argmax, argmin --------------------------------


def _extremum(fn, combine):
    def kernel(outs, ins, attrs):
        out, x = outs[0], ins[0]
        with np.errstate(invalid="ignore"):  # NaN propagates, quietly
            if x.size > LEAF and reduce_in_blocks(fn, combine, x, attrs["dims"], out, x.dtype):
                return
            if out.dtype == x.dtype:
                fn(x, axis=attrs["dims"], keepdims=attrs["keepdim"], out=out)
            else:
                store(out, fn(x, axis=attrs["dims"], keepdims=attrs["keepdim"]))

    return kernel


register_kernel("amax")(_extremum(np.max, np.maximum))
register_kernel("amin")(_extremum(np.min, np.minimum))


def _dim_extremum(fn, argfn):
    """Values and indices along one dim; NaN wins (np.max/np.argmax both pick the first NaN)."""

    def kernel(outs, ins, attrs):
        values, indices = outs
        x = ins[0]
        dims, keep = attrs["dims"], attrs["keepdim"]
        if not dims:  # a 0-d input
            store(values, x)
            indices[...] = 0
            return
        d = dims[0]
        if indices.dtype == np.intp:
            argfn(x, axis=d, keepdims=keep, out=indices)
        else:
            store(indices, argfn(x, axis=d, keepdims=keep))
        with np.errstate(invalid="ignore"):
            if values.dtype == x.dtype:
                fn(x, axis=d, keepdims=keep, out=values)
            else:
                store(values, fn(x, axis=d, keepdims=keep))

    return kernel


register_kernel("max_dim")(_dim_extremum(np.max, np.argmax))
register_kernel("min_dim")(_dim_extremum(np.min, np.argmin))


def _arg(argfn):
    def kernel(outs, ins, attrs):
        out, x = outs[0], ins[0]
        dims = attrs["dims"]
        if dims is None:
            store(out, np.reshape(argfn(x), out.shape))
        elif not dims:
            out[...] = 0
        elif out.dtype == np.intp:
            argfn(x, axis=dims[0], keepdims=attrs["keepdim"], out=out)
        else:
            store(out, argfn(x, axis=dims[0], keepdims=attrs["keepdim"]))

    return kernel


register_kernel("argmax")(_arg(np.argmax))
register_kernel("argmin")(_arg(np.argmin))


# --- statistics: var, std, logsumexp ---------------------------------------------------------


def _moment(is_std: bool):
    def kernel(outs, ins, attrs):
        out, x = outs[0], ins[0]
        dims = attrs["dims"]
        if x.dtype in HALF:
            x = x.astype(F32)
        n = _size(x.shape, dims)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            d = np.asarray(x - np.sum(x, axis=dims, keepdims=True) / n)
            if d.dtype.kind == "c":
                sq = np.square(d.real)
                sq += np.square(d.imag)
            else:
                sq = np.multiply(d, d, out=d)
            s = np.sum(sq, axis=dims, keepdims=attrs["keepdim"])
            dof = n - attrs["correction"]
            # no elements: nan, whatever the correction; torch's max(0, dof) reads a nan dof as 0
            s = np.divide(s, dof if n and dof > 0 else 0.0)
            if is_std:
                s = np.sqrt(s)
        store(out, s)

    return kernel


register_kernel("var")(_moment(False))
register_kernel("std")(_moment(True))


@register_kernel("logsumexp")
def logsumexp(outs, ins, attrs):
    out = outs[0]
    dims, keep = attrs["dims"], attrs["keepdim"]
    acc = compute_dtype(out.dtype)
    x = ins[0]
    if x.dtype != acc:
        x = x.astype(acc)
    if x.size == 0:  # log(0): the empty sum of exponentials
        out[...] = -np.inf
        return
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        m = np.max(x.real if x.dtype.kind == "c" else x, axis=dims, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)  # all -inf (or an inf) must not become nan
        s = np.sum(np.exp(x - m), axis=dims, keepdims=keep)
        r = np.log(s)
        r += m if keep else np.squeeze(m, axis=dims)
    store(out, r)


# --- logical: all, any, count_nonzero ----------------------------------------------------------


def _logical(fn):
    def kernel(outs, ins, attrs):
        out, x = outs[0], ins[0]
        if x.dtype == _BF16:
            x = x.astype(F32)
        if out.dtype == np.bool_:
            fn(x, axis=attrs["dims"], keepdims=attrs["keepdim"], out=out)
        else:
            store(out, fn(x, axis=attrs["dims"], keepdims=attrs["keepdim"]))

    return kernel


register_kernel("all")(_logical(np.all))
register_kernel("any")(_logical(np.any))


@register_kernel("count_nonzero")
def count_nonzero(outs, ins, attrs):
    x = ins[0]
    if x.dtype == _BF16:
        x = x.astype(F32)
    store(outs[0], np.count_nonzero(x, axis=attrs["dims"]))


# --- histograms: bincount, histc ------------------------------------------------------------


@register_kernel("bincount")
def _bincount(outs, ins, attrs):
    out = outs[0]
    if ins[0].size == 0:
        out[...] = 0
        return
    weights = None
    if attrs["weighted"]:
        weights = ins[1].real if np.iscomplexobj(ins[1]) else ins[1]
        weights = weights.astype(np.float64)
    store(out, np.bincount(ins[0].astype(np.int64), weights, minlength=attrs["length"]))


@register_kernel("histc")
def _histc(outs, ins, attrs):
    """PyTorch's histc: the outer edges in the input's dtype; a value's bin is
    ``int((x - lo) * bins / (hi - lo))``, each step rounded to that dtype (half types too, as
    c10's Half arithmetic does), and the last bin includes its right edge."""
    out = outs[0]
    dt = out.dtype
    ct = np.dtype(np.float64) if dt == np.float64 else F32  # holds every half value exactly

    def rounded(a):
        return a.astype(dt).astype(ct)

    bins = attrs["bins"]
    lo, hi = rounded(np.array(attrs["min"])), rounded(np.array(attrs["max"]))
    values = ins[0].ravel().astype(ct)
    values = values[(values >= lo) & (values <= hi)]  # NaN fails both
    pos = rounded(rounded(rounded(values - lo) * ct.type(bins)) / rounded(hi - lo))
    pos = np.clip(pos.astype(np.int64), 0, bins - 1)  # the last bin is closed
    store(out, np.bincount(pos, minlength=bins))


# --- scans: cummax, cummin, logcumsumexp ---------------------------------------------------


def _running_extremum(take_new):
    """cummax/cummin along attrs["dim"]: the running extremum and the latest index reaching it
    (a NaN, once seen, stays with its index; a later NaN takes over, as torch's ``>=`` does)."""

    def kernel(outs, ins, attrs):
        values, indices = outs
        x = ins[0]
        if x.ndim == 0:
            np.copyto(values, x)
            indices.fill(0)
            return
        d = attrs["dim"]
        src, vals, idx = np.moveaxis(x, d, 0), np.moveaxis(values, d, 0), np.moveaxis(indices, d, 0)
        if src.shape[0] == 0:
            return
        best, at = src[0].copy(), np.zeros(src.shape[1:], np.int64)
        nan_kind = src.dtype.kind in "fc" or src.dtype.name == "bfloat16"
        for i in range(src.shape[0]):
            new = src[i]
            if i:
                if nan_kind:
                    take = np.isnan(new) | (~np.isnan(best) & take_new(new, best))
                else:
                    take = take_new(new, best)
                best = np.where(take, new, best)
                at = np.where(take, i, at)
            vals[i] = best
            idx[i] = at

    return kernel


register_kernel("cummax")(quiet(_running_extremum(np.greater_equal)))
register_kernel("cummin")(quiet(_running_extremum(np.less_equal)))


@register_kernel("logcumsumexp")
def logcumsumexp(outs, ins, attrs):
    out, x = outs[0], ins[0]
    if x.ndim == 0:
        np.copyto(out, x)
        return
    acc = compute_dtype(out.dtype)
    store(out, np.logaddexp.accumulate(as_compute(x, acc), axis=attrs["dim"]))
