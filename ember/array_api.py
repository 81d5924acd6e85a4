# ruff: noqa: A001, A002 - the standard names its functions and parameters max, min, round, sum, all, any...
"""``ember.array_api``: the Python array API standard (2025.12) namespace of ember tensors.

``x.__array_namespace__()`` returns this module. ember's top-level functions follow PyTorch
(``ember.sum(x, dim=..., keepdim=...)``, ``ember.equal`` answers one bool); where the standard's
semantics differ, one namespace cannot serve both, so this one re-exports the generated
functions that already match the standard and adds thin adapters, written with ember ops, for
the rest (``equal`` elementwise, ``max``/``min`` values only, ``sort`` values only, stable by
default, ``std``/``var`` with ``correction=0``, ``unique_*`` named tuples, Python scalars on
either side of a binary function...).

>>> import ember.array_api as xp
>>> x = xp.asarray([[3, 1], [2, 2]])
>>> x.__array_namespace__() is xp
True
>>> xp.max(x, axis=0)
tensor([3, 2])
>>> xp.unique_counts(x)
UniqueCountsResult(values=tensor([1, 2, 3]), counts=tensor([1, 2, 1]))
>>> xp.std(xp.asarray([1.0, 3.0]))
tensor(1.)
"""

from __future__ import annotations

import builtins
import math
import sys
import types
from typing import NamedTuple

from ._core import dtype as _dt
from ._core.device import device as _device
from ._core.dtype import bool_ as bool  # noqa: A004 - the standard's name for the dtype
from ._core.dtype import (
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._core.shape import broadcast_shapes as _broadcast_shapes
from ._core.shape import wrap_dim as _wrap_dim
from ._core.tensor import Tensor
from .ops.functional import FUNCTIONS as _F
from .ops.functional import NAMESPACES as _NS

__array_api_version__ = "2025.12"
# Versions whose namespace this one also serves (each later version only adds to the earlier).
_SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

# --------------------------------------------------------------------------------------------
# Constants and data types.
e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None

can_cast = _dt.can_cast
finfo = _dt.finfo
iinfo = _dt.iinfo
isdtype = _dt.isdtype
result_type = _dt.result_type

# --------------------------------------------------------------------------------------------
# Generated functions whose signature and semantics already match the standard's.
_SAME = (
    # element-wise, one argument
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil", "conj",
    "cos", "cosh", "exp", "expm1", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log1p",
    "log2", "log10", "logical_not", "negative", "positive", "real", "reciprocal", "signbit", "sin",
    "sinh", "sqrt", "square", "tan", "tanh", "trunc",
    # the rest
    "argmax", "argmin", "asarray", "astype", "matmul", "matrix_transpose", "moveaxis",
    "searchsorted", "where",
)  # fmt: skip
globals().update({name: _F[name] for name in _SAME})


def _is_array(x: object) -> builtins.bool:
    return isinstance(x, Tensor)


def _scalar_operands(op: str, x1, x2):
    """The standard lets a Python scalar stand on either side (2025.12): make it a 0-d tensor.

    Its dtype is the one the weak-scalar promotion gives against the other operand, so
    ``add(1, x)`` has the dtype of ``add(x, 1)``.
    """
    if _is_array(x1):
        return x1, x2
    if not _is_array(x2):
        raise TypeError(f"{op}(): expected at least one of x1 and x2 to be an array, got {type(x1).__name__} and {type(x2).__name__}")
    return _F["asarray"](x1, dtype=_dt.result_type(x1, x2), device=x2.device), x2


def _binary(name: str, target: str | None = None):
    fn = _F[target or name]

    def op(x1, x2, /):
        x1, x2 = _scalar_operands(name, x1, x2)
        return fn(x1, x2)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Array API ``{name}(x1, x2, /)``: ember's ``{fn.__name__}``; either operand may be a Python scalar."
    return op


_BINARY = {
    "add": None, "atan2": None, "bitwise_and": None, "bitwise_left_shift": None, "bitwise_or": None,
    "bitwise_right_shift": None, "bitwise_xor": None, "copysign": None, "divide": None,
    "equal": "eq",  # ember.equal is PyTorch's one-bool torch.equal
    "floor_divide": None, "greater": "gt", "greater_equal": "ge", "hypot": None, "less": "lt",
    "less_equal": "le", "logaddexp": None, "logical_and": None, "logical_or": None, "logical_xor": None,
    "maximum": None, "minimum": None, "multiply": None, "nextafter": None, "not_equal": "ne", "pow": None,
    "remainder": None, "subtract": None,
}  # fmt: skip
globals().update({name: _binary(name, target) for name, target in _BINARY.items()})


# --------------------------------------------------------------------------------------------
# Helpers.


def _axes(axis, ndim: int, op: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple) as non-negative axes in the given order; None is all."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    axes = tuple(_wrap_dim(a, ndim, op) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}(): repeated axis in {tuple(axis)}")
    return axes


