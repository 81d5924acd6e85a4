"""The array API ``fft`` extension over ``ember.fft``.

The standard's signatures (``axis``/``axes`` for ``dim``, ``norm="backward"`` by default) and its
dtype rules, stricter than PyTorch's: ``fft``/``ifft``/``fftn``/``ifftn``, ``irfft``/``irfftn``
and ``hfft`` take complex floating-point arrays only (PyTorch makes a real input complex), the
real transforms ``rfft``/``rfftn``/``ihfft`` real floating-point ones only, the shifts floating
ones; a float32 or complex64 input keeps its precision. Any other dtype raises ``TypeError``.
``fftfreq``/``rfftfreq`` take a real floating-point ``dtype`` (``ValueError`` otherwise).

>>> import ember.array_api as xp
>>> xp.fft.rfft(xp.asarray([1.0, 2.0, 3.0, 4.0]))
tensor([10.+0.j, -2.+2.j, -2.+0.j])
>>> xp.fft.fftshift(xp.fft.fftfreq(4))
tensor([-0.5000, -0.2500,  0.0000,  0.2500])
"""

from __future__ import annotations

from .._core import dtype as _dt
from ..ops.functional import NAMESPACES as _NAMESPACES
from ._info import __array_namespace_info__ as _info

_FFT = _NAMESPACES["fft"]

__all__ = [
    "fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft", "irfft", "irfftn", "rfft",
    "rfftfreq", "rfftn",
]  # fmt: skip

# what each kind of input may be: the standard's dtype kinds, and their name in a message
_KINDS = {
    "complex": ("complex floating", "complex floating-point"),
    "real": ("real floating", "real floating-point"),
    "floating": (("real floating", "complex floating"), "floating-point"),
}


def _check(x, kind: str, name: str) -> None:
    kinds, words = _KINDS[kind]
    if not _dt.isdtype(x.dtype, kinds):
        raise TypeError(f"{name}(): only {words} dtypes are allowed, got {x.dtype}")


def _axes(axes):
    """The standard's ``axes`` as ember's ``dim`` (a tuple, or None for every axis)."""
    return None if axes is None else tuple(axes) if not isinstance(axes, int) else (axes,)


def _one_dim(name: str, kind: str):
    transform = _FFT[name]

    def standard(x, /, *, n=None, axis=-1, norm="backward"):
        _check(x, kind, name)
        return transform(x, n, axis, norm)

    standard.__name__ = standard.__qualname__ = name
    standard.__doc__ = f"``ember.fft.{name}`` over ``axis``, for {_KINDS[kind][1]} ``x``."
    return standard


def _n_dim(name: str, kind: str):
    transform = _FFT[name]

    def standard(x, /, *, s=None, axes=None, norm="backward"):
        _check(x, kind, name)
        return transform(x, s, _axes(axes), norm)

    standard.__name__ = standard.__qualname__ = name
    standard.__doc__ = f"``ember.fft.{name}`` over ``axes`` (all when None), for {_KINDS[kind][1]} ``x``."
    return standard


fft = _one_dim("fft", "complex")
ifft = _one_dim("ifft", "complex")
rfft = _one_dim("rfft", "real")
irfft = _one_dim("irfft", "complex")
hfft = _one_dim("hfft", "complex")
ihfft = _one_dim("ihfft", "real")
fftn = _n_dim("fftn", "complex")
ifftn = _n_dim("ifftn", "complex")
rfftn = _n_dim("rfftn", "real")
irfftn = _n_dim("irfftn", "complex")


def _frequencies(name: str, n: int, d: float, dtype, device):
    if dtype is not None and not _dt.isdtype(dtype, "real floating"):
        raise ValueError(f"{name}(): dtype must be a real floating-point dtype, got {dtype}")
    _info._check_device(device)
    return _FFT[name](n, d, dtype=dtype, device=device)


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``."""
    return _frequencies("fftfreq", n, d, dtype, device)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The ``n // 2 + 1`` non-negative sample frequencies of ``rfft``."""
    return _frequencies("rfftfreq", n, d, dtype, device)


def _shift(name: str, x, axes):
    _check(x, "floating", name)
    dims = _axes(axes)
    if x.ndim == 0 or dims == ():  # nothing to shift (torch.fft.fftshift refuses; the standard asks for x)
        return x
    return _FFT[name](x, dims)


def fftshift(x, /, *, axes=None):
    """The zero frequency moved to the middle of each of ``axes`` (all when None)."""
    return _shift("fftshift", x, axes)


def ifftshift(x, /, *, axes=None):
    """The inverse of ``fftshift``."""
    return _shift("ifftshift", x, axes)
