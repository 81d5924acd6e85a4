"""Collectives of picklable Python objects (PyTorch's ``*_object`` functions).

They pickle, so they are for small things (configs, metrics, file names): 9 to 26 times
slower than the tensor collectives at 1 KiB to 1 MiB. Tensors inside the objects are pickled
with their data. Only trusted peers should be listened to: unpickling runs code.
"""

from __future__ import annotations

from . import debug
from .collectives import group_of, root_of, run

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]

_DETAIL = debug.DETAIL


def _check_list(value, fn: str, arg: str) -> list:
    if not isinstance(value, list):
        raise TypeError(f"{fn}(): argument '{arg}' must be a list, got {type(value).__name__}")
    return value


def broadcast_object_list(object_list, src: int | None = None, group=None, device=None, group_src: int | None = None) -> None:
    """Replace ``object_list``'s items on every rank with those of rank ``src`` (default 0)."""
    pg = group_of(group, "broadcast_object_list")
    if pg is None:
        return
    root = root_of(pg, src, group_src, "broadcast_object_list", "src", default=0)
    _check_list(object_list, "broadcast_object_list", "object_list")
    if _DETAIL[0]:
        debug.check(pg, "broadcast_object_list", (("length", len(object_list)), ("src", root)))
    box: list = []
    comm = pg._comm

    def blocking() -> None:
        box.append(comm.bcast_object(list(object_list) if pg._rank == root else None, root))

    run(pg, "broadcast_object_list", (0, None), (), blocking, None, None, False)
    received = box[0]
    if len(received) != len(object_list):
        raise ValueError(f"broadcast_object_list(): rank {pg.ranks[root]} sent {len(received)} objects, this rank's list holds {len(object_list)}")
    object_list[:] = received


def all_gather_object(object_list, obj, group=None) -> None:
    """Fill ``object_list`` (one slot per rank) with every rank's ``obj``."""
    pg = group_of(group, "all_gather_object")
    if pg is None:
        return
    _check_list(object_list, "all_gather_object", "object_list")
    if len(object_list) != pg._size:
        raise ValueError(f"all_gather_object(): object_list must have one slot per rank of {pg.describe()} ({pg._size}), got {len(object_list)}")
    if _DETAIL[0]:
        debug.check(pg, "all_gather_object", ())
    box: list = []
    run(pg, "all_gather_object", (0, None), (), lambda: box.append(pg._comm.allgather_object(obj)), None, None, False)
    object_list[:] = box[0]


def gather_object(obj, object_gather_list=None, dst: int | None = None, group=None, group_dst: int | None = None) -> None:
    """Collect every rank's ``obj`` into ``object_gather_list`` on rank ``dst`` (default 0)."""
    pg = group_of(group, "gather_object")
    if pg is None:
        return
    root = root_of(pg, dst, group_dst, "gather_object", "dst", default=0)
    mine = pg._rank == root
    if mine:
        _check_list(object_gather_list, "gather_object", "object_gather_list")
        if len(object_gather_list) != pg._size:
            raise ValueError(f"gather_object(): object_gather_list must have one slot per rank ({pg._size}), got {len(object_gather_list)}")
    if _DETAIL[0]:
        debug.check(pg, "gather_object", (("dst", root),))
    box: list = []
    run(pg, "gather_object", (0, None), (), lambda: box.append(pg._comm.gather_object(obj, root)), None, None, False)
    if mine:
        object_gather_list[:] = box[0]


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src: int | None = None, group=None,
                        group_src: int | None = None) -> None:
    """Put ``scatter_object_input_list[i]`` of rank ``src`` into rank i's ``scatter_object_output_list[0]``."""
    pg = group_of(group, "scatter_object_list")
    if pg is None:
        return
    root = root_of(pg, src, group_src, "scatter_object_list", "src", default=0)
    out = _check_list(scatter_object_output_list, "scatter_object_list", "scatter_object_output_list")
    if not out:
        raise ValueError("scatter_object_list(): Expected argument scatter_object_output_list to be a list of size at least 1.")
    inputs = None
    if pg._rank == root:
        inputs = _check_list(scatter_object_input_list, "scatter_object_list", "scatter_object_input_list")
        if len(inputs) != pg._size:
            raise ValueError(f"scatter_object_list(): scatter_object_input_list must have one object per rank ({pg._size}), got {len(inputs)}")
    if _DETAIL[0]:
        debug.check(pg, "scatter_object_list", (("src", root),))
    box: list = []
    run(pg, "scatter_object_list", (0, None), (), lambda: box.append(pg._comm.scatter_object(inputs, root)), None, None, False)
    out[0] = box[0]
