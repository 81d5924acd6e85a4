"""Point to point: send, recv, isend, irecv (PyTorch's names; ranks are global ranks).

A message is the tensor's bytes; the receiving tensor must have the same number of bytes,
else recv raises naming both sizes. Sending to oneself is refused, as PyTorch does (a
blocking send to oneself would wait forever).
"""

from __future__ import annotations

from . import _tensors as T, observe
from .collectives import group_of, root_of
from .work import Work

__all__ = ["irecv", "isend", "recv", "send"]


def _peer(pg, rank, group_rank, fn: str, arg: str, allow_any: bool = False) -> int | None:
    if allow_any and rank is None and group_rank is None:
        return None
    peer = root_of(pg, rank, group_rank, fn, arg)
    if peer == pg._rank:
        raise ValueError(f"{fn}(): Invalid {arg} rank: should not be the same as rank of the current process.")
    return peer


def _tag(tag, fn: str) -> int:
    if not isinstance(tag, int) or isinstance(tag, bool) or not 0 <= tag < (1 << 20):
        raise ValueError(f"{fn}(): tag must be an int in [0, 2**20), got {tag!r}")
    return tag


def send(tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None) -> None:
    """Send ``tensor`` to rank ``dst``; returns once the data left (MPI's standard send)."""
    pg = group_of(group, "send")
    if pg is None:
        return
    peer = _peer(pg, dst, group_dst, "send", "dst")
    data = T.contiguous(T.array_of(tensor, "send"))
    detail = (data.nbytes, tensor._dtype.name)
    start = observe.begin(pg, f"send to rank {pg.ranks[peer]}", detail, numbered=False)
    try:
        pg._comm.send(data, peer, _tag(tag, "send"))
    finally:
        observe.end(pg, "send", detail, start, (tensor,))


def recv(tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None) -> int:
    """Receive into ``tensor`` from ``src`` (any rank when None); returns the sender's global rank."""
    pg = group_of(group, "recv")
    if pg is None:
        return -1
    peer = _peer(pg, src, group_src, "recv", "src", allow_any=True)
    out = T.writable_array(tensor, "recv")
    buffer = T.contiguous(out)
    detail = (buffer.nbytes, tensor._dtype.name)
    start = observe.begin(pg, "recv" if peer is None else f"recv from rank {pg.ranks[peer]}", detail, numbered=False)
    try:
        source = pg._comm.recv(buffer, peer, _tag(tag, "recv"))
    finally:
        observe.end(pg, "recv", detail, start, (tensor,))
    if buffer is not out:
        out[...] = buffer
    tensor._storage._version += 1
    return pg.ranks[source]


def isend(tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None) -> Work | None:
    """Start sending ``tensor`` to ``dst``; the tensor must not change until the Work is done."""
    pg = group_of(group, "isend")
    if pg is None:
        return None
    peer = _peer(pg, dst, group_dst, "isend", "dst")
    data = T.contiguous(T.array_of(tensor, "isend"))
    request = pg._comm.isend(data, peer, _tag(tag, "isend"))
    return Work(request, None, ("isend", pg, pg._seq, (data.nbytes, tensor._dtype.name)), [tensor])


def irecv(tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None) -> Work | None:
    """Start receiving into ``tensor`` from ``src`` (any rank when None)."""
    pg = group_of(group, "irecv")
    if pg is None:
        return None
    peer = _peer(pg, src, group_src, "irecv", "src", allow_any=True)
    out = T.writable_array(tensor, "irecv")
    buffer = T.contiguous(out)
    request = pg._comm.irecv(buffer, peer, _tag(tag, "irecv"))

    def finish() -> int:
        source, got = request.received()
        if got != buffer.nbytes:
            raise RuntimeError(f"irecv: the message from rank {pg.ranks[source]} has {got} bytes, the tensor {buffer.nbytes}")
        if buffer is not out:
            out[...] = buffer
        tensor._storage._version += 1
        return pg.ranks[source]

    return Work(request, finish, ("irecv", pg, pg._seq, (buffer.nbytes, tensor._dtype.name)), [tensor])
