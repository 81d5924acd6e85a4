"""CPU kernels of the updates ``beta * input + alpha * product``: ``addmm``, ``addmv``, ``addr``,
``baddbmm`` and ``addbmm``.

The product goes through ``np.matmul`` (BLAS for floats); ``beta`` and ``alpha`` are cast to the
result's dtype first, as PyTorch casts its scalars. A zero ``beta`` leaves ``input`` out and a
zero ``alpha`` the product, so their NaNs do not reach the result.
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import store
from ..elementwise.factories import quiet  # inf * 0 in a product is NaN, not a NumPy warning
from ._common import compute


def _update(product):
    def kernel(outs, ins, attrs):
        out = outs[0]
        inp, a, b = compute(*(x.astype(out.dtype, copy=False) for x in ins))
        dtype = a.dtype
        beta, alpha = dtype.type(attrs["beta"]), dtype.type(attrs["alpha"])
        result = np.zeros(out.shape, dtype) if alpha == 0 else product(a, b)
        if alpha != 0 and alpha != 1:
            result = result * alpha
        if beta != 0:
            result = result + (inp if beta == 1 else inp * beta)
        store(out, np.broadcast_to(result, out.shape))

    return quiet(kernel)


def _outer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.logical_and.outer(a, b) if a.dtype == np.bool_ else np.multiply.outer(a, b)


def _summed_bmm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.matmul(a, b).sum(axis=0, dtype=a.dtype)


register_kernel("addmm")(_update(np.matmul))
register_kernel("addmv")(_update(np.matmul))
register_kernel("baddbmm")(_update(np.matmul))
register_kernel("addr")(_update(_outer))
register_kernel("addbmm")(_update(_summed_bmm))
