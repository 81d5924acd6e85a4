"""What the nn kernels share: a scratch array in the compute dtype, padding, the kernel-tap
slices that pooling and depthwise convolution loop over, and separable resampling.

>>> _along_axes(np.ones((1, 2)), [np.array([[0.5, 0.5]])]).tolist()
[[1.0]]
"""

from __future__ import annotations

import numpy as np


def _work(out: np.ndarray, ct: np.dtype) -> np.ndarray:
    """``out`` itself when it holds the compute dtype, else a scratch array to copy back."""
    return out if out.dtype == ct else np.empty(out.shape, ct)


def _padded(x: np.ndarray, pads, ct: np.dtype, fill=0) -> np.ndarray:
    """``x`` (N, C, *S) padded on its spatial axes by ``pads`` ((lo, hi) per axis, >= 0)."""
    if all(lo == 0 and hi == 0 for lo, hi in pads):
        return x.astype(ct, copy=False)
    spatial = x.shape[2:]
    shape = x.shape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads, strict=True))
    xp = np.full(shape, fill, ct)
    xp[(slice(None), slice(None), *(slice(lo, lo + s) for s, (lo, _) in zip(spatial, pads, strict=True)))] = x
    return xp


def _tap_slices(kernel, stride, dilation, o_size):
    """For each kernel tap, the strided slice of the padded input that the tap sees at every
    output position: pooling and depthwise convolution loop over taps, never over pixels."""
    for taps in np.ndindex(*kernel):
        yield taps, (slice(None), slice(None), *(slice(t * d, t * d + s * (o - 1) + 1, s)
                                                 for t, d, s, o in zip(taps, dilation, stride, o_size, strict=True)))


def _along_axes(x: np.ndarray, matrices) -> np.ndarray:
    """Apply one (out, in) matrix per trailing spatial axis (separable resampling)."""
    nd = len(matrices)
    for i, m in enumerate(matrices):
        axis = x.ndim - nd + i
        x = np.moveaxis(np.moveaxis(x, axis, -1) @ m.T, -1, axis)
    return x
