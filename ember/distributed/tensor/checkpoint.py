"""Sharded checkpoints of global tensors: ``save(obj, path)`` and ``load(path, into=None)``.

``save`` takes a dict (nested dicts, lists and tuples too) of global tensors, local tensors and
plain values, or a module (its ``state_dict()``), and writes the folder ``path``:

- ``rank-<r>.safetensors`` for every rank r that holds pieces: only its own pieces, in the
  safetensors layout (any safetensors reader opens a shard). A piece held by several ranks, along
  a broadcast mesh dimension, is written once, by the rank at coordinate 0 of those dimensions.
  A partial tensor is reduced first (boxed to broadcast on its partial mesh dimensions: a
  collective), so every shard holds values, never partial sums. Local tensors are written whole
  by rank 0, and plain values are rank 0's.
- ``index.json``, written by rank 0 once every rank has written its shard (a barrier):
  logical shapes, dtypes, placements, SBP, the object tree, and for each piece its file, its
  slice of the logical tensor and the sha256 of its bytes (by blocks of rows, so that a reader
  checks what it reads and no more); the index carries its own sha256.
  ``_checkpoint_index.py`` describes it.

``load(path, into)`` is PyTorch's ``torch.distributed.checkpoint.load``: ``into`` (a dict as
``save`` took, or a module) says which layout each tensor should have, and is filled in place.
Each global tensor of ``into`` may have any placement and SBP, on a world of any size: every rank
reads, from the saved pieces that overlap its own pieces, just what it needs (no communication;
the folder must be visible to every rank). Local tensors are filled whole and plain values
replaced. ``load(path)`` with no ``into`` needs neither MPI nor a world: it returns the saved
object with every tensor whole and local (OneFlow's ``flow.load`` of a sharded save, PyTorch's
``dcp_to_torch_save``). A shape or dtype that differs from the target, a key missing from the
checkpoint or from the target (``strict=True``, the default), a missing or truncated file, or a
piece or index whose bytes were changed raises an error naming the path and key. The index, the
keys, shapes and dtypes are checked before anything is written into the target; a piece's bytes
are checked when read, so a corrupt piece stops the load with the tensors before it filled.

In a simulated world one process hosts every rank and writes every rank's shard, by the same code.

>>> import tempfile, ember
>>> from ember.distributed.tensor import simulated_world, distribute, save, load
>>> folder = tempfile.mkdtemp()
>>> with simulated_world(2):
...     p = ember.placement("cpu", [0, 1])
...     w = distribute(ember.arange(6.0).reshape(3, 2), p, ember.sbp.split(0))
...     save({"w": w, "step": 7}, folder)
...     target = {"w": distribute(ember.zeros(3, 2), p, ember.sbp.split(1)), "step": 0}
...     _ = load(folder, target)
...     target["w"].to_local(rank=1).tolist(), target["step"]
([[1.0], [3.0], [5.0]], 7)
>>> load(folder)["w"].tolist()
[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ..._core.tensor_numpy import from_numpy
from ...dispatch.grad_mode import no_grad
from ...dispatch.sbp import broadcast
from ...interop._checkpoint_tree import TreeEncoder, decode
from ...interop._safetensors_file import TO_SAFETENSORS, Entry, encode_header, layout, save_atomically
from . import layout as _layout
from ._checkpoint_index import FORMAT, INDEX_NAME, VERSION, Shards, bad, digests, index_bytes, read_index, sbp_text, shard_name
from .boxing import box
from .global_tensor import GlobalTensor

__all__ = ["load", "save"]

_SAVE = "ember.distributed.tensor.save()"
_LOAD = "ember.distributed.tensor.load()"


# ---------------------------------------------------------------------------------------
# save


def save(obj: object, path: str | os.PathLike) -> None:
    """Write ``obj`` (a dict of global/local tensors and plain values, or a module) as a sharded
    checkpoint in the folder ``path``. Every rank calls it (the partial tensors' reduction and the
    final barrier are collectives); see the module docstring.

    >>> import tempfile, ember
    >>> folder = tempfile.mkdtemp()
    >>> save({"w": ember.ones(2), "step": 1}, folder)  # local tensors only: no world needed
    >>> load(folder)
    {'w': tensor([1., 1.]), 'step': 1}
    """
    if _is_module(obj):
        obj = obj.state_dict(keep_vars=True)
    folder = os.fspath(path)
    encoder = TreeEncoder()
    root = encoder.encode(obj)  # refuses what a checkpoint cannot hold before any byte is written
    tensors = encoder.tensors
    keys = [name if name is not None else f"tensor {i}" for i, name in enumerate(encoder.names)]
    world = _world_of(tensors)
    for key, t in zip(keys, tensors, strict=True):
        if t._dtype is _dt.string:
            raise TypeError(f"{_SAVE}: {key!r} holds strings; a sharded checkpoint holds numbers only")
        if type(t) is not GlobalTensor and t._storage._device.type != "cpu":
            raise TypeError(f"{_SAVE}: {key!r} is on {t._storage._device}; move it to 'cpu' first")
        if type(t) is GlobalTensor and t._world is not world:
            raise ValueError(f"{_SAVE}: {key!r} belongs to another world than the other global tensors")
    # the collectives first, in the same order on every rank: partial -> broadcast
    tensors = [_reduced(t) if type(t) is GlobalTensor else t for t in tensors]
    os.makedirs(folder, exist_ok=True)
    hosted = [0] if world is None else world.hosted(range(world.size))
    written = {}
    for rank in hosted:
        written.update(_write_shard(folder, rank, tensors, keys))
    if world is not None and world.name == "mpi":
        written = _gather_to_rank0(written, world)
    if world is None or world.name != "mpi" or world.rank == 0:
        pieces: dict[int, list] = {}
        for (i, _), piece in sorted(written.items()):  # by tensor, then rank
            pieces.setdefault(i, []).append(piece)
        index = {
            "format": FORMAT, "version": VERSION, "world_size": 1 if world is None else world.size, "root": root,
            "tensors": [_record(key, t, pieces.get(i, [])) for i, (key, t) in enumerate(zip(keys, tensors, strict=True))],
        }  # fmt: skip
        _write_bytes(os.path.join(folder, INDEX_NAME), index_bytes(index))
    if world is not None and world.name == "mpi":
        from ..collectives import barrier

        barrier()  # nobody loads before the index is there


def _is_module(obj: object) -> bool:
    """An nn.Module (duck-typed: distributed sits below nn): its parameters themselves are saved
    and filled, through ``state_dict(keep_vars=True)``."""
    return callable(getattr(obj, "state_dict", None)) and callable(getattr(obj, "named_parameters", None))


def _world_of(tensors: list):
    """The world of the global tensors; None for a process that saves local tensors only (outside
    MPI, or under it, where rank 0 writes)."""
    for t in tensors:
        if type(t) is GlobalTensor:
            return t._world
    from .. import process_group as pg

    if pg.is_initialized():
        from .comm import current_world

        return current_world()
    return None


def _reduced(t: GlobalTensor) -> GlobalTensor:
    if not any(e.is_partial for e in t._sbp):
        return t
    return box(t, tuple(broadcast if e.is_partial else e for e in t._sbp))


def _writes(t: Tensor, rank: int) -> tuple | None:
    """The slice of ``t`` that ``rank`` writes, or None when it writes nothing of it."""
    if type(t) is not GlobalTensor:
        return tuple(slice(0, n) for n in t._shape) if rank == 0 else None
    if rank not in t._pieces:
        return None
    p = t._placement
    coord = p.coordinate(rank)
    if any(coord[d] != 0 for d, e in enumerate(t._sbp) if not e.is_split):
        return None  # a copy another rank writes
    return _layout.piece_slices(tuple(t._shape), t._sbp, p.mesh_shape, coord)


def _write_shard(folder: str, rank: int, tensors: list, keys: list) -> dict:
    """Write ``rank``'s shard; returns {(tensor index, rank): piece record}."""
    entries = []
    records = {}
    taken: set[str] = set()
    name = shard_name(rank)
    for i, (key, t) in enumerate(zip(keys, tensors, strict=True)):
        where = _writes(t, rank)
        if where is None:
            continue
        piece = t._pieces[rank] if type(t) is GlobalTensor else t
        array = np.ascontiguousarray(piece.detach()._host_array())
        data = array.reshape(-1).view(np.uint8)
        box = [[s.start, s.stop] for s in where]
        entry_name = f"{key}[{','.join(f'{a}:{b}' for a, b in box)}]"
        if entry_name in taken:  # keys that look like entry names ("a[0:2]"): never two entries of one name
            entry_name = f"{entry_name}#{i}"
        taken.add(entry_name)
        st_dtype = TO_SAFETENSORS.get(t._dtype)
        shape = list(array.shape) if st_dtype is not None else [data.size]
        entries.append(Entry(entry_name, st_dtype or "U8", shape, data.size, data, t._dtype.numpy_dtype.alignment))
        block_rows, sums = digests(array)
        records[(i, rank)] = {"file": name, "entry": entry_name, "slice": box, "block_rows": block_rows, "sha256": sums}
    if entries:
        entries = layout(entries)
        header = encode_header({"format": FORMAT, "rank": str(rank)}, entries)
        save_atomically(os.path.join(folder, name), header, entries)
    return records


