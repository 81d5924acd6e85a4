"""Counting ops whose result length depends on the data or on a bin count: ``bincount`` (how
often each non-negative integer occurs, optionally weighted) and ``histc`` (a histogram of equal
bins). Neither has a derivative (PyTorch's ``derivatives.yaml`` says not implemented for both).
``bincount``'s functor reads the largest value on the host (a sync point, as PyTorch's CPU
kernel does) and passes the length to the inference rule. Kernels:
``ember/kernels/cpu/reduction.py``.

>>> import ember
>>> ember.bincount(ember.tensor([0, 1, 1, 3])).tolist()
[1, 2, 0, 1]
>>> ember.histc(ember.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist()
[0.0, 2.0, 1.0, 0.0]
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..functor import functor
from ..schema import schema_family

declare = schema_family("reduction")

__all__ = ["histc_range", "torch_float_text"]


def _not_implemented(op: str, dtype) -> NotImplementedError:
    return NotImplementedError(f'"{op}" not implemented for \'{dtype.name}\'')


# --- bincount --------------------------------------------------------------------------------

declare(
    "bincount",
    "Tensor (Tensor input, Tensor? weights=None, Int minlength=0) => Bincount",
    method=True, differentiable=False,
    doc="""
    How often each value of a 1-D tensor of non-negative integers occurs: ``out[i]`` counts the
    ``i`` in ``input`` (or sums their ``weights``); the length is ``max(input) + 1``, at least
    ``minlength``. Counts are int64; weighted sums keep float32 weights' dtype and are float64
    for any other weights, as in PyTorch.

    >>> ember.bincount(ember.tensor([2, 0, 2]), weights=ember.tensor([0.5, 1.0, 0.25])).tolist()
    [1.0, 0.0, 0.75]
    """,
)


@functor("Bincount")
def bincount(input, weights=None, minlength=0):
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights._shape[0] != input._shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if input._shape[0] == 0:  # PyTorch: int64 zeros whatever the weights
        return dispatch(_BINCOUNT, (input,), {"length": minlength, "dtype": _dt.int64, "weighted": False})[0]
    if not _dt.isdtype(input._dtype, "integral"):
        raise _not_implemented("bincount", input._dtype)
    if input.is_meta:
        raise NotImplementedError("bincount(): meta tensors are not supported (the result's length depends on data)")
    values = input._host_array()
    if values.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    length = max(int(values.max()) + 1, minlength)
    if weights is None:
        return dispatch(_BINCOUNT, (input,), {"length": length, "dtype": _dt.int64, "weighted": False})[0]
    if weights._dtype is _dt.string:
        raise _not_implemented("bincount", weights._dtype)
    dtype = _dt.float32 if weights._dtype is _dt.float32 else _dt.float64
    return dispatch(_BINCOUNT, (input, weights), {"length": length, "dtype": dtype, "weighted": True})[0]


_BINCOUNT = OpExpr("bincount", ("input", "weights"), ("out",))


@_BINCOUNT.shape_rule
def _bincount_infer(attrs, *inputs):
    return (((attrs["length"],), attrs["dtype"]),)


# --- histc -----------------------------------------------------------------------------------

declare(
    "histc",
    "Tensor (Tensor input, Int bins=100, Scalar min=0, Scalar max=0) => Histc",
    method=True, out=True, differentiable=False,
    doc="""
    A histogram of ``input`` (any shape, flattened) in ``bins`` equal bins from ``min`` to
    ``max``; when ``min == max`` the data's own range is used (widened by 1 on each side when
    that is a single value). Values outside the range are not counted; the last bin includes
    its right edge. Floating dtypes only; the result has the input's dtype.

    >>> ember.histc(ember.tensor([2.0, 2.0]), bins=4).tolist()
    [0.0, 0.0, 2.0, 0.0]
    """,
)


def torch_float_text(value: float) -> str:
    """A float as C++ streams print it (6 significant digits), the form PyTorch's messages use."""
    return f"{value:g}"


def histc_range(values: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """The outer bin edges ``histc`` uses for ``values`` and the requested ``min``/``max``."""
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if lo == hi and values.size:
        lo, hi = float(values.min()), float(values.max())
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{torch_float_text(lo)}, {torch_float_text(hi)}] is not finite")
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    return lo, hi


@functor("Histc")
def histc(input, bins=100, min=0, max=0, out=None):
    if input._dtype.is_complex or isinstance(min, complex) or isinstance(max, complex):
        raise _not_implemented("histc", input._dtype if input._dtype.is_complex else _dt.complex64)
    if not input._dtype.is_floating_point:
        raise _not_implemented("histc", input._dtype)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    # the data's range is read on the host (a sync point); a meta tensor has no data, only the shape
    values = np.zeros(0, np.float32) if input.is_meta else input._host_array()
    if input._dtype in (_dt.float16, _dt.bfloat16):
        values = values.astype(np.float32)
    lo, hi = histc_range(values, float(min), float(max))
    attrs = {"bins": int(bins), "min": lo, "max": hi}
    return dispatch(_HISTC, (input,), attrs, None if out is None else (out,))[0]


_HISTC = OpExpr("histc", ("input",), ("out",))


@_HISTC.shape_rule
def _histc_infer(attrs, x):
    return (((attrs["bins"],), x._dtype),)
