"""interpolate: nearest, nearest-exact, linear, bilinear, bicubic, trilinear and area
resampling of (N, C, *spatial) input, and the index math it shares with its CPU kernel.

The separable modes resample one axis at a time by an (out, in) matrix (``linear_matrix``);
the nearest modes gather at source indices (``nearest_index``). The derivative applies the
same matrices transposed, or adds the gradient back at the same indices. Kernel:
``ember/kernels/cpu/nn/resample.py``.

>>> nearest_index(2, 4, None, False).tolist()
[0, 0, 1, 1]
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import _apply_matrices, _check_floating, _const, _not_implemented, _np_dtype

declare = schema_family("nn", namespaces=("nn.functional",))

__all__ = ["linear_matrix", "nearest_index"]


_MODES_BY_DIM = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"


def _per_dim(value, n: int, scale: bool, spatial) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            what, got, letter = ("scale_factor", "scale_factor of shape", "s") if scale else ("output", "output size of", "o")
            raise ValueError(
                f"Input and {what} must have the same number of spatial dimensions, but got input with spatial dimensions of "
                f"{list(spatial)} and {got} {tuple(value)}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                f"{'scale_factor' if scale else 'output size'} in ({letter}1, {letter}2, ...,{letter}K) format."
            )
        return list(value)
    return [value] * n


declare(
    "interpolate",
    'Tensor (Tensor input, Object size=None, Object scale_factor=None, String mode="nearest", Bool? align_corners=None, Bool? recompute_scale_factor=None, Bool antialias=False) => Interpolate',
    doc="""
    Resample (N, C, ...) input by ``size`` or ``scale_factor``: nearest, nearest-exact, linear,
    bilinear, bicubic, trilinear or area.

    >>> ember.interpolate(ember.tensor([[[1.0, 2.0]]]), scale_factor=2).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """,
)
@functor("Interpolate")
def interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias):
    nd = input.ndim - 2
    if (mode not in ("nearest", "nearest-exact", "area") and mode not in _MODES_BY_DIM) or nd not in (1, 2, 3):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: {_ALL_MODES} (got {mode})"
        )
    if mode in _MODES_BY_DIM and _MODES_BY_DIM[mode] != nd:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_MODES_BY_DIM[mode] + 2}D input")
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True is not supported")
    spatial = input._shape[2:]
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [int(s) for s in _per_dim(size, nd, False, spatial)]
        scales = [None] * nd
    elif scale_factor is not None:
        scales = [float(s) for s in _per_dim(scale_factor, nd, True, spatial)]
        sizes = [math.floor(s * f) for s, f in zip(spatial, scales, strict=True)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = [None] * nd
    if any(s <= 0 for s in spatial) or any(o <= 0 for o in sizes):
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({', '.join(map(str, spatial))}) output ({', '.join(map(str, sizes))})"
        )
    if mode == "area":
        F = _F()
        return getattr(F, f"adaptive_avg_pool{nd}d")(input, tuple(sizes))
    if mode not in ("nearest", "nearest-exact"):
        _check_floating(f"upsample_{mode}{nd}d", input._dtype)
    elif input._dtype is _dt.string or input._dtype.is_complex:
        raise _not_implemented(f"upsample_nearest{nd}d", input._dtype)
    attrs = {"mode": mode, "output_size": tuple(sizes), "scales": tuple(scales), "align_corners": bool(align_corners)}
    return dispatch(_INTERPOLATE, (input,), attrs)[0]


_INTERPOLATE = OpExpr("interpolate", ("input",), ("out",))


@_INTERPOLATE.shape_rule
def _interpolate_infer(attrs, x):
    return ((x._shape[:2] + attrs["output_size"], x._dtype),)


@_INTERPOLATE.grad_rule(saves="none")
def _interpolate_grad(ctx, g):
    attrs = ctx.attrs
    shape, dtype = ctx.input_meta[0]
    mode = attrs["mode"]
    spatial, o_size, scales = shape[2:], g._shape[2:], attrs["scales"]
    if mode in ("nearest", "nearest-exact"):
        F = _F()
        grad = g
        for i in reversed(range(len(spatial))):
            idx = _const(np.asarray(nearest_index(spatial[i], o_size[i], scales[i], mode == "nearest-exact"), np.int64), _dt.int64)
            target = list(grad._shape)
            target[2 + i] = spatial[i]
            grad = F.zeros(tuple(target), dtype=grad._dtype).index_add(2 + i, idx, grad)
        return (grad,)
    ct = _np_dtype(dtype)
    mats = [_const(linear_matrix(s, o, sc, attrs["align_corners"], mode == "bicubic", ct).T.copy(), dtype)
            for s, o, sc in zip(spatial, o_size, scales, strict=True)]
    return (_apply_matrices(g, mats),)


def nearest_index(size: int, out: int, scale, exact: bool) -> np.ndarray:
    """PyTorch's nearest source indices, in float32 arithmetic as its kernels compute them."""
    dst = np.arange(out)
    if not exact and out == size:
        return dst
    if not exact and out == 2 * size:
        return dst >> 1
    r = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(size) / np.float32(out)
    pos = (dst.astype(np.float32) + np.float32(0.5)) * r if exact else dst.astype(np.float32) * r
    return np.minimum(np.floor(pos).astype(np.int64), size - 1)


def linear_matrix(size: int, out: int, scale, align_corners: bool, cubic: bool, ct: np.dtype) -> np.ndarray:
    """The (out, size) matrix of linear (``cubic``: bicubic, PyTorch's a = -0.75) resampling
    along one axis, source positions computed in ``ct``'s precision as PyTorch's kernels do."""
    op = np.float64 if ct == np.float64 else np.float32
    dst = np.arange(out).astype(op)
    if align_corners:
        r = op((size - 1) / (out - 1)) if out > 1 else op(0)
        src = dst * r
    else:
        r = op(1.0 / scale) if scale is not None and scale > 0 else op(size) / op(out)
        src = r * (dst + op(0.5)) - op(0.5)
        if not cubic:
            src = np.maximum(src, 0)
    m = np.zeros((out, size), np.float64)
    rows = np.arange(out)
    if not cubic:
        i0 = np.minimum(np.floor(src).astype(np.int64), size - 1)
        i1 = np.where(i0 < size - 1, i0 + 1, i0)
        l1 = (src - i0).astype(np.float64)
        np.add.at(m, (rows, i0), 1 - l1)
        np.add.at(m, (rows, i1), l1)
        return m.astype(ct)
    i = np.floor(src).astype(np.int64)
    t = (src - i).astype(np.float64)
    a = -0.75

    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    coeffs = (far(t + 1), near(t), near(1 - t), far(2 - t))
    for k, c in enumerate(coeffs):
        np.add.at(m, (rows, np.clip(i - 1 + k, 0, size - 1)), c)
    return m.astype(ct)
