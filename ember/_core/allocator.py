"""Allocators: where a storage's bytes come from and where they go back.

The contract is narrow, as in TensorFlow's ``Allocator`` and PyTorch's ``THAllocator``:
``allocate(nbytes)`` returns a :class:`DataPtr` (the address, a flat ``uint8`` NumPy array
over exactly those bytes, and the context object that owns them); ``free(block)`` is the
matching release. Nobody calls ``free`` by hand: memory is returned when the last user of it
dies, whether that user is an ember storage or a NumPy view handed out by ``Tensor.numpy()``.
Every NumPy view of a block keeps the block's context alive (NumPy's ``base`` chain), and a
weak reference on the context tells the allocator when the last one is gone. So no block is
ever reused while something can still see it.

>>> a = CPUAllocator()
>>> p = a.allocate(100)
>>> p.address % ALIGNMENT, p.buffer.nbytes
(0, 100)
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import mmap
import os
import sys
import threading
import weakref
from collections.abc import Iterator

import numpy as np

from .device import CPU, Device, as_device

__all__ = [
    "ALIGNMENT",
    "Allocator",
    "CPUAllocator",
    "CachingAllocator",
    "DataPtr",
    "empty_cache",
    "from_blob",
    "get_allocator",
    "memory_stats",
    "reset_peak_memory_stats",
    "set_allocator",
    "using_allocator",
]

ALIGNMENT = 64
# From this size on, blocks come from their own anonymous mapping advised for transparent
# huge pages: a fresh 64 MiB block is then ~4x faster to first touch than with 4 KiB pages.
HUGE_PAGE_THRESHOLD = 4 << 20
# Kernel outputs below this size are plain NumPy arrays (see CPUAllocator.allocate_array): malloc
# reuses freed blocks of this size without new page faults, where a fresh mapping faults on every op.
SMALL_BLOCK = 32 << 20

_U8 = np.dtype(np.uint8)
_EMPTY_BUFFER = np.empty(0, _U8)  # shared by every zero-byte storage: nothing to write


class DataPtr:
    """An allocation: its address, a flat uint8 array over its bytes, and its owner.

    ``context`` is the object whose lifetime is the memory's lifetime; ``buffer``'s NumPy
    base chain leads to it, so every view derived from ``buffer`` keeps it alive. A block made
    by :meth:`Allocator.allocate_array` is owned by its typed array, and its flat ``buffer``
    is derived from that array when first asked.
    """

    __slots__ = ("_address", "_buffer", "allocator", "context")

    def __init__(self, address: int | None, buffer: np.ndarray | None, context: object, allocator: Allocator | None) -> None:
        self._address = address  # None: read from the buffer when first asked
        self._buffer = buffer  # None: derived from the typed array that owns the block
        self.context = context
        self.allocator = allocator

    @property
    def buffer(self) -> np.ndarray:
        buffer = self._buffer
        if buffer is None:
            buffer = self._buffer = self.context.reshape(-1).view(_U8)
        return buffer

    @property
    def address(self) -> int:
        if self._address is None:
            self._address = self.buffer.ctypes.data if self.buffer.size else 0
        return self._address

    @property
    def nbytes(self) -> int:
        return self.buffer.nbytes

    def __repr__(self) -> str:
        return f"DataPtr(address=0x{self.address:x}, nbytes={self.nbytes}, context={type(self.context).__name__})"


    def escape(self) -> None:
        """A view of this memory is leaving ember (``Tensor.numpy()``, pickling): nothing to do
        here, since every block's release already waits for its last view."""


class _ArrayBlock(DataPtr):
    """A kernel output from ``CPUAllocator.allocate_array``: a typed NumPy array, whose
    memory NumPy frees. Its accounting follows this object, which every ember holder of the
    memory keeps alive (the storage, each tensor's cached view), and costs no weak reference.
    When a view escapes to the user, a weak reference on the memory's owner takes over the
    accounting, as for every other block, so the bytes count until that view is gone too."""

    __slots__ = ("_escaped", "_nbytes", "_stats")

    def escape(self) -> None:
        if not self._escaped:
            self._escaped = True
            array = self.context
            ref = _weakref(array if array.base is None else array.base, _released_small)
            _LIVE[id(ref)] = (ref, self._stats, self._nbytes)

    def __del__(self) -> None:
        if not self._escaped:
            stats = self._stats
            stats.allocated -= self._nbytes
            stats.num_frees += 1


