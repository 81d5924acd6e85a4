"""Linear algebra functions of the main namespace; the ``linalg`` extension re-exports ``tensordot`` and ``vecdot``.

>>> import ember.array_api as xp
>>> xp.vecdot(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), xp.asarray([1.0, -1.0]))
tensor([-1., -1.])
"""

from __future__ import annotations

from .._core import dtype as _dt
from ..ops.functional import FUNCTIONS as _F
from ._helpers import promoted

# Generated functions whose signature and semantics already match the standard's.
_SAME = ("matrix_transpose",)
matrix_transpose = _F["matrix_transpose"]


def matmul(x1, x2, /):
    """Matrix product with broadcasting; two dtypes promote (PyTorch's refuses them).

    >>> import ember.array_api as xp
    >>> xp.matmul(xp.asarray([[1, 2]], dtype=xp.int8), xp.asarray([[1.0], [2.0]]))
    tensor([[5.]])
    """
    return _F["matmul"](*promoted(x1, x2))


def tensordot(x1, x2, /, *, axes=2):
    """Contract ``x1`` and ``x2`` over the last/first ``axes`` axes, or over the given pair of axis lists."""
    if not isinstance(axes, int):
        axes = tuple(tuple(a) for a in axes)
    x1, x2 = promoted(x1, x2)
    return _F["tensordot"](x1, x2, axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot product of vectors along ``axis`` (the first argument conjugated), with broadcasting.

    The vectors' axis itself does not broadcast: its sizes must be equal. Integers are summed
    in their own dtype (PyTorch's vecdot takes floating and complex tensors only).

    >>> import ember.array_api as xp
    >>> xp.vecdot(xp.asarray([[1, 2], [3, 4]]), xp.asarray([1, -1]))
    tensor([-1, -1])
    """
    x1, x2 = promoted(x1, x2)
    ndim = max(x1.ndim, x2.ndim)
    if not -min(x1.ndim, x2.ndim) <= axis < ndim or (axis >= 0 and ndim != min(x1.ndim, x2.ndim)):
        raise ValueError(f"vecdot(): axis {axis} is out of range for arrays of shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    axis = axis - ndim if axis >= 0 else axis
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"vecdot(): the vectors along axis {axis} differ in size: {x1.shape[axis]} and {x2.shape[axis]}")
    if _dt.isdtype(x1.dtype, ("real floating", "complex floating")):
        return _F["vecdot"](x1, x2, dim=axis)
    return _F["sum"](_F["mul"](x1, x2), axis, dtype=x1.dtype)
