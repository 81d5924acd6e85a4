"""CPU kernels of ``einsum`` (one ``np.einsum`` over the spelled-out equation) and ``tensordot``."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import store
from ..elementwise.factories import quiet  # inf * 0 in a product is NaN, not a NumPy warning
from ._common import compute


@register_kernel("einsum")
@quiet
def einsum(outs, ins, attrs):
    out = outs[0]
    ops = compute(*ins)
    if out.dtype != ops[0].dtype and out.dtype == np.int64 and ops[0].dtype.kind in "biu":
        ops = [op.astype(np.int64) for op in ops]  # integers and bools summed over a subscript: in int64, as in PyTorch
    if out.dtype == ops[0].dtype:
        np.einsum(attrs["equation"], *ops, out=out, optimize=attrs["optimize"])
    else:
        store(out, np.einsum(attrs["equation"], *ops, optimize=attrs["optimize"]))


@register_kernel("tensordot")
@quiet
def tensordot(outs, ins, attrs):
    a, b = compute(*ins)
    da, db = attrs["dims_a"], attrs["dims_b"]
    for i, j in zip(da, db, strict=True):  # a size-1 dim broadcasts: sum the other operand over it
        if a.shape[i] != b.shape[j]:
            if b.shape[j] == 1:
                a = np.sum(a, axis=i, keepdims=True)
            else:
                b = np.sum(b, axis=j, keepdims=True)
    store(outs[0], np.tensordot(a, b, axes=(da, db)))
