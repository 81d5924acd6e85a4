"""The collectives that boxing needs, on the pieces this process hosts.

Pieces are NumPy arrays keyed by global rank. Under MPI a process hosts one rank (its own); in a
simulated world (``simulated_world(n)``) one process hosts all n, and the same rule and boxing
code runs with collectives computed in memory. Every collective takes the group as the list of
its ranks in mesh order; pieces are split and concatenated in that order.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np

from ...dispatch import sbp as _sbp

__all__ = ["MpiWorld", "SimulatedWorld", "current_world", "simulated_world"]

_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum}


def _pieces_of(array: np.ndarray, axis: int, parts: int) -> list[np.ndarray]:
    size = array.shape[axis]
    out = []
    for i in range(parts):
        start, stop = _sbp.split_range(size, parts, i)
        index = [slice(None)] * array.ndim
        index[axis] = slice(start, stop)
        out.append(array[tuple(index)])
    return out


class World:
    """Which ranks this process hosts, and the collectives over groups of them: the interface
    that ``SimulatedWorld`` and ``MpiWorld`` both implement."""

    size: int
    name: str

    def hosted(self, ranks) -> list[int]:
        raise NotImplementedError

    def hosts(self, rank: int) -> bool:
        raise NotImplementedError


class SimulatedWorld(World):
    """n ranks in one process: every piece is here, so a collective is a NumPy expression."""

    name = "simulated"

    def __init__(self, size: int) -> None:
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"simulated_world(): size must be a positive int, got {size!r}")
        self.size = size
        self.counts: dict[str, int] = {}  # collectives run, by kind (tests read it)

    def hosted(self, ranks) -> list[int]:
        return list(ranks)

    def hosts(self, rank: int) -> bool:
        return 0 <= rank < self.size

    def _count(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def all_gather(self, pieces: dict, ranks: list[int], axis: int, full: int) -> dict:
        self._count("all_gather")
        whole = np.concatenate([pieces[r] for r in ranks], axis=axis)
        return {r: whole.copy() for r in ranks}

    def all_reduce(self, pieces: dict, ranks: list[int], reduce: str) -> dict:
        self._count("all_reduce")
        whole = _reduce([pieces[r] for r in ranks], reduce)
        return {r: whole.copy() for r in ranks}

    def reduce_scatter(self, pieces: dict, ranks: list[int], reduce: str, axis: int) -> dict:
        self._count("reduce_scatter")
        whole = _reduce([pieces[r] for r in ranks], reduce)
        return {r: np.ascontiguousarray(p) for r, p in zip(ranks, _pieces_of(whole, axis, len(ranks)), strict=True)}

    def all_to_all(self, pieces: dict, ranks: list[int], split_axis: int, cat_axis: int, cat_full: int) -> dict:
        self._count("all_to_all")
        n = len(ranks)
        sent = {r: _pieces_of(pieces[r], split_axis, n) for r in ranks}
        return {dst: np.concatenate([sent[src][j] for src in ranks], axis=cat_axis) for j, dst in enumerate(ranks)}

    def copy_to(self, pieces: dict, src: int, dst_ranks: list[int], shape, dtype) -> dict:
        self._count("send")
        return {d: pieces[src].copy() for d in dst_ranks}

    def scatter_to(self, parts: dict, src: int, dst_ranks: list[int], shapes: dict, dtype) -> dict:
        """Rank ``src`` holds ``parts`` (destination rank -> array): each arrives at its rank."""
        self._count("send")
        return {d: np.array(parts[d], copy=True) for d in dst_ranks}


def _reduce(arrays: list[np.ndarray], reduce: str) -> np.ndarray:
    dtype = arrays[0].dtype
    wide = np.float32 if dtype.itemsize <= 2 and dtype.kind in "fV" else None  # half types reduce in float32
    fn = _REDUCE[reduce]
    out = arrays[0].astype(wide) if wide is not None else arrays[0].copy()
    for a in arrays[1:]:
        fn(out, a.astype(wide) if wide is not None else a, out=out)
    return out.astype(dtype) if wide is not None else out


class MpiWorld(World):
    """This process is one rank of the default process group; collectives go through
    ``ember.distributed`` on sub-groups made (by their members only) on first use."""

    name = "mpi"

    def __init__(self) -> None:
        from .. import process_group as pg

        if not pg.is_initialized():
            pg.init_process_group()  # the first global tensor or placement starts the world (OneFlow's way)
        self.rank = pg.get_rank()
        self.size = pg.get_world_size()
        self._groups: dict[tuple, object] = {}
        self._scratch = np.empty(0, np.uint8)  # reused for what is packed to be sent (never a result)

    def hosted(self, ranks) -> list[int]:
        return [self.rank] if self.rank in ranks else []

    def hosts(self, rank: int) -> bool:
        return rank == self.rank

    def group(self, ranks: list[int]):
        """The process group of ``ranks`` (group ranks in sorted order); None for the whole world."""
        key = tuple(sorted(ranks))
        if len(key) == self.size:
            return None
        found = self._groups.get(key)
        if found is None:
            from .. import process_group as pg

            found = self._groups[key] = pg.new_group(list(key), use_local_synchronization=True)
        return found

    # Each collective below receives straight into the array it returns where the layout allows
    # (pieces along dim 0 of an even split, the group's ranks in mesh order): a 100 MB boxing
    # then costs its collective and at most the one copy that keeps the input piece intact.

    def _even(self, ranks: list[int], name: str, fields: tuple, call) -> None:
        """An even collective straight on the group's communicator, as bytes: MPICH's
        v-collectives, which ember.distributed's all_gather/all_to_all use, pick slower
        algorithms (Allgatherv takes ~1.6x Allgather's time at 100 MB on 2 ranks). DETAIL's
        check still runs."""
        from .. import debug
        from ..process_group import resolve

        pg = resolve(self.group(ranks), name)
        if debug.DETAIL[0]:
            debug.check(pg, name, fields)
        call(pg._comm.comm)

    def _pack_buffer(self, nbytes: int) -> np.ndarray:
        if self._scratch.nbytes < nbytes:
            self._scratch = np.empty(nbytes, np.uint8)
        return self._scratch[:nbytes]

    def all_gather(self, pieces: dict, ranks: list[int], axis: int, full: int) -> dict:
        from ..._core.tensor_numpy import from_numpy
        from .. import gather_scatter as gs

        mine = np.ascontiguousarray(pieces[self.rank])
        n = len(ranks)
        sizes = _sbp.split_sizes(full, n)
        group = self.group(ranks)
        if len(set(sizes)) == 1 and ranks == sorted(ranks):
            out = np.empty((n, *mine.shape), mine.dtype)  # stacked in rank order: one receive buffer
            fields = (("dtype", str(mine.dtype)), ("bytes", mine.nbytes))
            self._even(ranks, "all_gather", fields, lambda comm: comm.Allgather(_bytes(mine), _bytes(out)))
            if axis == 0:
                return {self.rank: out.reshape((full, *mine.shape[1:]))}
            return {self.rank: np.concatenate(list(out), axis=axis)}
        order = sorted(ranks)
        outs = {}
        for r in order:
            shape = list(mine.shape)
            shape[axis] = sizes[ranks.index(r)]
            outs[r] = np.empty(shape, mine.dtype)
        gs.all_gather([from_numpy(outs[r]) for r in order], from_numpy(mine), group=group)
        return {self.rank: np.concatenate([outs[r] for r in ranks], axis=axis)}

    def all_reduce(self, pieces: dict, ranks: list[int], reduce: str) -> dict:
        from ..._core.tensor_numpy import from_numpy
        from .. import collectives as c

        out = np.array(pieces[self.rank], copy=True, order="C")  # the input piece stays as it was
        c.all_reduce(from_numpy(out), op=_op(reduce), group=self.group(ranks))  # in place, in chunks
        return {self.rank: out}

    def reduce_scatter(self, pieces: dict, ranks: list[int], reduce: str, axis: int) -> dict:
        from ..._core.tensor_numpy import from_numpy
        from .. import collectives as c

        whole = pieces[self.rank]
        n = len(ranks)
        sizes = _sbp.split_sizes(whole.shape[axis], n)
        group = self.group(ranks)
        parts = dict(zip(ranks, _pieces_of(whole, axis, n), strict=True))
        out = np.empty(parts[self.rank].shape, whole.dtype)
        if len(set(sizes)) == 1 and ranks == sorted(ranks):
            send = np.ascontiguousarray(whole) if axis == 0 else np.stack([parts[r] for r in ranks])
            stacked = send.reshape((n, *out.shape))
            c.reduce_scatter_tensor(from_numpy(out), from_numpy(stacked), op=_op(reduce), group=group)
            return {self.rank: out}
        inputs = [from_numpy(np.ascontiguousarray(parts[r])) for r in sorted(ranks)]
        c.reduce_scatter(from_numpy(out), inputs, op=_op(reduce), group=group)
        return {self.rank: out}

    def all_to_all(self, pieces: dict, ranks: list[int], split_axis: int, cat_axis: int, cat_full: int) -> dict:
        """Split this rank's piece along ``split_axis`` over ``ranks``; receive everyone's piece
        for this rank and concatenate along ``cat_axis`` (whose logical size is ``cat_full``).
        The parts travel back to back as flat bytes: a part along dim 0 is already in place, and
        what arrives concatenates along dim 0 as it lies."""
        from ..._core.tensor_numpy import from_numpy
        from .. import gather_scatter as gs

        mine = pieces[self.rank]
        n = len(ranks)
        order = sorted(ranks)
        parts = dict(zip(ranks, _pieces_of(mine, split_axis, n), strict=True))
        if split_axis == 0 and order == ranks and mine.flags.c_contiguous:
            send = mine.reshape(-1)
        else:
            send = self._pack_buffer(mine.nbytes).view(mine.dtype)
            offset = 0
            for r in order:
                part = parts[r]
                send[offset : offset + part.size].reshape(part.shape)[...] = part
                offset += part.size
        sizes = _sbp.split_sizes(cat_full, n)
        shapes = {}
        for r in order:
            shape = list(parts[self.rank].shape)
            shape[cat_axis] = sizes[ranks.index(r)]
            shapes[r] = tuple(shape)
        counts = [int(np.prod(shapes[r])) for r in order]
        flat = np.empty(sum(counts), mine.dtype)
        send_counts = [parts[r].size for r in order]
        if len(set(counts)) == 1 and len(set(send_counts)) == 1:
            fields = (("dtype", str(mine.dtype)), ("bytes", send.nbytes))
            self._even(ranks, "all_to_all", fields, lambda comm: comm.Alltoall(_bytes(send), _bytes(flat)))
        else:
            gs.all_to_all_single(from_numpy(flat), from_numpy(send), counts, send_counts, group=self.group(ranks))
        if cat_axis == 0 and order == ranks:
            return {self.rank: flat.reshape((cat_full, *shapes[order[0]][1:]))}
        blocks, offset = {}, 0
        for r, count in zip(order, counts, strict=True):
            blocks[r] = flat[offset : offset + count].reshape(shapes[r])
            offset += count
        return {self.rank: np.concatenate([blocks[r] for r in ranks], axis=cat_axis)}

    def scatter_to(self, parts: dict, src: int, dst_ranks: list[int], shapes: dict, dtype) -> dict:
        """Rank ``src`` holds ``parts`` (destination rank -> array): each arrives at its rank
        (point to point; ``src`` keeps a copy of its own)."""
        from ..._core.tensor_numpy import from_numpy
        from .. import p2p

        out = {}
        if self.rank == src:
            for d in dst_ranks:
                if d == src:
                    out[d] = np.array(parts[d], copy=True)
                else:
                    p2p.send(from_numpy(np.ascontiguousarray(parts[d])), dst=d, tag=0x62)
        elif self.rank in dst_ranks:
            buffer = np.empty(shapes[self.rank], dtype)
            p2p.recv(from_numpy(buffer), src=src, tag=0x62)
            out[self.rank] = buffer
        return out

    def copy_to(self, pieces: dict, src: int, dst_ranks: list[int], shape, dtype) -> dict:
        """Rank ``src``'s array arrives on every rank of ``dst_ranks`` (point to point)."""
        from ..._core.tensor_numpy import from_numpy
        from .. import p2p

        out = {}
        if self.rank == src:
            data = np.ascontiguousarray(pieces[src])
            for d in dst_ranks:
                if d != src:
                    p2p.send(from_numpy(data), dst=d, tag=0x61)
            if src in dst_ranks:
                out[src] = data.copy()
        elif self.rank in dst_ranks:
            buffer = np.empty(shape, dtype)
            p2p.recv(from_numpy(buffer), src=src, tag=0x61)
            out[self.rank] = buffer
        return out


def _bytes(array: np.ndarray) -> np.ndarray:
    return array.reshape(-1).view(np.uint8)


def _op(reduce: str):
    from ..reduce_op import ReduceOp

    return {"sum": ReduceOp.SUM, "max": ReduceOp.MAX, "min": ReduceOp.MIN}[reduce]


_STATE = threading.local()
_MPI: list[MpiWorld] = []


def simulated_active() -> bool:
    """Whether a ``simulated_world`` block is open in this thread."""
    return getattr(_STATE, "world", None) is not None


def current_world() -> World:
    """The simulated world of an enclosing ``simulated_world`` block, or the MPI world."""
    world = getattr(_STATE, "world", None)
    if world is not None:
        return world
    if not _MPI:
        _MPI.append(MpiWorld())
    return _MPI[0]


@contextlib.contextmanager
def simulated_world(size: int) -> Iterator[SimulatedWorld]:
    """Run global tensors in a world of ``size`` ranks inside this one process (tests, teaching)."""
    world = SimulatedWorld(size)
    previous = getattr(_STATE, "world", None)
    _STATE.world = world
    try:
        yield world
    finally:
        _STATE.world = previous
