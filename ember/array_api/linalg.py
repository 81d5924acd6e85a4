# ruff: noqa: A002 - the standard's parameter name ord
"""The array API ``linalg`` extension over ``ember.linalg``.

``ember.linalg``'s functions where they already match the standard; adapters where the standard's
signature or rule differs (``matrix_norm``, ``pinv`` with an array ``rtol``, ``solve``'s vector rule,
``trace``'s integer dtype, ``vector_norm`` over ``axis=()``, ``cross`` of arrays with different
numbers of dimensions).

>>> import ember.array_api as xp
>>> xp.linalg.vector_norm(xp.asarray([3.0, 4.0]))
tensor(5.)
"""

from ..ops.functional import FUNCTIONS as _F, NAMESPACES as _NAMESPACES
from ._helpers import is_array as _is_array, no_axes as _no_axes, promoted as _promoted, sum_dtype as _sum_dtype
from ._linear_algebra import matmul, tensordot, vecdot
from ._manipulation import broadcast_shapes as _broadcast_shapes

_LINALG = _NAMESPACES["linalg"]

# ember.linalg's (generated) functions whose signature and semantics already match the standard's.
_LINALG_SAME = (
    "cholesky", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matrix_power", "matrix_rank",
    "matrix_transpose", "outer", "qr", "slogdet", "svd", "svdvals",
)  # fmt: skip
cholesky = _LINALG["cholesky"]
det = _LINALG["det"]
diagonal = _LINALG["diagonal"]
eig = _LINALG["eig"]
eigh = _LINALG["eigh"]
eigvals = _LINALG["eigvals"]
eigvalsh = _LINALG["eigvalsh"]
inv = _LINALG["inv"]
matrix_power = _LINALG["matrix_power"]
matrix_rank = _LINALG["matrix_rank"]
matrix_transpose = _LINALG["matrix_transpose"]
outer = _LINALG["outer"]
qr = _LINALG["qr"]
slogdet = _LINALG["slogdet"]
svd = _LINALG["svd"]
svdvals = _LINALG["svdvals"]

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
    "trace", "vecdot", "vector_norm",
]  # fmt: skip


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis`` (counted from the end); two dtypes promote, and
    the other axes broadcast, also between arrays with different numbers of dimensions (PyTorch's
    linalg.cross refuses both).

    >>> import ember.array_api as xp
    >>> xp.linalg.cross(xp.asarray([1, 0, 0]), xp.asarray([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    x1, x2 = _promoted(x1, x2)
    ndim = max(x1.ndim, x2.ndim)
    x1 = _F["reshape"](x1, (1,) * (ndim - x1.ndim) + tuple(x1.shape))
    x2 = _F["reshape"](x2, (1,) * (ndim - x2.ndim) + tuple(x2.shape))
    return _LINALG["cross"](x1, x2, dim=axis)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Norm of each matrix in the last two axes (``'fro'``, ``'nuc'``, ±1, ±2, ±inf)."""
    return _LINALG["matrix_norm"](x, ord, (-2, -1), keepdims)


def pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse; singular values below ``rtol * largest`` count as zero."""
    if not _is_array(rtol):
        return _LINALG["pinv"](x, rtol=rtol)
    # An array rtol (one per matrix): compose from the SVD, as ember.linalg.pinv takes a float.
    u, s, vh = _LINALG["svd"](x, full_matrices=False)
    cutoff = _F["mul"](_F["unsqueeze"](rtol, -1), _F["amax"](s, -1, True))
    s_inv = _F["where"](_F["gt"](s, cutoff), _F["reciprocal"](s), _F["zeros_like"](s))
    v = _F["conj"](_F["matrix_transpose"](vh))
    return _F["matmul"](_F["mul"](v, _F["unsqueeze"](s_inv, -2)), _F["conj"](_F["matrix_transpose"](u)))


def solve(x1, x2, /):
    """Solve ``x1 @ out = x2``; ``x2`` is a vector only when it is 1-D (the standard's rule, not PyTorch's).

    Two dtypes promote (PyTorch's refuses them).
    """
    x1, x2 = _promoted(x1, x2)
    if x2.ndim == 1:
        return _LINALG["solve"](x1, x2)
    batch = _broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    a = _F["broadcast_to"](x1, (*batch, *x1.shape[-2:]))
    b = _F["broadcast_to"](x2, (*batch, *x2.shape[-2:]))
    return _LINALG["solve"](a, b)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of each matrix; integers accumulate in 64 bits."""
    return _LINALG["trace"](x, offset=offset, dtype=_sum_dtype(x, dtype))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm over ``axis`` (all axes when None)."""
    if _no_axes(axis):
        return _F["abs"](x) if ord != 0 else _F["astype"](_F["ne"](x, 0), _F["abs"](x).dtype)
    return _LINALG["vector_norm"](x, ord, axis, keepdims)
