"""What several chapters of the array API namespace share: telling arrays from scalars, axes, result dtypes."""

from __future__ import annotations

from .._core import dtype as _dt
from .._core.shape import wrap_dim
from .._core.tensor import Tensor


def is_array(x: object) -> bool:
    """Whether ``x`` is an array of this namespace (an ember tensor) rather than a Python scalar."""
    return isinstance(x, Tensor)


def normalize_axes(axis, ndim: int, op: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple) as non-negative axes in the given order; None is all."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    axes = tuple(wrap_dim(a, ndim, op) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}(): repeated axis in {tuple(axis)}")
    return axes


def no_axes(axis) -> bool:
    """``axis=()`` reduces over no axis at all (PyTorch's ``dim=()`` would reduce over all)."""
    return isinstance(axis, tuple) and len(axis) == 0


def sum_dtype(x, dtype):
    """The standard's result dtype for sum/prod/cumulative_*/trace when ``dtype`` is None.

    Bool and signed integers widen to the default integer (int64, as in PyTorch), unsigned
    integers to uint64 (PyTorch gives int64), floating types stay.
    """
    if dtype is not None:
        return dtype
    if _dt.isdtype(x.dtype, "unsigned integer"):
        return _dt.uint64
    if _dt.isdtype(x.dtype, ("bool", "signed integer")):
        return _dt.int64
    return x.dtype