def _sum_dtype(x, dtype):
    """The standard's result dtype for sum/prod/cumulative_*/trace when ``dtype`` is None.

    Bool and signed integers widen to the default integer (int64, as in PyTorch), unsigned
    integers to uint64 (PyTorch gives int64), floating types stay.
    """
    if dtype is not None:
        return dtype
    if _dt.isdtype(x.dtype, "unsigned integer"):
        return uint64
    if _dt.isdtype(x.dtype, ("bool", "signed integer")):
        return int64
    return x.dtype


def _no_axes(axis) -> builtins.bool:
    """``axis=()`` reduces over no axis at all (PyTorch's ``dim=()`` would reduce over all)."""
    return isinstance(axis, tuple) and len(axis) == 0


# --------------------------------------------------------------------------------------------
# Creation functions.


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Values from ``start`` (or 0) up to ``stop`` (exclusive) by ``step``."""
    return _F["arange"](start, stop, step, dtype=dtype, device=device)


def empty(shape, *, dtype=None, device=None):
    """An uninitialized array of the given shape."""
    return _F["empty"](shape, dtype=dtype, device=device)


def empty_like(x, /, *, dtype=None, device=None):
    """An uninitialized array with the shape of ``x``."""
    return _F["empty_like"](x, dtype=dtype, device=device)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """A two-dimensional array with ones on the ``k``-th diagonal."""
    return _F["eye"](n_rows, n_cols, k=k, dtype=dtype, device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    """An array filled with ``fill_value`` (its dtype from the Python scalar when dtype is None)."""
    return _F["full"](shape, fill_value, dtype=dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """An array with the shape (and by default the dtype) of ``x``, filled with ``fill_value``."""
    return _F["full_like"](x, fill_value, dtype=dtype, device=device)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included when ``endpoint``)."""
    return _F["linspace"](start, stop, num, endpoint=endpoint, dtype=dtype, device=device)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from one-dimensional arrays, as a tuple; Cartesian ``xy`` by default."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid(): indexing must be 'xy' or 'ij', got {indexing!r}")
    if not arrays:
        return ()
    return tuple(_F["meshgrid"](*arrays, indexing=indexing))


def ones(shape, *, dtype=None, device=None):
    """An array of ones."""
    return _F["ones"](shape, dtype=dtype, device=device)


def ones_like(x, /, *, dtype=None, device=None):
    """An array of ones with the shape of ``x``."""
    return _F["ones_like"](x, dtype=dtype, device=device)


def tril(x, /, *, k=0):
    """The lower triangle of each matrix in ``x``; elements above the ``k``-th diagonal are zero."""
    return _F["tril"](x, k)


def triu(x, /, *, k=0):
    """The upper triangle of each matrix in ``x``; elements below the ``k``-th diagonal are zero."""
    return _F["triu"](x, k)


def zeros(shape, *, dtype=None, device=None):
    """An array of zeros."""
    return _F["zeros"](shape, dtype=dtype, device=device)


def zeros_like(x, /, *, dtype=None, device=None):
    """An array of zeros with the shape of ``x``."""
    return _F["zeros_like"](x, dtype=dtype, device=device)


