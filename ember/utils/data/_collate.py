"""``default_collate`` and ``default_convert``: samples in, batch tensors out.

>>> batch = ember.utils.data.default_collate([{"x": ember.ones(2), "y": 0}, {"x": ember.zeros(2), "y": 1}])
>>> batch["x"], batch["y"]
(tensor([[1., 1.],
        [0., 0.]]), tensor([0, 1]))
"""

from __future__ import annotations

import collections.abc
import copy
from typing import Any

import numpy as np

from ember._core.tensor import Tensor

from ..._core import dtype as dtypes
from ..._core.shape import contiguous_strides
from ..._core.tensor import HOST_READ_GUARD, tensor
from ..._core.tensor_numpy import as_tensor
from ...ops import functional as F

__all__ = ["default_collate", "default_convert"]

_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _rebuild_mapping(elem: Any, values: dict[Any, Any]) -> Any:
    # keep the sample's mapping type (OrderedDict, a dict subclass...) where it can be copied
    if isinstance(elem, collections.abc.MutableMapping):
        try:
            clone = copy.copy(elem)
            clone.update(values)
            return clone
        except TypeError:
            pass
    try:
        return type(elem)(values)
    except TypeError:
        return values


def _stack(batch: list[Tensor]) -> Tensor:
    """``ember.stack(batch)``, written straight into one new tensor when nothing needs autograd.

    The output comes from the current allocator, so a DataLoader worker (inside
    ``ember.multiprocessing.shared_memory()``) stacks straight into shared memory, as PyTorch's
    workers do; the per-sample view ops that ``stack`` goes through are skipped. Samples that are
    rows of one tensor (a dataset indexing a preloaded tensor) are gathered in one call.
    """
    elem = batch[0]
    shape, dtype, storage, stride = elem._shape, elem._dtype, elem._storage, elem._stride
    fast = dtype is not dtypes.string and storage._device.type == "cpu"
    same_storage = True
    for t in batch if fast else ():
        if not (isinstance(t, Tensor) and t._shape == shape and t._dtype is dtype and not t._requires_grad):
            fast = False
            break
        if t._storage is not storage or t._stride != stride:
            same_storage = False
            if t._storage._device != storage._device:
                fast = False
                break
    if not fast:
        return F.stack(list(batch), 0)  # its errors name the mismatch; it records autograd
    out = F.empty((len(batch), *shape), dtype=dtype)
    target = out._host_array()
    if not (same_storage and _gather_rows_of(batch, storage, target)):
        np.stack([t._host_array() for t in batch], out=target)
    return out


def _gather_rows_of(batch: list[Tensor], storage: Any, target: np.ndarray) -> bool:
    """Copy samples that are contiguous blocks of one storage into ``target`` with one
    ``np.take``, when their offsets are whole rows of a 2-D view of that storage; False
    (nothing written) otherwise.

    One C-level gather replaces a NumPy view per sample and a stack: a third of the time for
    a batch of 64 images. The storage is read after the queued kernels (the VM's sync point);
    while a tracer guards host reads, each sample goes through its own view instead.
    """
    elem = batch[0]
    size = target.size // len(batch)  # elements per sample
    if size == 0 or elem._stride != contiguous_strides(elem._shape) or HOST_READ_GUARD[0] is not None:
        return False
    offsets = np.fromiter((t._offset for t in batch), np.intp, len(batch))
    first = int(offsets[0]) % size
    rows, misaligned = np.divmod(offsets - first, size)
    if misaligned.any():
        return False
    elem._host_array()  # the sync point, once for the whole batch
    itemsize = elem._dtype.itemsize
    count = (storage.nbytes() // itemsize - first) // size
    table = np.ndarray((count, size), target.dtype, storage._buffer(), first * itemsize)
    # mode='wrap': every row is in range, and without it NumPy buffers `out` (three times slower)
    np.take(table, rows, axis=0, out=target.reshape(len(batch), size), mode="wrap")
    return True


def default_collate(batch: list[Any]) -> Any:
    """Merge a list of samples into a batch, recursively and in PyTorch's way.

    Tensors and NumPy arrays are stacked along a new first dimension; Python floats become a
    float64 tensor, ints an int64 tensor; strings stay a list; dicts, namedtuples and sequences
    are collated field by field (a tuple sample gives a list of batches, as in PyTorch).

    >>> xs, ys = ember.utils.data.default_collate([(np.zeros(2), 1.5), (np.ones(2), 2.5)])
    >>> xs.dtype, ys
    (ember.float64, tensor([1.5000, 2.5000], dtype=ember.float64))
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(batch)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUV":  # strings and objects have no tensor form
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_ERR.format(elem.dtype))
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):  # bools included: they stay bool, as in PyTorch
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        if len(set(map(len, batch))) != 1:  # one pass in C: this runs for every (x, y) batch
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(list(samples)) for samples in zip(*batch, strict=False)]
        if isinstance(elem, tuple):
            return transposed
        try:
            return type(elem)(transposed)
        except TypeError:
            return transposed
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data: Any) -> Any:
    """What a DataLoader without batching applies to each sample: NumPy arrays become tensors.

    >>> ember.utils.data.default_convert({"a": np.arange(2), "b": "text"})
    {'a': tensor([0, 1]), 'b': 'text'}
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "OSUV" else as_tensor(data)
    if isinstance(data, np.generic):
        return data if data.dtype.kind in "OSUV" else as_tensor(data)
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
