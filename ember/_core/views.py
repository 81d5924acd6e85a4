"""View mechanics as pure metadata: each function computes a new (shape, strides, offset)
over the same storage and never touches memory (the one exception, ``reshape``, copies only
when no view exists, as PyTorch's does).

These are bound as Tensor methods in ``tensor.py``; the op system wires them in as
differentiable ops later.

>>> from ember._core.tensor import tensor
>>> t = tensor([[1, 2, 3], [4, 5, 6]])
>>> t.transpose(0, 1).stride(), t.T.is_contiguous()
((1, 3), False)
"""

from __future__ import annotations

import math
import operator
import warnings

from . import dtype as _dt
from .allocator import machine_memory
from .shape import (
    broadcast_shapes,
    check_numel,
    compute_view_stride,
    infer_size,
    normalize_size_args,
    wrap_dim,
)

__all__ = [
    "T",
    "as_strided",
    "broadcast_to",
    "check_in_bounds",
    "chunk",
    "diagonal",
    "expand",
    "expand_as",
    "flatten",
    "mT",
    "movedim",
    "narrow",
    "permute",
    "reshape",
    "reshape_as",
    "select",
    "split",
    "squeeze",
    "t",
    "tensor_split",
    "transpose",
    "unbind",
    "unflatten",
    "unfold",
    "unsqueeze",
    "view",
    "view_as",
    "wrap",
]

wrap = wrap_dim


def _index(x, op: str, arg: str) -> int:
    if isinstance(x, bool):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not bool")
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {type(x).__name__}") from None


def check_in_bounds(self, shape, stride, offset: int, op: str) -> None:
    """Refuse any layout that would reach outside the storage."""
    if offset < 0:
        raise RuntimeError(f"{op}(): Tensor: invalid storage offset {offset}")
    capacity = self._storage._nbytes // self._dtype.itemsize
    if 0 in shape:
        return  # an empty layout reads nothing, wherever it starts (PyTorch's rule too)
    lo = hi = offset
    for size, st in zip(shape, stride, strict=False):
        reach = (size - 1) * st
        if reach < 0:
            lo += reach
        else:
            hi += reach
    if lo < 0 or hi >= capacity:
        raise RuntimeError(
            f"{op}(): setStorage: sizes {list(shape)}, strides {list(stride)}, storage offset {offset} and "
            f"itemsize {self._dtype.itemsize} require elements {lo} to {hi}, out of bounds for storage of "
            f"{capacity} elements ({self._storage._nbytes} bytes)"
        )


# -- reshaping ---------------------------------------------------------------------


