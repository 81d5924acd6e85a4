"""``tensor[key]`` and ``tensor[key] = value``.

Basic indexing (ints, slices with any step, ``None``, ``...``) is pure metadata: it returns a
view, exactly as NumPy and the array API describe. Advanced indexing (integer or boolean
tensors, arrays and lists) follows NumPy's rules and, as in PyTorch, returns a copy.

>>> from ember._core.tensor import tensor
>>> t = tensor([[0, 1, 2], [3, 4, 5]])
>>> t[:, ::-1].tolist()
[[2, 1, 0], [5, 4, 3]]
>>> t[t.numpy() > 2].tolist()
[3, 4, 5]
"""

from __future__ import annotations

import operator

import numpy as np

from . import dtype as _dt

__all__ = ["getitem", "setitem"]

_BASIC_TYPES = (int, slice, type(None), type(Ellipsis))


def getitem(self, key):
    kind = type(key)
    if kind is int:  # the hot case: t[i]
        return _select(self, 0, key)
    if kind is slice and self._shape:
        return _ints_and_slices(self, (key,))
    if kind is tuple and len(key) <= len(self._shape) and all(type(k) is slice or type(k) is int for k in key):
        return _ints_and_slices(self, key)
    items = key if kind is tuple else (key,)
    if _is_basic(items):
        return _basic(self, items)
    return _advanced_getitem(self, key)


def setitem(self, key, value) -> None:
    self._check_writable("__setitem__()", overlap=False)  # overlap is checked on what is written
    items = key if type(key) is tuple else (key,)
    if _is_basic(items):
        view = _basic(self, items)
        view._check_writable("__setitem__()")
        target = view._host_array() if not self.is_meta else None
        key_for_numpy = None
    else:
        if self.is_meta:
            raise NotImplementedError("__setitem__(): advanced indexing of a meta tensor is not supported (its result shape depends on data)")
        self._check_writable("__setitem__()")
        target = self._host_array()
        key_for_numpy = _numpy_key(key)
    if target is not None:
        source = _value_as_numpy(self, value)
        try:
            if key_for_numpy is None:
                self._assign(target, source)
            else:
                target[key_for_numpy] = source
        except (ValueError, IndexError) as exc:
            raise type(exc)(f"__setitem__(): {exc}") from None
    self._storage._version += 1


# -- basic indexing: a view ------------------------------------------------------------


def _is_basic(items: tuple) -> bool:
    for item in items:
        if isinstance(item, _BASIC_TYPES) and type(item) is not bool:
            continue
        if _as_int(item) is None:
            return False
    return True


def _as_int(item):
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


def _select(self, dim: int, index: int):
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


def _ints_and_slices(self, key: tuple):
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


def _basic(self, items: tuple):
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
            index = _as_int(item)
            size = self._shape[d]
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
            offset += (index + size if index < 0 else index) * self._stride[d]
            d += 1
    shape.extend(self._shape[d:])
    stride.extend(self._stride[d:])
    return self._view(shape, stride, offset)


# -- advanced indexing: a copy --------------------------------------------------------------


def _numpy_key(key):
    items = key if type(key) is tuple else (key,)
    converted = tuple(_numpy_item(item) for item in items)
    return converted if type(key) is tuple else converted[0]


def _numpy_item(item):
    if hasattr(item, "_storage"):
        if item.dtype is _dt.string or item.dtype.kind not in "iub":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, not {item.dtype}")
        return item.numpy(force=True)
    if isinstance(item, (list, tuple)):
        array = np.asarray([_numpy_item(x) if hasattr(x, "_storage") else x for x in item])
        # an empty list is an empty integer index (NumPy would make it float64 and refuse it)
        return array.astype(np.intp) if array.size == 0 and array.dtype.kind == "f" else array
    if isinstance(item, np.ndarray) and item.dtype.kind not in "iub":
        raise IndexError(f"arrays used as indices must be of integer or boolean type, not {item.dtype}")
    return item


def _advanced_getitem(self, key):
    if self.is_meta:
        raise NotImplementedError("__getitem__(): advanced indexing of a meta tensor is not supported (its result shape depends on data)")
    try:
        result = self._host_array()[_numpy_key(key)]
    except IndexError as exc:
        raise IndexError(f"__getitem__(): {exc}") from None
    out = self._new_empty(result.shape, self._dtype, self.device)
    self._assign(out._host_array(), result)
    return out


def _value_as_numpy(self, value):
    if hasattr(value, "_storage"):
        if value.is_meta:
            raise NotImplementedError("__setitem__(): Cannot copy out of meta tensor; no data!")
        if (value.dtype is _dt.string) != (self._dtype is _dt.string):
            raise TypeError(f"__setitem__(): cannot assign a {value.dtype} tensor into a {self._dtype} tensor")
        return value._host_array()
    if isinstance(value, (list, tuple, np.ndarray)):
        if self._dtype is _dt.string:
            return _bytes_array(value)
        array = np.asarray(value)
        if array.dtype.kind in "OSU":
            raise TypeError(f"__setitem__(): cannot assign {array.dtype} values into a {self._dtype} tensor")
        return array
    return self._scalar_for(value, self._dtype, "__setitem__")


def _bytes_array(value) -> np.ndarray:
    """An object array of ``bytes`` (str encoded as UTF-8); anything else is refused.

    Built with ``dtype=object`` so that bytes keep their trailing NULs (NumPy's ``S`` drops them).
    """
    array = np.asarray(value, dtype=object)
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(array.reshape(-1)):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, bytes):
            flat[i] = bytes(v)
        else:
            raise TypeError(f"__setitem__(): a string tensor takes bytes or str values, not {type(v).__name__}")
    return out
