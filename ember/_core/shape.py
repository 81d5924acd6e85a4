"""Shape and stride arithmetic: pure functions on tuples, no tensors and no memory.

Strides are in elements and may be negative (NumPy's and the array API's reversed slices)
or zero (broadcast views).

>>> contiguous_strides((2, 3, 4))
(12, 4, 1)
>>> compute_view_stride((4, 6), (6, 1), (2, 2, 6))
(12, 6, 1)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "Size",
    "all_int64",
    "broadcast_shapes",
    "check_numel",
    "check_size",
    "compute_view_stride",
    "contiguous_strides",
    "infer_size",
    "is_contiguous",
    "is_non_overlapping_and_dense",
    "normalize_size_args",
    "numel",
    "wrap_dim",
]


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1  # PyTorch's sizes, strides and counts are int64


class Size(tuple):
    """A tensor's shape: a tuple of ints printed as ``ember.Size([2, 3])``.

    >>> Size([2, 3])
    ember.Size([2, 3])
    >>> Size([2, 3]).numel()
    6
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ember.Size({list(self)!r})"

    def numel(self) -> int:
        return numel(self)

    def __getitem__(self, key):  # slicing keeps the type, as torch.Size does
        result = tuple.__getitem__(self, key)
        return Size(result) if isinstance(key, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))


def numel(shape: Iterable[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    strides = [1] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's rule: strides of size-1 dimensions don't matter; empty tensors are contiguous."""
    expected = 1
    for d in range(len(shape) - 1, -1, -1):
        size = shape[d]
        if size == 0:
            return True
        if size != 1:
            if strides[d] != expected:
                return False
            expected *= size
    return True


def is_non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """True when the elements exactly tile a block of memory in some dimension order."""
    order = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d])
    expected = 1
    for d in order:
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def wrap_dim(dim: int, ndim: int, op: str = "", arg: str = "dim") -> int:
    """Turn a possibly negative dimension index into a positive one, with PyTorch's error."""
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"{_prefix(op)}argument '{arg}' must be int, not {type(dim).__name__}") from None
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(f"{_prefix(op)}Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def normalize_size_args(size: tuple, op: str, arg: str = "size") -> tuple[int, ...]:
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(Size)``, as PyTorch does."""
    if len(size) == 1 and type(size[0]) in (tuple, Size):
        size = size[0]
    if all_int64(size):  # the common case, without the checks below
        return tuple(size)
    if len(size) == 1 and not _is_int_like(size[0]):
        size = size[0]
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"{op}(): argument '{arg}' must be a tuple of ints, not {type(size).__name__}")
    try:  # int subclasses stay themselves: graph mode's unknown sizes carry their formula
        out = tuple(s if isinstance(s, int) and not isinstance(s, bool) else operator.index(s) for s in size)
    except TypeError:
        bad = next(s for s in size if not _is_int_like(s))
        raise TypeError(f"{op}(): argument '{arg}' must be a tuple of ints, but found element of type {type(bad).__name__}") from None
    for i, s in enumerate(out):
        if not INT64_MIN <= s <= INT64_MAX:
            overflow = '"Overflow when unpacking long long"'
            raise TypeError(f"{op}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error {overflow}: {s} does not fit in int64")
    return out


def all_int64(values: Iterable) -> bool:
    """Every value a plain ``int`` that fits in int64: the fast test of a size argument (a loop:
    cheaper than ``all()`` over a generator for the few values a shape has)."""
    for v in values:  # noqa: SIM110 (the loop costs about half of all() over a generator)
        if type(v) is not int or not INT64_MIN <= v <= INT64_MAX:
            return False
    return True


def check_size(shape: Sequence[int], op: str, itemsize: int = 1) -> None:
    """Refuse a shape that no new tensor can have, in PyTorch's words: a negative size, or more
    bytes than int64 (and so the address space) can count. Every factory calls it.

    >>> check_size((3, 1 << 61), "empty", 4)
    Traceback (most recent call last):
    RuntimeError: empty(): Storage size calculation overflowed with sizes=[3, 2305843009213693952]
    """
    n = 1
    for s in shape:
        if s < 0:
            raise RuntimeError(f"{_prefix(op)}Trying to create tensor with negative dimension {s}: {list(shape)}")
        if s > 1:  # a zero size does not save the product: the strides still count the others
            n *= s
    if n * itemsize > INT64_MAX:
        raise RuntimeError(f"{_prefix(op)}Storage size calculation overflowed with sizes={list(shape)}")


def check_numel(shape: Sequence[int], op: str) -> None:
    """Refuse a view whose element count does not fit in int64 (``expand``, ``broadcast_to``):
    no memory is needed, but ``numel()`` and every loop over it must stay countable."""
    if numel(shape) > INT64_MAX:
        raise RuntimeError(f"{_prefix(op)}numel: integer multiplication overflow, sizes={list(shape)}")


def infer_size(shape: Sequence[int], total: int, op: str = "view") -> tuple[int, ...]:
    """Resolve a single -1 in ``shape`` so that it holds ``total`` elements."""
    if -1 not in shape and numel(shape) == total and min(shape, default=0) >= 0:
        if total == 0:  # a zero size hides the others' product, which strides still count
            _check_strides_countable(shape, op)
        return tuple(shape)
    infer_at = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer_at is not None:
                raise RuntimeError(f"{op}(): only one dimension can be inferred")
            infer_at = i
        elif s < 0:
            raise RuntimeError(f"{op}(): invalid shape dimension {s}")
        else:
            known *= s
    if infer_at is None:
        if known == total:
            _check_strides_countable(shape, op)
            return tuple(shape)
    elif known != 0 and total % known == 0:
        out = list(shape)
        out[infer_at] = total // known
        return tuple(out)
    elif known == 0 and total == 0:
        raise RuntimeError(f"{op}(): cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified dimension size -1 can be any value and is ambiguous")
    raise RuntimeError(f"{op}(): shape '{list(shape)}' is invalid for input of size {total}")


def _check_strides_countable(shape: Sequence[int], op: str) -> None:
    n = 1
    for s in shape:
        if s > 1:
            n *= s
    if n > INT64_MAX:
        raise RuntimeError(f"{_prefix(op)}numel: integer multiplication overflow, sizes={list(shape)}")


def compute_view_stride(old_shape: Sequence[int], old_stride: Sequence[int], new_shape: Sequence[int]) -> tuple[int, ...] | None:
    """Strides that let ``new_shape`` view the same elements, or None if no view exists.

    PyTorch's rule: the old dimensions split into chunks that are each contiguous in memory;
    every new dimension must fall inside one chunk.
    """
    if not old_shape:
        return (1,) * len(new_shape)
    total = numel(old_shape)
    if total == 0:
        return tuple(old_stride) if tuple(old_shape) == tuple(new_shape) else contiguous_strides(new_shape)
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        chunk_ends = tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1 and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        )
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def broadcast_shapes(*shapes: Sequence[int], op: str = "broadcast_shapes") -> tuple[int, ...]:
    """The shape that all ``shapes`` broadcast to (NumPy's rule).

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape, start=ndim - len(shape)):
            if size == out[i] or size == 1:
                continue
            if out[i] == 1:
                out[i] = size
            else:
                raise RuntimeError(
                    f"{_prefix(op)}shape mismatch: objects cannot be broadcast to a single shape; "
                    f"dimension {i} has sizes {out[i]} and {size} (shapes {[list(s) for s in shapes]})"
                )
    return tuple(out)


def _is_int_like(x: object) -> bool:
    if isinstance(x, bool):
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def _prefix(op: str) -> str:
    return f"{op}(): " if op else ""
