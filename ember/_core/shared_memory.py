"""Shared memory: storages whose bytes several processes map at once.

Two strategies, PyTorch's names:

``file_descriptor`` (the default where ``os.memfd_create`` exists, i.e. Linux)
    A segment is an anonymous memory file (``memfd_create``): it never has a name in ``/dev/shm``,
    so nothing can leak there. Processes pass its descriptor (over a Unix socket, see
    ``ember.multiprocessing.reductions``), and the kernel frees the memory when the last descriptor
    and the last mapping are gone, whichever way each process ended, SIGKILL included. Every process
    that holds a segment keeps one descriptor for it (to send it on), so the number of live shared
    storages is bounded by ``RLIMIT_NOFILE``; importing ``ember.multiprocessing`` raises the soft
    limit to the hard one.

``file_system``
    A segment is a named POSIX shared-memory object, ``/dev/shm/ember_<manager>_<creator>_<n>``,
    for when descriptors cannot travel. Names outlive processes, so a small manager process (in the
    spirit of PyTorch's ``torch_shm_manager``) owns their removal. It runs the standalone script
    ``ember/multiprocessing/_shm_manager.py`` (no ember, no NumPy: it starts in milliseconds), one per
    process tree, started on first use. Each process keeps one Unix-socket connection to it and
    reports what it holds: ``C`` created, ``H`` holds, ``R`` released, ``P`` a handle is in flight
    (sent, not yet received), ``T`` the receiver took over that in-flight reference, ``D`` the
    receiver dropped it (it already held the segment). The manager unlinks a name as soon as nobody
    holds it. A connection that closes, however its process ended, releases everything that process
    held, so a SIGKILLed process leaks nothing. A creator registers a name *before* creating it, so a
    creator killed between the two leaves nothing unknown to the manager.

    The hard part is the window between sending a name and the receiver mapping it: the sender may
    drop its storage, or exit, before the receiver opens the name. The ``P`` message, sent while
    pickling, keeps the name alive for the message in flight; the receiver's ``T`` turns it into its
    own hold. Messages of different processes reach the manager in any order, but a receiver's ``T``
    is always written after the sender's ``P`` (it is caused by it), so the manager drains every
    readable connection before it unlinks anything. When its last client is gone the manager waits
    a short grace period (``MANAGER_GRACE_S``) for receivers of handles still in flight, then
    unlinks everything left and exits. A handle received after that fails with an error saying so.
    Should the manager itself be SIGKILLed, the next manager to start removes the names of every
    manager that no longer runs.

>>> a = SharedMemoryAllocator()
>>> p = a.allocate(100)
>>> p.buffer.nbytes, a.is_shared
(100, True)
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import itertools
import mmap
import os
import secrets
import socket
import sys
import threading
import weakref
from typing import NamedTuple

import numpy as np

from . import allocator as _alloc
from .device import CPU, Device

__all__ = [
    "MANAGER_GRACE_S",
    "SharedMemoryAllocator",
    "SharedSegment",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "list_shared",
    "set_sharing_strategy",
]

MANAGER_GRACE_S = 5.0  # how long a manager without clients keeps names whose handles are still in flight
NAME_PREFIX = "ember_"
_MANAGER_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "multiprocessing", "_shm_manager.py")

_HAS_MEMFD = hasattr(os, "memfd_create")
_STRATEGIES = ("file_descriptor", "file_system") if _HAS_MEMFD else ("file_system",)
_strategy = _STRATEGIES[0]


def get_all_sharing_strategies() -> set[str]:
    """The sharing strategies this system supports.

    >>> "file_system" in get_all_sharing_strategies()
    True
    """
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """How new shared storages are made: ``"file_descriptor"`` (Linux default) or ``"file_system"``.

    >>> get_sharing_strategy() in get_all_sharing_strategies()
    True
    """
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how storages shared from now on are made (existing ones keep theirs).

    >>> old = get_sharing_strategy()
    >>> set_sharing_strategy("file_system"); get_sharing_strategy()
    'file_system'
    >>> set_sharing_strategy(old)
    """
    global _strategy
    _strategy = _check_strategy(new_strategy, "set_sharing_strategy")


def _check_strategy(strategy: object, op: str) -> str:
    if strategy not in _STRATEGIES:
        raise ValueError(f"{op}(): argument 'strategy' must be one of {sorted(_STRATEGIES)}, got {strategy!r}")
    return strategy  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------
# mapping memory: libc's mmap, so that no extra descriptor is kept per mapping (Python's mmap
# duplicates the descriptor it maps, which would double the descriptors a segment costs)

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int64)
_libc.munmap.restype = ctypes.c_int
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_MAP_FAILED = ctypes.c_void_p(-1).value