def __getattr__(name: str):
    # from_dlpack comes from another part of ember; serve it once it exists, without a hand-kept copy.
    if name == "from_dlpack":
        ember = sys.modules.get("ember")
        fn = getattr(ember, "from_dlpack", None) if ember is not None else None
        if fn is not None:
            return fn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------------------------
# Element-wise functions whose semantics differ from PyTorch's.


def clip(x, /, min=None, max=None):
    """Clamp ``x`` to ``[min, max]``; the result keeps the dtype of ``x``."""
    if min is None and max is None:
        return _F["clone"](x)
    if _is_array(min) or _is_array(max):  # ember's clip takes two scalars or two tensors
        min, max = (b if b is None or _is_array(b) else _F["asarray"](b, dtype=_dt.result_type(x, b), device=x.device) for b in (min, max))
    out = _F["clip"](x, min, max)
    return out if out.dtype == x.dtype else _F["astype"](out, x.dtype)


def round(x, /):
    """Round half to even; complex values round their real and imaginary parts independently."""
    if not x.dtype.is_complex:
        return _F["round"](x)
    out = _F["empty_like"](x)
    _F["real"](out)[...] = _F["round"](_F["real"](x))
    _F["imag"](out)[...] = _F["round"](_F["imag"](x))
    return out


def sign(x, /):
    """-1, 0 or 1 for real numbers; ``x / |x|`` (and 0 at 0) for complex ones."""
    if not x.dtype.is_complex:
        return _F["sign"](x)
    return _F["where"](_F["eq"](x, 0), _F["zeros_like"](x), _F["div"](x, _F["abs"](x)))


# --------------------------------------------------------------------------------------------
# Manipulation functions.


def broadcast_arrays(*arrays):
    """The arrays broadcast against each other, as a tuple."""
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(_F["broadcast_to"](a, shape) for a in arrays)


def broadcast_shapes(*shapes):
    """The shape that broadcasting the given shapes gives; ValueError when they do not broadcast."""
    try:
        return tuple(_broadcast_shapes(*shapes))
    except RuntimeError as exc:
        raise ValueError(str(exc)) from None


def broadcast_to(x, /, shape):
    """``x`` broadcast to ``shape`` (a view)."""
    return _F["broadcast_to"](x, tuple(shape))


def concat(arrays, /, *, axis=0):
    """Join arrays along an existing axis; ``axis=None`` flattens them first."""
    arrays = list(arrays)
    if axis is None:
        arrays = [_F["reshape"](a, (-1,)) for a in arrays]
        axis = 0
    return _F["cat"](arrays, axis)


def expand_dims(x, /, axis):
    """Insert size-one axes at ``axis`` (an int or a tuple, positions in the result)."""
    return _F["expand_dims"](x, axis)


def flip(x, /, *, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    if axis is None:
        return _F["flip"](x, tuple(range(x.ndim)))
    if _no_axes(axis):
        return _F["clone"](x)
    return _F["flip"](x, axis)


def permute_dims(x, /, axes):
    """Permute the axes of ``x``."""
    return _F["permute"](x, tuple(axes))


def repeat(x, repeats, /, *, axis=None):
    """Repeat each element ``repeats`` times (an int or a 1-D array) along ``axis``; None flattens."""
    if axis is None:
        x = _F["reshape"](x, (-1,))
        axis = 0
    return _F["repeat_interleave"](x, repeats, dim=axis)


def reshape(x, /, shape, *, copy=None):
    """``x`` with a new shape; ``copy=True`` always copies, ``copy=False`` raises unless a view can do."""
    shape = tuple(shape)
    if copy is False:
        try:
            return _F["view"](x, shape)
        except RuntimeError as exc:
            raise ValueError(f"reshape(): copy=False, but {exc}") from None
    out = _F["reshape"](x, shape)
    return _F["clone"](out) if copy else out


def roll(x, /, shift, *, axis=None):
    """Roll elements along ``axis``; with None the array is flattened, rolled and reshaped back."""
    if axis is not None and isinstance(shift, int) and not isinstance(axis, int):
        shift = (shift,) * len(axis)
    return _F["roll"](x, shift, axis)


def squeeze(x, /, axis):
    """Remove the given size-one axes; ValueError when one of them is not of size one."""
    axes = _axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): cannot select an axis to squeeze out which has size not equal to one (axis {a} has size {x.shape[a]})")
    if not axes:
        return x
    return _F["squeeze"](x, axes)


