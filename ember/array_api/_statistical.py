# ruff: noqa: A001 - the standard names its functions max, min, sum, all, any
"""Statistical and utility functions: the standard's reductions over ember's.

Where they differ from PyTorch's: ``max``/``min`` answer values only, ``std``/``var`` divide by
``N - correction`` with ``correction=0`` by default, integer sums and products widen (unsigned
ones to uint64), ``axis=()`` reduces over no axis, and the cumulative functions can lead with
their identity.

>>> import ember.array_api as xp
>>> xp.std(xp.asarray([1.0, 3.0])), xp.sum(xp.asarray([200, 100], dtype=xp.uint8))
(tensor(1.), tensor(300, dtype=ember.uint64))
"""

from __future__ import annotations

from .._core.dtype import bool_
from .._core.shape import wrap_dim
from ..ops.functional import FUNCTIONS as _F
from ._helpers import no_axes, sum_dtype

# --------------------------------------------------------------------------------------------
# Statistical functions.


def _cumulative(op: str, name: str, identity, x, axis, dtype, include_initial):
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{name}(): axis must be given for a {x.ndim}-d array (it may be left out only for 1-d arrays)")
        axis = 0
    axis = wrap_dim(axis, x.ndim, name)
    out = _F[op](x, axis, dtype=sum_dtype(x, dtype))
    if include_initial:
        shape = tuple(1 if i == axis else n for i, n in enumerate(out.shape))
        out = _F["cat"]([_F["full"](shape, identity, dtype=out.dtype, device=out.device), out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative sums along ``axis``; ``include_initial`` puts a leading 0."""
    return _cumulative("cumsum", "cumulative_sum", 0, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative products along ``axis``; ``include_initial`` puts a leading 1."""
    return _cumulative("cumprod", "cumulative_prod", 1, x, axis, dtype, include_initial)


def max(x, /, *, axis=None, keepdims=False):
    """Maximum over ``axis`` (values only; NaN propagates)."""
    if no_axes(axis):
        return _F["clone"](x)
    return _F["amax"](x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False):
    """Minimum over ``axis`` (values only; NaN propagates)."""
    if no_axes(axis):
        return _F["clone"](x)
    return _F["amin"](x, axis, keepdims)


def mean(x, /, *, axis=None, keepdims=False):
    """Arithmetic mean over ``axis``."""
    if no_axes(axis):
        return _F["clone"](x)
    return _F["mean"](x, axis, keepdims)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """Product over ``axis``; integer inputs accumulate in 64 bits (unsigned in uint64)."""
    dtype = sum_dtype(x, dtype)
    if no_axes(axis):
        return _F["astype"](x, dtype, copy=True)
    return _F["prod"](x, axis, keepdims, dtype=dtype)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    """Sum over ``axis``; integer inputs accumulate in 64 bits (unsigned in uint64)."""
    dtype = sum_dtype(x, dtype)
    if no_axes(axis):
        return _F["astype"](x, dtype, copy=True)
    return _F["sum"](x, axis, keepdims, dtype=dtype)


def _var(name: str, x, axis, correction, keepdims):
    if no_axes(axis):
        # Each reduction holds one element: its deviation is 0, divided by 1 - correction.
        zero = _F["sub"](x, x)
        out = _F["div"](_F["abs"](zero) if name == "std" else _F["mul"](zero, zero), 1 - correction)
        return _F["real"](out) if out.dtype.is_complex else out
    return _F[name](x, axis, keepdim=keepdims, correction=correction)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Standard deviation over ``axis``, dividing by ``N - correction`` (0 by default, unlike PyTorch's 1)."""
    return _var("std", x, axis, correction, keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Variance over ``axis``, dividing by ``N - correction`` (0 by default, unlike PyTorch's 1)."""
    return _var("var", x, axis, correction, keepdims)


# --------------------------------------------------------------------------------------------
# Utility functions.


def all(x, /, *, axis=None, keepdims=False):
    """Whether every element over ``axis`` is true (non-zero)."""
    if no_axes(axis):
        return _F["astype"](x, bool_, copy=True)
    out = _F["all"](x, axis, keepdims)
    return out if out.dtype == bool_ else _F["astype"](out, bool_)  # PyTorch keeps uint8 for uint8 input


def any(x, /, *, axis=None, keepdims=False):
    """Whether some element over ``axis`` is true (non-zero)."""
    if no_axes(axis):
        return _F["astype"](x, bool_, copy=True)
    out = _F["any"](x, axis, keepdims)
    return out if out.dtype == bool_ else _F["astype"](out, bool_)  # PyTorch keeps uint8 for uint8 input


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """``n``-th forward difference along ``axis``, after joining ``prepend`` and ``append``."""
    axis = wrap_dim(axis, x.ndim, "diff")
    if n < 0:
        raise ValueError(f"diff(): order n must be non-negative, got {n}")
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, x, append) if p is not None]
        x = _F["cat"](parts, axis)
    before = (slice(None),) * axis
    for _ in range(n):
        hi, lo = x[(*before, slice(1, None))], x[(*before, slice(None, -1))]
        x = _F["ne"](hi, lo) if x.dtype == bool_ else _F["sub"](hi, lo)
    return x
