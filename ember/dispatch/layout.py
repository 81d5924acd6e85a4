"""The memory layout of an element-wise op's fresh output: PyTorch's TensorIterator rule.

An element-wise op on a transposed or channels-last input gives an output laid out the same
way (``relu(x.T).stride() == x.T.stride()``); with several inputs the dims are ordered by the
inputs' strides, the first input deciding and a later one only where the earlier ones tie or
broadcast (stride 0). The eager interpreter asks only when the first input is not already a
contiguous tensor of the output's shape, so the common case costs two tuple comparisons.

>>> output_strides((2, 3), [((2, 3), (1, 2))])  # the transpose of a contiguous (3, 2)
(1, 2)
"""

from __future__ import annotations

from .._core.shape import contiguous_strides, is_contiguous, is_non_overlapping_and_dense

__all__ = ["broadcast_strides", "output_strides"]

_CACHE: dict = {}
_CACHE_LIMIT = 4096


def broadcast_strides(shape: tuple, in_shape: tuple, in_stride: tuple) -> tuple:
    """An input's strides over the output's ``shape``: 0 where it broadcasts (absent or size 1)."""
    lead = len(shape) - len(in_shape)
    return tuple(
        0
        if i < lead or (in_shape[i - lead] == 1 and shape[i] != 1)
        else abs(in_stride[i - lead])  # (|.|: NumPy's reversed views)
        for i in range(len(shape))
    )


def _should_swap(strides: list, shape: tuple, dim0: int, dim1: int) -> int:
    """TensorIterator's comparison: 1 when dim0 should sit outside dim1, -1 inside, 0 undecided."""
    for s in strides:
        s0, s1 = s[dim0], s[dim1]
        if s0 == 0 or s1 == 0:
            continue
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        if shape[dim0] > shape[dim1]:
            return 1
    return 0


def output_strides(shape: tuple, inputs: list) -> tuple:
    """The strides of a fresh output of ``shape`` for inputs given as (shape, strides) pairs:
    contiguous in the order the inputs' strides give its dims."""
    key = (shape, tuple(inputs))
    found = _CACHE.get(key)
    if found is not None:
        return found
    result = _same_shape_layout(shape, inputs)
    if result is None:
        result = _ordered_by_strides(shape, inputs)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def _same_shape_layout(shape: tuple, inputs: list) -> tuple | None:
    """TensorIterator's fast setups, for inputs all of the output's shape: all contiguous (size-1
    dims aside) gives contiguous; all of one dense layout gives that layout; None otherwise."""
    if any(s != shape for s, _ in inputs):
        return None
    if all(is_contiguous(shape, st) for _, st in inputs):
        return contiguous_strides(shape)
    first = inputs[0][1]
    if all(st == first for _, st in inputs) and min(first, default=0) >= 0 and is_non_overlapping_and_dense(shape, first):
        return first
    return None


def _ordered_by_strides(shape: tuple, inputs: list) -> tuple:
    strides = [broadcast_strides(shape, s, st) for s, st in inputs]
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))  # perm[0] is the innermost dim
    for i in range(1, ndim):  # insertion sort, as TensorIterator's reorder_dimensions
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = _should_swap(strides, shape, perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    out = [0] * ndim
    step = 1
    for d in perm:
        out[d] = step
        step *= max(shape[d], 1)
    result = tuple(out)
    return contiguous_strides(shape) if result == contiguous_strides(shape) else result
