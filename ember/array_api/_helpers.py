"""What several chapters of the array API namespace share: telling arrays from scalars, axes, result dtypes."""

from __future__ import annotations

from .._core import dtype as _dt
from .._core.shape import wrap_dim
from .._core.tensor import Tensor
from ..ops.functional import FUNCTIONS as _F


def is_array(x: object) -> bool:
    """Whether ``x`` is an array of this namespace (an ember tensor) rather than a Python scalar."""
    return isinstance(x, Tensor)


def standard_pair(x1, x2):
    """Two arrays promoted by the standard's rule, where it differs from ember's operators.

    ember's ops follow PyTorch, where a 0-d tensor next to a dimensioned one of the same
    category does not raise the result dtype (``float32`` with a 0-d ``float64`` is float32);
    the standard promotes every array alike (float64). Only that case is cast, so the common
    call costs a dtype comparison.
    """
    dtype1 = x1.dtype
    dtype2 = x2.dtype
    if dtype1 is dtype2 or (x1.ndim == 0) is (x2.ndim == 0):
        return x1, x2
    dtype = _dt.promote_types(dtype1, dtype2)  # the standard's table, as array_api_result_type
    if dtype1 is not dtype:
        x1 = _F["astype"](x1, dtype)
    if dtype2 is not dtype:
        x2 = _F["astype"](x2, dtype)
    return x1, x2


def promoted(x1, x2):
    """Two arrays cast to their common dtype: the standard promotes the operands of matmul,
    tensordot, vecdot and linalg.solve, where PyTorch's (and ember's) refuse two dtypes."""
    dtype = _dt.promote_types(x1.dtype, x2.dtype)
    if x1.dtype is not dtype:
        x1 = _F["astype"](x1, dtype)
    if x2.dtype is not dtype:
        x2 = _F["astype"](x2, dtype)
    return x1, x2


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
