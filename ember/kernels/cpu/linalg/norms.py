"""CPU kernels of the vector and matrix norms; the half types compute in float32."""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store
from ..reduction_blocks import LEAF, reduce_in_blocks
from ._common import svd


def _norm_input(x: np.ndarray, attrs: dict) -> np.ndarray:
    dtype = attrs["dtype"]
    target = compute_dtype(dtype.numpy_dtype if dtype is not None else x.dtype)
    return x if x.dtype == target else x.astype(target)


def _sum_of_squares(block: np.ndarray, **kwargs) -> np.ndarray:
    return np.sum(np.square(block), **kwargs)


@register_kernel("linalg_vector_norm")
def vector_norm(outs, ins, attrs):
    x = _norm_input(ins[0], attrs)
    p, dims, keep = attrs["ord"], attrs["dims"], attrs["keepdim"]
    reduced = x.size if dims is None else int(np.prod([x.shape[d] for d in dims]))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if reduced == 1 and p != 0.0:  # one element: its magnitude, exactly (squaring 1e30 would overflow)
            r = np.sum(np.abs(x), axis=dims, keepdims=keep)
        elif p == 2.0 and x.dtype.kind != "c" and x.size > LEAF:  # in blocks on ember's threads, no full-size square
            r = np.empty(outs[0].shape, x.dtype)
            reduce_in_blocks(_sum_of_squares, np.add, x, tuple(range(x.ndim)) if dims is None else dims, r, x.dtype)
            r = np.sqrt(r, out=r)
        elif p == 2.0 and x.dtype.kind != "c":
            r = np.sqrt(np.sum(np.square(x), axis=dims, keepdims=keep))
        else:
            a = np.asarray(np.abs(x))
            if p == 2.0:
                r = np.sqrt(np.sum(np.square(a, out=a), axis=dims, keepdims=keep))
            elif p == np.inf:
                r = np.max(a, axis=dims, keepdims=keep)
            elif p == -np.inf:
                r = np.min(a, axis=dims, keepdims=keep)
            elif p == 0.0:
                r = np.sum(a != 0, axis=dims, keepdims=keep, dtype=a.dtype)
            elif p == 1.0:
                r = np.sum(a, axis=dims, keepdims=keep)
            else:
                r = np.power(np.sum(np.power(a, p), axis=dims, keepdims=keep), 1.0 / p)
    store(outs[0], r)


@register_kernel("linalg_matrix_norm")
def matrix_norm(outs, ins, attrs):
    out = outs[0]
    x = np.moveaxis(_norm_input(ins[0], attrs), attrs["matrix_dims"], (-2, -1))
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        out[...] = 0
        return
    order = attrs["ord"]
    if order in (2.0, -2.0, "nuc"):  # through the one SVD that keeps non-finite matrices from LAPACK
        s = svd(x, compute_uv=False)
        r = s.sum(axis=-1) if order == "nuc" else s.max(axis=-1) if order == 2.0 else s.min(axis=-1)
    else:
        r = np.linalg.norm(x, ord=order, axis=(-2, -1))
    store(out, np.reshape(r, out.shape))