def _map(fd: int, nbytes: int) -> int:
    address = _libc.mmap(None, nbytes, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
    if address is None or address == _MAP_FAILED:
        code = ctypes.get_errno()
        raise OSError(code, f"mmap of {nbytes} shared bytes failed: {os.strerror(code)}")
    return address


# ---------------------------------------------------------------------------------------
# segments


class Segment:
    """One shared mapping in this process: the memory, and what identifies it to other processes."""

    __slots__ = ("__weakref__", "address", "created", "creator_pid", "exported", "fd", "key", "manager", "name", "nbytes")

    def __init__(self, address: int, nbytes: int, *, fd=None, name=None, manager=None, creator_pid=None, created=False) -> None:
        self.address = address
        self.nbytes = nbytes
        self.fd = fd  # kept open to send the segment on; a named segment opens one only when asked
        self.name = name  # "/ember_..." for file_system segments
        self.manager = manager  # the manager's address (bytes) for named segments
        self.creator_pid = creator_pid
        self.created = created
        self.exported = False  # a handle has left this process
        self.key = ("name", name) if name is not None else ("fd", *_inode(fd))
        _LIVE.add(self)

    @property
    def strategy(self) -> str:
        return "file_system" if self.name is not None else "file_descriptor"

    def file_descriptor(self) -> int:
        """A descriptor of the segment (opened from the name on first use for named ones)."""
        if self.fd is None:
            self.fd = _posixshmem.shm_open(self.name, os.O_RDWR, 0o600)
        return self.fd


def _inode(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _release(segment: Segment) -> None:
    """The last view of a segment's memory is gone: unmap it and give up this process's hold."""
    _libc.munmap(segment.address, segment.nbytes)
    if segment.fd is not None:
        with contextlib.suppress(OSError):  # already closed (e.g. by a closerange in a child)
            os.close(segment.fd)
        segment.fd = None
    if segment.name is not None:
        _send(segment.manager, "R", segment.name)
    if segment.created:
        _STATS.on_free(segment.nbytes)


_LIVE: weakref.WeakSet[Segment] = weakref.WeakSet()
_counter = itertools.count()
_STATS = _alloc._stats_for(CPU)


def _too_many_files(op: str, exc: OSError) -> RuntimeError:
    soft, _ = _fd_limits()
    return RuntimeError(
        f"{op}: too many open files ({exc.strerror}; the limit is {soft}): under the 'file_descriptor' sharing "
        f"strategy every live shared storage and every tensor in flight between processes holds a file descriptor. "
        f"Raise the limit (ulimit -n), keep fewer shared tensors alive, or call "
        f"ember.multiprocessing.set_sharing_strategy('file_system')"
    )


def create_fd_segment(nbytes: int) -> Segment:
    """A new anonymous shared segment (``memfd_create``): no name anywhere, freed with its last holder."""
    try:
        fd = os.memfd_create(f"{NAME_PREFIX}{os.getpid()}_{next(_counter)}", os.MFD_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.EMFILE:
            raise _too_many_files("share_memory_()", exc) from None
        raise
    try:
        os.ftruncate(fd, nbytes)
        address = _map(fd, nbytes)
    except BaseException:
        os.close(fd)
        raise
    return Segment(address, nbytes, fd=fd, creator_pid=os.getpid(), created=True)


def create_named_segment(nbytes: int) -> Segment:
    """A new named segment in ``/dev/shm``, registered with this process tree's manager first."""
    manager = _own_manager()
    while True:
        name = f"/{NAME_PREFIX}{manager.pid}_{os.getpid()}_{next(_counter)}"
        _send(manager.address, "C", name)  # before it exists: a crash right after leaks nothing
        try:
            fd = _posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
            break
        except FileExistsError:
            _send(manager.address, "R", name)  # someone else's (a reused pid): our hold goes, theirs stays
    try:
        os.ftruncate(fd, nbytes)
        address = _map(fd, nbytes)
    finally:
        os.close(fd)  # the mapping keeps the memory; the name reopens it
    return Segment(address, nbytes, name=name, manager=manager.address, creator_pid=os.getpid(), created=True)


def map_fd(fd: int, nbytes: int, creator_pid: int | None = None) -> Segment:
    """Map a segment received as a descriptor; the segment owns ``fd`` from now on."""
    size = os.fstat(fd).st_size
    if size < nbytes:
        os.close(fd)
        raise RuntimeError(f"shared storage: the received segment has {size} bytes, but the handle says {nbytes}")
    return Segment(_map(fd, nbytes), nbytes, fd=fd, creator_pid=creator_pid)


def map_named(manager: bytes, name: str, nbytes: int, hold: str) -> Segment:
    """Map a named segment and tell its manager this process holds it (``hold`` is ``H`` or ``T``)."""
    _send(manager, hold, name)  # first: from now on this process's connection keeps the name alive
    try:
        fd = _posixshmem.shm_open(name, os.O_RDWR, 0o600)
    except FileNotFoundError:
        _send(manager, "R", name)
        raise RuntimeError(
            f"shared storage {name!r} no longer exists: every process that held it released it or exited "
            f"before this handle was opened (keep the sending process and its tensor alive until it is received)"
        ) from None
    try:
        size = os.fstat(fd).st_size
        if size < nbytes:
            raise RuntimeError(f"shared storage {name!r} has {size} bytes, but the handle says {nbytes}")
        address = _map(fd, nbytes)
    except BaseException:
        _send(manager, "R", name)
        raise
    finally:
        os.close(fd)
    creator = name.rsplit("_", 2)[-2]
    return Segment(address, nbytes, name=name, manager=manager, creator_pid=int(creator) if creator.isdigit() else None)


class _SharedDataPtr(_alloc.DataPtr):
    """A DataPtr over a shared segment; the segment is released when the last view of it dies."""

    __slots__ = ("segment",)


def segment_dataptr(segment: Segment, allocator: _alloc.Allocator) -> _alloc.DataPtr:
    context = _alloc._ForeignOwner(segment.address, segment.nbytes, segment, _release, False)
    data = _SharedDataPtr(segment.address, np.asarray(context), context, allocator)
    data.segment = segment
    return data


def segment_of(data: _alloc.DataPtr | None) -> Segment | None:
    return getattr(data, "segment", None)


# ---------------------------------------------------------------------------------------
# the allocator


class SharedMemoryAllocator(_alloc.Allocator):
    """Allocates every block as a shared-memory segment that other processes can map.

    ``strategy`` is ``"file_descriptor"`` or ``"file_system"``; None follows
    :func:`get_sharing_strategy` at each allocation. Use it scoped, so that tensors are born
    shared and sending them costs no copy: ``with ember.multiprocessing.shared_memory(): ...``.

    >>> import ember
    >>> with ember.memory.using_allocator(SharedMemoryAllocator()):
    ...     t = ember.zeros(3) + 1
    >>> t.is_shared()
    True
    """

    is_shared = True

    def __init__(self, strategy: str | None = None, device: Device = CPU) -> None:
        self.strategy = None if strategy is None else _check_strategy(strategy, "SharedMemoryAllocator")
        self.device = device

    def allocate(self, nbytes: int) -> _alloc.DataPtr:
        self._check_nbytes(nbytes)
        if nbytes == 0:
            return _alloc.DataPtr(0, _alloc._EMPTY_BUFFER, None, self)  # nothing to share, but it counts as shared
        strategy = self.strategy or _strategy
        try:
            segment = create_fd_segment(nbytes) if strategy == "file_descriptor" else create_named_segment(nbytes)
        except OSError as exc:
            if exc.errno not in (errno.ENOMEM, errno.ENOSPC, errno.EFBIG):
                raise
            raise _alloc.allocation_failed(self, nbytes, exc) from exc
        except (MemoryError, OverflowError) as exc:
            raise _alloc.allocation_failed(self, nbytes, exc) from exc
        _STATS.on_alloc(nbytes)
        return segment_dataptr(segment, self)

    def free(self, block: object, nbytes: int) -> None:
        pass  # segments are released by their last view (see _release)

    def __repr__(self) -> str:
        return f"SharedMemoryAllocator(strategy={self.strategy!r})"


SHARED_ALLOCATOR = SharedMemoryAllocator()


# ---------------------------------------------------------------------------------------
# what this process holds


class SharedSegment(NamedTuple):
    """One live shared segment of this process, as :func:`list_shared` reports it."""

    handle: str | int  # the name (file_system) or this process's descriptor (file_descriptor)
    nbytes: int
    creator_pid: int | None
    strategy: str
    created_here: bool


def list_shared() -> list[SharedSegment]:
    """The shared segments this process maps now: name or descriptor, size, creator, strategy.

    >>> import ember
    >>> t = ember.zeros(4).share_memory_()
    >>> any(s.nbytes == 16 and s.creator_pid == os.getpid() for s in list_shared())
    True
    """
    out = []
    for segment in list(_LIVE):
        handle = segment.name if segment.name is not None else segment.fd
        if handle is not None:
            out.append(SharedSegment(handle, segment.nbytes, segment.creator_pid, segment.strategy, segment.created))
    return sorted(out, key=lambda s: (s.strategy, str(s.handle)))


# Storages over shared segments, by segment identity, held weakly: a segment that arrives again
# (or returns to its creator) gives back the same storage, so views of it stay views of one storage.
_STORAGES: dict[tuple, weakref.ref] = {}


def cached_storage(key: tuple):
    ref = _STORAGES.get(key)
    return None if ref is None else ref()


def remember_storage(key: tuple, storage) -> None:
    _STORAGES[key] = weakref.ref(storage, lambda ref, key=key: _STORAGES.get(key) is ref and _STORAGES.pop(key, None))


# ---------------------------------------------------------------------------------------
# the file_system manager: one per process tree, a connection per process


def _import_posixshmem():
    try:
        import _posixshmem  # CPython's shm_open / shm_unlink (multiprocessing.shared_memory uses it)
    except ImportError:  # pragma: no cover - not a POSIX system
        return None
    return _posixshmem


_posixshmem = _import_posixshmem()


class _Manager(NamedTuple):
    address: bytes
    pid: int


_lock = threading.RLock()  # re-entrant: the GC may release a segment while this thread is sending
_own: _Manager | None = None  # the manager this process tree registers its new names with
_connections: dict[bytes, socket.socket] = {}


def _socket_address(address: bytes) -> bytes:
    return address if address.startswith(b"/") else b"\0" + address  # Linux's abstract namespace: no file


def _connect(address: bytes) -> socket.socket:
    sock = _connections.get(address)
    if sock is None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(_socket_address(address))
        except OSError:
            sock.close()
            raise
        _connections[address] = sock
    return sock


def _send(address: bytes, op: str, name: str) -> None:
    """Tell a manager about ``name``; a manager that is gone has nothing left to be told."""
    if _exiting:
        return  # the closed connections already told the managers that this process holds nothing
    message = f"{op} {name}\n".encode()
    with _lock:
        try:
            _connect(address).sendall(message)
        except OSError:
            sock = _connections.pop(address, None)
            if sock is not None:
                sock.close()
            if op in ("C", "P") and _own is not None and address == _own.address:
                raise RuntimeError(f"the shared-memory manager (pid {_own.pid}) is gone; cannot register {name!r}") from None


_exiting = False


@atexit.register
def _close_connections() -> None:
    """At exit, close the connections: each manager releases what this process held (as it would
    when the process ends) and no socket is left for the garbage collector to complain about."""
    global _exiting
    _exiting = True
    with _lock:
        for sock in _connections.values():
            sock.close()
        _connections.clear()


def _own_manager() -> _Manager:
    global _own
    with _lock:
        if _own is not None and _alive(_own.pid):
            return _own
        _own = _start_manager()
        return _own


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _start_manager() -> _Manager:
    """Start a manager: this process binds its socket and connects before the manager even runs."""
    if _posixshmem is None:
        raise RuntimeError("the 'file_system' sharing strategy needs POSIX shared memory, which this system lacks")
    token = f"ember_manager_{os.getpid()}_{secrets.token_hex(6)}"
    if sys.platform.startswith("linux"):
        address = token.encode()
    else:
        import tempfile

        address = os.path.join(tempfile.gettempdir(), token).encode()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(_socket_address(address))
        listener.listen(128)
        null = os.devnull
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, listener.fileno(), 3),
        ]
        # Inheritable descriptors (a multiprocessing child's sentinel pipe, for one) must not reach the
        # manager: it outlives this process, and whoever waits for their end would wait for it.
        actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds() if fd > 3]
        argv = [sys.executable, "-I", "-S", _MANAGER_SCRIPT, "3", repr(MANAGER_GRACE_S), address.decode()]
        # its own session: a Ctrl-C for the job must not take the manager down before the cleanup
        pid = os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
        old = _connections.pop(address, None)
        if old is not None:
            old.close()
        _connect(address)  # queued in the backlog until the manager accepts
    finally:
        listener.close()
    return _Manager(address, pid)


