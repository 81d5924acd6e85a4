"""What an indexing key means: the parsing behind ``t[key]`` and ``t[key] = value``.

A **basic** key (ints, slices with any step, ``None``, ``...``) is pure metadata: the layout of a
view (``select``, ``ints_and_slices``, ``basic``), the rule of the ``getitem`` view op, which
takes the key as a hashable ``IndexKey``. An **advanced** key (integer or boolean tensors,
arrays, lists) follows NumPy's rules: ``plan`` splits it into the basic key of a view and the
index tensors of the ``index`` primitive, boolean masks becoming integer indices first, as in
PyTorch; ``index_result_shape`` is NumPy's rule for where the indexed dimensions go.

>>> import ember
>>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
>>> basic(t, (slice(None), slice(None, None, -1))).tolist()
[[2, 1, 0], [5, 4, 3]]
>>> index_result_shape((2, 3, 4), (0, 2), [(5,), (5,)])
(5, 3)
"""

from __future__ import annotations

import operator

import numpy as np

from ..._core import dtype as _dt
from ..._core.device import CPU
from ..._core.shape import broadcast_shapes
from ..._core.tensor import Tensor, empty_tensor
from ..._core.tensor_numpy import from_numpy

__all__ = [
    "IndexKey", "as_int", "basic", "classify", "index_result_shape", "index_tensor", "ints_and_slices", "is_basic", "numpy_item",
    "plan", "select",
]  # fmt: skip


def as_int(item):
    """An integer index from NumPy ints and 0-d integer tensors; None if not one."""
    if isinstance(item, (bool, np.bool_)):
        return None
    if hasattr(item, "_storage"):  # an ember tensor
        if item.ndim == 0 and item.dtype.kind in "iu":
            return int(item.item())
        return None
    try:
        return operator.index(item)
    except TypeError:
        return None


def is_basic(key) -> bool:
    """Whether ``key`` (one item or a tuple) holds only ints, slices, None and Ellipsis."""
    items = key if type(key) is tuple else (key,)
    for item in items:
        if type(item) is int or type(item) is slice or item is None or item is Ellipsis:
            continue
        if as_int(item) is None:
            return False
    return True


class IndexKey:
    """A basic index key (ints, slices, None, Ellipsis) as a hashable attribute.

    ``items`` is the key as a tuple; ``simple`` says it holds only ints and slices, at most one
    per dimension (the common case, which has a shorter rule). Python 3.11's slices do not hash:
    the canonical form (slices as tuples, index-like values as ints) is only built when the key
    is hashed or compared, so the eager path never pays for it."""

    __slots__ = ("items", "simple")

    def __init__(self, items: tuple, simple: bool = False) -> None:
        self.items = items
        self.simple = simple

    def canonical(self) -> tuple:
        out = []
        for item in self.items:
            if type(item) is slice:
                out.append(("slice", *(None if v is None else operator.index(v) for v in (item.start, item.stop, item.step))))
            elif item is None or item is Ellipsis:
                out.append(item)
            else:
                out.append(as_int(item))
        return tuple(out)

    def __hash__(self) -> int:
        return hash(self.canonical())

    def __eq__(self, other) -> bool:
        return type(other) is IndexKey and self.canonical() == other.canonical()

    def __repr__(self) -> str:
        return f"IndexKey({self.items!r})"


# -- basic keys: the layout of a view ------------------------------------------------------------


def select(self: Tensor, dim: int, index: int) -> Tensor:
    """``self`` at ``index`` of ``dim``, that dimension removed (the hot case ``t[i]``)."""
    size = self._shape[dim] if self._shape else None
    if size is None:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    if index < 0:
        index += size
    shape = self._shape[:dim] + self._shape[dim + 1 :]
    stride = self._stride[:dim] + self._stride[dim + 1 :]
    return self._view(shape, stride, self._offset + index * self._stride[dim])


