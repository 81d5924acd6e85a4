"""CPU kernels of the three FFT primitives, on NumPy's pocketfft (``numpy.fft``).

NumPy's ``norm`` names a direction's convention, the primitives' ``normalization`` a scale
(0 none, 1 ``1/sqrt(n)``, 2 ``1/n``); the tables below translate. NumPy computes float32 and
complex64 in single precision; a 1-d transform whose output already has NumPy's result dtype
is written straight into it.
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import store

# The scale (0, 1, 2) as NumPy's norm for a forward (fft) and an inverse (ifft) transform.
_FORWARD_NORM = ("backward", "ortho", "forward")
_INVERSE_NORM = ("forward", "ortho", "backward")


def _direct(out: np.ndarray, dtype: np.dtype, dims: tuple) -> np.ndarray | None:
    """``out`` when NumPy may write a 1-d transform into it, else None (the result is copied in)."""
    return out if len(dims) == 1 and out.dtype == dtype and out.size else None


def _write(out: np.ndarray, result: np.ndarray) -> None:
    if result is not out:
        store(out, result)


@register_kernel("fft_c2c")
def c2c(outs, ins, attrs):
    (x,), (out,), dims = ins, outs, attrs["dim"]
    if not dims or x.size == 0:
        store(out, x)
        return
    if attrs["forward"]:
        norm = _FORWARD_NORM[attrs["normalization"]]
        if len(dims) == 1:
            _write(out, np.fft.fft(x, axis=dims[0], norm=norm, out=_direct(out, x.dtype, dims)))
        else:
            store(out, np.fft.fftn(x, axes=dims, norm=norm))
        return
    norm = _INVERSE_NORM[attrs["normalization"]]
    if len(dims) == 1:
        _write(out, np.fft.ifft(x, axis=dims[0], norm=norm, out=_direct(out, x.dtype, dims)))
    else:
        store(out, np.fft.ifftn(x, axes=dims, norm=norm))


@register_kernel("fft_r2c")
def r2c(outs, ins, attrs):
    (x,), (out,), dims = ins, outs, attrs["dim"]
    if x.size == 0 or out.size == 0:
        return
    norm = _FORWARD_NORM[attrs["normalization"]]
    cdtype = np.result_type(x.dtype, np.complex64)
    if attrs["onesided"]:
        if len(dims) == 1:
            result = np.fft.rfft(x, axis=dims[0], norm=norm, out=_direct(out, cdtype, dims))
        else:
            result = np.fft.rfftn(x, axes=dims, norm=norm)
    else:
        result = np.fft.fftn(x, axes=dims, norm=norm)
    _write(out, result)
    if not attrs["forward"]:  # the inverse of a real signal: the forward transform's conjugate
        np.conjugate(out, out=out)


@register_kernel("fft_c2r")
def c2r(outs, ins, attrs):
    (x,), (out,), dims = ins, outs, attrs["dim"]
    if out.size == 0:
        return
    if attrs["forward"]:  # hfft: the transform of the conjugate
        x = np.conjugate(x)
    norm = _INVERSE_NORM[attrs["normalization"]]
    n = attrs["last_dim_size"]
    if len(dims) == 1:
        result = np.fft.irfft(x, n=n, axis=dims[0], norm=norm, out=_direct(out, np.result_type(x.real.dtype), dims))
    else:
        sizes = [x.shape[d] for d in dims[:-1]] + [n]
        result = np.fft.irfftn(x, s=sizes, axes=dims, norm=norm)
    _write(out, result)