def _gather_to_rank0(written: dict, world) -> dict:
    from ..objects import gather_object

    everyone = [None] * world.size if world.rank == 0 else None
    gather_object(written, everyone, dst=0)
    merged: dict = {}
    for part in everyone or []:
        merged.update(part)
    return merged


def _record(key: str, t: Tensor, pieces: list) -> dict:
    record: dict[str, Any] = {
        "key": key,
        "shape": list(t._shape),
        "dtype": t._dtype.name,
        "placement": None,
        "sbp": None,
        "pieces": pieces,
    }
    if t._requires_grad:
        record["requires_grad"] = True
    if type(t) is GlobalTensor:
        record["placement"] = {"type": t._placement.type, "ranks": t._placement.ranks.tolist()}
        record["sbp"] = sbp_text(t._sbp)
    return record


def _write_bytes(where: str, data: bytes) -> None:
    temporary = f"{where}.{os.getpid()}.tmp"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, where)


# ---------------------------------------------------------------------------------------
# load


class _Saved:
    """A tensor of the checkpoint, not read yet: its index record."""

    __slots__ = ("record",)

    def __init__(self, record: dict) -> None:
        self.record = record


def load(path: str | os.PathLike, into: object = None, *, strict: bool = True) -> Any:
    """Read the sharded checkpoint in the folder ``path``: into ``into`` (a dict as saved, or a
    module), in place and in its layouts, which it returns; or, with no ``into``, as the saved
    object with every tensor whole and local. See the module docstring.

    >>> import tempfile, ember
    >>> folder = tempfile.mkdtemp()
    >>> save({"w": ember.arange(3.0), "lr": 0.1}, folder)
    >>> target = {"w": ember.zeros(3), "lr": 0.5}
    >>> load(folder, target) is target, target
    (True, {'w': tensor([0., 1., 2.]), 'lr': 0.1})
    """
    folder = os.fspath(path)
    index = read_index(folder, _LOAD)
    shards = Shards(folder, _LOAD)
    if into is None:
        tensors = [_whole(shards, record) for record in index["tensors"]]
        return _decode(index, tensors, folder)
    target = into.state_dict(keep_vars=True) if _is_module(into) else into
    source = _decode(index, [_Saved(r) for r in index["tensors"]], folder)
    fills: list = []
    assigns: list = []
    missing: list = []
    unexpected: list = []
    _match(target, source, [], fills, assigns, missing, unexpected)
    if strict and (missing or unexpected):
        raise KeyError(
            f"{_LOAD}: {folder}: the checkpoint and the target differ: missing from the checkpoint {missing}, "
            f"not in the target {unexpected} (strict=False loads the keys they share)"
        )
    for t, saved in fills:
        _fill(shards, t, saved.record)
    for container, key, value in assigns:
        container[key] = _resolve(shards, value)
    return into