def stack(arrays, /, *, axis=0):
    """Join arrays along a new axis."""
    return _F["stack"](list(arrays), axis)


def tile(x, repetitions, /):
    """Repeat ``x`` as a whole ``repetitions`` times along each axis."""
    return _F["tile"](x, tuple(repetitions))


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    return tuple(_F["unbind"](x, axis))


# --------------------------------------------------------------------------------------------
# Indexing functions.


def _wrap_indices(indices, size: int):
    """Negative indices count from the end (the standard asks it; gather/index_select do not)."""
    return _F["where"](_F["lt"](indices, 0), _F["add"](indices, size), indices)


def take(x, indices, /, *, axis=None):
    """Elements of ``x`` at ``indices`` (1-D) along ``axis``; None flattens ``x`` first."""
    if axis is None:
        x = _F["reshape"](x, (-1,))
        axis = 0
    axis = _wrap_dim(axis, x.ndim, "take")
    return _F["index_select"](x, axis, _wrap_indices(indices, x.shape[axis]))


def take_along_axis(x, indices, /, *, axis=-1):
    """Elements of ``x`` at ``indices`` (same rank, broadcast) along ``axis``."""
    axis = _wrap_dim(axis, x.ndim, "take_along_axis")
    return _F["take_along_dim"](x, _wrap_indices(indices, x.shape[axis]), axis)


# --------------------------------------------------------------------------------------------
# Linear algebra functions.


def tensordot(x1, x2, /, *, axes=2):
    """Contract ``x1`` and ``x2`` over the last/first ``axes`` axes, or over the given pair of axis lists."""
    if not isinstance(axes, int):
        axes = tuple(tuple(a) for a in axes)
    return _F["tensordot"](x1, x2, axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot product of vectors along ``axis`` (the first argument conjugated), with broadcasting."""
    return _F["vecdot"](x1, x2, dim=axis)


# --------------------------------------------------------------------------------------------
# Searching functions.


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements over ``axis``."""
    if _no_axes(axis):
        return _F["astype"](_F["ne"](x, 0), int64)
    out = _F["count_nonzero"](x, axis)
    if keepdims:
        axes = set(_axes(axis, x.ndim, "count_nonzero"))
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
    if not _is_array(x1) and not _is_array(x2):
        raise TypeError(f"isin(): expected at least one of x1 and x2 to be an array, got {type(x1).__name__} and {type(x2).__name__}")
    dtype = _dt.result_type(x1, x2)
    dev = x1.device if _is_array(x1) else x2.device
    a = _F["asarray"](x1, dtype=dtype, device=dev)
    b = _F["reshape"](_F["asarray"](x2, dtype=dtype, device=dev), (-1,))
    if b.shape[0] == 0:
        out = _F["zeros"](a.shape, dtype=bool, device=dev)
    elif dtype.is_complex or dtype == bool:
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


# --------------------------------------------------------------------------------------------
# Statistical and utility functions.


def _cumulative(op: str, name: str, identity, x, axis, dtype, include_initial):
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{name}(): axis must be given for a {x.ndim}-d array (it may be left out only for 1-d arrays)")
        axis = 0
    axis = _wrap_dim(axis, x.ndim, name)
    out = _F[op](x, axis, dtype=_sum_dtype(x, dtype))
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
    if _no_axes(axis):
        return _F["clone"](x)
    return _F["amax"](x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False):
    """Minimum over ``axis`` (values only; NaN propagates)."""
    if _no_axes(axis):
        return _F["clone"](x)
    return _F["amin"](x, axis, keepdims)


def mean(x, /, *, axis=None, keepdims=False):
    """Arithmetic mean over ``axis``."""
    if _no_axes(axis):
        return _F["clone"](x)
    return _F["mean"](x, axis, keepdims)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """Product over ``axis``; integer inputs accumulate in 64 bits (unsigned in uint64)."""
    dtype = _sum_dtype(x, dtype)
    if _no_axes(axis):
        return _F["astype"](x, dtype, copy=True)
    return _F["prod"](x, axis, keepdims, dtype=dtype)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    """Sum over ``axis``; integer inputs accumulate in 64 bits (unsigned in uint64)."""
    dtype = _sum_dtype(x, dtype)
    if _no_axes(axis):
        return _F["astype"](x, dtype, copy=True)
    return _F["sum"](x, axis, keepdims, dtype=dtype)


def _var(name: str, x, axis, correction, keepdims):
    if _no_axes(axis):
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


def all(x, /, *, axis=None, keepdims=False):
    """Whether every element over ``axis`` is true (non-zero)."""
    if _no_axes(axis):
        return _F["astype"](x, bool, copy=True)
    out = _F["all"](x, axis, keepdims)
    return out if out.dtype == bool else _F["astype"](out, bool)  # PyTorch keeps uint8 for uint8 input


def any(x, /, *, axis=None, keepdims=False):
    """Whether some element over ``axis`` is true (non-zero)."""
    if _no_axes(axis):
        return _F["astype"](x, bool, copy=True)
    out = _F["any"](x, axis, keepdims)
    return out if out.dtype == bool else _F["astype"](out, bool)  # PyTorch keeps uint8 for uint8 input


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """``n``-th forward difference along ``axis``, after joining ``prepend`` and ``append``."""
    axis = _wrap_dim(axis, x.ndim, "diff")
    if n < 0:
        raise ValueError(f"diff(): order n must be non-negative, got {n}")
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, x, append) if p is not None]
        x = _F["cat"](parts, axis)
    before = (slice(None),) * axis
    for _ in range(n):
        hi, lo = x[(*before, slice(1, None))], x[(*before, slice(None, -1))]
        x = _F["ne"](hi, lo) if x.dtype == bool else _F["sub"](hi, lo)
    return x