def ints_and_slices(self: Tensor, key: tuple) -> Tensor:
    """The common basic key (ints and slices, at most one per dimension), in one short loop."""
    shape: list[int] = []
    stride: list[int] = []
    offset = self._offset
    for d, item in enumerate(key):
        size = self._shape[d]
        step_in_memory = self._stride[d]
        if type(item) is int:
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {d} with size {size}")
            offset += (item + size if item < 0 else item) * step_in_memory
            continue
        if item.step == 0:
            raise ValueError("slice step cannot be zero")
        start, stop, step = item.indices(size)
        offset += start * step_in_memory
        shape.append(len(range(start, stop, step)))
        stride.append(step_in_memory * step)
    rest = len(key)
    return self._view((*shape, *self._shape[rest:]), (*stride, *self._stride[rest:]), offset)


def basic(self: Tensor, items: tuple) -> Tensor:
    """The view of any basic key: ints (also NumPy's and 0-d tensors), slices, None, one ``...``."""
    ndim = len(self._shape)
    ellipses = sum(1 for item in items if item is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    shape: list[int] = []
    stride: list[int] = []
    offset = self._offset
    d = 0
    for item in items:
        if item is None:
            shape.append(1)
            stride.append(self._shape[d] * self._stride[d] if d < ndim else 1)
        elif item is Ellipsis:
            for _ in range(ndim - consumed):
                shape.append(self._shape[d])
                stride.append(self._stride[d])
                d += 1
        elif isinstance(item, slice):
            size = self._shape[d]
            if item.step == 0:
                raise ValueError("slice step cannot be zero")
            start, stop, step = item.indices(size)
            offset += start * self._stride[d]
            shape.append(len(range(start, stop, step)))
            stride.append(self._stride[d] * step)
            d += 1
        else:
            index = as_int(item)
            size = self._shape[d]
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
            offset += (index + size if index < 0 else index) * self._stride[d]
            d += 1
    shape.extend(self._shape[d:])
    stride.extend(self._stride[d:])
    return self._view(shape, stride, offset)


# -- advanced keys: the plan ----------------------------------------------------------------------


def numpy_item(item):
    """One advanced item as NumPy takes it (tensors and lists of them as arrays), checked."""
    if hasattr(item, "_storage"):
        if item.dtype is _dt.string or item.dtype.kind not in "iub":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, not {item.dtype}")
        return item.numpy(force=True)
    if isinstance(item, (list, tuple)):
        array = np.asarray([numpy_item(x) if hasattr(x, "_storage") else x for x in item])
        # an empty list is an empty integer index (NumPy would make it float64 and refuse it)
        return array.astype(np.intp) if array.size == 0 and array.dtype.kind == "f" else array
    if isinstance(item, np.ndarray) and item.dtype.kind not in "iub":
        raise IndexError(f"arrays used as indices must be of integer or boolean type, not {item.dtype}")
    return item


def index_tensor(array: np.ndarray, device) -> Tensor:
    """An index tensor over a fresh NumPy array (wrapped without a copy on the CPU)."""
    if device is CPU:
        return from_numpy(array)
    out = empty_tensor(array.shape, _dt.from_numpy_dtype(array.dtype), device)
    if array.size and device.type != "meta":  # a meta index keeps only its shape
        np.copyto(out._host_array(), array)
    return out


_INT64_EMPTY = np.zeros(0, dtype=np.int64)


def classify(item, device):
    """('basic', item) | ('int', i) | ('bool0', flag) | ('index', Tensor) | ('mask', ndarray)."""
    if item is None or item is Ellipsis or type(item) is slice:
        return "basic", item
    if type(item) is bool or isinstance(item, np.bool_):
        return "bool0", bool(item)
    if isinstance(item, Tensor):
        dtype = item._dtype
        if dtype is _dt.string or dtype.kind not in "iub":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, not {dtype}")
        if dtype.kind == "b":
            if item.is_meta:
                raise NotImplementedError(
                    "__getitem__(): boolean masks of meta tensors are not supported (the result's shape depends on data)"
                )
            return ("bool0", bool(item.item())) if item.ndim == 0 else ("mask", item._host_array())
        if item.ndim == 0:
            return "int", operator.index(item)
        return "index", item
    i = as_int(item)
    if i is not None and not isinstance(item, np.ndarray):
        return "int", i
    if isinstance(item, (list, tuple, np.ndarray)):
        array = numpy_item(item)
        if array is item or not isinstance(array, np.ndarray):
            array = np.array(array)  # a copy: the caller may change theirs while a kernel is queued
        if array.dtype.kind == "b":
            return ("bool0", bool(array)) if array.ndim == 0 else ("mask", array)
        if array.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean type, not {array.dtype}")
        if array.ndim == 0:
            return "int", int(array)
        return "index", index_tensor(array, device)
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte tensors are valid indices "
        f"(got {type(item).__name__})"
    )