class _KeptBlock(_ArrayBlock):
    """An aligned output that goes back onto ``_kept`` (its allocator's free list for its shape
    and dtype) when this object dies and nothing else can see the memory."""

    __slots__ = ("_kept",)

    def __del__(self) -> None:
        if self._escaped:
            return
        stats = self._stats
        nbytes = self._nbytes
        stats.allocated -= nbytes
        stats.num_frees += 1
        kept = self._kept
        if kept is None or len(kept) >= _KEEP_PER_SIGNATURE:
            return
        self._buffer = None  # this block's own flat view (when made) holds the memory too
        array = self.context
        # Kept only when this object held the last reference to the array and the array the
        # last to its memory: a NumPy view anywhere (an escaped one, a queued kernel's) keeps
        # the block out of the free list, so no block is ever reused while something sees it.
        if _getrefcount(array) == _SOLE and _getrefcount(array.base) == _SOLE_BASE:
            allocator = self.allocator
            if allocator._kept_bytes + nbytes <= allocator.KEEP_TOTAL:
                kept.append(array)
                allocator._kept_bytes += nbytes
                stats.cached += nbytes


EMPTY_DATAPTR = DataPtr(0, _EMPTY_BUFFER, None, None)


# ---------------------------------------------------------------------------------------
# statistics, one record per device shared by every allocator of that device


class _DeviceStats:
    __slots__ = ("allocated", "cached", "num_allocs", "num_frees", "peak")

    def __init__(self) -> None:
        self.allocated = self.peak = self.cached = self.num_allocs = self.num_frees = 0

    def on_alloc(self, nbytes: int) -> None:
        self.allocated += nbytes
        self.num_allocs += 1
        if self.allocated > self.peak:
            self.peak = self.allocated

    def on_free(self, nbytes: int) -> None:
        self.allocated -= nbytes
        self.num_frees += 1


_STATS: dict[Device, _DeviceStats] = {}

# Weak references to the owners of live blocks, with what their release needs. Held here,
# not by the allocator: an allocator dropped before its blocks must still see them freed.
_LIVE: dict[int, tuple[weakref.ref, Allocator, object, int]] = {}


def _track(owner: object, allocator: Allocator, block: object, nbytes: int) -> None:
    ref = weakref.ref(owner, _released)
    _LIVE[id(ref)] = (ref, allocator, block, nbytes)


def _released(ref: weakref.ref) -> None:
    _, allocator, block, nbytes = _LIVE.pop(id(ref))
    allocator.free(block, nbytes)


def _released_small(ref: weakref.ref) -> None:
    """The free path of CPUAllocator.allocate_array's blocks: NumPy frees the memory, this counts it."""
    _, stats, nbytes = _LIVE.pop(id(ref))
    stats.allocated -= nbytes
    stats.num_frees += 1


_weakref = weakref.ref
_new_dataptr = object.__new__
_getrefcount = sys.getrefcount


def _stats_for(device: Device) -> _DeviceStats:
    stats = _STATS.get(device)
    if stats is None:
        stats = _STATS[device] = _DeviceStats()
    return stats


def memory_stats(device: Device | str | None = None) -> dict[str, int]:
    """Bytes allocated now and at peak, bytes cached, and allocation counts for a device.

    >>> stats = memory_stats("cpu")
    >>> sorted(stats)[:2]
    ['allocated_bytes.current', 'allocated_bytes.peak']
    """
    s = _stats_for(as_device(device, op="memory_stats"))
    return {
        "allocated_bytes.current": s.allocated,
        "allocated_bytes.peak": s.peak,
        "cached_bytes.current": s.cached,
        "reserved_bytes.current": s.allocated + s.cached,
        "num_allocs": s.num_allocs,
        "num_frees": s.num_frees,
    }