# --------------------------------------------------------------------------------------------
# Inspection.


_KINDS = {
    "bool": (bool,),
    "signed integer": (int8, int16, int32, int64),
    "unsigned integer": (uint8, uint16, uint32, uint64),
    "real floating": (float32, float64),
    "complex floating": (complex64, complex128),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class __array_namespace_info__:
    """What this namespace supports: ``xp.__array_namespace_info__().dtypes()``..."""

    def capabilities(self):
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": 64,  # NumPy 2's limit, which ember's CPU arrays inherit
        }

    def default_device(self):
        return _device("cpu")

    def default_dtypes(self, *, device=None):
        self._check_device(device)
        return {
            "real floating": _dt.get_default_dtype(),
            "complex floating": _dt.get_default_complex_dtype(),
            "integral": int64,
            "indexing": int64,
        }

    def dtypes(self, *, device=None, kind=None):
        self._check_device(device)
        if kind is None:
            kinds = ("bool", "numeric")
        elif isinstance(kind, str):
            kinds = (kind,)
        else:
            kinds = tuple(kind)
        out = {}
        for k in kinds:
            if k not in _KINDS:
                raise ValueError(f"dtypes(): unsupported kind {k!r}; expected one of {', '.join(map(repr, _KINDS))}")
            out.update((d.name, d) for d in _KINDS[k])
        return out

    def devices(self):
        return (_device("cpu"),)

    @staticmethod
    def _check_device(device):
        if device is not None and _device(device) not in (_device("cpu"),):
            raise ValueError(f"device {device} is not one of this namespace's devices (cpu)")


# --------------------------------------------------------------------------------------------
# The linalg extension: ember.linalg where it matches, adapters where the signature differs.

