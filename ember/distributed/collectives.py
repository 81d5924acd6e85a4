"""Reductions, broadcast and barrier: PyTorch's names, arguments and rules, over MPI.

Each function checks its arguments the way PyTorch does, hands MPI the NumPy view of the
tensor's memory, and with ``async_op=True`` returns a :class:`Work` over MPI's non-blocking
call instead of waiting. Blocking calls are bounded by the watchdog (the group's timeout).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from . import _tensors as T, debug, observe
from .process_group import _STATE, ProcessGroup, resolve
from .reduce_op import SUM_PLANS as _SUM_PLANS, ReduceOp, reduction_plan
from .timeline import _ACTIVE as _TIMELINES
from .work import DistBackendError, Work

__all__ = ["all_reduce", "barrier", "broadcast", "monitored_barrier", "reduce", "reduce_scatter", "reduce_scatter_single",
           "reduce_scatter_tensor"]

_DETAIL = debug.DETAIL
_SUM = ReduceOp.SUM
_perf = time.perf_counter
_getprofile = sys.getprofile


def group_of(group, fn: str) -> ProcessGroup | None:
    """The group to run on (the default one for None); None on a rank outside ``group``."""
    if group is None:
        pg = _STATE.default
        if pg is not None:
            return pg
    return resolve(group, fn)


def root_of(pg: ProcessGroup, rank, group_rank, fn: str, arg: str, default: int | None = None) -> int:
    """The group rank of a root given as a global rank (``src``/``dst``) or a group rank."""
    if group_rank is not None:
        if rank is not None:
            raise ValueError(f"{fn}(): Can't specify both {arg} and group_{arg}")
        if not isinstance(group_rank, int) or not 0 <= group_rank < pg._size:
            raise ValueError(f"{fn}(): group_{arg}={group_rank!r} is not a rank of {pg.describe()} (0-{pg._size - 1})")
        return group_rank
    if rank is None:
        if default is None:
            raise ValueError(f"{fn}(): Must specify {arg} or group_{arg}")
        rank = pg.ranks[default]
    if not isinstance(rank, int) or isinstance(rank, bool):
        raise TypeError(f"{fn}(): {arg} must be an int (a global rank), not {type(rank).__name__}")
    ranks = pg.ranks
    if pg._key == ("WORLD",):
        if not 0 <= rank < pg._size:
            raise ValueError(f"{fn}(): Global rank {rank} is not part of {pg.describe()}")
        return rank
    if rank not in ranks:
        raise ValueError(f"{fn}(): Global rank {rank} is not part of {pg.describe()}")
    return ranks.index(rank)


def run(pg: ProcessGroup, name: str, detail: tuple, tensors, blocking, nonblocking, finish, async_op: bool, result=None):
    """Run one collective blocking (bounded by the watchdog) or as a :class:`Work`."""
    if async_op:
        seq = pg._seq = pg._seq + 1
        return Work(nonblocking(), finish, (name, pg, seq, detail), result)
    start = observe.begin(pg, name, detail)
    try:
        blocking()
    finally:
        observe.end(pg, name, detail, start, tensors)
    if finish is not None:
        finish()
    return None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``tensor`` across the group, in place on every rank.

    Half types reduce in float32 and are rounded once; AVG divides the sum by the group size
    (integers truncate toward zero). Buffers over ``EMBER_DIST_CHUNK_BYTES`` go in chunks.
    """
    pg = _STATE.default if group is None else None
    if pg is None:
        pg = resolve(group, "all_reduce")
        if pg is None:
            return None
    array = T.writable_array(tensor, "all_reduce")
    plan = _SUM_PLANS.get(tensor._dtype) if op is _SUM else None
    if plan is None:
        plan = reduction_plan(tensor._dtype, op, "all_reduce")
    if _DETAIL[0]:
        debug.check(pg, "all_reduce", (("shape", tensor._shape), ("dtype", tensor._dtype.name), ("op", repr(op))))
    buffer = array if array.flags.c_contiguous and not plan.widen else T.reduction_buffer(array, plan)
    comm = pg._comm
    seq = pg._seq = pg._seq + 1
    if async_op:
        request = comm.iallreduce(buffer, plan.mpi_op)
        return Work(request, lambda: _finish(tensor, array, buffer, plan, pg._size), ("all_reduce", pg, seq, tensor), [tensor])
    # what observe.begin/end do, inlined: this is the call a training step makes most
    wd = _STATE.watchdog
    start = _perf()
    if wd is not None:
        wd.pending = ("all_reduce", pg, seq, tensor, start)
    try:
        comm.allreduce(buffer, plan.mpi_op)
    finally:
        if wd is not None:
            wd.pending = None
        if _TIMELINES or _getprofile() is not None:
            observe.observed("all_reduce", pg, seq, tensor, start, _perf(), (tensor,), False)
    if buffer is not array or plan.average:
        T.finish_reduction(array, buffer, plan, pg._size)
    tensor._storage._version += 1
    return None