def reset_peak_memory_stats(device: Device | str | None = None) -> None:
    """Set the peak of allocated bytes to what is allocated now."""
    s = _stats_for(as_device(device, op="reset_peak_memory_stats"))
    s.peak = s.allocated


# ---------------------------------------------------------------------------------------
# raw blocks

# What the system says when it refuses memory: NumPy's MemoryError, mmap's and ftruncate's
# OSError (ENOMEM, ENOSPC), and OverflowError for a length no C size_t holds.
OUT_OF_MEMORY = (MemoryError, OSError, OverflowError)


@functools.cache
def machine_memory() -> int:
    """Physical memory plus swap, in bytes: no single block past it can ever be had."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open("/proc/meminfo") as f:
            swap = next((int(line.split()[1]) * 1024 for line in f if line.startswith("SwapTotal:")), 0)
    except OSError:
        swap = 0
    return total + swap


def allocation_failed(allocator: object, nbytes: int, exc: BaseException) -> RuntimeError:
    """The one error for memory the system refused, naming the allocator, the bytes and the
    device, in PyTorch's words (``DefaultCPUAllocator: can't allocate memory: ...``); every
    allocation site raises it ``from`` the system's own error."""
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else (str(exc) or type(exc).__name__)
    device = getattr(allocator, "device", CPU)
    return RuntimeError(
        f"{type(allocator).__name__}: can't allocate memory: you tried to allocate {nbytes} bytes on device '{device}' ({reason})"
    )


def _fresh_block(nbytes: int) -> tuple[np.ndarray, int]:
    """A new, 64-byte aligned flat uint8 array of nbytes and its address.

    Small blocks come from NumPy's allocator (malloc), over-allocated and sliced to the
    alignment; large ones are anonymous mappings (page aligned) advised for huge pages.
    """
    if nbytes >= HUGE_PAGE_THRESHOLD:
        mapping = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, "MADV_HUGEPAGE"):
            mapping.madvise(mmap.MADV_HUGEPAGE)
        probe = ctypes.c_char.from_buffer(mapping)
        address = ctypes.addressof(probe)
        del probe  # release the export so only the NumPy view holds the mapping
        return np.frombuffer(mapping, _U8), address
    raw = np.empty(nbytes + ALIGNMENT - 1, _U8)
    address = ctypes.addressof(ctypes.c_char.from_buffer(raw))  # 0.3 us; raw.ctypes.data costs 1 us
    skip = -address % ALIGNMENT
    return raw[skip : skip + nbytes], address + skip


def _aligned_array(nbytes: int, shape: tuple, np_dtype: np.dtype) -> np.ndarray:
    """A new C-contiguous typed array of ``shape`` starting on a 64-byte boundary: NumPy's
    allocator (malloc) aligns to 16 bytes only, so the block is over-allocated by 63 bytes."""
    raw = np.empty(nbytes + ALIGNMENT - 1, _U8)
    address = ctypes.addressof(ctypes.c_char.from_buffer(raw))  # 0.3 us; raw.ctypes.data costs 1 us
    return np.ndarray(shape, np_dtype, raw, -address % ALIGNMENT)


def _sole_references() -> tuple[int, int]:
    """What ``sys.getrefcount`` says in ``_ArrayBlock.__del__``'s check of an array and of the
    memory under it when only the block holds them (an attribute, a local, the argument),
    measured here the same way, so the check follows the interpreter's own counting."""
    holder = _new_dataptr(DataPtr)
    holder.context = _aligned_array(4, (1,), np.dtype(np.float32))
    array = holder.context
    return _getrefcount(array), _getrefcount(array.base)


_SOLE, _SOLE_BASE = _sole_references()
_KEEP_PER_SIGNATURE = 4