linalg = types.ModuleType(f"{__name__}.linalg", "The array API ``linalg`` extension over ``ember.linalg``.")
_LINALG = _NS["linalg"]
_LINALG_SAME = (
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_power",
    "matrix_rank", "matrix_transpose", "outer", "qr", "slogdet", "svd", "svdvals",
)  # fmt: skip
for _name in _LINALG_SAME:
    setattr(linalg, _name, _LINALG[_name])


def _linalg_matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Norm of each matrix in the last two axes (``'fro'``, ``'nuc'``, ±1, ±2, ±inf)."""
    return _LINALG["matrix_norm"](x, ord, (-2, -1), keepdims)


def _linalg_pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse; singular values below ``rtol * largest`` count as zero."""
    if not _is_array(rtol):
        return _LINALG["pinv"](x, rtol=rtol)
    # An array rtol (one per matrix): compose from the SVD, as ember.linalg.pinv takes a float.
    u, s, vh = _LINALG["svd"](x, full_matrices=False)
    cutoff = _F["mul"](_F["unsqueeze"](rtol, -1), _F["amax"](s, -1, True))
    s_inv = _F["where"](_F["gt"](s, cutoff), _F["reciprocal"](s), _F["zeros_like"](s))
    v = _F["conj"](_F["matrix_transpose"](vh))
    return _F["matmul"](_F["mul"](v, _F["unsqueeze"](s_inv, -2)), _F["conj"](_F["matrix_transpose"](u)))


def _linalg_solve(x1, x2, /):
    """Solve ``x1 @ out = x2``; ``x2`` is a vector only when it is 1-D (the standard's rule, not PyTorch's)."""
    if x2.ndim == 1:
        return _LINALG["solve"](x1, x2)
    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    a = _F["broadcast_to"](x1, (*batch, *x1.shape[-2:]))
    b = _F["broadcast_to"](x2, (*batch, *x2.shape[-2:]))
    return _LINALG["solve"](a, b)


def _linalg_trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of each matrix; integers accumulate in 64 bits."""
    return _LINALG["trace"](x, offset=offset, dtype=_sum_dtype(x, dtype))


def _linalg_vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm over ``axis`` (all axes when None)."""
    if _no_axes(axis):
        return _F["abs"](x) if ord != 0 else _F["astype"](_F["ne"](x, 0), _F["abs"](x).dtype)
    return _LINALG["vector_norm"](x, ord, axis, keepdims)


for _name, _fn in {
    "matrix_norm": _linalg_matrix_norm,
    "pinv": _linalg_pinv,
    "solve": _linalg_solve,
    "tensordot": tensordot,
    "trace": _linalg_trace,
    "vecdot": vecdot,
    "vector_norm": _linalg_vector_norm,
}.items():
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(linalg, _name, _fn)
linalg.__all__ = sorted(n for n in vars(linalg) if not n.startswith("_"))
sys.modules[linalg.__name__] = linalg


# --------------------------------------------------------------------------------------------
# The array object's entry point.


def _tensor_array_namespace(self, /, *, api_version=None):
    """The array API namespace of ember tensors: ``ember.array_api``.

    >>> import ember
    >>> ember.ones(2).__array_namespace__(api_version="2025.12").__array_api_version__
    '2025.12'
    """
    if api_version is not None and api_version not in _SUPPORTED_VERSIONS:
        raise ValueError(f"__array_namespace__(): unsupported api_version {api_version!r}; ember implements {', '.join(_SUPPORTED_VERSIONS)}")
    return sys.modules[__name__]


_tensor_array_namespace.__name__ = _tensor_array_namespace.__qualname__ = "__array_namespace__"  # bound in ember/__init__.py


__all__ = [
    "__array_api_version__", "__array_namespace_info__",
    "e", "inf", "nan", "newaxis", "pi",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    *_SAME, *_BINARY,
    "arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "meshgrid", "ones", "ones_like",
    "tril", "triu", "zeros", "zeros_like",
    "clip", "round", "sign",
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip", "permute_dims",
    "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    "take", "take_along_axis", "tensordot", "vecdot",
    "count_nonzero", "nonzero", "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "argsort", "sort", "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    "all", "any", "diff", "linalg",
]  # fmt: skip
