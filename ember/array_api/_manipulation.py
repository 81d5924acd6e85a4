"""Manipulation and indexing functions: the standard's names and argument forms over ember's shape ops.

The standard says ``axis`` where PyTorch says ``dim``, takes ``axis=None`` to mean "flatten first"
(``concat``, ``repeat``, ``take``), refuses to squeeze an axis that is not of size one, and lets
negative indices count from the end in ``take``.

>>> import ember.array_api as xp
>>> xp.concat([xp.asarray([[1, 2]]), xp.asarray([[3], [4]])], axis=None)
tensor([1, 2, 3, 4])
"""

from __future__ import annotations

from .._core.shape import broadcast_shapes as _broadcast_shapes, wrap_dim
from ..ops.functional import FUNCTIONS as _F
from ._helpers import no_axes, normalize_axes

# Generated functions whose signature and semantics already match the standard's.
_SAME = ("moveaxis",)
moveaxis = _F["moveaxis"]


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
    """Insert size-one axes at ``axis`` (an int or a tuple, positions in the result).

    The standard's errors: IndexError for an axis outside the result, ValueError for a repeated one.

    >>> import ember.array_api as xp
    >>> xp.expand_dims(xp.ones((2,)), axis=(0, -1)).shape
    ember.Size([1, 2, 1])
    """
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    for a in axes:
        if not -ndim <= a < ndim:
            raise IndexError(f"expand_dims(): axis {a} is out of range for a result of {ndim} dimensions")
    if len({a % ndim for a in axes}) != len(axes):
        raise ValueError(f"expand_dims(): repeated axis in {axes} (a result of {ndim} dimensions)")
    return _F["expand_dims"](x, axis)


def flip(x, /, *, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    if axis is None:
        return _F["flip"](x, tuple(range(x.ndim)))
    if no_axes(axis):
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
    axes = normalize_axes(axis, x.ndim, "squeeze")
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
    axis = wrap_dim(axis, x.ndim, "take")
    return _F["index_select"](x, axis, _wrap_indices(indices, x.shape[axis]))


def take_along_axis(x, indices, /, *, axis=-1):
    """Elements of ``x`` at ``indices`` (same rank, broadcast) along ``axis``."""
    axis = wrap_dim(axis, x.ndim, "take_along_axis")
    return _F["take_along_dim"](x, _wrap_indices(indices, x.shape[axis]), axis)
