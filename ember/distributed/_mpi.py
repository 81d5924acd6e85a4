"""The one door to MPI: the only module of ember that imports ``mpi4py``.

Everything here works on NumPy arrays (views of tensors' memory, handed over without a copy)
and plain Python values; tensors, dtypes and PyTorch's argument rules live in the modules
above. The module is imported only when a process group is made (``process_group.py``), so
``import ember`` and ``import ember.distributed`` never load MPI. Importing it does not start
MPI either: :func:`ensure_initialized` does, once, with ``MPI_THREAD_MULTIPLE`` so the
watchdog thread may talk and abort while the main thread waits in a collective.

Large reductions and broadcasts go in chunks (``EMBER_DIST_CHUNK_BYTES``, default 4 MiB): one
100 MiB ``MPI_Allreduce`` took 46.7 ms on a 2-rank loopback, the same buffer in 4 MiB pieces
15.5 ms (each piece is reduced while it sits in cache).
"""

from __future__ import annotations

import atexit
import contextlib
import os

import numpy as np

try:
    import mpi4py
except ImportError:  # the distributed extra is not installed: ensure_initialized says so
    mpi4py = None
    MPI = None
else:
    # ember starts MPI when a group is made (not at import) and finalizes it at exit itself.
    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    from mpi4py import MPI

__all__ = ["CHUNK_BYTES", "Communicator", "abort", "ensure_initialized", "library_version", "world"]

CHUNK_BYTES = int(os.environ.get("EMBER_DIST_CHUNK_BYTES", 4 << 20))
MISSING = 'ember.distributed needs mpi4py and an MPI library: pip install "ember[distributed]" (mpi4py and the mpich wheel)'

_OPS: dict = {}
_WORLD: list = []


def ensure_initialized() -> None:
    """Start MPI once per process (singleton init when no mpiexec started us); finalize at exit."""
    if MPI is None:
        raise RuntimeError(MISSING)
    if MPI.Is_finalized():
        raise RuntimeError("ember.distributed: MPI was already finalized in this process; it cannot start again")
    if not MPI.Is_initialized():
        MPI.Init_thread(MPI.THREAD_MULTIPLE)
        atexit.register(_finalize)
    if not _OPS:
        _OPS.update(
            sum=MPI.SUM, prod=MPI.PROD, min=MPI.MIN, max=MPI.MAX, band=MPI.BAND, bor=MPI.BOR,
            bxor=MPI.BXOR, land=MPI.LAND, lor=MPI.LOR, lxor=MPI.LXOR,
        )


def _finalize() -> None:
    for hook in list(_BEFORE_FINALIZE):
        hook()
    if MPI.Is_initialized() and not MPI.Is_finalized():
        MPI.Finalize()


# Functions run at exit before MPI_Finalize (the watchdog stops, communicators are freed).
_BEFORE_FINALIZE: list = []


def before_finalize(hook) -> None:
    """Run ``hook()`` at exit before MPI is finalized (once per hook)."""
    if hook not in _BEFORE_FINALIZE:
        _BEFORE_FINALIZE.append(hook)


def world() -> Communicator:
    """MPI_COMM_WORLD (not a duplicate: callers duplicate what they keep)."""
    ensure_initialized()
    if not _WORLD:
        _WORLD.append(Communicator(MPI.COMM_WORLD))
    return _WORLD[0]


def abort(code: int) -> None:
    """End every process of the job now (``MPI_Abort`` on the world).

    MPICH unlinks its shared-memory segments at ``MPI_Finalize``, never after an abort, so the
    aborting rank unlinks the ones it maps first (mappings of the other ranks stay valid)."""
    if MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        for path in shm_segments():
            with contextlib.suppress(OSError):
                os.unlink(path)
        MPI.COMM_WORLD.Abort(code)
    os._exit(code)


def shm_segments() -> list[str]:
    """The MPI library's named shared-memory segments this process maps (``/dev/shm/mpich*``)."""
    found = []
    with contextlib.suppress(OSError), open("/proc/self/maps") as maps:
        for line in maps:
            path = line.rsplit(None, 1)[-1]
            if path.startswith("/dev/shm/mpich") and path not in found:
                found.append(path)
    return found


def is_running() -> bool:
    """Whether MPI is initialized and not yet finalized in this process."""
    return MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized()


def library_version() -> str:
    """The MPI library's own version line and mpi4py's version."""
    if MPI is None:
        return "mpi4py not installed"
    return f"{MPI.Get_library_version().splitlines()[0].strip()}; MPI {'.'.join(map(str, MPI.Get_version()))}; mpi4py {mpi4py.__version__}"


