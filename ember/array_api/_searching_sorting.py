"""Searching, set and sorting functions.

Where the standard's semantics differ from PyTorch's: ``count_nonzero`` keeps dims on request,
``nonzero`` refuses 0-d arrays, the ``unique_*`` functions answer named tuples and count each NaN
as its own value, ``isin`` takes a scalar on either side, ``sort`` answers values only and sorting
is stable by default.

>>> import ember.array_api as xp
>>> xp.unique_inverse(xp.asarray([3, 1, 3]))
UniqueInverseResult(values=tensor([1, 3]), inverse_indices=tensor([1, 0, 1]))
"""

from __future__ import annotations

from typing import NamedTuple

from .._core import dtype as _dt
from .._core.dtype import bool_, int64
from .._core.tensor import Tensor
from ..ops.functional import FUNCTIONS as _F
from ._helpers import is_array, no_axes, normalize_axes, standard_pair

# Generated functions whose signature and semantics already match the standard's.
_SAME = ("argmax", "argmin", "searchsorted")
argmax = _F["argmax"]
argmin = _F["argmin"]
searchsorted = _F["searchsorted"]


def where(condition, x1, x2, /):
    """``x1`` where ``condition``, ``x2`` elsewhere; two arrays promote by the standard's rule
    (a 0-d one as any other), Python scalars are weak."""
    if is_array(x1) and is_array(x2):
        x1, x2 = standard_pair(x1, x2)
    return _F["where"](condition, x1, x2)


# --------------------------------------------------------------------------------------------
# Searching functions.


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements over ``axis``."""
    if no_axes(axis):
        return _F["astype"](_F["ne"](x, 0), int64)
    out = _F["count_nonzero"](x, axis)
    if keepdims:
        axes = set(normalize_axes(axis, x.ndim, "count_nonzero"))
        out = _F["reshape"](out, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return out


def nonzero(x, /):
    """The indices of the non-zero elements, one array per axis of ``x`` (which must not be 0-d)."""
    if x.ndim == 0:
        raise ValueError("nonzero(): 0-d arrays are not supported; use nonzero(reshape(x, (1,))) instead")
    return tuple(_F["nonzero"](x, as_tuple=True))


# --------------------------------------------------------------------------------------------
# Set functions.


class UniqueAllResult(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


def _unique(x):
    """Sorted unique values, inverse indices (flat) and counts; each NaN is its own value."""
    flat = _F["reshape"](x, (-1,))
    nans = _F["isnan"](flat) if (x.dtype.is_floating_point or x.dtype.is_complex) else None
    if nans is None or not _F["any"](nans).item():
        values, inverse, counts = _F["unique"](flat, True, True, True)
        return values, inverse, counts
    keep = _F["logical_not"](nans)
    values, inv_kept, counts = _F["unique"](flat[keep], True, True, True)
    n_nan = int(_F["sum"](nans).item())
    inverse = _F["empty"](flat.shape, dtype=int64, device=x.device)
    inverse[keep] = inv_kept
    inverse[nans] = _F["arange"](values.shape[0], values.shape[0] + n_nan, dtype=int64, device=x.device)
    values = _F["cat"]([values, flat[nans]], 0)
    counts = _F["cat"]([counts, _F["ones"]((n_nan,), dtype=int64, device=x.device)], 0)
    return values, inverse, counts


def unique_all(x, /):
    """Unique values, first-occurrence indices, inverse indices (shape of ``x``) and counts."""
    values, inverse, counts = _unique(x)
    # The first occurrence of value k: stably sort the inverse indices; k's run starts at cumsum(counts)[k-1].
    order = _F["argsort"](inverse, stable=True)
    starts = _F["sub"](_F["cumsum"](counts, 0), counts)
    indices = _F["index_select"](order, 0, starts)
    return UniqueAllResult(values, indices, _F["reshape"](inverse, x.shape), counts)


def unique_counts(x, /):
    """Unique values and how often each occurs."""
    values, _, counts = _unique(x)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """Unique values and the indices into them that rebuild ``x`` (shape of ``x``)."""
    values, inverse, _ = _unique(x)
    return UniqueInverseResult(values, _F["reshape"](inverse, x.shape))


def unique_values(x, /):
    """Unique values (sorted; each NaN distinct)."""
    return _unique(x)[0]


def isin(x1, x2, /, *, invert=False):
    """Whether each element of ``x1`` equals some element of ``x2`` (``not`` that with ``invert``)."""
    if not is_array(x1) and not is_array(x2):
        raise TypeError(f"isin(): expected at least one of x1 and x2 to be an array, got {type(x1).__name__} and {type(x2).__name__}")
    dtype = _dt.array_api_result_type(x1, x2)
    dev = x1.device if is_array(x1) else x2.device
    a = _F["asarray"](x1, dtype=dtype, device=dev)
    b = _F["reshape"](_F["asarray"](x2, dtype=dtype, device=dev), (-1,))
    if b.shape[0] == 0:
        out = _F["zeros"](a.shape, dtype=bool_, device=dev)
    elif dtype.is_complex or dtype == bool_:
        out = _F["any"](_F["eq"](_F["unsqueeze"](a, -1), b), -1)
    else:
        s = _F["sort"](b).values
        pos = _F["clamp"](_F["searchsorted"](s, a), 0, s.shape[0] - 1)
        out = _F["eq"](_F["take"](s, pos), a)
    return _F["logical_not"](out) if invert else out


# --------------------------------------------------------------------------------------------
# Sorting functions.


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """Indices that sort ``x`` along ``axis`` (stable by default)."""
    return _F["argsort"](x, axis, descending, stable=stable)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """``x`` sorted along ``axis`` (values only; stable by default)."""
    return _F["sort"](x, axis, descending, stable=stable).values
