"""Linear algebra functions of the main namespace; the ``linalg`` extension re-exports ``tensordot`` and ``vecdot``.

>>> import ember.array_api as xp
>>> xp.vecdot(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), xp.asarray([1.0, -1.0]))
tensor([-1., -1.])
"""

from __future__ import annotations

from ..ops.functional import FUNCTIONS as _F

# Generated functions whose signature and semantics already match the standard's.
_SAME = ("matmul", "matrix_transpose")
matmul = _F["matmul"]
matrix_transpose = _F["matrix_transpose"]


def tensordot(x1, x2, /, *, axes=2):
    """Contract ``x1`` and ``x2`` over the last/first ``axes`` axes, or over the given pair of axis lists."""
    if not isinstance(axes, int):
        axes = tuple(tuple(a) for a in axes)
    return _F["tensordot"](x1, x2, axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot product of vectors along ``axis`` (the first argument conjugated), with broadcasting."""
    return _F["vecdot"](x1, x2, dim=axis)