class Allocator:
    """The allocator contract: ``allocate(nbytes) -> DataPtr`` and the matching ``free``.

    ``free`` receives what ``allocate`` registered for release and is called exactly once,
    when the last user of the memory is gone. Subclasses: the CPU allocator, the caching
    allocator, and (later) a shared-memory allocator.
    """

    device: Device = CPU

    def allocate(self, nbytes: int) -> DataPtr:
        raise NotImplementedError

    def free(self, block: object, nbytes: int) -> None:
        raise NotImplementedError

    def allocate_array(self, nbytes: int, shape: tuple, np_dtype: np.dtype) -> tuple[DataPtr, np.ndarray]:
        """A block of ``nbytes`` and a C-contiguous typed array over it: how kernel outputs are made."""
        data = self.allocate(nbytes)
        return data, np.ndarray(shape, np_dtype, data.buffer)

    def reserve(self, nbytes: int) -> None:
        """Refuse now an allocation that could never succeed later: a lazily allocated storage
        (``empty``) calls it when made, so its error comes where PyTorch's does, not on first use.
        A block larger than the machine's memory and swap together is what the system refuses."""
        if nbytes > machine_memory():
            raise allocation_failed(self, nbytes, MemoryError(f"more than the machine's {machine_memory()} bytes of memory and swap"))

    def _check_nbytes(self, nbytes: int) -> None:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int):
            raise TypeError(f"allocate(): argument 'nbytes' must be int, not {type(nbytes).__name__}")
        if nbytes < 0:
            raise ValueError(f"allocate(): argument 'nbytes' must be non-negative, got {nbytes}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(device={str(self.device)!r})"


# Every allocator that keeps freed blocks, so that ember.empty_cache() reaches them all.
_CACHING_INSTANCES: weakref.WeakSet[Allocator] = weakref.WeakSet()


class CPUAllocator(Allocator):
    """The default CPU allocator: blocks freed when their last user dies.

    Blocks from ``allocate`` start on 64-byte boundaries, and so do kernel outputs from
    ``ALIGN_FROM`` bytes on. Smaller outputs are plain NumPy arrays (malloc aligns them to 16
    bytes): aligning one costs about 0.3 us, more than its kernel gains from it
    (docs/performance.md has the measurement). Aligned outputs up to ``KEEP_LIMIT`` bytes are
    kept when freed, a few per (shape, dtype) and ``KEEP_TOTAL`` bytes in all, and handed out
    again to the next output of that shape and dtype: a loop allocates the same outputs on
    every step, and reuse pays for the alignment. ``empty_cache()`` releases them.
    """

    ALIGN_FROM = 16 << 10
    KEEP_LIMIT = 1 << 20
    KEEP_PER_SIGNATURE = _KEEP_PER_SIGNATURE
    KEEP_TOTAL = 8 << 20
    _KEEP_KEYS = 1024  # shapes with a free list; past it, outputs of new shapes are not kept

    def __init__(self, device: Device = CPU) -> None:
        self.device = device
        self._stats = _stats_for(device)
        self._kept: dict[tuple, list[np.ndarray]] = {}
        self._kept_bytes = 0
        _CACHING_INSTANCES.add(self)

    def allocate(self, nbytes: int) -> DataPtr:
        if nbytes == 0:
            return EMPTY_DATAPTR  # zero-byte tensors allocate nothing
        self._check_nbytes(nbytes)
        try:
            buffer, address = _fresh_block(nbytes)
        except OUT_OF_MEMORY as exc:
            raise allocation_failed(self, nbytes, exc) from exc
        owner = buffer.base  # the array (or memoryview) that owns the bytes
        _track(owner, self, None, nbytes)
        self._stats.on_alloc(nbytes)
        return DataPtr(address, buffer, owner, self)

    def allocate_array(self, nbytes: int, shape: tuple, np_dtype: np.dtype) -> tuple[DataPtr, np.ndarray]:
        if not 0 < nbytes < SMALL_BLOCK:
            return super().allocate_array(nbytes, shape, np_dtype)
        # Outputs below 32 MiB are typed NumPy arrays, freed by NumPy: malloc hands a freed
        # block of the same size back already touched, where a fresh mapping faults on every call.
        stats = self._stats
        if nbytes < self.ALIGN_FROM:
            try:
                array = np.empty(shape, np_dtype)
            except OUT_OF_MEMORY as exc:
                raise allocation_failed(self, nbytes, exc) from exc
            data = _new_dataptr(_ArrayBlock)
        else:
            array = kept = None
            if nbytes <= self.KEEP_LIMIT:
                key = (shape, np_dtype)
                kept = self._kept.get(key)
                if kept:
                    try:
                        array = kept.pop()
                    except IndexError:  # another thread took the last one
                        pass
                    else:
                        self._kept_bytes -= nbytes
                        stats.cached -= nbytes
                elif kept is None and len(self._kept) < self._KEEP_KEYS:
                    kept = self._kept[key] = []
            if array is None:
                try:
                    array = _aligned_array(nbytes, shape, np_dtype)
                except OUT_OF_MEMORY as exc:
                    raise allocation_failed(self, nbytes, exc) from exc
            data = _new_dataptr(_KeptBlock)
            data._kept = kept
        stats.allocated += nbytes  # on_alloc, inlined: every op's output comes here
        stats.num_allocs += 1
        if stats.allocated > stats.peak:
            stats.peak = stats.allocated
        data._address = data._buffer = None
        data.context = array
        data.allocator = self
        data._stats = stats
        data._nbytes = nbytes
        data._escaped = False
        return data, array

    def free(self, block: object, nbytes: int) -> None:
        # The memory itself went back to NumPy / the kernel with its owner; count it.
        self._stats.on_free(nbytes)

    def empty_cache(self) -> None:
        """Release the kept outputs to the system (the free lists stay, empty)."""
        released = 0
        for kept in list(self._kept.values()):
            while kept:
                try:
                    released += kept.pop().nbytes
                except IndexError:
                    break
        self._kept_bytes -= released
        self._stats.cached -= released


def _size_class(nbytes: int) -> int:
    """Round small requests up to 512 bytes and large ones up to 2 MiB, so that freed
    blocks are found again by an exact-size lookup (PyTorch's CUDA allocator rounds alike)."""
    if nbytes <= (1 << 20):
        return (nbytes + 511) & ~511
    return (nbytes + (2 << 20) - 1) & ~((2 << 20) - 1)


class CachingAllocator(Allocator):
    """Keeps freed blocks in size-bucketed free lists and hands them out again.

    Each allocation hands out a fresh ``memoryview`` lease over a cached block; NumPy views
    of the block lead to the lease, so the block returns to its bucket only when the lease,
    the storage and every NumPy view derived from it are gone. ``empty_cache()`` releases the
    cached blocks to the system.
    """

    def __init__(self, device: Device = CPU) -> None:
        self.device = device
        self._stats = _stats_for(device)
        self._free_blocks: dict[int, list[tuple[np.ndarray, int]]] = {}
        self._lock = threading.Lock()
        _CACHING_INSTANCES.add(self)

    def allocate(self, nbytes: int) -> DataPtr:
        if nbytes == 0:
            return EMPTY_DATAPTR
        self._check_nbytes(nbytes)
        size = _size_class(nbytes)
        with self._lock:
            bucket = self._free_blocks.get(size)
            if bucket:
                block, address = bucket.pop()
                self._stats.cached -= size
            else:
                try:
                    block, address = _fresh_block(size)
                except OUT_OF_MEMORY as exc:
                    raise allocation_failed(self, size, exc) from exc
        buffer = np.frombuffer(memoryview(block), _U8, count=nbytes)
        lease = buffer.base  # NumPy's own memoryview: every view of buffer leads to it
        _track(lease, self, (block, address), nbytes)
        self._stats.on_alloc(nbytes)
        return DataPtr(address, buffer, lease, self)

    def free(self, block: object, nbytes: int) -> None:
        raw, _ = block  # type: ignore[misc]
        with self._lock:
            self._free_blocks.setdefault(raw.nbytes, []).append(block)  # type: ignore[arg-type]
            self._stats.cached += raw.nbytes
        self._stats.on_free(nbytes)

    def empty_cache(self) -> None:
        """Release every cached (free) block to the system."""
        with self._lock:
            released = sum(size * len(blocks) for size, blocks in self._free_blocks.items())
            self._free_blocks.clear()
            self._stats.cached -= released


class _UnavailableAllocator(Allocator):
    """Stands in for a device type that this build cannot allocate on (CUDA here)."""

    def __init__(self, device: Device, why: str) -> None:
        self.device = device
        self._why = why

    def allocate(self, nbytes: int) -> DataPtr:
        raise RuntimeError(f"cannot allocate {nbytes} bytes on device '{self.device}': {self._why}")

    def reserve(self, nbytes: int) -> None:
        self.allocate(nbytes)


# ---------------------------------------------------------------------------------------
# from-blob: memory owned by someone else


class _ForeignOwner:
    """Keeps a foreign owner alive and calls its release exactly once, when the last view dies.

    NumPy reads ``__array_interface__`` to build the flat buffer, and that buffer's base is
    this object, so every view of the memory holds it.
    """

    __slots__ = ("__array_interface__", "__weakref__", "owner", "release")

    def __init__(self, address: int, nbytes: int, owner: object, release, readonly: bool) -> None:
        self.__array_interface__ = {"data": (address, readonly), "shape": (nbytes,), "typestr": "|u1", "version": 3}
        self.owner = owner
        self.release = release

    def __del__(self) -> None:
        release, self.release = self.release, None
        if release is not None:
            release(self.owner)


def from_blob(address: int, nbytes: int, owner: object, release=None, *, readonly: bool = False, device: Device = CPU) -> DataPtr:
    """Wrap memory that someone else owns (a NumPy array, a DLPack producer).

    ``owner`` is kept alive until the last view of the memory dies; then ``release(owner)``
    runs once, if given. Nothing is copied and allocator statistics are untouched.

    >>> import numpy as np
    >>> arr = np.arange(4, dtype=np.uint8)
    >>> p = from_blob(arr.ctypes.data, 4, arr)
    >>> p.buffer.tolist()
    [0, 1, 2, 3]
    """
    if nbytes == 0:
        if release is not None:
            release(owner)
        return EMPTY_DATAPTR
    block = _ForeignBlock(address, None, _ForeignOwner(address, nbytes, owner, release, readonly), None)
    block._nbytes = nbytes
    return block


class _ForeignBlock(DataPtr):
    """A from-blob block: its flat buffer is built on first use (wrapping memory that is handed
    straight on, as a DLPack import often is, then costs no NumPy array)."""

    __slots__ = ("_nbytes",)

    @property
    def buffer(self) -> np.ndarray:
        buffer = self._buffer
        if buffer is None:
            buffer = self._buffer = np.asarray(self.context)  # its base is the owner: views keep it alive
        return buffer

    @property
    def nbytes(self) -> int:
        return self._nbytes


# ---------------------------------------------------------------------------------------
# the allocator registry: one default per device type


_CPU_DEFAULT = CPUAllocator()
ALLOCATORS: dict[str, Allocator] = {"cpu": _CPU_DEFAULT}


def get_allocator(device: Device | str | None = None) -> Allocator:
    """The allocator that new storages on ``device`` draw from."""
    if type(device) is not Device:
        device = as_device(device, op="get_allocator")
    allocator = ALLOCATORS.get(device.type)
    if allocator is not None:
        return allocator
    if device.type == "meta":
        raise RuntimeError("the meta device never allocates: meta tensors hold shape and dtype only")
    return _UnavailableAllocator(device, "ember has no CUDA backend on this machine (only 'cpu' and 'meta' devices can hold tensors)")


def set_allocator(allocator: Allocator, device_type: str = "cpu") -> Allocator:
    """Make ``allocator`` the default for ``device_type``; returns the previous one."""
    if not isinstance(allocator, Allocator):
        raise TypeError(f"set_allocator(): argument 'allocator' must be an Allocator, not {type(allocator).__name__}")
    previous = ALLOCATORS.get(device_type)
    ALLOCATORS[device_type] = allocator
    return previous  # type: ignore[return-value]


@contextlib.contextmanager
def using_allocator(allocator: Allocator, device_type: str = "cpu") -> Iterator[Allocator]:
    """Scope a default allocator: ``with using_allocator(CachingAllocator()): ...``."""
    previous = set_allocator(allocator, device_type)
    try:
        yield allocator
    finally:
        ALLOCATORS[device_type] = previous


def empty_cache() -> None:
    """Release the cached blocks of every caching allocator in use."""
    for allocator in list(_CACHING_INSTANCES):
        allocator.empty_cache()