def as_bytes(array: np.ndarray) -> np.ndarray:
    """A uint8 view of a contiguous array (any dtype MPI does not know moves as bytes)."""
    return array.reshape(-1).view(np.uint8)


def _chunks(flat: np.ndarray):
    step = max(1, CHUNK_BYTES // max(1, flat.itemsize))
    n = flat.shape[0]
    if n <= step:
        yield flat
        return
    for start in range(0, n, step):
        yield flat[start : start + step]


class Request:
    """Pending MPI requests and what to do once they all completed."""

    __slots__ = ("_requests", "status")

    def __init__(self, requests: list, status=None) -> None:
        self._requests = requests
        self.status = status

    def wait(self) -> None:
        if self.status is None:
            MPI.Request.Waitall(self._requests)
        else:
            MPI.Request.Waitall(self._requests, [self.status])

    def test(self) -> bool:
        if self.status is None:
            return MPI.Request.Testall(self._requests)
        return MPI.Request.Testall(self._requests, [self.status])

    def received(self) -> tuple[int, int]:
        """(sender, bytes) of a completed receive."""
        return self.status.Get_source(), self.status.Get_count(MPI.BYTE)

    def cancel(self) -> None:
        for r in self._requests:
            if r != MPI.REQUEST_NULL:
                r.Cancel()


class Communicator:
    """An MPI communicator with the operations ember's collectives need, on NumPy arrays.

    Every method exists blocking and, with ``i`` in front, non-blocking (returning a
    :class:`Request`). Arrays are contiguous; reductions take arrays of a dtype MPI knows.
    """

    __slots__ = ("comm", "rank", "size")

    def __init__(self, comm) -> None:
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    # -- making and freeing ------------------------------------------------------------

    def dup(self) -> Communicator:
        return Communicator(self.comm.Dup())

    def create_group(self, ranks: list[int], tag: int) -> Communicator | None:
        """A communicator over ``ranks`` of this one (collective over those ranks only)."""
        group = self.comm.Get_group().Incl(ranks)
        try:
            sub = self.comm.Create_group(group, tag)
        finally:
            group.Free()
        return None if sub == MPI.COMM_NULL else Communicator(sub)

    def split(self, color: int | None, key: int) -> Communicator | None:
        """``MPI_Comm_split``: processes with the same color form one communicator (collective)."""
        sub = self.comm.Split(MPI.UNDEFINED if color is None else color, key)
        return None if sub == MPI.COMM_NULL else Communicator(sub)

    def node_rank(self) -> int:
        """This process's rank among the members on its host (collective)."""
        node = self.comm.Split_type(MPI.COMM_TYPE_SHARED, self.rank)
        try:
            return node.Get_rank()
        finally:
            node.Free()

    def free(self) -> None:
        if is_running() and self.comm != MPI.COMM_NULL and self.comm != MPI.COMM_WORLD:
            self.comm.Free()

    # -- reductions (typed arrays) -----------------------------------------------------

    def allreduce(self, array: np.ndarray, op: str) -> None:
        """In place; in chunks of ``CHUNK_BYTES``."""
        mpi_op = _OPS[op]
        comm = self.comm
        if array.nbytes <= CHUNK_BYTES:
            comm.Allreduce(MPI.IN_PLACE, array, mpi_op)
            return
        for piece in _chunks(array.reshape(-1)):
            comm.Allreduce(MPI.IN_PLACE, piece, mpi_op)

    def iallreduce(self, array: np.ndarray, op: str) -> Request:
        mpi_op = _OPS[op]
        return Request([self.comm.Iallreduce(MPI.IN_PLACE, piece, mpi_op) for piece in _chunks(array.reshape(-1))])

    def reduce(self, array: np.ndarray, op: str, root: int) -> None:
        """In place at ``root``; other ranks' arrays are left as they were."""
        mpi_op = _OPS[op]
        for piece in _chunks(array.reshape(-1)):
            if self.rank == root:
                self.comm.Reduce(MPI.IN_PLACE, piece, mpi_op, root)
            else:
                self.comm.Reduce(piece, None, mpi_op, root)

    def ireduce(self, array: np.ndarray, op: str, root: int) -> Request:
        mpi_op = _OPS[op]
        if self.rank == root:
            return Request([self.comm.Ireduce(MPI.IN_PLACE, p, mpi_op, root) for p in _chunks(array.reshape(-1))])
        return Request([self.comm.Ireduce(p, None, mpi_op, root) for p in _chunks(array.reshape(-1))])

    def reduce_scatter(self, send: np.ndarray, recv: np.ndarray, counts: list[int], op: str) -> None:
        self.comm.Reduce_scatter(send, recv, counts, _OPS[op])

    def ireduce_scatter(self, send: np.ndarray, recv: np.ndarray, counts: list[int], op: str) -> Request:
        return Request([self.comm.Ireduce_scatter(send, recv, counts, _OPS[op])])

    # -- data movement (bytes) ---------------------------------------------------------

    def bcast(self, data: np.ndarray, root: int) -> None:
        for piece in _chunks(as_bytes(data)):
            self.comm.Bcast(piece, root)

    def ibcast(self, data: np.ndarray, root: int) -> Request:
        return Request([self.comm.Ibcast(piece, root) for piece in _chunks(as_bytes(data))])

    def allgatherv(self, send: np.ndarray, recv: np.ndarray, counts: list[int], nonblocking: bool = False):
        """Gather every rank's bytes into ``recv`` in rank order (``counts`` in bytes)."""
        spec = [as_bytes(recv), counts, _displs(counts), MPI.BYTE]
        if nonblocking:
            return Request([self.comm.Iallgatherv(as_bytes(send), spec)])
        self.comm.Allgatherv(as_bytes(send), spec)
        return None

    def gatherv(self, send: np.ndarray, recv: np.ndarray | None, counts: list[int], root: int, nonblocking: bool = False):
        spec = None if recv is None else [as_bytes(recv), counts, _displs(counts), MPI.BYTE]
        if nonblocking:
            return Request([self.comm.Igatherv(as_bytes(send), spec, root)])
        self.comm.Gatherv(as_bytes(send), spec, root)
        return None

    def scatterv(self, send: np.ndarray | None, recv: np.ndarray, counts: list[int], root: int, nonblocking: bool = False):
        spec = None if send is None else [as_bytes(send), counts, _displs(counts), MPI.BYTE]
        if nonblocking:
            return Request([self.comm.Iscatterv(spec, as_bytes(recv), root)])
        self.comm.Scatterv(spec, as_bytes(recv), root)
        return None

    def alltoallv(self, send: np.ndarray, send_counts: list[int], recv: np.ndarray, recv_counts: list[int], nonblocking: bool = False):
        s = [as_bytes(send), send_counts, _displs(send_counts), MPI.BYTE]
        r = [as_bytes(recv), recv_counts, _displs(recv_counts), MPI.BYTE]
        if nonblocking:
            return Request([self.comm.Ialltoallv(s, r)])
        self.comm.Alltoallv(s, r)
        return None

    def barrier(self) -> None:
        self.comm.Barrier()

    def ibarrier(self) -> Request:
        return Request([self.comm.Ibarrier()])

    # -- point to point ----------------------------------------------------------------

    def send(self, data: np.ndarray, dest: int, tag: int) -> None:
        self.comm.Send(as_bytes(data), dest, tag)

    def isend(self, data: np.ndarray, dest: int, tag: int) -> Request:
        return Request([self.comm.Isend(as_bytes(data), dest, tag)])

    def recv(self, data: np.ndarray, source: int | None, tag: int) -> int:
        """Receive into ``data``; ``source=None`` takes any sender. Returns the sender's rank."""
        status = MPI.Status()
        self.comm.Recv(as_bytes(data), MPI.ANY_SOURCE if source is None else source, tag, status)
        _check_received(status, data.nbytes)
        return status.Get_source()

    def irecv(self, data: np.ndarray, source: int | None, tag: int) -> Request:
        status = MPI.Status()
        return Request([self.comm.Irecv(as_bytes(data), MPI.ANY_SOURCE if source is None else source, tag)], status)

    # -- Python objects (pickled: for small metadata, never tensor data) ----------------

    def allgather_object(self, obj) -> list:
        return self.comm.allgather(obj)

    def bcast_object(self, obj, root: int):
        return self.comm.bcast(obj, root)

    def gather_object(self, obj, root: int) -> list | None:
        return self.comm.gather(obj, root)

    def scatter_object(self, objs, root: int):
        return self.comm.scatter(objs, root)

    def send_object(self, obj, dest: int, tag: int) -> None:
        self.comm.send(obj, dest, tag)

    def poll_object(self, tag: int) -> tuple[int, object] | None:
        """A message waiting with ``tag`` from anyone, received now, or None (never blocks)."""
        status = MPI.Status()
        if not self.comm.Iprobe(MPI.ANY_SOURCE, tag, status):
            return None
        source = status.Get_source()
        return source, self.comm.recv(None, source, tag)


def _displs(counts: list[int]) -> list[int]:
    out, total = [], 0
    for c in counts:
        out.append(total)
        total += c
    return out


def _check_received(status, expected: int) -> None:
    got = status.Get_count(MPI.BYTE)
    if got != expected:
        raise RuntimeError(f"recv: the message from rank {status.Get_source()} has {got} bytes, the tensor {expected}")
