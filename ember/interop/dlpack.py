"""DLPack, both ways: ``Tensor.__dlpack__`` / ``__dlpack_device__`` and ``from_dlpack``.

**Producer.** ``t.__dlpack__(max_version=(1, x))`` returns a ``"dltensor_versioned"`` capsule
over a ``DLManagedTensorVersioned``; without ``max_version`` (or with a major version 0) a
legacy ``"dltensor"`` capsule over a ``DLManagedTensor``. The managed struct, its shape and
its strides (always filled, in elements) are one ctypes block, written by one
``struct.pack_into``. ``data`` is the address of the tensor's first element and
``byte_offset`` is 0, as NumPy, PyTorch and JAX export and expect. The block and the
storage's memory stay in a registry keyed by the block's address until the consumer calls the
deleter, or, for a capsule never consumed, until the capsule dies (its destructor calls the
deleter only while the capsule still has its original name).

Copies are made only when asked (``copy=True``) or when a layout would break consumers: a
tensor with a negative stride is exported as a contiguous copy unless ``copy=False``
(PyTorch aborts the process on negative DLPack strides). A copy carries ``IS_COPIED``.

**Consumer.** ``from_dlpack(x)`` takes any object with ``__dlpack__`` or a raw capsule,
renames the capsule to ``"used_..."`` and wraps the memory without a copy as a from-blob
storage whose release calls the managed tensor's deleter once, when the last view dies.

>>> import numpy as np
>>> t = from_dlpack(np.arange(4.0))
>>> t.tolist(), np.from_dlpack(t).tolist()
([0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0])
"""

from __future__ import annotations

import ctypes
import struct

from .._core import dtype as _dt
from .._core.allocator import from_blob
from .._core.device import Device
from .._core.shape import contiguous_strides
from .._core.storage import Storage, sync_point
from .._core.tensor import Tensor, make_tensor
from . import _dlpack_c as _c
from ._dlpack_c import (
    DLPACK_MAJOR,
    FLAG_READ_ONLY,
    HOST_DEVICE_TYPES,
    NAME_LEGACY,
    NAME_VERSIONED,
    USED_LEGACY,
    USED_VERSIONED,
)

__all__ = ["TENSOR_METHODS", "from_dlpack"]

_CPU_DEVICE = (_c.kDLCPU, 0)
_DTYPES = {d.dlpack: d for d in _dt.ALL_DTYPES if d.dlpack is not None}  # (code, bits, lanes) -> DType

# -----------------------------------------------------------------------------------------
# producer


# Live exports: block address -> (ctypes block, DataPtr of the exported memory). The deleter
# pops the entry, which frees the block and lets the memory go.
_EXPORTS: dict[int, tuple] = {}


def _deleter(address: int, _pop=_EXPORTS.pop) -> None:
    # Called by any consumer, from any thread (ctypes takes the GIL), possibly at shutdown:
    # it must never raise. The default argument keeps the registry reachable after teardown.
    try:  # noqa: SIM105 - no contextlib lookup in a callback that may run at shutdown
        _pop(address, None)
    except BaseException:
        pass


def _make_destructor(name: bytes):
    def destructor(capsule: int, _valid=_c.raw_capsule_is_valid, _get=_c.raw_capsule_get_pointer, _pop=_EXPORTS.pop) -> None:
        # Runs for every capsule ember made; only one never consumed still has its original name.
        try:  # never raise into C: see _deleter
            if _valid(capsule, name):
                _pop(_get(capsule, name), None)
        except BaseException:
            pass

    return destructor


