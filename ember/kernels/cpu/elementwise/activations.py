"""CPU kernels of the activations: relu (and its backward, threshold_backward), silu, gelu (and
its backward, gelu_backward), softplus, elu, leaky_relu, hardtanh.

GELU in float32 (float16 and bfloat16 compute in it) is ``erf_f32``'s float32 evaluation; float64
takes erfc in float64."""

from __future__ import annotations

import math

import numpy as np

from ....dispatch.opexpr import register_kernel
from . import erf_f32
from .factories import F32, F64, map1, quiet
from .special import erfc, sigmoid

__all__ = ["relu"]

_ZEROS: dict = {}  # a 0-d zero per dtype: np.maximum(x, zero) is ~3x faster than np.maximum(x, 0)
_ZERO_ROWS: dict = {}  # zeros to compare arrays with elementwise: NumPy's maximum has no SIMD loop against a 0-d operand
_ZERO_ROWS_LIMIT = 1 << 18  # elements per call (1 MiB of float32): larger contiguous arrays go through in slices of this many
# (shape, dtype) -> _ZERO_ROWS shaped like x: slicing and reshaping it was ~1 us of a (64, 200) relu's ~3.5
_ZERO_VIEWS: dict = {}
_ZERO_VIEWS_LIMIT = 64


def relu(outs, ins, attrs):
    """max(0, x) with x as NumPy's second operand: on a tie of zeros NumPy's maximum returns its
    second operand, so relu(-0.0) is -0.0 as in PyTorch (which keeps x unless x < 0)."""
    x, out = ins[0], outs[0]
    zeros = _ZERO_VIEWS.get((x.shape, x.dtype))
    if zeros is not None:
        np.maximum(zeros, x, out=out)
        return
    n = x.size
    if n == 0:
        return
    rows = _ZERO_ROWS.get(x.dtype)
    if rows is None:
        rows = _ZERO_ROWS[x.dtype] = np.zeros(_ZERO_ROWS_LIMIT, x.dtype)
    if n <= _ZERO_ROWS_LIMIT:  # (64, 200) float32: 1.8 us against 5.5 with the 0-d zero
        zeros = rows[:n].reshape(x.shape)
        if len(_ZERO_VIEWS) >= _ZERO_VIEWS_LIMIT:
            _ZERO_VIEWS.clear()
        _ZERO_VIEWS[(x.shape, x.dtype)] = zeros
        np.maximum(zeros, x, out=out)
        return
    if x.flags.c_contiguous and out.flags.c_contiguous:  # (256, 1024) float32: 40 us against 98
        flat_x, flat_out = x.reshape(-1), out.reshape(-1)
        for start in range(0, n, _ZERO_ROWS_LIMIT):
            stop = min(start + _ZERO_ROWS_LIMIT, n)
            np.maximum(rows[: stop - start], flat_x[start:stop], out=flat_out[start:stop])
        return
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        zero = _ZEROS[x.dtype] = np.zeros((), x.dtype)
    np.maximum(zero, x, out=out)


register_kernel("relu")(relu)


@register_kernel("threshold_backward")
def _threshold_backward(outs, ins, attrs):
    """The gradient where the output is not at or below the threshold (NaN included, as in
    PyTorch), zero elsewhere."""
    g, y = ins
    threshold = attrs["threshold"]
    if threshold == 0:  # relu's: a cached 0-d zero (NumPy converts a Python float on every call)
        threshold = _ZEROS.get(y.dtype)
        if threshold is None:
            threshold = _ZEROS[y.dtype] = np.zeros((), y.dtype)
    # the mask as floats first: multiplying by a bool array runs a slow casting loop (6.7 -> 4.5 us on 64x200)
    np.multiply(g, np.logical_not(np.less_equal(y, threshold)).astype(g.dtype), out=outs[0])


map1("silu", lambda x, a: x * sigmoid(x))

_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _gelu64(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    return 0.5 * x * erfc(-x * _SQRT_HALF)


@register_kernel("gelu")
@quiet
def _gelu_kernel(outs, ins, attrs):
    x, out = ins[0], outs[0]
    approximate = attrs["approximate"]
    if x.dtype == F64:
        np.copyto(out, _gelu64(x, approximate), casting="unsafe")
        return
    erf_f32.gelu(x, approximate, out)
    if out.dtype == F32 and approximate == "none":
        # PyTorch's float32 kernel ends in x/2 * erf(x/sqrt2) + x/2, which cancels to +0.0 where
        # the result is zero (-0.0 in, large negative x): adding +0.0 turns ember's -0.0 into it
        np.add(out, F32.type(0.0), out=out)


@register_kernel("gelu_backward")
@quiet
def _gelu_backward_kernel(outs, ins, attrs):
    """g * gelu'(x): float64 from erfc and exp in float64, the rest in float32 (``erf_f32``)."""
    g, x = ins
    out = outs[0]
    if x.dtype != F64:
        erf_f32.gelu_backward(g, x, attrs["approximate"], out)
        return
    if attrs["approximate"] == "tanh":
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
        t = np.tanh(inner)
        slope = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
    else:
        slope = 0.5 * erfc(-x * _SQRT_HALF) + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI
    np.multiply(g, slope, out=out)


def _softplus(x, attrs):
    beta, threshold = attrs["beta"], attrs["threshold"]
    bx = x * x.dtype.type(beta)
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / x.dtype.type(beta))


map1("softplus", _softplus)
map1("elu", lambda x, a: np.where(x > 0, x, x.dtype.type(a["alpha"]) * np.expm1(x)))
map1("leaky_relu", lambda x, a: np.where(x > 0, x, x * x.dtype.type(a["negative_slope"])))


def _hardtanh(x, attrs):
    lo, hi = attrs["min_val"], attrs["max_val"]
    if x.dtype.kind in "iu":
        lo, hi = int(lo), int(hi)
    # the limits first: NumPy returns the second operand on a tie, so -0.0 against 0.0 stays -0.0 (PyTorch's)
    return np.minimum(x.dtype.type(hi), np.maximum(x.dtype.type(lo), x))


map1("hardtanh", _hardtanh)