def plan(x: Tensor, key, op: str):
    """Split an advanced key into the basic key of a view and (view dim, index tensor) pairs.
    Ints go into the basic key (PyTorch selects with them first), not into the pairs."""
    items = key if type(key) is tuple else (key,)
    device = x._storage._device
    classified = [classify(item, device) for item in items]
    ndim = len(x._shape)
    consumed = 0
    ellipses = 0
    for kind, item in classified:
        if kind == "mask":
            consumed += item.ndim
        elif kind in ("int", "index") or (kind == "basic" and type(item) is slice):
            consumed += 1
        elif item is Ellipsis and kind == "basic":
            ellipses += 1
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    basic_key: list = []
    pairs: list = []
    d = 0  # dimension of x
    v = 0  # dimension of the view
    full = slice(None)
    for kind, item in classified:
        if kind == "basic":
            if item is None:
                basic_key.append(None)
                v += 1
            elif item is Ellipsis:
                n = ndim - consumed
                basic_key.extend([full] * n)
                d += n
                v += n
            else:
                basic_key.append(item)
                d += 1
                v += 1
        elif kind == "int":
            size = x._shape[d]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {d} with size {size}")
            basic_key.append(item)  # PyTorch selects with an int first (NumPy would make it an index)
            d += 1
        elif kind == "bool0":
            basic_key.append(None)
            pairs.append((v, index_tensor(np.zeros(1, dtype=np.int64) if item else _INT64_EMPTY, device)))
            v += 1
        elif kind == "index":
            if item._storage._device != device:
                raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed tensor ({device})")
            basic_key.append(full)
            pairs.append((v, item))
            d += 1
            v += 1
        else:  # a boolean mask over item.ndim dimensions
            k = item.ndim
            for j in range(k):  # a mask dimension of size 0 selects nothing from any size (the array API's rule)
                if item.shape[j] != x._shape[d + j] and item.shape[j] != 0:
                    raise IndexError(
                        f"boolean index did not match indexed tensor along dimension {d + j}; size of dimension is "
                        f"{x._shape[d + j]} but size of corresponding boolean dimension is {item.shape[j]}"
                    )
            for idx in np.nonzero(item):
                basic_key.append(full)
                pairs.append((v, index_tensor(idx.astype(np.int64, copy=False), device)))
                d += 1
                v += 1
    return tuple(basic_key), pairs


def index_result_shape(shape: tuple, dims: tuple, index_shapes: list) -> tuple:
    """NumPy's rule: the broadcast index shape replaces the indexed dims where they are
    adjacent, and goes first when they are not."""
    try:
        b = broadcast_shapes(*index_shapes) if index_shapes else ()
    except RuntimeError:
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {', '.join(str(list(s)) for s in index_shapes)}"
        ) from None
    if not dims:
        return tuple(shape)
    if dims == tuple(range(dims[0], dims[0] + len(dims))):
        return (*shape[: dims[0]], *b, *shape[dims[-1] + 1 :])
    return (*b, *(s for d, s in enumerate(shape) if d not in dims))