# The callbacks are leaked on purpose: C code may call them after this module is torn down.
_DELETER = _c.keep_forever(_c.MANAGED_DELETER(_deleter))
_DELETER_ADDRESS = ctypes.cast(_DELETER, ctypes.c_void_p).value
_DESTRUCTOR_VERSIONED = _c.keep_forever(_c.CAPSULE_DESTRUCTOR(_make_destructor(_c.NAME_VERSIONED)))
_DESTRUCTOR_LEGACY = _c.keep_forever(_c.CAPSULE_DESTRUCTOR(_make_destructor(_c.NAME_LEGACY)))
_DESTRUCTOR_VERSIONED_ADDRESS = ctypes.cast(_DESTRUCTOR_VERSIONED, ctypes.c_void_p).value
_DESTRUCTOR_LEGACY_ADDRESS = ctypes.cast(_DESTRUCTOR_LEGACY, ctypes.c_void_p).value


class _Layout:
    """The block for one ndim: managed struct, then shape[ndim], then strides[ndim]."""

    __slots__ = ("block_type", "pack_into")

    def __init__(self, header_format: str, header_size: int, ndim: int) -> None:
        self.pack_into = struct.Struct(f"{header_format}{ndim}q{ndim}q").pack_into
        self.block_type = ctypes.c_int64 * (header_size // 8 + 2 * ndim)  # int64 words: 8-byte aligned


_VERSIONED_LAYOUTS: dict[int, _Layout] = {}
_LEGACY_LAYOUTS: dict[int, _Layout] = {}


def _layout(ndim: int, versioned: bool) -> _Layout:
    cache = _VERSIONED_LAYOUTS if versioned else _LEGACY_LAYOUTS
    layout = cache.get(ndim)
    if layout is None:
        header = _c.VERSIONED_HEADER if versioned else _c.LEGACY_HEADER
        layout = cache[ndim] = _Layout(header.format, header.size, ndim)
    return layout


def _dlpack(self: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Export this tensor as a DLPack capsule (the array API's ``__dlpack__``).

    ``max_version=(1, x)`` gives a ``"dltensor_versioned"`` capsule (with the read-only and
    is-copied flags), no ``max_version`` a legacy ``"dltensor"`` one. ``copy=True`` always
    copies, ``copy=False`` never does. On the CPU ``stream`` must be None.

    >>> import ember
    >>> ember.tensor([1, 2]).__dlpack__(max_version=(1, 0))  # doctest: +ELLIPSIS
    <capsule object "dltensor_versioned" at 0x...>
    """
    if self._requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    storage = self._storage
    if stream is not None or dl_device is not None or storage._device.type != "cpu":
        _check_export_target(self, stream, dl_device, copy)
    dtype = self._dtype
    code = dtype.dlpack
    if code is None:
        raise BufferError(
            f"__dlpack__(): {dtype} tensors cannot be exported: DLPack has no type for {dtype.name} "
            f"(it describes numbers and bools only)"
        )
    if max_version is None:
        minor = -1
    else:
        if type(max_version) is not tuple or len(max_version) != 2:
            max_version = _check_max_version(max_version)
        major = max_version[0]
        minor = -1 if major < 1 else (min(max_version[1], _c.DLPACK_MINOR) if major == 1 else _c.DLPACK_MINOR)
    shape = self._shape
    stride = self._stride
    flags = 0
    if copy or (copy is None and stride and min(stride) < 0 and _steps_backwards(shape, stride)):
        self = self.clone()  # export the copy (clone makes a tensor with negative strides contiguous)
        storage = self._storage
        stride = self._stride
        flags = _c.FLAG_IS_COPIED
    elif storage._readonly:
        if minor < 0:
            raise BufferError(
                "__dlpack__(): cannot export a read-only tensor as a legacy capsule, which cannot say it is read-only; "
                "ask for max_version=(1, 0) or later, or pass copy=True"
            )
        flags = _c.FLAG_READ_ONLY
    if sync_point.wait is not None:
        sync_point.wait()  # queued kernels must finish before another library reads the memory
    ndim = len(shape)
    if 0 in shape:
        data, address = None, 0  # DLPack: a zero-size tensor's data pointer is NULL
    else:
        data = storage._data or storage._materialize()
        address = data.address + self._offset * dtype.itemsize
    if minor >= 0:
        layout = _VERSIONED_LAYOUTS.get(ndim) or _layout(ndim, True)
        block = layout.block_type()
        at = ctypes.addressof(block)
        shape_at = at + 80
        layout.pack_into(block, 0, 1, minor, at, _DELETER_ADDRESS, flags, address, 1, 0, ndim, *code,
                         shape_at, shape_at + 8 * ndim, 0, *shape, *stride)
        _EXPORTS[at] = (block, data)
        return _c.capsule_new(at, _c.NAME_VERSIONED, _DESTRUCTOR_VERSIONED_ADDRESS)
    layout = _LEGACY_LAYOUTS.get(ndim) or _layout(ndim, False)
    block = layout.block_type()
    at = ctypes.addressof(block)
    shape_at = at + 64
    layout.pack_into(block, 0, address, 1, 0, ndim, *code, shape_at, shape_at + 8 * ndim, 0, at, _DELETER_ADDRESS,
                     *shape, *stride)
    _EXPORTS[at] = (block, data)
    return _c.capsule_new(at, _c.NAME_LEGACY, _DESTRUCTOR_LEGACY_ADDRESS)


def _steps_backwards(shape: tuple, stride: tuple) -> bool:
    # A negative stride matters only along a dimension of more than one element.
    return any(s < 0 and n > 1 for n, s in zip(shape, stride, strict=True))


def _check_max_version(max_version) -> tuple:
    try:
        major, minor = max_version
        return (int(major), int(minor))
    except (TypeError, ValueError):
        raise TypeError(f"__dlpack__(): argument 'max_version' must be a (major, minor) tuple of ints, got {max_version!r}") from None


def _check_export_target(tensor: Tensor, stream, dl_device, copy) -> None:
    device = tensor._storage._device
    if device.type == "meta":
        raise BufferError("__dlpack__(): cannot export a tensor on the meta device: meta tensors hold shape and dtype only, no data")
    if device.type != "cpu":
        raise BufferError(f"__dlpack__(): ember cannot export tensors on device '{device}'")
    if stream is not None:
        raise BufferError(
            f"__dlpack__(): argument 'stream' must be None for a CPU tensor (the CPU has no streams), got {stream!r}"
        )
    if dl_device is not None:
        try:
            target = (int(dl_device[0]), int(dl_device[1]))
        except (TypeError, ValueError, IndexError):
            raise TypeError(f"__dlpack__(): argument 'dl_device' must be a (device_type, device_id) tuple, got {dl_device!r}") from None
        if target != _CPU_DEVICE:
            name = _c.DEVICE_NAMES.get(target[0], f"device type {target[0]}")
            if copy is False:
                raise BufferError(
                    f"__dlpack__(): exporting to dl_device={target} ({name}) would need a copy to another device, but copy=False"
                )
            raise BufferError(
                f"__dlpack__(): ember cannot export to dl_device={target} ({name}); "
                f"it holds tensors on the CPU only (dl_device=(1, 0))"
            )


def _dlpack_device(self: Tensor) -> tuple[int, int]:
    """The DLPack device of this tensor: ``(1, 0)`` (``kDLCPU``, device 0).

    >>> import ember
    >>> ember.zeros(2).__dlpack_device__()
    (1, 0)
    """
    device = self._storage._device
    if device.type != "cpu":
        _check_export_target(self, None, None, None)
    return _CPU_DEVICE


_dlpack.__name__ = _dlpack.__qualname__ = "__dlpack__"
_dlpack_device.__name__ = _dlpack_device.__qualname__ = "__dlpack_device__"
# The producer side of the protocol on every tensor; the package face binds it (``ember._install``).
TENSOR_METHODS = {"__dlpack__": _dlpack, "__dlpack_device__": _dlpack_device}


def live_exports() -> int:
    """How many exported capsules' memory the consumers still hold (for leak checks)."""
    return len(_EXPORTS)


# -----------------------------------------------------------------------------------------
# consumer


_CAPSULE_TYPE = type(_c.capsule_new(_DELETER_ADDRESS, _c.PROBE_NAME, None))  # PyCapsule has no public name
_MAX_VERSION = (_c.DLPACK_MAJOR, _c.DLPACK_MINOR)
_MEMORY = _c.MEMORY
_is_valid = _c.raw_capsule_is_valid
_get_pointer = _c.raw_capsule_get_pointer
_set_name = _c.raw_capsule_set_name
_VERSIONED_HEADER = _c.VERSIONED_HEADER.unpack_from
_LEGACY_HEADER = _c.LEGACY_HEADER.unpack_from
_INT64S: dict[int, object] = {}  # count -> unpack_from of that many int64s
_FOREIGN_DELETERS: dict[int, object] = {}  # deleter address -> callable, one per producer library


def from_dlpack(x, /, *, device: Device | str | None = None, copy: bool | None = None) -> Tensor:
    """A tensor over the memory of ``x``, an object with ``__dlpack__`` or a DLPack capsule.

    Nothing is copied unless ``copy=True``: writes through either side are seen by the other,
    and a read-only producer (``DLPACK_FLAG_BITMASK_READ_ONLY``) gives a read-only tensor.
    ember holds CPU tensors only, so ``device`` may only name the CPU.

    >>> import numpy as np
    >>> a = np.zeros(3, dtype=np.float32)
    >>> t = from_dlpack(a)
    >>> t[0] = 5; a.tolist()
    [5.0, 0.0, 0.0]
    """
    if device is not None:
        _check_import_device(device)
    if type(x) is _CAPSULE_TYPE:
        capsule = x
    else:
        export = getattr(x, "__dlpack__", None)
        if export is None:
            raise TypeError(
                f"from_dlpack(): argument 'x' must be an array with __dlpack__ and __dlpack_device__, or a DLPack capsule, "
                f"not {type(x).__name__}"
            )
        # No __dlpack_device__ first, as NumPy's consumer: a CPU consumer passes no stream, and the
        # capsule says where its memory lives (_import_capsule refuses it there, unconsumed).
        try:
            capsule = export(max_version=_MAX_VERSION)
        except TypeError:
            capsule = export()  # a producer from before DLPack 1.0 knows no keywords
    result = _import_capsule(capsule)
    return result.clone() if copy else result


def _check_import_device(device) -> None:
    if isinstance(device, tuple):
        ok = len(device) == 2 and int(device[0]) in HOST_DEVICE_TYPES
    else:
        ok = str(device) == "cpu" or getattr(device, "type", None) == "cpu"
    if not ok:
        raise BufferError(f"from_dlpack(): argument 'device' must be the CPU (ember holds CPU tensors only), got {device!r}")


def _import_capsule(capsule) -> Tensor:
    ident = id(capsule)  # the capsule's address: the raw C calls take it, and we hold a reference
    try:  # GetPointer checks the name itself: one C call for a versioned capsule, not two
        managed = _get_pointer(ident, NAME_VERSIONED) if type(capsule) is _CAPSULE_TYPE else None
    except ValueError:  # another name: PyCapsule_GetPointer's error, raised by ctypes
        managed = None
    if managed is not None:
        # One read of the whole header; nothing past the version is interpreted unless the
        # major version is ours (another major version may lay the struct out differently).
        (major, minor, _, deleter, flags, data, device_type, device_id, ndim, code, bits, lanes,
         shape_at, strides_at, byte_offset) = _VERSIONED_HEADER(_MEMORY, managed)
        if major != DLPACK_MAJOR:
            # Only the deleter may be used; the capsule's destructor calls it when the capsule dies.
            raise BufferError(f"from_dlpack(): the capsule holds DLPack {major}.{minor}, but ember reads DLPack {DLPACK_MAJOR}.x")
        used = USED_VERSIONED
    elif type(capsule) is _CAPSULE_TYPE and _is_valid(ident, NAME_LEGACY):
        managed = _get_pointer(ident, NAME_LEGACY)
        (data, device_type, device_id, ndim, code, bits, lanes, shape_at, strides_at, byte_offset,
         _, deleter) = _LEGACY_HEADER(_MEMORY, managed)
        flags = 0
        used = USED_LEGACY
    else:
        raise _bad_capsule(capsule)
    dtype = _DTYPES.get((code, bits, lanes))
    if dtype is None:
        raise BufferError(f"from_dlpack(): ember has no dtype for DLPack type {_type_name(code, bits, lanes)}")
    if device_type not in HOST_DEVICE_TYPES:
        name = _c.DEVICE_NAMES.get(device_type, f"device type {device_type}")
        raise BufferError(f"from_dlpack(): the tensor lives on {name} (device {device_id}); ember reads CPU memory only (copy it to the host first)")
    if ndim:
        if ndim < 0:
            raise BufferError(f"from_dlpack(): the DLTensor has ndim={ndim}")
        read = _INT64S.get(ndim) or _int64s(ndim)
        shape = read(_MEMORY, shape_at)
        stride = read(_MEMORY, strides_at) if strides_at else contiguous_strides(shape)
        low = high = 0  # the extent in elements, relative to the first element
        for n, s in zip(shape, stride, strict=True):
            if s < 0:
                low += (n - 1) * s
            else:
                high += (n - 1) * s
        smallest = min(shape)
    else:
        shape = stride = ()
        low = high = 0
        smallest = 1
    if smallest <= 0:
        if smallest < 0:
            raise BufferError(f"from_dlpack(): the DLTensor has a negative size in shape {list(shape)}")
        _set_name(ident, used)  # the capsule no longer owns the tensor: ember does
        return make_tensor(Storage._from_dataptr(from_blob(0, 0, (deleter, managed), _release)), 0, shape, stride, dtype)
    if not data:
        raise BufferError(f"from_dlpack(): the DLTensor of shape {list(shape)} has a NULL data pointer")
    readonly = flags & FLAG_READ_ONLY == FLAG_READ_ONLY
    _set_name(ident, used)
    itemsize = dtype.itemsize
    blob = from_blob(data + byte_offset + low * itemsize, (high - low + 1) * itemsize, (deleter, managed), _release, readonly=readonly)
    return make_tensor(Storage._from_dataptr(blob, readonly=readonly), -low, shape, stride, dtype)


def _int64s(count: int):
    unpack_from = _INT64S[count] = struct.Struct(f"={count}q").unpack_from
    return unpack_from


def _release(owner: tuple) -> None:
    """Give a consumed tensor back to its producer: call its deleter, exactly once."""
    deleter, managed = owner
    if deleter == _DELETER_ADDRESS:
        _EXPORTS.pop(managed, None)  # ember's own export: skip the round trip through C
    elif deleter:
        call = _FOREIGN_DELETERS.get(deleter)
        if call is None:
            call = _FOREIGN_DELETERS[deleter] = _c.FOREIGN_DELETER(deleter)
        call(managed)


def _bad_capsule(capsule) -> Exception:
    if type(capsule) is not _CAPSULE_TYPE:
        return TypeError(f"from_dlpack(): expected a DLPack capsule, got {type(capsule).__name__}")
    name = _c.capsule_get_name(capsule)
    if name in (USED_LEGACY, USED_VERSIONED):
        return ValueError(
            f"from_dlpack(): the DLPack capsule was already consumed (its name is {name.decode()!r}); a capsule can be "
            f"imported only once, so call __dlpack__() again for a new one"
        )
    shown = "NULL" if name is None else repr(name.decode(errors="replace"))
    return ValueError(f"from_dlpack(): expected a capsule named 'dltensor' or 'dltensor_versioned', got one named {shown}")


def _type_name(code: int, bits: int, lanes: int) -> str:
    name = _c.TYPE_CODE_NAMES.get(code, f"code {code}")
    return f"{name} (code={code}, bits={bits}, lanes={lanes})"
