"""erf, erfc and GELU (forward and backward) evaluated in float32, without a float64 round trip.

The core is erfc(s * v) of a non-negative float32 ``v`` and a scale s (1, or 1/sqrt 2 for the
normal CDF), written as

    erfc(a) = t * exp(-a^2) * exp(g(u)),    a = s * v,  t = 1 / (1 + a/2),  u = 2t - 1 = (2 - a) / (2 + a)

where g is a degree-11 polynomial in u, fitted (least squares on Chebyshev nodes, against the
float64 erfcx) to log(erfcx(a) / t) over 0 <= a <= 10.1 (|fit error| < 1e-8; u stays in
[-0.67, 1], where the coefficients are below 0.68, so Horner's rule loses little in float32).
a^2 = s^2 (hi^2 + (v - hi)(v + hi)) with ``hi`` the leading 12 bits of v and s^2 a power of two, so
the large part of the exponent is exact: GELU keeps its relative accuracy in the far negative
tail, which rounding x / sqrt 2 first would cost (~100 ulp at x = -10). Measured against float64
over [-11, 11]: erf within ~4 ulp, erfc within ~8 ulp (99.9% of inputs within ~4.5); erfc
underflows float32 past a ~ 10.05, and v is clipped there, which also makes inf give 0. erf takes
x * (Taylor series in x^2) where |x| < 0.5 and 1 - erfc(|x|) elsewhere.

Every step is a NumPy ufunc writing into a reused buffer, block by block (16384 elements, so the
five buffers stay in a core's L2 cache across the ~35 passes): about 3x the time of NumPy's tanh,
against ~60x for the float64 evaluation it replaces.

>>> [round(float(v), 6) for v in erf(np.array([0.0, 0.5, -3.0], np.float32))]
[0.0, 0.5205, -0.999978]
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["erf", "erfc", "gelu", "gelu_backward"]

F32 = np.dtype(np.float32)
_G = tuple(
    np.float32(c)
    for c in (
        -0.671794056892395,
        0.6726431846618652,
        0.04734308645129204,
        -0.04689481854438782,
        -0.009868939407169819,
        0.008814871311187744,
        0.0017380223143845797,
        -0.002290476346388459,
        -0.00010655150981619954,
        0.0005338223418220878,
        -8.80600928212516e-05,
        -3.0079405405558646e-05,
    )
)  # fmt: skip  (constant term first)
# erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)): seven terms reach float32 rounding for |x| < 0.5
_TAYLOR = tuple(np.float32((-1) ** n * 2 / math.sqrt(math.pi) / (math.factorial(n) * (2 * n + 1))) for n in range(7))
_SMALL = np.float32(0.5)
_CLIP = np.float32(10.1)  # erfc(10.1) is below float32's smallest subnormal
_BLOCK = 16384
_HUGE = np.float32(2.0**100)
_HI_MASK = np.int32(-4096)  # keeps sign, exponent and the leading 11 stored mantissa bits
_ONE, _TWO, _HALF = np.float32(1), np.float32(2), np.float32(0.5)
_INV_SQRT_2 = np.float32(math.sqrt(0.5))
_INV_SQRT_2PI = np.float32(1 / math.sqrt(2 * math.pi))
_SQRT_2_OVER_PI = np.float32(math.sqrt(2 / math.pi))
_TANH_C = np.float32(0.044715)


class _Block:
    """The scratch buffers of one block: five float32 vectors of up to _BLOCK elements, and
    constant ones (NumPy's minimum and maximum have no SIMD loop against a 0-d operand: ~4x slower)."""

    def __init__(self, n: int) -> None:
        self.v, self.a, self.b, self.c, self.d = (np.empty(n, F32) for _ in range(5))
        self.zeros = np.zeros(n, F32)
        self.ones = np.ones(n, F32)
        self.clips = {s: np.full(n, _CLIP / s, F32) for s in (_ONE, _INV_SQRT_2)}

    def trim(self, n: int) -> tuple[np.ndarray, ...]:
        return self.v[:n], self.a[:n], self.b[:n], self.c[:n], self.d[:n]


def _step(x: np.ndarray, out: np.ndarray, block: _Block) -> None:
    """out = 1 where x > 0, 0 where x <= 0 (or x > 0 below 2^-100, where the jump it selects
    between is below float32's resolution next to it), NaN where x is NaN: a select done with
    arithmetic, ~5x faster than a masked copy on mixed signs."""
    n = x.size
    np.multiply(x, _HUGE, out=out)
    np.maximum(out, block.zeros[:n], out=out)
    np.minimum(out, block.ones[:n], out=out)


def _erfc_scaled(v: np.ndarray, scale: np.float32, scale_sq: np.float32, out: np.ndarray, a, b, c, block: _Block) -> None:
    """erfc(scale * v) of float32 ``v`` >= 0 (or NaN) into ``out``; ``v`` is clipped in place.

    ``scale_sq`` is scale**2 as a power of two; ``a``, ``b``, ``c`` are scratch.
    """
    np.minimum(v, block.clips[scale][: v.size], out=v)
    np.multiply(v, scale, out=a)
    np.subtract(_TWO, a, out=out)
    np.add(_TWO, a, out=a)
    np.divide(out, a, out=a)  # a = u
    np.multiply(a, _G[-1], out=out)
    for coefficient in _G[-2:0:-1]:
        np.add(out, coefficient, out=out)
        np.multiply(out, a, out=out)
    np.add(out, _G[0], out=out)  # g(u)
    np.bitwise_and(v.view(np.int32), _HI_MASK, out=b.view(np.int32))  # hi
    np.add(v, b, out=c)
    np.subtract(v, b, out=v)
    np.multiply(v, c, out=v)
    np.multiply(v, scale_sq, out=v)  # s^2 (v - hi)(v + hi)
    np.subtract(out, v, out=out)
    np.exp(out, out=out)
    np.add(a, _ONE, out=a)
    np.multiply(a, _HALF, out=a)  # t
    np.multiply(out, a, out=out)
    np.multiply(b, b, out=b)
    np.multiply(b, -scale_sq, out=b)
    np.exp(b, out=b)
    np.multiply(out, b, out=out)


def _blocks(fn, out: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """Run ``fn(out_block, *input_blocks, block_buffers)`` over flat float32 blocks, into ``out``
    (an array of the inputs' shape, any float dtype, any strides; ``None`` makes a float32 one)."""
    shape = inputs[0].shape
    flat = [np.ascontiguousarray(x, dtype=F32).reshape(-1) for x in inputs]
    if out is None:
        out = np.empty(shape, F32)
    direct = out.dtype == F32 and out.flags.c_contiguous
    target = out.reshape(-1) if direct else np.empty(out.size, F32)
    n = target.size
    scratch = _Block(min(n, _BLOCK))
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        fn(target[start:stop], *(x[start:stop] for x in flat), scratch)
    if not direct:
        np.copyto(out, target.reshape(shape), casting="unsafe")
    return out


def _erfc_block(out, x, block) -> None:
    v, a, b, c, _ = block.trim(x.size)
    np.abs(x, out=v)
    _erfc_scaled(v, _ONE, _ONE, out, a, b, c, block)
    np.negative(x, out=a)
    _step(a, b, block)  # 1 where x < 0
    np.subtract(_ONE, out, out=a)
    np.multiply(a, _TWO, out=a)
    np.multiply(a, b, out=a)
    np.add(out, a, out=out)  # 2 - erfc(|x|) where x < 0


def _erf_block(out, x, block) -> None:
    v, a, b, c, _ = block.trim(x.size)
    np.abs(x, out=v)
    _erfc_scaled(v, _ONE, _ONE, out, a, b, c, block)
    np.subtract(_ONE, out, out=out)
    np.copysign(out, x, out=out)
    np.multiply(x, x, out=a)
    np.multiply(a, _TAYLOR[-1], out=b)
    for coefficient in _TAYLOR[-2:0:-1]:
        np.add(b, coefficient, out=b)
        np.multiply(b, a, out=b)
    np.add(b, _TAYLOR[0], out=b)
    np.multiply(b, x, out=b)
    np.abs(x, out=a)
    np.copyto(out, b, where=a < _SMALL)


def erfc(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """erfc of a float32 (or float16/bfloat16, computed in float32) array, into ``out``."""
    return _blocks(_erfc_block, out, x)


def erf(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """erf of a float32 (or float16/bfloat16, computed in float32) array, into ``out``."""
    return _blocks(_erf_block, out, x)


def _phi_block(out, x, block) -> None:
    """The standard normal CDF: erfc(-x / sqrt 2) / 2, from erfc(|x| / sqrt 2). Uses v, a, b, c."""
    v, a, b, c, _ = block.trim(x.size)
    np.abs(x, out=v)
    _erfc_scaled(v, _INV_SQRT_2, _HALF, out, a, b, c, block)
    np.multiply(out, _HALF, out=out)  # Phi(-|x|) <= 1/2
    _step(x, b, block)
    np.multiply(out, -_TWO, out=a)
    np.add(a, _ONE, out=a)
    np.multiply(a, b, out=a)
    np.add(out, a, out=out)  # 1 - Phi(-|x|) where x > 0


def _tanh_inner(x, t, x2) -> None:
    """t = tanh(sqrt(2/pi) (x + c x^3)), x2 = x^2."""
    np.multiply(x, x, out=x2)
    np.multiply(x2, _TANH_C, out=t)
    np.add(t, _ONE, out=t)
    np.multiply(t, x, out=t)
    np.multiply(t, _SQRT_2_OVER_PI, out=t)
    np.tanh(t, out=t)


def _gelu_block(out, x, block) -> None:
    _phi_block(out, x, block)
    np.multiply(out, x, out=out)


def _gelu_tanh_block(out, x, block) -> None:
    _, t, x2, _, _ = block.trim(x.size)
    _tanh_inner(x, t, x2)
    np.add(t, _ONE, out=t)
    np.multiply(t, _HALF, out=t)
    np.multiply(t, x, out=out)


def _gelu_backward_block(out, g, x, block) -> None:
    d = block.trim(x.size)[4]
    _phi_block(out, x, block)
    np.multiply(x, x, out=d)
    np.multiply(d, -_HALF, out=d)
    np.exp(d, out=d)
    np.multiply(d, _INV_SQRT_2PI, out=d)
    np.multiply(d, x, out=d)  # x * pdf(x)
    np.add(out, d, out=out)
    np.multiply(out, g, out=out)


def _gelu_tanh_backward_block(out, g, x, block) -> None:
    # d/dx: (1 + t) / 2 + x / 2 * (1 - t^2) * sqrt(2/pi) * (1 + 3c x^2)
    _, t, x2, d, _ = block.trim(x.size)
    _tanh_inner(x, t, x2)
    np.multiply(x2, np.float32(3) * _TANH_C, out=x2)
    np.add(x2, _ONE, out=x2)
    np.multiply(x2, _SQRT_2_OVER_PI * _HALF, out=x2)
    np.multiply(x2, x, out=x2)
    np.multiply(t, t, out=d)
    np.subtract(_ONE, d, out=d)
    np.multiply(x2, d, out=x2)
    np.add(t, _ONE, out=t)
    np.multiply(t, _HALF, out=t)
    np.add(t, x2, out=t)
    np.multiply(t, g, out=out)


def gelu(x: np.ndarray, approximate: str, out: np.ndarray | None = None) -> np.ndarray:
    """x * Phi(x) (``approximate='tanh'``: its tanh form) of a float array, computed in float32."""
    return _blocks(_gelu_tanh_block if approximate == "tanh" else _gelu_block, out, x)


def gelu_backward(g: np.ndarray, x: np.ndarray, approximate: str, out: np.ndarray | None = None) -> np.ndarray:
    """g * gelu'(x) of same-shaped float arrays, computed in float32: g * (Phi(x) + x * pdf(x))."""
    return _blocks(_gelu_tanh_backward_block if approximate == "tanh" else _gelu_backward_block, out, g, x)