def _decode(index: dict, tensors: list, folder: str) -> Any:
    try:
        return decode(index["root"], tensors)
    except ValueError as e:
        raise bad(_LOAD, os.path.join(folder, INDEX_NAME), f"malformed object tree: {e}") from None


def _whole(shards: Shards, record: dict) -> Tensor:
    array = shards.region(record, [[0, n] for n in record["shape"]])
    t = from_numpy(array)
    if record.get("requires_grad") is True and (t._dtype.is_floating_point or t._dtype.is_complex):
        t.requires_grad_(True)
    return t


def _resolve(shards: Shards, value: object) -> object:
    """A plain value of the checkpoint with its saved tensors read whole."""
    if isinstance(value, _Saved):
        return _whole(shards, value.record)
    if type(value) is list:
        return [_resolve(shards, v) for v in value]
    if type(value) is tuple:
        return tuple(_resolve(shards, v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _resolve(shards, v)) for k, v in value.items())
    return value


def _match(target, source, keys: list, fills: list, assigns: list, missing: list, unexpected: list) -> None:
    """Walk the target beside the checkpoint: tensors to fill (checked), values to replace, keys
    one side lacks."""
    where = ".".join(map(str, keys)) or "<root>"
    if isinstance(target, Tensor):
        if not isinstance(source, _Saved):
            raise TypeError(f"{_LOAD}: {where!r}: the target is a tensor, the checkpoint holds {type(source).__name__}")
        record = source.record
        if list(target._shape) != record["shape"] or target._dtype.name != record["dtype"]:
            raise ValueError(
                f"{_LOAD}: {where!r}: the checkpoint holds {record['dtype']} of shape {record['shape']}, "
                f"the target is {target._dtype.name} of shape {list(target._shape)}"
            )
        fills.append((target, source))
        return
    if isinstance(target, dict) and isinstance(source, dict):
        for k in target:
            if k not in source:
                missing.append(".".join(map(str, [*keys, k])))
            elif _nested(target[k]):
                _match(target[k], source[k], [*keys, k], fills, assigns, missing, unexpected)
            else:
                assigns.append((target, k, source[k]))
        unexpected.extend(".".join(map(str, [*keys, k])) for k in source if k not in target)
        return
    if isinstance(target, (list, tuple)) and isinstance(source, (list, tuple)):
        for i, t in enumerate(target):
            if i >= len(source):
                missing.append(".".join(map(str, [*keys, i])))
            elif _nested(t) or type(target) is tuple:
                _match(t, source[i], [*keys, i], fills, assigns, missing, unexpected)
            else:
                assigns.append((target, i, source[i]))
        unexpected.extend(".".join(map(str, [*keys, i])) for i in range(len(target), len(source)))
        return
    if isinstance(target, (dict, list, tuple)):
        raise TypeError(
            f"{_LOAD}: {where!r}: the target is a {type(target).__name__}, the checkpoint holds {type(source).__name__}"
        )
    # a plain value inside a tuple: it cannot be replaced in place, and is left as it is


