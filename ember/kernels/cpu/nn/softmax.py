"""softmax and log_softmax: shifted by the row's maximum, so large inputs stay finite.

>>> _softmax(np.zeros((1, 2)), 1).tolist()
[[0.5, 0.5]]
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ._common import _work


def _log_softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    # unmasked, as PyTorch: a row whose maximum is +inf, -inf or nan gives a row of nan
    m = x.max(axis=axis, keepdims=True)
    out = np.subtract(x, m, out=out)
    s = np.exp(out).sum(axis=axis, keepdims=True)
    np.log(s, out=s)
    out -= s
    return out


def _softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    m = x.max(axis=axis, keepdims=True)
    if not np.isfinite(m).all():  # rare: a row of -inf (all masked) gives zeros, not nans
        m[np.isneginf(m)] = 0
    out = np.subtract(x, m, out=out)
    np.exp(out, out=out)
    out /= out.sum(axis=axis, keepdims=True)
    return out


def _softmax_kernel(log: bool):
    def kernel(outs, ins, attrs):
        out, x = outs[0], ins[0]
        if x.ndim == 0:
            x, out = x.reshape(1), out.reshape(1)
        if x.size == 0:
            return
        ct = compute_dtype(out.dtype)
        work = _work(out, ct)
        with np.errstate(invalid="ignore", divide="ignore"):
            (_log_softmax if log else _softmax)(x.astype(ct, copy=False), attrs["dim"], work)
        store(out, work)

    return kernel


register_kernel("softmax")(_softmax_kernel(False))
register_kernel("log_softmax")(_softmax_kernel(True))


@register_kernel("softmax_backward")
def _softmax_backward(outs, ins, attrs):
    """y * (g - sum(g * y)) along ``dim``, in the compute dtype."""
    out = outs[0]
    if out.size == 0:
        return
    ct = compute_dtype(out.dtype)
    g, y = (a.astype(ct, copy=False) for a in ins)
    gy = np.multiply(g, y)
    total = gy.sum(axis=attrs["dim"], keepdims=True)
    work = _work(out, ct)
    np.multiply(y, total, out=work)
    np.subtract(gy, work, out=work)
    store(out, work)
