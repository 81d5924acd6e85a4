"""Tensors over NumPy memory, zero-copy: ``from_numpy``, ``as_tensor`` and ``frombuffer``.

They are constructors of what a tensor is, so they live with ``Tensor`` on the lowest floor,
where the ops and autograd can build on them; ``ember.interop.numpy`` is their public face.

``from_numpy`` wraps the array's memory as a from-blob storage (PyTorch's
``tensorFromBlob``): NumPy's byte strides become element strides, any sign included, and the
array is kept alive until the last tensor or view over it dies. ``Tensor.numpy()`` goes the
other way, so a round trip shares one block of memory.

>>> import numpy as np
>>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
>>> t = from_numpy(a[:, ::-1])
>>> t.stride(), t.tolist()
((3, -1), [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]])
>>> t[0, 0] = 10; a[0, 2]
np.float32(10.0)
"""

from __future__ import annotations

import numpy as np

from . import dtype as _dt
from .allocator import DataPtr, from_blob
from .device import as_device
from .storage import Storage
from .tensor import Tensor, make_tensor, tensor

__all__ = ["as_tensor", "from_numpy", "frombuffer"]

_U8 = np.dtype(np.uint8)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing ``ndarray``'s memory (any strides, negative ones included).

    A read-only array gives a read-only tensor: writing to it raises instead of writing into
    memory that its owner promised not to change.
    """
    if type(ndarray) is not np.ndarray and not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy(): argument 'ndarray' (position 1) must be numpy.ndarray, not {type(ndarray).__name__}")
    np_dtype = ndarray.dtype
    if np_dtype.hasobject or np_dtype.kind in "SU":
        raise TypeError(
            f"from_numpy(): can't share memory of a numpy.{np_dtype} array; the supported types are bool, "
            f"int8-64, uint8-64, float16/32/64, bfloat16 and complex64/128 (use ember.tensor(...) to copy string data)"
        )
    if not np_dtype.isnative:
        raise TypeError("from_numpy(): given numpy array has byte order different from the native byte order; convert it with array.astype(array.dtype.newbyteorder('='))")
    dtype = _dt.from_numpy_dtype(np_dtype, op="from_numpy", arg="ndarray")
    itemsize = np_dtype.itemsize
    readonly = not ndarray.flags.writeable
    if ndarray.flags.c_contiguous:
        # Fast path: a flat uint8 view of the same memory; its base chain keeps the array alive.
        buffer = ndarray.reshape(-1).view(_U8)
        storage = Storage._from_dataptr(DataPtr(None, buffer, ndarray, None), readonly=readonly)
        return make_tensor(storage, 0, ndarray.shape, _element_strides(ndarray, itemsize), dtype)
    strides = _element_strides(ndarray, itemsize)
    address = ndarray.__array_interface__["data"][0]
    low = sum((n - 1) * s for n, s in zip(ndarray.shape, strides, strict=False) if s < 0 and n > 0)
    high = sum((n - 1) * s for n, s in zip(ndarray.shape, strides, strict=False) if s > 0 and n > 0)
    if ndarray.size == 0:
        storage = Storage._from_dataptr(from_blob(address, 0, ndarray), readonly=readonly)
        return make_tensor(storage, 0, ndarray.shape, strides, dtype)
    nbytes = (high - low + 1) * itemsize
    storage = Storage._from_dataptr(from_blob(address + low * itemsize, nbytes, ndarray, readonly=readonly), readonly=readonly)
    return make_tensor(storage, -low, ndarray.shape, strides, dtype)


def _element_strides(ndarray: np.ndarray, itemsize: int) -> tuple[int, ...]:
    byte_strides = ndarray.strides
    for s in byte_strides:
        if s % itemsize:
            raise ValueError(
                f"from_numpy(): given numpy array strides {byte_strides} are not a multiple of the element byte size "
                f"{itemsize}; copy the array with numpy.ascontiguousarray() first"
            )
    return tuple(s // itemsize for s in byte_strides)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share memory with ``data`` when its dtype and device allow it, copy otherwise.

    >>> import numpy as np
    >>> a = np.zeros(3)
    >>> as_tensor(a).numpy().base is not None
    True
    """
    target = None if dtype is None else _dt.as_dtype(dtype, op="as_tensor")
    device = None if device is None else as_device(device, op="as_tensor")
    if isinstance(data, Tensor):
        return data.to(dtype=target or data.dtype, device=device or data.device)
    if isinstance(data, np.ndarray) and (device is None or device.type == "cpu") and not data.dtype.hasobject:
        shared = from_numpy(data)
        return shared if target is None or target is shared.dtype else shared.to(target)
    return tensor(data, dtype=target, device=device)


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D tensor over an object that exposes the buffer protocol, without a copy.

    >>> t = frombuffer(bytearray(b"\\x01\\x02\\x03\\x04"), dtype=_dt.uint8)
    >>> t.tolist()
    [1, 2, 3, 4]
    """
    dtype = _dt.as_dtype(dtype, op="frombuffer")
    if dtype is _dt.string:
        raise TypeError("frombuffer(): a string tensor holds objects, it cannot view raw bytes")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"frombuffer(): argument 'buffer' must support the buffer protocol, not {type(buffer).__name__}") from None
    if not view.contiguous:
        raise ValueError("frombuffer(): the buffer must be contiguous")
    length = view.nbytes
    size = dtype.itemsize
    if offset < 0 or offset > length or (offset == length and length > 0):
        raise ValueError(f"frombuffer(): offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} bytes) minus 1")
    if count == -1:
        if (length - offset) % size:
            raise ValueError(
                f"frombuffer(): buffer length ({length} bytes) after offset ({offset} bytes) must be a multiple of element size ({size})"
            )
        count = (length - offset) // size
    elif count <= 0:
        raise ValueError(f"frombuffer(): count must be -1 or positive, got {count}")
    elif offset + count * size > length:
        raise ValueError(f"frombuffer(): requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not be greater than actual buffer length ({length} bytes)")
    array = np.frombuffer(view.cast("B"), dtype=dtype.numpy_dtype, count=count, offset=offset)
    return from_numpy(array).requires_grad_(requires_grad)