def _nested(value: object) -> bool:
    """Whether the target's value is matched inside (a tensor, a dict or list, a tuple holding
    tensors) rather than replaced whole by the saved value."""
    if isinstance(value, (Tensor, dict, list)):
        return True
    return type(value) is tuple and any(_nested(v) for v in value)


def _fill(shards: Shards, t: Tensor, record: dict) -> None:
    """Write the saved tensor into ``t``'s pieces (global) or whole (local), in place."""
    if type(t) is not GlobalTensor:
        array = shards.region(record, [[0, n] for n in record["shape"]])
        with no_grad():
            t.copy_(from_numpy(array))
        return
    p = t._placement
    for rank, piece in t._pieces.items():
        coord = p.coordinate(rank)
        where = _layout.piece_slices(tuple(t._shape), t._sbp, p.mesh_shape, coord)
        zero = any(e.is_partial and e.reduce == "sum" and coord[d] != 0 for d, e in enumerate(t._sbp))
        if zero:  # a partial sum: the rank at coordinate 0 holds the value, the others zeros
            array = np.zeros([s.stop - s.start for s in where], piece._dtype.numpy_dtype)
        else:
            array = shards.region(record, [[s.start, s.stop] for s in where])
        with no_grad():
            piece.copy_(from_numpy(array))