def _finish(tensor, array, buffer, plan, size: int) -> None:
    T.finish_reduction(array, buffer, plan, size)
    tensor._storage._version += 1


def broadcast(tensor, src: int | None = None, group=None, async_op: bool = False, group_src: int | None = None):
    """Copy ``tensor`` from rank ``src`` (global) or ``group_src`` into every rank's ``tensor``."""
    pg = group_of(group, "broadcast")
    if pg is None:
        return None
    root = root_of(pg, src, group_src, "broadcast", "src")
    array = T.writable_array(tensor, "broadcast")
    if _DETAIL[0]:
        debug.check(pg, "broadcast", (("shape", tensor._shape), ("dtype", tensor._dtype.name), ("src", root)))
    buffer = T.contiguous(array)
    comm = pg._comm

    def finish() -> None:
        if buffer is not array:
            array[...] = buffer
        if pg._rank != root:
            tensor._storage._version += 1

    return run(pg, "broadcast", (array.nbytes, tensor._dtype.name), (tensor,), lambda: comm.bcast(buffer, root),
               lambda: comm.ibcast(buffer, root), finish, async_op, [tensor])


def reduce(tensor, dst: int | None = None, op=ReduceOp.SUM, group=None, async_op: bool = False, group_dst: int | None = None):
    """Reduce ``tensor`` across the group into ``dst``'s ``tensor`` (others keep theirs)."""
    pg = group_of(group, "reduce")
    if pg is None:
        return None
    root = root_of(pg, dst, group_dst, "reduce", "dst")
    array = T.writable_array(tensor, "reduce")
    plan = reduction_plan(tensor._dtype, op, "reduce")
    if _DETAIL[0]:
        debug.check(pg, "reduce", (("shape", tensor._shape), ("dtype", tensor._dtype.name), ("op", repr(op)), ("dst", root)))
    buffer = T.reduction_buffer(array, plan)
    comm = pg._comm
    mine = pg._rank == root

    def finish() -> None:
        if mine:
            _finish(tensor, array, buffer, plan, pg._size)

    return run(pg, "reduce", (array.nbytes, tensor._dtype.name), (tensor,), lambda: comm.reduce(buffer, plan.mpi_op, root),
               lambda: comm.ireduce(buffer, plan.mpi_op, root), finish, async_op, [tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``input_list`` element-wise across ranks; rank i gets the reduced ``input_list[i]``.

    The pieces may differ in size (``MPI_Reduce_scatter`` with counts): piece i must have as
    many elements as rank i's ``output``.
    """
    pg = group_of(group, "reduce_scatter")
    if pg is None:
        return None
    inputs = T.check_list(input_list, "reduce_scatter", "input_list")
    out = T.writable_array(output, "reduce_scatter", "output")
    arrays = [T.array_of(t, "reduce_scatter", "input_list") for t in inputs]
    T.same_dtype("reduce_scatter", output, *inputs)
    if len(inputs) != pg._size:
        raise ValueError(f"reduce_scatter(): input_list must hold one tensor per rank of {pg.describe()} ({pg._size}), got {len(inputs)}")
    if arrays[pg._rank].size != out.size:
        raise ValueError(f"reduce_scatter(): input_list[{pg._rank}] has {arrays[pg._rank].size} elements but this rank's output has {out.size}")
    counts = [a.size for a in arrays]
    return _reduce_scatter(pg, "reduce_scatter", output, out, arrays, counts, op, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):  # noqa: A002 - PyTorch's name
    """Reduce ``input`` (the group's pieces stacked or concatenated on dim 0) and give rank i
    the reduced piece i in ``output``."""
    pg = group_of(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    out = T.writable_array(output, "reduce_scatter_tensor", "output")
    src = T.array_of(input, "reduce_scatter_tensor", "input")
    T.same_dtype("reduce_scatter_tensor", output, input)
    _check_stacked("reduce_scatter_tensor", pg._size, big=input, small=output, big_name="input", small_name="output")
    return _reduce_scatter(pg, "reduce_scatter_tensor", output, out, [src], [out.size] * pg._size, op, async_op)


reduce_scatter_single = reduce_scatter_tensor


def _check_stacked(fn: str, size: int, big, small, big_name: str, small_name: str) -> None:
    """``big`` must be ``size`` copies of ``small``'s shape, concatenated or stacked on dim 0."""
    shape = tuple(small._shape)
    cat = (size * shape[0], *shape[1:]) if shape else (size,)
    stacked = (size, *shape)
    if tuple(big._shape) not in (cat, stacked):
        raise ValueError(
            f"{fn}(): {big_name} must have {size} times the elements of {small_name}, of shape {list(cat)} or {list(stacked)} "
            f"({small_name} has shape {list(shape)}, the group has {size} ranks), got {big_name} of shape {list(big._shape)}"
        )


def _reduce_scatter(pg, name, output, out, arrays, counts, op, async_op):
    plan = reduction_plan(output._dtype, op, name)
    if _DETAIL[0]:
        debug.check(pg, name, (("counts", tuple(counts)), ("dtype", output._dtype.name), ("op", repr(op))))
    send = arrays[0].reshape(-1) if len(arrays) == 1 else None
    if send is None or plan.widen or not arrays[0].flags.c_contiguous:
        send = np.concatenate([a.reshape(-1) for a in arrays]) if arrays else np.empty(0, out.dtype)
        if plan.widen:
            send = send.astype(np.float32)
    recv = T.reduction_buffer(out, plan)
    comm = pg._comm
    return run(pg, name, (send.nbytes, output._dtype.name), (output,), lambda: comm.reduce_scatter(send, recv, counts, plan.mpi_op),
               lambda: comm.ireduce_scatter(send, recv, counts, plan.mpi_op), lambda: _finish(output, out, recv, plan, pg._size),
               async_op, [output])


def barrier(group=None, async_op: bool = False, device_ids=None, timeout=None):
    """Wait until every rank of the group reached the barrier.

    With ``timeout`` (a timedelta or seconds) raise DistBackendError past it instead of
    waiting for the group's timeout.
    """
    pg = group_of(group, "barrier")
    if pg is None:
        return None
    if _DETAIL[0]:
        debug.check(pg, "barrier", ())
    comm = pg._comm
    if timeout is not None and not async_op:
        work = run(pg, "barrier", (0, None), (), None, comm.ibarrier, None, True)
        work.wait(timeout=timeout)
        return None
    return run(pg, "barrier", (0, None), (), comm.barrier, comm.ibarrier, None, async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    """A barrier that, past ``timeout``, raises naming the ranks that did not arrive."""
    pg = group_of(group, "monitored_barrier")
    if pg is None:
        return
    seconds = pg.timeout if timeout is None else (timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout))
    work = run(pg, "monitored_barrier", (0, None), (), None, pg._comm.ibarrier, None, True)
    deadline = time.perf_counter() + seconds
    while not work.is_completed():
        if time.perf_counter() > deadline:
            wd = _STATE.watchdog
            lines, missing = wd._peer_report(pg, pg._seq) if wd is not None else ([], [])
            raise DistBackendError(
                f"monitored_barrier: ranks {missing} of {pg.describe()} did not reach the barrier within {seconds:.1f} s\n" + "\n".join(lines)
            )
        time.sleep(0.001)
