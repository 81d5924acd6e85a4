"""The helper functions of ``ember.fft``: the sample frequencies of a transform (``fftfreq``,
``rfftfreq``) and the shifts that put the zero frequency in the middle (``fftshift``,
``ifftshift``). Composites of ``arange`` and ``roll``, as in PyTorch.

>>> import ember
>>> ember.fft.fftfreq(4).tolist()
[0.0, 0.25, -0.5, -0.25]
>>> ember.fft.fftshift(ember.fft.fftfreq(4)).tolist()
[-0.5, -0.25, 0.0, 0.25]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..common import functional as _F
from ..creation._common import check_requires_grad
from ..functor import functor
from ..schema import schema_family

declare = schema_family("spectral")


def _frequencies(op: str, n: int, d: float, count: int, negative_from: int, dtype, device, requires_grad, out):
    """``count`` frequencies ``k / (n * d)``, ``k`` counting up from 0 and, from ``negative_from`` on, up from ``-(n // 2)``."""
    if dtype is None:
        dtype = out._dtype if out is not None else _dt.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{op} requires a floating point or complex dtype")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    F = _F().FUNCTIONS
    k = F["arange"](count, device=device)
    if negative_from < count:
        k = F["where"](k >= negative_from, k - n, k)
    scale = 1.0 / (n * d) if n * d != 0 else math.copysign(math.inf, d)
    if out is not None:
        return F["mul"](k.to(dtype), scale, out=out)
    return check_requires_grad(k.to(dtype) * scale, requires_grad)


_FREQ = "Tensor (Int n, Float d=1.0, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => {}"

declare(
    "fft.fftfreq", _FREQ.format("FftFftfreq"), out=True, composite=True, differentiable=False,
    doc="""
    The sample frequencies of an ``n``-point transform with sample spacing ``d``: non-negative ones first.

    >>> ember.fft.fftfreq(5, d=0.25).tolist()
    [0.0, 0.800000011920929, 1.600000023841858, -1.600000023841858, -0.800000011920929]
    >>> ember.fft.fftfreq(4, d=0.25).tolist()
    [0.0, 1.0, -2.0, -1.0]
    """,
)  # fmt: skip
@functor("FftFftfreq")
def fft_fftfreq(n, d=1.0, dtype=None, device=None, requires_grad=False, out=None):
    return _frequencies("fftfreq", n, d, n, (n + 1) // 2, dtype, device, requires_grad, out)


declare(
    "fft.rfftfreq", _FREQ.format("FftRfftfreq"), out=True, composite=True, differentiable=False,
    doc="""
    The ``n // 2 + 1`` non-negative sample frequencies of ``rfft``'s result.

    >>> ember.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """,
)  # fmt: skip
@functor("FftRfftfreq")
def fft_rfftfreq(n, d=1.0, dtype=None, device=None, requires_grad=False, out=None):
    return _frequencies("rfftfreq", n, d, n // 2 + 1 if n >= 0 else n, n // 2 + 1, dtype, device, requires_grad, out)


def _roll_half(op: str, x, dim, extra: int):
    """``x`` rolled by half of each size of ``dim`` (all dims when None); ``extra`` rounds odd sizes up."""
    if dim is None:
        dims = tuple(range(x.ndim))
    else:
        dims = tuple(wrap_dim(d, x.ndim, op) for d in ([dim] if isinstance(dim, int) else dim))
    if not dims:  # a 0-d tensor or dim=(): torch's roll refuses to roll nothing
        raise RuntimeError(f"{op}: no dim to shift (`shifts` required): input has {x.ndim} dims, dim={dim}")
    shifts = tuple((x._shape[d] + extra) // 2 for d in dims)
    return _F().FUNCTIONS["roll"](x, shifts, dims)


declare(
    "fft.fftshift", "Tensor (Tensor input, IntList? dim=None) => FftFftshift", composite=True,
    doc="""
    The zero frequency moved to the middle: each of ``dim`` (all by default) rolled by half its size.

    >>> ember.fft.fftshift(ember.tensor([0, 1, 2, -2, -1])).tolist()
    [-2, -1, 0, 1, 2]
    """,
)  # fmt: skip
@functor("FftFftshift")
def fft_fftshift(input, dim=None):
    return _roll_half("fftshift", input, dim, 0)


declare(
    "fft.ifftshift", "Tensor (Tensor input, IntList? dim=None) => FftIfftshift", composite=True,
    doc="""
    The inverse of ``fftshift`` (they differ by one sample along odd sizes).

    >>> ember.fft.ifftshift(ember.tensor([-2, -1, 0, 1, 2])).tolist()
    [0, 1, 2, -2, -1]
    """,
)  # fmt: skip
@functor("FftIfftshift")
def fft_ifftshift(input, dim=None):
    return _roll_half("ifftshift", input, dim, 1)


__all__ = ["fft_fftfreq", "fft_fftshift", "fft_ifftshift", "fft_rfftfreq"]