def _inheritable_fds() -> list[int]:
    try:
        fds = [int(entry) for entry in os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd")]
    except OSError:
        return []
    out = []
    for fd in fds:
        with contextlib.suppress(OSError):  # the listing's own descriptor is gone by now
            if os.get_inheritable(fd):
                out.append(fd)
    return out


def _after_fork_in_child() -> None:
    """A forked child shares its parent's manager but needs its own connection, and holds of its own
    on the named segments it inherited (the parent may release them while the child still uses them)."""
    global _lock
    _lock = threading.RLock()
    for sock in _connections.values():
        sock.close()  # the child's copy only; the parent's connection stays open
    _connections.clear()
    for segment in list(_LIVE):
        if segment.name is not None:
            _send(segment.manager, "H", segment.name)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


# ---------------------------------------------------------------------------------------
# descriptors


def _fd_limits() -> tuple[int, int]:
    try:
        import resource
    except ImportError:  # pragma: no cover
        return -1, -1
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def raise_fd_limit() -> int:
    """Raise this process's soft limit on open descriptors to the hard limit (at most 2**20).

    Each shared storage under ``file_descriptor`` holds a descriptor; the common default soft
    limit of 1024 is what makes PyTorch users meet "Too many open files". Returns the new limit.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover
        return -1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = 1 << 20 if hard == resource.RLIM_INFINITY else min(hard, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft
