"""Collectives that move data without reducing it: all_gather, gather, scatter, all_to_all.

They move bytes, so every dtype goes as it is (half types and bool included). Pieces may
differ in size from rank to rank: MPI's v-collectives (``Allgatherv``, ``Gatherv``,
``Scatterv``, ``Alltoallv``) take a count per rank, which the uneven layouts of global
tensors need. A list of outputs is received into one contiguous buffer and then copied out
(one copy); a single output tensor is received into directly.
"""

from __future__ import annotations

import numpy as np

from . import _tensors as T, debug
from .collectives import _check_stacked, group_of, root_of, run

__all__ = ["all_gather", "all_gather_into_tensor", "all_gather_single", "all_to_all", "all_to_all_single", "gather", "scatter"]

_DETAIL = debug.DETAIL


def _flat(arrays: list[np.ndarray], dtype) -> np.ndarray:
    """One contiguous buffer holding ``arrays`` one after the other (a copy)."""
    if not arrays:
        return np.empty(0, dtype)
    return np.concatenate([a.reshape(-1) for a in arrays])


def _unpack(flat: np.ndarray, arrays: list[np.ndarray], tensors: list) -> None:
    """Copy ``flat``'s consecutive pieces into ``arrays`` (the outputs) and bump their versions."""
    start = 0
    for a, t in zip(arrays, tensors, strict=True):
        a[...] = flat[start : start + a.size].reshape(a.shape)
        start += a.size
        t._storage._version += 1


def _into(out: np.ndarray, tensor):
    """A receive buffer for ``out`` and the step that finishes it (copy back, version bump)."""
    buffer = T.contiguous(out)

    def finish() -> None:
        if buffer is not out:
            out[...] = buffer
        tensor._storage._version += 1

    return buffer, finish


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Fill ``tensor_list[i]`` with rank i's ``tensor``; pieces may differ in size by rank."""
    pg = group_of(group, "all_gather")
    if pg is None:
        return None
    outputs = T.check_list(tensor_list, "all_gather", "tensor_list")
    src = T.array_of(tensor, "all_gather")
    out_arrays = [T.writable_array(t, "all_gather", "tensor_list") for t in outputs]
    T.same_dtype("all_gather", tensor, *outputs)
    if len(outputs) != pg._size:
        raise ValueError(f"all_gather(): tensor_list must hold one tensor per rank of {pg.describe()} ({pg._size}), got {len(outputs)}")
    if out_arrays[pg._rank].size != src.size:
        raise ValueError(f"all_gather(): tensor_list[{pg._rank}] has {out_arrays[pg._rank].size} elements, this rank's tensor {src.size}")
    if _DETAIL[0]:
        debug.check(pg, "all_gather", (("dtype", tensor._dtype.name), ("counts", tuple(a.size for a in out_arrays))))
    send = T.contiguous(src)
    flat = np.empty(sum(a.size for a in out_arrays), src.dtype)
    counts = [a.nbytes for a in out_arrays]
    comm = pg._comm
    return run(pg, "all_gather", (flat.nbytes, tensor._dtype.name), (tensor,), lambda: comm.allgatherv(send, flat, counts),
               lambda: comm.allgatherv(send, flat, counts, True), lambda: _unpack(flat, out_arrays, outputs), async_op, outputs)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Gather every rank's ``input_tensor`` into ``output_tensor``, concatenated or stacked on
    dim 0 (shape ``[n * d0, ...]`` or ``[n, d0, ...]`` for a group of n ranks)."""
    pg = group_of(group, "all_gather_into_tensor")
    if pg is None:
        return None
    out = T.writable_array(output_tensor, "all_gather_into_tensor", "output_tensor")
    src = T.array_of(input_tensor, "all_gather_into_tensor", "input_tensor")
    T.same_dtype("all_gather_into_tensor", output_tensor, input_tensor)
    _check_stacked("all_gather_into_tensor", pg._size, big=output_tensor, small=input_tensor, big_name="output_tensor",
                   small_name="input_tensor")
    if _DETAIL[0]:
        debug.check(pg, "all_gather_into_tensor", (("shape", input_tensor._shape), ("dtype", input_tensor._dtype.name)))
    send = T.contiguous(src)
    recv, finish = _into(out, output_tensor)
    counts = [send.nbytes] * pg._size
    comm = pg._comm
    return run(pg, "all_gather_into_tensor", (out.nbytes, output_tensor._dtype.name), (input_tensor,),
               lambda: comm.allgatherv(send, recv, counts), lambda: comm.allgatherv(send, recv, counts, True), finish, async_op,
               [output_tensor])


all_gather_single = all_gather_into_tensor


def gather(tensor, gather_list=None, dst: int | None = None, group=None, async_op: bool = False, group_dst: int | None = None):
    """Collect every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (default 0)."""
    pg = group_of(group, "gather")
    if pg is None:
        return None
    root = root_of(pg, dst, group_dst, "gather", "dst", default=0)
    src = T.array_of(tensor, "gather")
    outputs = T.check_list(gather_list, "gather", "gather_list") if gather_list else []
    T.same_dtype("gather", tensor, *outputs)
    mine = pg._rank == root
    if mine and not outputs:
        raise ValueError("gather(): Argument ``gather_list`` must be specified on destination rank.")
    if not mine and outputs:
        raise ValueError("gather(): Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    out_arrays = [T.writable_array(t, "gather", "gather_list") for t in outputs]
    if mine:
        if len(outputs) != pg._size:
            raise ValueError(f"gather(): gather_list must hold one tensor per rank of {pg.describe()} ({pg._size}), got {len(outputs)}")
        if out_arrays[root].size != src.size:
            raise ValueError(f"gather(): gather_list[{root}] has {out_arrays[root].size} elements, the destination's tensor {src.size}")
    if _DETAIL[0]:
        debug.check(pg, "gather", (("dtype", tensor._dtype.name), ("dst", root)))
    send = T.contiguous(src)
    flat = np.empty(sum(a.size for a in out_arrays), src.dtype) if mine else None
    counts = [a.nbytes for a in out_arrays]
    comm = pg._comm
    finish = (lambda: _unpack(flat, out_arrays, outputs)) if mine else None
    return run(pg, "gather", (send.nbytes, tensor._dtype.name), (tensor,), lambda: comm.gatherv(send, flat, counts, root),
               lambda: comm.gatherv(send, flat, counts, root, True), finish, async_op, outputs)


def scatter(tensor, scatter_list=None, src: int | None = None, group=None, async_op: bool = False, group_src: int | None = None):
    """Give rank i ``scatter_list[i]`` from rank ``src`` (default 0), into its ``tensor``."""
    pg = group_of(group, "scatter")
    if pg is None:
        return None
    root = root_of(pg, src, group_src, "scatter", "src", default=0)
    out = T.writable_array(tensor, "scatter")
    inputs = T.check_list(scatter_list, "scatter", "scatter_list") if scatter_list else []
    T.same_dtype("scatter", tensor, *inputs)
    mine = pg._rank == root
    if mine and not inputs:
        raise ValueError("scatter(): Argument ``scatter_list`` must be specified on source rank.")
    if not mine and inputs:
        raise ValueError("scatter(): Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    in_arrays = [T.array_of(t, "scatter", "scatter_list") for t in inputs]
    if mine:
        if len(inputs) != pg._size:
            raise ValueError(f"scatter(): scatter_list must hold one tensor per rank of {pg.describe()} ({pg._size}), got {len(inputs)}")
        if in_arrays[root].size != out.size:
            raise ValueError(f"scatter(): scatter_list[{root}] has {in_arrays[root].size} elements, the source's tensor {out.size}")
    if _DETAIL[0]:
        debug.check(pg, "scatter", (("dtype", tensor._dtype.name), ("src", root)))
    send = _flat(in_arrays, out.dtype) if mine else None
    counts = [a.nbytes for a in in_arrays]
    recv, finish = _into(out, tensor)
    comm = pg._comm
    return run(pg, "scatter", (out.nbytes, tensor._dtype.name), (tensor,), lambda: comm.scatterv(send, recv, counts, root),
               lambda: comm.scatterv(send, recv, counts, root, True), finish, async_op, [tensor])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank j's ``input_tensor_list[i]`` arrives in rank i's ``output_tensor_list[j]``."""
    pg = group_of(group, "all_to_all")
    if pg is None:
        return None
    outputs = T.check_list(output_tensor_list, "all_to_all", "output_tensor_list")
    inputs = T.check_list(input_tensor_list, "all_to_all", "input_tensor_list")
    T.same_dtype("all_to_all", *outputs, *inputs)
    for name, lst in (("output_tensor_list", outputs), ("input_tensor_list", inputs)):
        if len(lst) != pg._size:
            raise ValueError(f"all_to_all(): {name} must hold one tensor per rank of {pg.describe()} ({pg._size}), got {len(lst)}")
    out_arrays = [T.writable_array(t, "all_to_all", "output_tensor_list") for t in outputs]
    in_arrays = [T.array_of(t, "all_to_all", "input_tensor_list") for t in inputs]
    if _DETAIL[0]:
        debug.check(pg, "all_to_all", (("dtype", inputs[0]._dtype.name),))
    send = _flat(in_arrays, in_arrays[0].dtype)
    flat = np.empty(sum(a.size for a in out_arrays), send.dtype)
    send_counts = [a.nbytes for a in in_arrays]
    recv_counts = [a.nbytes for a in out_arrays]
    comm = pg._comm
    return run(pg, "all_to_all", (send.nbytes, inputs[0]._dtype.name), inputs,
               lambda: comm.alltoallv(send, send_counts, flat, recv_counts),
               lambda: comm.alltoallv(send, send_counts, flat, recv_counts, True), lambda: _unpack(flat, out_arrays, outputs),
               async_op, outputs)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op: bool = False):  # noqa: A002
    """Split ``input`` on dim 0 (evenly, or by ``input_split_sizes``), send piece i to rank i,
    and receive rank j's piece into ``output``'s piece j (``output_split_sizes``)."""
    pg = group_of(group, "all_to_all_single")
    if pg is None:
        return None
    out = T.writable_array(output, "all_to_all_single", "output")
    src = T.array_of(input, "all_to_all_single", "input")
    T.same_dtype("all_to_all_single", output, input)
    n = pg._size
    send_counts = _split_bytes("all_to_all_single", "input", input, src, input_split_sizes, n)
    recv_counts = _split_bytes("all_to_all_single", "output", output, out, output_split_sizes, n)
    if _DETAIL[0]:
        debug.check(pg, "all_to_all_single", (("dtype", input._dtype.name), ("row shape", tuple(input._shape[1:]))))
    send = T.contiguous(src)
    recv, finish = _into(out, output)
    comm = pg._comm
    return run(pg, "all_to_all_single", (send.nbytes, input._dtype.name), (input,),
               lambda: comm.alltoallv(send, send_counts, recv, recv_counts),
               lambda: comm.alltoallv(send, send_counts, recv, recv_counts, True), finish, async_op, [output])


def _split_bytes(fn: str, name: str, tensor, array: np.ndarray, splits, n: int) -> list[int]:
    """Bytes per rank of ``tensor`` split on dim 0 by ``splits`` (evenly when None or empty)."""
    rows = tensor._shape[0] if tensor._shape else 1
    row_bytes = array.nbytes // rows if rows else 0
    if not splits:
        if rows % n:
            raise ValueError(f"{fn}(): {name} has {rows} rows on dim 0, which does not split evenly over {n} ranks; pass {name}_split_sizes")
        return [rows // n * row_bytes] * n
    splits = [int(s) for s in splits]
    if len(splits) != n or any(s < 0 for s in splits):
        raise ValueError(f"{fn}(): {name}_split_sizes must hold {n} non-negative sizes (one per rank), got {splits}")
    if sum(splits) != rows:
        raise ValueError(f"{fn}(): {name}_split_sizes {splits} add up to {sum(splits)}, but {name} has {rows} rows on dim 0")
    return [s * row_bytes for s in splits]
