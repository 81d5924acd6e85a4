"""How tensors cross process boundaries: pickling reductions for ``multiprocessing``.

Registered with ``multiprocessing.reduction.ForkingPickler`` when ``ember.multiprocessing`` is
imported, so every ``Queue``, ``Pipe``, ``Pool`` and manager of the standard library sends an
ember tensor as a handle to its storage's shared memory, never as a copy of its bytes:

- a storage not yet shared is moved into shared memory first (``share_memory_()``), so the
  sender's later sends of it are free, and the receiver maps the very same bytes;
- a ``file_descriptor`` segment travels as its descriptor (``multiprocessing.reduction.DupFd``:
  the receiver fetches a duplicate over a Unix socket from the sender, which must still run when
  the message is received); a ``file_system`` segment travels as its name, the in-flight reference
  registered with its manager (see ``ember._core.shared_memory``);
- the receiver keeps one storage per segment (a weak cache keyed by the segment's identity), so
  views of one storage sent together or one after another arrive as views of one storage;
- a non-leaf tensor that requires grad is refused (autograd does not cross processes); a leaf
  keeps ``requires_grad``; an ``ember.nn.Parameter`` arrives as a Parameter; ``.grad`` stays behind;
- meta tensors send their metadata only, and string tensors their values (Python objects cannot
  live in shared memory), so a string tensor's receiver gets a copy.

Plain ``pickle`` (``pickle.dumps``, ``ember.save``) is untouched: it still copies the bytes.

>>> import ember, multiprocessing.reduction as r
>>> t = ember.ones(3)
>>> back = r.ForkingPickler.loads(r.ForkingPickler.dumps(t))
>>> back.untyped_storage() is t.untyped_storage(), t.is_shared()
(True, True)
"""

from __future__ import annotations

import errno
from multiprocessing import reduction as _reduction

from .._core import dtype as _dt, shared_memory as _shm
from .._core.storage import Storage, shared_from_fd, shared_from_name
from .._core.tensor import Tensor, make_tensor

__all__ = ["init_reductions", "rebuild_storage_fd", "rebuild_storage_filename", "rebuild_tensor"]

_NON_LEAF = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support crossing "
    "process boundaries.  If you just want to transfer the data, call detach() on the tensor before serializing "
    "(e.g., putting it on the queue)."
)


# ---------------------------------------------------------------------------------------
# storages


def reduce_storage(storage: Storage):
    if storage.is_meta or storage._holds_objects:
        return storage.__reduce_ex__(2)  # metadata only / the values: nothing to share
    if storage._nbytes == 0:
        return (rebuild_storage_empty, ())
    storage.share_memory_()
    segment = _shm.segment_of(storage._materialize())
    if segment is None:  # a custom shared allocator without segments: send the bytes
        return storage.__reduce_ex__(2)
    segment.exported = True
    if segment.name is not None:
        _shm._send(segment.manager, "P", segment.name)  # keeps the name alive while the message travels
        return (rebuild_storage_filename, (segment.manager, segment.name, storage._nbytes))
    try:
        handle = _reduction.DupFd(segment.fd)
    except OSError as exc:
        if exc.errno == errno.EMFILE:
            raise _shm._too_many_files("sending a shared tensor", exc) from None
        raise
    return (rebuild_storage_fd, (handle, storage._nbytes, segment.creator_pid))


def rebuild_storage_fd(handle, nbytes: int, creator_pid: int | None = None) -> Storage:
    try:
        fd = handle.detach()
    except (FileNotFoundError, ConnectionError, EOFError) as exc:
        raise RuntimeError(
            f"receiving a shared tensor: the process that sent it (pid {creator_pid}) could not hand over its file "
            f"descriptor ({type(exc).__name__}: {exc}); the sender must stay alive until its tensors are received"
        ) from None
    except RuntimeError as exc:  # "received 0 items of ancdata": this process is out of descriptors
        raise RuntimeError(
            f"receiving a shared tensor: {exc} (this process has run out of file descriptors). Raise the limit "
            f"(ulimit -n), keep fewer received tensors alive, or call "
            f"ember.multiprocessing.set_sharing_strategy('file_system') in the sending process"
        ) from None
    except OSError as exc:
        if exc.errno == errno.EMFILE:
            raise _shm._too_many_files("receiving a shared tensor", exc) from None
        raise
    return shared_from_fd(fd, nbytes, creator_pid)


def rebuild_storage_filename(manager: bytes, name: str, nbytes: int) -> Storage:
    return shared_from_name(manager, name, nbytes, in_flight=True)


def rebuild_storage_empty() -> Storage:
    return Storage(0, allocator=_shm.SHARED_ALLOCATOR)


# ---------------------------------------------------------------------------------------
# tensors (a subclass such as nn.Parameter pickles through its own __reduce_ex__, which hands
# a plain tensor over this reducer, so its memory is shared the same way)


def _check_sendable(tensor: Tensor) -> None:
    if tensor._requires_grad and tensor.grad_fn is not None:
        raise RuntimeError(_NON_LEAF)


def reduce_tensor(tensor: Tensor):
    _check_sendable(tensor)
    layout = (tensor._storage, tensor._offset, tensor._shape, tensor._stride, tensor._dtype.name, tensor._requires_grad)
    return (rebuild_tensor, layout)


def rebuild_tensor(storage: Storage, offset: int, shape: tuple, stride: tuple, dtype_name: str, requires_grad: bool) -> Tensor:
    out = make_tensor(storage, offset, shape, stride, _dt.as_dtype(dtype_name))
    out._requires_grad = requires_grad
    return out


def init_reductions() -> None:
    """Register ember's reductions with ``ForkingPickler`` (done once, at import)."""
    _reduction.ForkingPickler.register(Storage, reduce_storage)
    _reduction.ForkingPickler.register(Tensor, reduce_tensor)


init_reductions()
