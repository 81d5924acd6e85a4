"""Creation functions: the standard's signatures over ember's factories.

The chapter's ``from_dlpack`` is ember's own (``ember.interop.dlpack``), which the package re-exports.

>>> import ember.array_api as xp
>>> xp.arange(1, stop=7, step=2)
tensor([1, 3, 5])
"""

from __future__ import annotations

from ..ops.functional import FUNCTIONS as _F

# Generated functions whose signature and semantics already match the standard's.
_SAME = ("asarray",)
asarray = _F["asarray"]


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Values from ``start`` (or 0) up to ``stop`` (exclusive) by ``step``.

    A ``step`` pointing away from ``stop`` gives an empty array (PyTorch raises).

    >>> import ember.array_api as xp
    >>> xp.arange(1, 0).shape
    ember.Size([0])
    """
    if stop is None:
        start, stop = 0, start
    if step != 0 and (stop - start) * step <= 0:  # empty whichever way step points; the dtype still from all three
        stop = float(start) if isinstance(stop, float) or isinstance(step, float) else start
    return _F["arange"](start, stop, step, dtype=dtype, device=device)


def empty(shape, *, dtype=None, device=None):
    """An uninitialized array of the given shape."""
    return _F["empty"](shape, dtype=dtype, device=device)


def empty_like(x, /, *, dtype=None, device=None):
    """An uninitialized array with the shape of ``x``."""
    return _F["empty_like"](x, dtype=dtype, device=device)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """A two-dimensional array with ones on the ``k``-th diagonal.

    A diagonal beyond the matrix, however far (``k`` need not fit in int64), leaves it all zeros.
    """
    if isinstance(k, int) and not isinstance(k, bool):
        k = max(-n_rows - 1, min(k, (n_rows if n_cols is None else n_cols) + 1))
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
