"""Storage: refcounted raw bytes on a device, knowing nothing of dtype or shape.

A storage may be born without memory and allocate on first use (caffe2's ``mutable_data``);
a meta storage never allocates. The memory goes back to its allocator when the storage and
every view of it (ember tensors and NumPy arrays alike) are gone.

String storages are the one exception to "just bytes": like TensorFlow's allocator, which
runs element constructors for ``string`` tensors, they hold Python ``bytes`` objects, one per
8-byte slot, each initialised to ``b""``.

>>> s = Storage(4)
>>> s.fill_(7).tolist()
[7, 7, 7, 7]
"""

from __future__ import annotations

import os
import pickle

import numpy as np

from . import allocator as _alloc, shared_memory as _shm
from .device import CPU, Device, as_device
from .shape import INT64_MAX

__all__ = ["OBJECT_SLOT_BYTES", "Storage", "UntypedStorage", "shared_from_fd", "shared_from_name", "sync_point"]

OBJECT_SLOT_BYTES = 8  # one PyObject pointer per string element


class _SyncPoint:
    """Where host code waits for queued kernels before touching memory.

    The VM (``ember.dispatch.vm``) sets ``wait`` while an asynchronous stream may have work in
    flight; ``None`` means there is nothing to wait for, so a sync point costs one load.
    """

    __slots__ = ("wait",)

    def __init__(self) -> None:
        self.wait = None

    def __call__(self) -> None:
        if self.wait is not None:
            self.wait()


sync_point = _SyncPoint()


class Storage:
    """Untyped bytes: ``nbytes``, a device, an allocator, and (once allocated) the memory.

    A ``lazy`` storage allocates on first use, but asks its allocator to ``reserve`` the bytes
    when made, so memory that could never be had is refused at once; a storage that never
    allocates (a graph tensor's) passes ``reserve=False``.
    """

    # _watched: autograd saved a tensor of this storage (set by autograd, read with a default)
    __slots__ = ("__weakref__", "_allocator", "_data", "_device", "_holds_objects", "_nbytes", "_readonly", "_version", "_watched")

    def __init__(
        self,
        nbytes: int,
        *,
        device: Device | str | None = None,
        allocator: _alloc.Allocator | None = None,
        lazy: bool = False,
        holds_objects: bool = False,
        reserve: bool = True,
    ) -> None:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int):
            raise TypeError(f"Storage(): argument 'nbytes' must be int, not {type(nbytes).__name__}")
        if nbytes < 0:
            raise ValueError(f"Storage(): argument 'nbytes' must be non-negative, got {nbytes}")
        if nbytes > INT64_MAX:
            raise RuntimeError(f"Storage(): Storage size calculation overflowed: {nbytes} bytes do not fit in int64")
        self._nbytes = nbytes
        self._device = device if type(device) is Device else as_device(device, op="Storage")
        self._allocator = allocator
        self._data: _alloc.DataPtr | None = None
        self._readonly = False
        self._holds_objects = holds_objects
        self._version = 0
        if self._device.type != "meta":
            if allocator is None:
                self._allocator = _alloc.get_allocator(self._device)
            if not lazy:
                self._materialize()
            elif reserve:  # even 0 bytes: a device with no backend holds no tensor at all
                self._allocator.reserve(nbytes)  # a lazy storage still fails where the memory could never be had

    @classmethod
    def _from_dataptr(
        cls,
        data: _alloc.DataPtr,
        *,
        device: Device = CPU,
        readonly: bool = False,
        holds_objects: bool = False,
        nbytes: int | None = None,
    ) -> Storage:
        """A storage over memory that already exists (from-blob, unpickling, NumPy, kernel outputs)."""
        self = cls.__new__(cls)
        if nbytes is None:
            nbytes = data.nbytes if not holds_objects else data.buffer.size * OBJECT_SLOT_BYTES
        self._nbytes = nbytes
        self._device = device
        self._allocator = data.allocator
        self._data = data
        self._readonly = readonly
        self._holds_objects = holds_objects
        self._version = 0
        return self

    # -- memory --------------------------------------------------------------------

    def _materialize(self) -> _alloc.DataPtr:
        data = self._data
        if data is not None:
            return data
        if self._device.type == "meta":
            raise RuntimeError(
                "Cannot access data of a storage on the meta device: meta tensors hold shape and dtype only "
                "(create the tensor on 'cpu' to get values)"
            )
        if self._holds_objects:
            data = _allocate_objects(self._allocator, self._nbytes // OBJECT_SLOT_BYTES)
        else:
            data = self._allocator.allocate(self._nbytes)
        self._data = data
        return data

    def _buffer(self) -> np.ndarray:
        """The flat NumPy array over this storage's memory (uint8, or object for strings)."""
        data = self._data
        return data.buffer if data is not None else self._materialize().buffer

    @property
    def is_allocated(self) -> bool:
        return self._data is not None

    # -- queries -------------------------------------------------------------------

    @property
    def device(self) -> Device:
        return self._device

    @property
    def is_meta(self) -> bool:
        return self._device.type == "meta"

    @property
    def allocator(self) -> _alloc.Allocator | None:
        return self._allocator

    def nbytes(self) -> int:
        return self._nbytes

    size = nbytes
    __len__ = nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The address of the first byte (0 for meta and zero-byte storages)."""
        if self._device.type == "meta" or self._nbytes == 0:
            return 0
        return self._materialize().address

    def is_shared(self) -> bool:
        return bool(getattr(self._allocator, "is_shared", False))

    # -- shared memory (see shared_memory.py for the strategies and lifetimes) -------

    def share_memory_(self, strategy: str | None = None) -> Storage:
        """Move the bytes into shared memory, keeping their values; a no-op when already shared.

        Every tensor over this storage follows, since they all hold this Storage object.
        ``strategy`` overrides :func:`ember.multiprocessing.get_sharing_strategy`.

        >>> s = Storage(4).fill_(3).share_memory_()
        >>> s.is_shared(), s.tolist()
        (True, [3, 3, 3, 3])
        """
        if self.is_shared() or self.is_meta:
            return self
        if self._holds_objects:
            raise RuntimeError(
                "share_memory_(): a string storage holds Python objects, which cannot live in shared memory "
                "(sending a string tensor to another process pickles its values instead)"
            )
        sync_point()
        allocator = _shm.SHARED_ALLOCATOR if strategy is None else _shm.SharedMemoryAllocator(strategy)
        data = allocator.allocate(self._nbytes)
        if self._data is not None and self._nbytes:
            data.buffer[...] = self._data.buffer
        self._data = data
        self._allocator = allocator
        segment = _shm.segment_of(data)
        if segment is not None:
            _shm.remember_storage(segment.key, self)
        return self

    def _shared_segment(self, op: str, strategy: str) -> _shm.Segment:
        if self.is_meta or self._holds_objects or self._nbytes == 0:
            what = "a meta" if self.is_meta else "a string" if self._holds_objects else "a zero-byte"
            raise RuntimeError(f"{op}: {what} storage has no memory to share")
        self.share_memory_(strategy)
        segment = _shm.segment_of(self._materialize())
        if segment is None:
            raise RuntimeError(f"{op}: this storage's allocator ({self._allocator!r}) does not make shared segments")
        return segment

    def _share_filename_(self) -> tuple[bytes, bytes, int]:
        """Share by name: ``(manager, name, nbytes)``, which ``Storage._new_shared_filename`` maps
        in another process. A storage shared by descriptor that never left this process moves to a
        named segment first (every tensor over it follows).

        >>> s = Storage(8).share_memory_()
        >>> manager, name, nbytes = s._share_filename_()
        >>> name.startswith(b"/ember_"), nbytes
        (True, 8)
        """
        segment = self._shared_segment("_share_filename_()", "file_system")
        if segment.name is None:
            if segment.exported:
                raise RuntimeError(
                    "_share_filename_(): this storage is shared through a file descriptor that other processes may "
                    "already map, so it cannot move to a named segment; create it under "
                    "ember.multiprocessing.set_sharing_strategy('file_system'), or use _share_fd_()"
                )
            data = _shm.SharedMemoryAllocator("file_system").allocate(self._nbytes)
            data.buffer[...] = self._data.buffer
            self._data = data
            self._allocator = _shm.SHARED_ALLOCATOR
            segment = _shm.segment_of(data)
            _shm.remember_storage(segment.key, self)
        segment.exported = True
        return segment.manager, segment.name.encode(), self._nbytes

    def _share_fd_(self) -> tuple[int, int]:
        """Share by descriptor: ``(fd, nbytes)``. The descriptor stays this storage's (do not close it);
        ``Storage._new_shared_fd`` in another process (which got a copy of it) maps the same memory."""
        segment = self._shared_segment("_share_fd_()", "file_descriptor")
        segment.exported = True
        return segment.file_descriptor(), self._nbytes

    @classmethod
    def _new_shared_filename(cls, manager: bytes, name: bytes | str, nbytes: int) -> Storage:
        """Map a storage that another process shared with ``_share_filename_()`` (same memory)."""
        return shared_from_name(manager, name, nbytes, in_flight=False)

    @classmethod
    def _new_shared_fd(cls, fd: int, nbytes: int) -> Storage:
        """Map a storage shared with ``_share_fd_()``; ``fd`` stays the caller's (it is duplicated)."""
        return shared_from_fd(os.dup(fd), nbytes)

    def is_readonly(self) -> bool:
        return self._readonly

    def tolist(self) -> list:
        """The bytes as ints (or, for a string storage, its bytes objects)."""
        sync_point()
        return self._buffer().tolist()

    def __repr__(self) -> str:
        kind = "objects, " if self._holds_objects else ""
        state = "" if self._data is not None or self.is_meta else ", unallocated"
        return f"ember.UntypedStorage({kind}nbytes={self._nbytes}, device='{self._device}'{state})"

    # -- writes --------------------------------------------------------------------

    def _check_writable(self, op: str) -> None:
        if self._readonly:
            raise RuntimeError(
                f"{op}: cannot write to a read-only storage (its memory was lent read-only, e.g. by a "
                f"read-only NumPy array or a DLPack producer); clone() it to get a writable copy"
            )

    def fill_(self, value: int) -> Storage:
        """Set every byte to ``value`` (0-255)."""
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
            raise ValueError(f"Storage.fill_(): argument 'value' must be an int in [0, 255], got {value!r}")
        if self._holds_objects:
            raise RuntimeError("Storage.fill_(): a string storage holds objects, not bytes")
        self._check_writable("Storage.fill_()")
        sync_point()
        if not self.is_meta:
            self._buffer().fill(value)
        self._version += 1
        return self

    def copy_(self, src: Storage) -> Storage:
        """Copy ``src``'s bytes into this storage (same nbytes)."""
        if not isinstance(src, Storage):
            raise TypeError(f"Storage.copy_(): argument 'src' must be Storage, not {type(src).__name__}")
        if src._nbytes != self._nbytes or src._holds_objects != self._holds_objects:
            raise RuntimeError(f"Storage.copy_(): size mismatch, expected {self._nbytes} bytes but src has {src._nbytes}")
        self._check_writable("Storage.copy_()")
        sync_point()
        if src.is_meta and not self.is_meta:
            raise NotImplementedError("Storage.copy_(): Cannot copy out of meta storage; no data!")
        if not self.is_meta:
            np.copyto(self._buffer(), src._buffer())
        self._version += 1
        return self

    def resize_(self, nbytes: int) -> Storage:
        """Grow or shrink to ``nbytes``, keeping the common prefix of the old contents."""
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
            raise ValueError(f"Storage.resize_(): argument 'nbytes' must be a non-negative int, got {nbytes!r}")
        self._check_writable("Storage.resize_()")
        sync_point()
        if nbytes == self._nbytes:
            return self
        if self.is_shared() and self._data is not None:
            raise RuntimeError("Trying to resize storage that is not resizable (it lives in shared memory, which other processes may map)")
        if self.is_meta or self._data is None:
            self._nbytes = nbytes
            return self
        old = self._data.buffer
        if self._holds_objects:
            count = nbytes // OBJECT_SLOT_BYTES
            new = _allocate_objects(self._allocator, count)
            keep = min(count, old.size)
        else:
            new = self._allocator.allocate(nbytes)
            keep = min(nbytes, old.size)
        new.buffer[:keep] = old[:keep]
        self._data = new
        self._nbytes = nbytes
        self._version += 1
        return self

    def clone(self) -> Storage:
        sync_point()
        out = Storage(self._nbytes, device=self._device, lazy=True, holds_objects=self._holds_objects)
        if not self.is_meta:
            out._buffer()[...] = self._buffer()
        return out

    # -- pickling: bytes travel as one PickleBuffer (out-of-band with protocol 5) -------

    def __reduce_ex__(self, protocol: int):
        sync_point()
        if self.is_meta:
            return (_rebuild_meta_storage, (self._nbytes, self._holds_objects))
        if self._holds_objects:
            return (_rebuild_object_storage, (self._buffer().tolist(),))
        buffer = self._buffer()
        self._data.escape()  # an out-of-band PickleBuffer may outlive this storage
        if protocol >= 5:
            return (_rebuild_storage, (pickle.PickleBuffer(buffer),))
        return (_rebuild_storage, (buffer.tobytes(),))

    def __deepcopy__(self, memo: dict) -> Storage:
        copied = memo.get(id(self))
        if copied is None:
            copied = memo[id(self)] = self.clone()
        return copied


UntypedStorage = Storage


def _allocate_objects(allocator: _alloc.Allocator | None, count: int) -> _alloc.DataPtr:
    """Allocate ``count`` object slots and run the element constructor (``b""``) on each."""
    try:
        slots = np.empty(count, dtype=object)
    except _alloc.OUT_OF_MEMORY as exc:
        raise _alloc.allocation_failed(allocator, count * OBJECT_SLOT_BYTES, exc) from exc
    slots.fill(b"")
    address = slots.ctypes.data if count else 0
    return _alloc.DataPtr(address, slots, slots, allocator)


def _shared_storage(segment: _shm.Segment) -> Storage:
    storage = Storage._from_dataptr(_shm.segment_dataptr(segment, _shm.SHARED_ALLOCATOR))
    _shm.remember_storage(segment.key, storage)
    return storage


def shared_from_fd(fd: int, nbytes: int, creator_pid: int | None = None) -> Storage:
    """The storage over a received descriptor (which it now owns); the same storage if this
    process already maps that segment."""
    if nbytes == 0:
        os.close(fd)
        return Storage(0, allocator=_shm.SHARED_ALLOCATOR)
    try:
        key = ("fd", *_shm._inode(fd))
        storage = _shm.cached_storage(key)
    except BaseException:
        os.close(fd)
        raise
    if storage is not None:
        os.close(fd)
        return storage
    return _shared_storage(_shm.map_fd(fd, nbytes, creator_pid))


def shared_from_name(manager: bytes, name: bytes | str, nbytes: int, *, in_flight: bool) -> Storage:
    """The storage over a named segment; ``in_flight``: the handle came in a message, whose
    reference this process takes over (or drops, when it already maps the segment)."""
    if nbytes == 0:
        return Storage(0, allocator=_shm.SHARED_ALLOCATOR)
    name = name.decode() if isinstance(name, bytes) else name
    storage = _shm.cached_storage(("name", name))
    if storage is not None:
        if in_flight:
            _shm._send(manager, "D", name)
        return storage
    return _shared_storage(_shm.map_named(manager, name, nbytes, "T" if in_flight else "H"))


def _rebuild_storage(data) -> Storage:
    """Wrap unpickled bytes without a copy when they are writable; copy read-only ones."""
    buffer = np.frombuffer(memoryview(data), np.uint8)
    if not buffer.flags.writeable:
        storage = Storage(buffer.nbytes)
        storage._buffer()[...] = buffer
        return storage
    return Storage._from_dataptr(_alloc.DataPtr(None, buffer, buffer.base, None))


def _rebuild_object_storage(items: list) -> Storage:
    storage = Storage(len(items) * OBJECT_SLOT_BYTES, holds_objects=True)
    buffer = storage._buffer()
    for i, item in enumerate(items):
        buffer[i] = item
    return storage


def _rebuild_meta_storage(nbytes: int, holds_objects: bool) -> Storage:
    return Storage(nbytes, device="meta", holds_objects=holds_objects)
