"""NumPy references for PyTorch's indexing: ints are applied as selects before advanced items.

NumPy counts an int in a key with arrays as one more advanced index, which can move the
indexed dimensions to the front; PyTorch selects first. Splitting the key in two NumPy keys,
the ints' and the rest's, gives PyTorch's result from NumPy.
"""

from __future__ import annotations

import numpy as np


def _is_int(item) -> bool:
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def ints_first(key: tuple) -> tuple[tuple, tuple]:
    """The key as (the ints with slices for every other dim, the rest), to apply in turn."""
    if not any(_is_int(item) for item in key):
        return (Ellipsis,), key  # x[...] is a view even of a 0-d array, where x[()] is a scalar
    ints, rest = [], []
    for item in key:
        if _is_int(item):
            ints.append(item)
        elif item is None:
            rest.append(item)
        elif item is Ellipsis:
            ints.append(item)
            rest.append(item)
        else:
            dims = item.ndim if isinstance(item, np.ndarray) and item.dtype == bool else 1
            ints.extend([slice(None)] * dims)
            rest.append(item)
    if Ellipsis not in ints:
        ints.append(Ellipsis)  # so that selecting every dim still gives a 0-d view, not a scalar
    return tuple(ints), tuple(rest)


def numpy_get(x: np.ndarray, key: tuple) -> np.ndarray:
    """``x[key]`` with PyTorch's placement of the indexed dims."""
    first, rest = ints_first(key)
    return x[first][rest]
