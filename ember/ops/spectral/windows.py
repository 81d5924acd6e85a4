"""Window functions for short-time transforms: PyTorch's ``hann_window``, ``hamming_window``,
``blackman_window`` and ``bartlett_window``. Composites of ``arange`` and elementwise ops in the
window's own dtype, as PyTorch computes them; ``periodic=True`` (the default) gives the window of
``window_length + 1`` points without its last, the one spectral analysis wants.

>>> import ember
>>> ember.hann_window(4).tolist()
[0.0, 0.5, 1.0, 0.5]
>>> ember.hann_window(5, periodic=False).tolist()
[0.0, 0.5, 1.0, 0.5, 0.0]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..common import functional as _F
from ..creation._common import check_requires_grad
from ..functor import functor
from ..schema import schema_family

declare = schema_family("spectral")

_OPTIONS = "*, DType? dtype=None, Device? device=None, Bool requires_grad=False"


def _window(op: str, window_length: int, periodic: bool, dtype, device, requires_grad, shape):
    """``shape(n, N)`` over ``n = arange(N)`` (``N`` one longer when periodic), with PyTorch's checks and edge cases."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{op} requires non-negative window_length, got window_length={window_length}")
    F = _F().FUNCTIONS
    if window_length <= 1:
        window = F["ones"]((window_length,), dtype=dtype, device=device)
    else:
        n = window_length + 1 if periodic else window_length
        window = shape(F["arange"](n, dtype=dtype, device=device), n)
        if periodic:
            window = F["narrow"](window, 0, 0, window_length)
    return check_requires_grad(window, requires_grad)


def _cosine(alpha: float, beta: float):
    """``alpha - beta cos(2 pi n / (N - 1))``: the Hann and Hamming windows (PyTorch's order of operations)."""

    def shape(n, N):
        return alpha - beta * (n * (2 * math.pi / (N - 1))).cos()

    return shape


def _blackman(n, N):
    phase = n * (math.pi / (N - 1))
    return 0.08 * (phase * 4).cos() - 0.5 * (phase * 2).cos() + 0.42


declare(
    "hann_window", f"Tensor (Int window_length, Bool periodic=True, {_OPTIONS}) => HannWindow",
    composite=True, differentiable=False,
    doc="""
    The Hann window, ``0.5 - 0.5 cos(2 pi n / (N - 1))``.

    >>> ember.hann_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """,
)  # fmt: skip
@functor("HannWindow")
def hann_window(window_length, periodic=True, dtype=None, device=None, requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _cosine(0.5, 0.5))


declare(
    "hamming_window",
    f"Tensor (Int window_length, Bool periodic=True, Float alpha=0.54, Float beta=0.46, {_OPTIONS}) => HammingWindow",
    composite=True, differentiable=False,
    doc="""
    The Hamming window, ``alpha - beta cos(2 pi n / (N - 1))``.

    >>> [round(v, 4) for v in ember.hamming_window(3, periodic=False).tolist()]
    [0.08, 1.0, 0.08]
    """,
)  # fmt: skip
@functor("HammingWindow")
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, dtype=None, device=None, requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, _cosine(alpha, beta))


declare(
    "blackman_window", f"Tensor (Int window_length, Bool periodic=True, {_OPTIONS}) => BlackmanWindow",
    composite=True, differentiable=False,
    doc="""
    The Blackman window, ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> [round(v, 4) for v in ember.blackman_window(5, periodic=False)[1:4].tolist()]
    [0.34, 1.0, 0.34]
    """,
)  # fmt: skip
@functor("BlackmanWindow")
def blackman_window(window_length, periodic=True, dtype=None, device=None, requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, _blackman)


def _triangle(n, N):
    """``2n / (N - 1)`` rising to 1 in the middle, ``2 - 2n / (N - 1)`` falling after."""
    rising = n * (2 / (N - 1))
    return _F().FUNCTIONS["where"](n < (N - 1) // 2 + 1, rising, 2 - rising)


declare(
    "bartlett_window", f"Tensor (Int window_length, Bool periodic=True, {_OPTIONS}) => BartlettWindow",
    composite=True, differentiable=False,
    doc="""
    The Bartlett (triangular) window, ``1 - |2n / (N - 1) - 1|``.

    >>> ember.bartlett_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """,
)  # fmt: skip
@functor("BartlettWindow")
def bartlett_window(window_length, periodic=True, dtype=None, device=None, requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, _triangle)


__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window"]