def view(self, *shape):
    """A view with a new shape (PyTorch's stride rule) or a new dtype (``view(ember.int32)``).

    >>> from ember._core.tensor import tensor
    >>> tensor([1, 2, 3, 4]).view(2, -1).shape
    ember.Size([2, 2])
    """
    if len(shape) == 1 and type(shape[0]) is not int and _looks_like_dtype(shape[0]):
        return _view_dtype(self, _dt.as_dtype(shape[0], op="view"))
    shape = infer_size(normalize_size_args(shape, "view"), self.numel(), "view")
    stride = compute_view_stride(self._shape, self._stride, shape)
    if stride is None:
        raise RuntimeError(
            "view(): view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        )
    return self._view(shape, stride, self._offset)


def _looks_like_dtype(x) -> bool:
    return isinstance(x, (_dt.DType, str)) or (isinstance(x, type) and hasattr(x, "itemsize")) or hasattr(x, "kind")


def view_as(self, other):
    return view(self, other.shape)


def _view_dtype(self, dtype: _dt.DType):
    old = self._dtype
    if dtype is old:
        return self._view(self._shape, self._stride, self._offset)
    if dtype is _dt.string or old is _dt.string:
        raise RuntimeError(f"view(): cannot view a {old} tensor as {dtype}: string tensors hold objects, not bytes")
    if dtype.itemsize == old.itemsize:
        return self._view(self._shape, self._stride, self._offset, dtype)
    if not self._shape:
        raise RuntimeError(f"view(): self.dim() cannot be 0 to view {old} as {dtype} (different element sizes)")
    if self._stride[-1] != 1:
        raise RuntimeError(
            f"view(): self.stride(-1) must be 1 to view {old} as {dtype} (different element sizes), but got {self._stride[-1]}"
        )
    shape, stride = list(self._shape), list(self._stride)
    if dtype.itemsize < old.itemsize:
        ratio = old.itemsize // dtype.itemsize
        shape[-1] *= ratio
        stride = [s * ratio for s in stride[:-1]] + [1]
        return self._view(shape, stride, self._offset * ratio, dtype)
    ratio = dtype.itemsize // old.itemsize
    if shape[-1] % ratio:
        raise RuntimeError(
            f"view(): self.size(-1) must be divisible by {ratio} to view {old} as {dtype} (different element sizes), but got {shape[-1]}"
        )
    if any(s % ratio for s in stride[:-1]):
        raise RuntimeError(f"view(): self.stride(i) must be divisible by {ratio} for all i < dim-1 to view {old} as {dtype}, but got {stride}")
    if self._offset % ratio:
        raise RuntimeError(f"view(): self.storage_offset() must be divisible by {ratio} to view {old} as {dtype}, but got {self._offset}")
    shape[-1] //= ratio
    stride = [s // ratio for s in stride[:-1]] + [1]
    return self._view(shape, stride, self._offset // ratio, dtype)


def reshape(self, *shape):
    """A view when the strides allow one, otherwise a contiguous copy."""
    shape = infer_size(normalize_size_args(shape, "reshape"), self.numel(), "reshape")
    stride = compute_view_stride(self._shape, self._stride, shape)
    if stride is not None:
        return self._view(shape, stride, self._offset)
    copy = view(self.contiguous(), shape)
    copy._base = None  # a fresh tensor, as in PyTorch, not a view of the temporary contiguous copy
    return copy


def reshape_as(self, other):
    return reshape(self, other.shape)


def flatten(self, start_dim: int = 0, end_dim: int = -1):
    ndim = len(self._shape)
    if ndim == 0:
        return reshape(self, 1)
    start = wrap_dim(start_dim, ndim, "flatten", "start_dim")
    end = wrap_dim(end_dim, ndim, "flatten", "end_dim")
    if start > end:
        raise RuntimeError("flatten(): start_dim cannot come after end_dim")
    if start == end:
        return self
    shape = (*self._shape[:start], math.prod(self._shape[start:end + 1]), *self._shape[end + 1:])
    return reshape(self, shape)


def unflatten(self, dim: int, sizes):
    if not self._shape:
        raise IndexError("unflatten(): Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, len(self._shape), "unflatten")
    sizes = tuple(_index(s, "unflatten", "sizes") for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten(): sizes must be non-empty")
    sizes = infer_size(sizes, self._shape[d], "unflatten")
    return view(self, self._shape[:d] + sizes + self._shape[d + 1 :])


def squeeze(self, dim=None):
    ndim = len(self._shape)
    if dim is None:
        dims = set(range(ndim))
    elif isinstance(dim, (tuple, list)):
        wrapped = [wrap_dim(d, ndim, "squeeze") % max(ndim, 1) for d in dim]  # a 0-d tensor's -1 is its 0
        dims = set(wrapped)
        if len(dims) != len(wrapped):
            repeated = next(d for d in wrapped if wrapped.count(d) > 1)
            raise RuntimeError(f"squeeze(): dim {repeated} appears multiple times in the list of dims")
    else:
        dims = {wrap_dim(dim, ndim, "squeeze")}
    keep = [d for d in range(ndim) if not (d in dims and self._shape[d] == 1)]
    return self._view([self._shape[d] for d in keep], [self._stride[d] for d in keep], self._offset)


def unsqueeze(self, dim: int):
    ndim = len(self._shape)
    d = wrap_dim(dim, ndim + 1, "unsqueeze")
    new_stride = 1 if d >= ndim else self._shape[d] * self._stride[d]
    shape = (*self._shape[:d], 1, *self._shape[d:])
    stride = (*self._stride[:d], new_stride, *self._stride[d:])
    return self._view(shape, stride, self._offset)


# -- reordering --------------------------------------------------------------------


def transpose(self, dim0: int, dim1: int):
    ndim = len(self._shape)
    a = wrap_dim(dim0, ndim, "transpose", "dim0")
    b = wrap_dim(dim1, ndim, "transpose", "dim1")
    if ndim == 0:
        return self._view(self._shape, self._stride, self._offset)
    shape, stride = list(self._shape), list(self._stride)
    shape[a], shape[b] = shape[b], shape[a]
    stride[a], stride[b] = stride[b], stride[a]
    return self._view(shape, stride, self._offset)


def permute(self, *dims):
    dims = normalize_size_args(dims, "permute", "dims")
    ndim = len(self._shape)
    if len(dims) != ndim:
        raise RuntimeError(
            f"permute(): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    wrapped = [wrap_dim(d, ndim, "permute", "dims") for d in dims]
    if len(set(wrapped)) != ndim:
        raise RuntimeError(f"permute(): duplicate dims are not allowed, got {list(dims)}")
    return self._view([self._shape[d] for d in wrapped], [self._stride[d] for d in wrapped], self._offset)


def movedim(self, source, destination):
    ndim = len(self._shape)
    src = [source] if not isinstance(source, (tuple, list)) else list(source)
    dst = [destination] if not isinstance(destination, (tuple, list)) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim(): Invalid source or destination dims: source ({src} dims) should contain the same number of dims as destination ({dst} dims)"
        )
    src = [wrap_dim(d, ndim, "movedim", "source") for d in src]
    dst = [wrap_dim(d, ndim, "movedim", "destination") for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError("movedim(): repeated dim in source or destination")
    if ndim == 0:
        return self._view(self._shape, self._stride, self._offset)
    order = [d for d in range(ndim) if d not in src]
    result = [-1] * ndim
    for s, d in zip(src, dst, strict=False):
        result[d] = s
    rest = iter(order)
    result = [r if r != -1 else next(rest) for r in result]
    return permute(self, result)


def t(self):
    if len(self._shape) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(self._shape)}D")
    return transpose(self, 0, 1) if len(self._shape) == 2 else self._view(self._shape, self._stride, self._offset)


def T(self):
    """All dimensions reversed (``x.T``); for more than 2 dims prefer ``permute`` or ``mT``."""
    ndim = len(self._shape)
    if ndim > 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated; use "
            "x.permute(*range(x.ndim - 1, -1, -1)) or x.mT for batches of matrices",
            UserWarning,
            stacklevel=2,
        )
    return self._view(self._shape[::-1], self._stride[::-1], self._offset)


def mT(self):
    if len(self._shape) < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {len(self._shape)}-D tensor.")
    return transpose(self, -2, -1)


# -- broadcasting ------------------------------------------------------------------


def expand(self, *sizes):
    """Size-1 dimensions repeated with stride 0 (PyTorch's inferExpandGeometry, strides included)."""
    sizes = normalize_size_args(sizes, "expand")
    ndim, new_ndim = len(self._shape), len(sizes)
    if new_ndim < ndim:
        raise RuntimeError(
            f"expand(): the number of sizes provided ({new_ndim}) must be greater or equal to the number of dimensions in the tensor ({ndim})"
        )
    shape, stride = [0] * new_ndim, [0] * new_ndim
    for i in range(new_ndim - 1, -1, -1):
        size = sizes[i]
        d = i - (new_ndim - ndim)
        if d < 0:
            if size < 0:
                raise RuntimeError(f"expand(): The expanded size of the tensor ({size}) isn't allowed in a leading, non-existing dimension {i}")
            # a new leading dimension strides like an unsqueeze, unless it is really repeated
            old = 1
            old_stride = 0 if ndim == 0 else (shape[i + 1] * stride[i + 1] if i + 1 < new_ndim else 1)
        else:
            old, old_stride = self._shape[d], self._stride[d]
            if size == -1:
                size = old
        if size == old:
            shape[i], stride[i] = old, old_stride
        elif old == 1 and size >= 0:
            shape[i], stride[i] = size, 0
        else:
            raise RuntimeError(
                f"expand(): The expanded size of the tensor ({size}) must match the existing size ({old}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(self._shape)}"
            )
    check_numel(shape, "expand")
    return self._view(shape, stride, self._offset)


def expand_as(self, other):
    return expand(self, other.shape)


def broadcast_to(self, shape):
    shape = normalize_size_args((shape,), "broadcast_to", "shape")
    target = tuple(self._shape[i - (len(shape) - len(self._shape))] if s == -1 else s for i, s in enumerate(shape))
    broadcast_shapes(self._shape, target, op="broadcast_to")
    check_numel(target, "broadcast_to")
    return expand(self, shape)


# -- slicing -----------------------------------------------------------------------


def narrow(self, dim: int, start: int, length: int):
    ndim = len(self._shape)
    if ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, ndim, "narrow")
    size = self._shape[d]
    start = _index(start, "narrow", "start")
    length = _index(length, "narrow", "length")
    if not -size <= start <= size:
        raise IndexError(f"narrow(): start ({start}) is out of bounds for dimension {d} of size {size}")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError(f"narrow(): length must be non-negative, but got {length}")
    if start + length > size:
        raise RuntimeError(f"narrow(): start ({start}) + length ({length}) exceeds dimension size ({size}).")
    shape = list(self._shape)
    shape[d] = length
    # as in PyTorch, even an empty result moves the offset (past the storage's end, possibly)
    return self._view(shape, self._stride, self._offset + start * self._stride[d])


def select(self, dim: int, index: int):
    ndim = len(self._shape)
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, ndim, "select")
    size = self._shape[d]
    i = _index(index, "select", "index")
    if not -size <= i < size:
        raise IndexError(f"select(): index {i} out of range for tensor of size {list(self._shape)} at dimension {d}")
    if i < 0:
        i += size
    return self._view(self._shape[:d] + self._shape[d + 1 :], self._stride[:d] + self._stride[d + 1 :], self._offset + i * self._stride[d])


def unbind(self, dim: int = 0):
    d = wrap_dim(dim, len(self._shape), "unbind")
    if not self._shape:
        raise IndexError("unbind(): Dimension specified as 0 but tensor has no dimensions")
    return tuple(select(self, d, i) for i in range(self._shape[d]))


def _check_not_0d(self, op: str) -> None:
    if not self._shape:
        raise RuntimeError(f"{op}(): expected at least a 1-dimensional tensor, but got a tensor with 0 dims")


def split(self, split_size_or_sections, dim: int = 0):
    _check_not_0d(self, "split")
    d = wrap_dim(dim, len(self._shape), "split")
    size = self._shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = [_index(s, "split", "split_size_or_sections") for s in split_size_or_sections]
        if any(s < 0 for s in sections):
            raise RuntimeError(f"split_with_sizes(): expects split_sizes have only non-negative entries, but got split_sizes={sections}")
        if sum(sections) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension {d}), but got split_sizes={sections}"
            )
    else:
        step = _index(split_size_or_sections, "split", "split_size")
        if step < 0:
            raise RuntimeError(f"split(): split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size != 0:
            raise RuntimeError(f"split(): split_size can only be 0 if dimension size is 0, but got {step}")
        # an empty dimension still splits into one (empty) piece
        sections = [min(step, size - i) for i in range(0, size, step)] if size else [0]
    out, start = [], 0
    for n in sections:
        out.append(narrow(self, d, start, n))
        start += n
    return tuple(out)


# A Tensor object takes some hundreds of bytes: a request for more pieces than memory holds at
# this size could only end in MemoryError after a long loop, so it is refused up front.
_BYTES_PER_PIECE = 512


def _check_piece_count(n: int, op: str, arg: str) -> None:
    if n > machine_memory() // _BYTES_PER_PIECE:
        raise RuntimeError(f"{op}(): {arg}={n} would make {n} tensors, more than this machine's memory holds")


def chunk(self, chunks: int, dim: int = 0):
    chunks = _index(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    _check_not_0d(self, "chunk")
    d = wrap_dim(dim, len(self._shape), "chunk")
    size = self._shape[d]
    step = -(-size // chunks)
    if size == 0:  # an empty dim gives `chunks` empty pieces; otherwise there are at most `size`
        _check_piece_count(chunks, "chunk", "chunks")
        return tuple(narrow(self, d, 0, 0) for _ in range(chunks))
    return split(self, step, d)


def tensor_split(self, indices_or_sections, dim: int = 0):
    _check_not_0d(self, "tensor_split")
    d = wrap_dim(dim, len(self._shape), "tensor_split")
    size = self._shape[d]
    if isinstance(indices_or_sections, (list, tuple)):
        bounds = [_index(i, "tensor_split", "indices") for i in indices_or_sections]
        out, start = [], 0
        for stop in [*bounds, size]:
            lo = min(max(start if start >= 0 else start + size, 0), size)
            hi = min(max(stop if stop >= 0 else stop + size, 0), size)
            out.append(narrow(self, d, lo, max(hi - lo, 0)))
            start = stop
        return tuple(out)
    n = _index(indices_or_sections, "tensor_split", "sections")
    if n <= 0:
        raise RuntimeError(f"tensor_split(): number of sections must be larger than 0, got {n}")
    _check_piece_count(n, "tensor_split", "sections")
    base, extra = divmod(size, n)
    out, start = [], 0
    for i in range(n):
        length = base + (1 if i < extra else 0)
        out.append(narrow(self, d, start, length))
        start += length
    return tuple(out)


def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1):
    ndim = len(self._shape)
    a = wrap_dim(dim1, ndim, "diagonal", "dim1")
    b = wrap_dim(dim2, ndim, "diagonal", "dim2")
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = _index(offset, "diagonal", "offset")
    if offset >= 0:
        n = max(min(self._shape[a], self._shape[b] - offset), 0)
        start = offset * self._stride[b]
    else:
        n = max(min(self._shape[a] + offset, self._shape[b]), 0)
        start = -offset * self._stride[a]
    keep = [d for d in range(ndim) if d not in (a, b)]
    shape = [self._shape[d] for d in keep] + [n]
    stride = [self._stride[d] for d in keep] + [self._stride[a] + self._stride[b]]
    return self._view(shape, stride, self._offset + (start if n else 0))


def unfold(self, dimension: int, size: int, step: int):
    ndim = len(self._shape)
    d = wrap_dim(dimension, ndim, "unfold", "dimension")
    dim_size = self._shape[d] if ndim else 1
    dim_stride = self._stride[d] if ndim else 1
    size = _index(size, "unfold", "size")
    step = _index(step, "unfold", "step")
    if size < 0:
        raise RuntimeError(f"unfold(): size is {size} but must be >= 0")
    if size > dim_size:
        raise RuntimeError(f"unfold(): maximum size for tensor at dimension {d} is {dim_size} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"unfold(): step is {step} but must be > 0")
    count = (dim_size - size) // step + 1
    if ndim == 0:
        return self._view((size,), (1,), self._offset)
    shape = list(self._shape)
    stride = list(self._stride)
    shape[d] = count
    stride[d] = dim_stride * step
    return self._view([*shape, size], [*stride, dim_stride], self._offset)


def as_strided(self, size, stride, storage_offset: int | None = None):
    """Any layout over this tensor's storage, checked against the storage's bounds."""
    size = normalize_size_args((size,), "as_strided", "size")
    stride = normalize_size_args((stride,), "as_strided", "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"as_strided(): mismatch in length of strides and shape: {len(size)} sizes and {len(stride)} strides")
    if any(s < 0 for s in size):
        raise RuntimeError(f"as_strided(): Trying to create tensor with negative dimension: {list(size)}")
    offset = self._offset if storage_offset is None else _index(storage_offset, "as_strided", "storage_offset")
    check_in_bounds(self, size, stride, offset, "as_strided")
    return self._view(size, stride, offset)

