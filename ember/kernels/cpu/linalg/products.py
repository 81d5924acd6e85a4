"""CPU kernels of the products: ``matmul`` straight into the output through BLAS, ``vdot``,
``outer``, ``linalg.vecdot`` and ``linalg.cross``.

``matmul`` writes with ``np.matmul(a, b, out=out)``: NumPy hands transposed views to BLAS
without copying them. float16/bfloat16 compute in float32 and are written back.
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import HALF, store
from ..elementwise.factories import quiet  # inf * 0 in a product is NaN, not a NumPy warning
from ._common import compute


@register_kernel("matmul")
@quiet
def matmul(outs, ins, attrs):
    out = outs[0]
    a, b = ins
    if a.dtype in HALF:
        store(out, np.matmul(*compute(a, b)))
    elif out.dtype == a.dtype:
        np.matmul(a, b, out=out)
    else:
        store(out, np.matmul(a, b))


@register_kernel("vdot")
@quiet
def vdot(outs, ins, attrs):
    store(outs[0], np.vdot(*compute(*ins)))


@register_kernel("outer")
@quiet
def outer(outs, ins, attrs):
    out = outs[0]
    a, b = ins
    if out.dtype in HALF:
        a, b = compute(a.astype(out.dtype), b.astype(out.dtype))
        store(out, np.multiply(a[:, None], b[None, :]))
    else:
        np.multiply(a[:, None], b[None, :], out=out, dtype=out.dtype, casting="unsafe")


@register_kernel("linalg_vecdot")
@quiet
def vecdot(outs, ins, attrs):
    x, y = compute(*ins)
    product = np.multiply(np.conj(x) if x.dtype.kind == "c" else x, y)
    if product.ndim:
        dim = attrs["dim"]
        product = np.sum(product, axis=dim if dim < 0 else dim - product.ndim)
    store(outs[0], product)


@register_kernel("linalg_cross")
@quiet
def cross(outs, ins, attrs):
    a, b = compute(*ins)
    store(outs[0], np.cross(a, b, axis=attrs["dim"]))
