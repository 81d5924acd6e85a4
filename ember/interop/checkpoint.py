"""Checkpoints without pickle: ``ember.save`` / ``ember.load`` in the safetensors layout.

A checkpoint is a safetensors file (8-byte little-endian header length, a JSON header, then the
data). Each storage's bytes are stored once, as one entry: a storage that is exactly one whole
contiguous tensor is named by that tensor's key with its real dtype and shape, so
``safetensors.numpy.load_file`` reads a plain ``state_dict`` back as it was; other storages are
flat ``U8`` entries under reserved names (``__ember_storage_<i>``). ember's own structure (the
object tree, views with offsets and strides, ``requires_grad``, dtypes safetensors lacks) is a
JSON document in the header's ``__metadata__``. Loading builds only tensors and a fixed set of
plain types, and checks every offset, size and view extent before touching data, so an untrusted
file can neither run code nor make ember read outside the file. docs/checkpoint-format.md is the
full specification.

>>> import io
>>> t = ember.arange(6.0).view(2, 3)
>>> buf = io.BytesIO()
>>> ember.save({"w": t, "wT": t.t(), "step": 3}, buf)
>>> out = ember.load(io.BytesIO(buf.getvalue()))
>>> out["wT"].tolist(), out["step"]
([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], 3)
>>> out["w"].untyped_storage() is out["wT"].untyped_storage()
True
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import IO, Any

import numpy as np

from .._core import dtype as _dt
from .._core.device import Device
from .._core.shape import contiguous_strides, is_contiguous
from .._core.storage import OBJECT_SLOT_BYTES, Storage, sync_point
from .._core.tensor import Tensor, make_tensor
from ._checkpoint_tree import TreeEncoder, decode
from ._safetensors_file import (
    FROM_SAFETENSORS,
    RESERVED_PREFIX,
    TO_SAFETENSORS,
    Entry,
    Source,
    bad,
    check_entries,
    check_metadata,
    check_view,
    encode_header,
    int_list,
    layout,
    map_file,
    parse_json,
    read_header,
    read_storage,
    save_atomically,
    write,
)
from ._torch_zip import ZIP_MAGIC, load_torch_zip

__all__ = ["load", "save"]

FORMAT_VERSION = 1
_DTYPES = {d.name: d for d in _dt.ALL_DTYPES}

# ---------------------------------------------------------------------------------------
# save


def save(obj: object, f: str | os.PathLike | IO[bytes]) -> None:
    """Save tensors and nested dicts/lists/tuples of them and of plain values, without pickle.

    ``f`` is a path (written atomically: a temporary file beside it, then a rename) or a
    writable binary file object. Views of one storage are stored once and load back as views
    of one storage. A storage is always written whole, so saving a small slice of a large
    tensor writes the large tensor's bytes (``clone()`` the slice to save only it).

    >>> import io
    >>> buf = io.BytesIO()
    >>> ember.save({"betas": (0.9, 0.999), "step": 2**60}, buf)
    >>> ember.load(io.BytesIO(buf.getvalue()))
    {'betas': (0.9, 0.999), 'step': 1152921504606846976}
    """
    encoder = TreeEncoder()
    root = encoder.encode(obj)  # refuses unsupported objects before any byte is written
    header, entries = _plan(encoder, root)
    if isinstance(f, (str, os.PathLike)):
        save_atomically(os.fspath(f), header, entries)
    elif isinstance(f, io.TextIOBase):
        raise TypeError("ember.save(): the file object is in text mode; open it with 'wb'")
    elif hasattr(f, "write"):
        write(f, header, entries)
    else:
        raise TypeError(f"ember.save(): argument 'f' must be a path or a writable binary file object, not {type(f).__name__}")


def _plan(encoder: TreeEncoder, root: object) -> tuple[bytes, list[Entry]]:
    """The header bytes and the entries in file order, for the tensors the encoder found."""
    sync_point()  # queued kernels finish before their outputs are read
    storages: list[Storage] = []
    storage_index: dict[int, int] = {}
    views_of: list[list[int]] = []
    records = []
    for i, t in enumerate(encoder.tensors):
        storage = t._storage
        if storage._device.type not in ("cpu", "meta"):
            raise TypeError(f"ember.save(): tensor {encoder.names[i] or i} is on {storage._device}; move it to 'cpu' first")
        si = storage_index.get(id(storage))
        if si is None:
            si = storage_index[id(storage)] = len(storages)
            storages.append(storage)
            views_of.append([])
        views_of[si].append(i)
        record = {"storage": si, "offset": t._offset, "shape": list(t._shape), "stride": list(t._stride), "dtype": t._dtype.name}
        if t._requires_grad:
            record["requires_grad"] = True
        records.append(record)

    taken: set[str] = set()
    storage_records = []
    entries: list[Entry] = []
    for si, storage in enumerate(storages):
        views = [encoder.tensors[i] for i in views_of[si]]
        if storage.is_meta:
            kind = "strings" if storage._holds_objects else "bytes"
            storage_records.append({"kind": kind, "device": "meta", "nbytes": storage._nbytes})
            continue
        if storage._holds_objects:
            items = storage._buffer().tolist()
            blob = b"".join(items)
            name = f"{RESERVED_PREFIX}storage_{si}"
            entries.append(Entry(name, "U8", [len(blob)], len(blob), blob, 1))
            storage_records.append({"kind": "strings", "entry": name, "lengths": [len(b) for b in items]})
            continue
        alignment = max(v._dtype.numpy_dtype.alignment for v in views)
        entry = _typed_entry(storage, views_of[si], encoder, taken, alignment)
        if entry is None:
            entry = Entry(f"{RESERVED_PREFIX}storage_{si}", "U8", [storage._nbytes], storage._nbytes, storage._buffer(), alignment)
        entries.append(entry)
        storage_records.append({"kind": "bytes", "entry": entry.name})

    entries = layout(entries)
    document = {"version": FORMAT_VERSION, "storages": storage_records, "tensors": records, "root": root}
    metadata = {"format": "ember", "ember": json.dumps(document, separators=(",", ":"), allow_nan=False)}
    return encode_header(metadata, entries), entries


def _typed_entry(storage: Storage, indices: list[int], encoder: TreeEncoder, taken: set[str], alignment: int) -> Entry | None:
    """An entry named by a tensor that is exactly this storage, readable by any safetensors reader."""
    for i in indices:
        t = encoder.tensors[i]
        name = encoder.names[i]
        st_dtype = TO_SAFETENSORS.get(t._dtype)
        if (
            name is not None
            and st_dtype is not None
            and t._offset == 0
            and t.numel() * t._dtype.itemsize == storage._nbytes
            and is_contiguous(t._shape, t._stride)
            and name not in taken
            and name != "__metadata__"
            and not name.startswith(RESERVED_PREFIX)
        ):
            taken.add(name)
            return Entry(name, st_dtype, list(t._shape), storage._nbytes, storage._buffer(), alignment)
    return None


# ---------------------------------------------------------------------------------------
# load


def load(f: str | os.PathLike | IO[bytes], mmap: bool | None = False, *, map_location: object = None, weights_only: bool = True) -> Any:
    """Load what :func:`save` wrote, or any safetensors file (then: a dict of tensors).

    ``mmap=True`` maps the file copy-on-write instead of reading it: loading costs the header
    only, tensors are views of the mapping (pages are read when first touched), writes to them
    stay private to this process, and the mapping lives until the last view dies. It needs a
    path or a real file (one with ``fileno()``). Nothing is ever unpickled, imported or
    evaluated, and every load is "weights only" (``weights_only`` exists for PyTorch's callers).

    A zip written by ``torch.save`` loads too: its pickle is interpreted, never executed, over
    PyTorch's weights-only set of types (tensors, parameters, containers, numbers, strings,
    dtypes, NumPy scalars); ``mmap`` reads it all the same.

    ``map_location`` places each storage as ``torch.load`` does: a device or its name (``'cpu'``,
    ``'meta'``), a dict from saved location to new one (``{'cuda:0': 'cpu'}``), or a callable
    ``(storage, location) -> storage`` (None keeps the default). A storage saved on a device this
    host lacks (``'cuda:0'``) must be mapped, or loading fails naming it; meta storages stay meta.

    >>> import io
    >>> buf = io.BytesIO()
    >>> ember.save(ember.tensor([1, 2, 3]), buf)
    >>> ember.load(io.BytesIO(buf.getvalue()))
    tensor([1, 2, 3])
    """
    op = "ember.load()"
    restore = _restorer(map_location, op)
    if mmap is None:  # PyTorch's default
        mmap = False
    if type(mmap) is not bool:
        raise TypeError(f"{op}: argument 'mmap' must be bool, not {type(mmap).__name__}")
    source = Source(f, op)
    try:
        if source.size >= 4 and source.read_exact(0, 4, "the first bytes") == ZIP_MAGIC:
            return load_torch_zip(source, restore)
        header, data_start = read_header(source)
        entries = check_entries(source, header, data_start)
        metadata = check_metadata(source, header)
        mapping = map_file(source) if mmap else None
        if metadata.get("format") == "ember" and "ember" in metadata:
            return _load_ember(source, metadata["ember"], entries, data_start, mapping, restore)
        return {name: _plain_tensor(source, e, data_start, mapping, restore) for name, e in entries.items()}
    finally:
        if source.owned:
            source.file.close()


def _plain_tensor(source: Source, entry: tuple, data_start: int, mapping: np.ndarray | None, restore) -> Tensor:
    dtype, shape, begin, end = entry
    storage = restore(read_storage(source, begin, end, data_start, mapping), "cpu")
    return make_tensor(storage, 0, tuple(shape), contiguous_strides(shape), FROM_SAFETENSORS[dtype])


def _load_ember(source: Source, text: str, entries: dict, data_start: int, mapping: np.ndarray | None, restore) -> Any:
    doc = parse_json(source, text, "the ember metadata")
    if type(doc) is not dict:
        raise bad(source, "the ember metadata must be a JSON object")
    if doc.get("version") != FORMAT_VERSION:
        raise bad(source, f"ember checkpoint format version {doc.get('version')!r}; this ember reads version {FORMAT_VERSION}")
    storage_records, tensor_records = doc.get("storages"), doc.get("tensors")
    if type(storage_records) is not list or type(tensor_records) is not list or "root" not in doc:
        raise bad(source, "the ember metadata needs 'storages' and 'tensors' lists and a 'root'")
    used = [r.get("entry") for r in storage_records if type(r) is dict and "entry" in r]
    if len(set(map(repr, used))) != len(used):
        raise bad(source, "two storages refer to the same entry")
    storages = [restore(_storage(source, i, r, entries, data_start, mapping), "cpu") for i, r in enumerate(storage_records)]
    tensors = [_tensor(source, i, r, storages) for i, r in enumerate(tensor_records)]
    try:
        return decode(doc["root"], tensors)
    except ValueError as e:
        raise bad(source, f"malformed object tree: {e}") from None


def _restorer(map_location: object, op: str):
    """``map_location`` as ``restore(storage, saved_location) -> storage``, torch.load's rules."""
    if map_location is None:
        return _restore_to
    if isinstance(map_location, (str, Device)):
        target = str(map_location)
        return lambda storage, location: _restore_to(storage, target)
    if isinstance(map_location, dict):
        return lambda storage, location: _restore_to(storage, str(map_location.get(location, location)))
    if callable(map_location):

        def call(storage: Storage, location: str) -> Storage:
            result = map_location(storage, location)
            if result is None:
                return _restore_to(storage, location)
            if not isinstance(result, Storage):
                raise TypeError(f"{op}: the map_location callable must return a Storage or None, got {type(result).__name__}")
            return result

        return call
    raise TypeError(f"{op}: map_location must be a device, a str, a dict or a callable (storage, location), got {type(map_location).__name__}")


def _restore_to(storage: Storage, location: str) -> Storage:
    """The storage on ``location``, as torch.load's default restore: only host and meta exist here."""
    if storage._device.type == "meta" or location == "cpu":
        return storage  # a meta storage has no values to place, as in PyTorch
    if location == "meta":
        return Storage(storage._nbytes, device="meta", holds_objects=storage._holds_objects)
    if location.partition(":")[0] in ("cuda", "mps", "xpu", "hpu"):
        raise RuntimeError(
            f"Attempting to deserialize object on a {location.partition(':')[0].upper()} device ({location!r}), which this host does not have. "
            "If you are running on a CPU-only machine, please use ember.load with map_location='cpu' (or ember.device('cpu')) to map your storages to the CPU."
        )
    raise RuntimeError(f"don't know how to restore data location of a storage (tagged with {location})")


def _storage(source: Source, i: int, record: object, entries: dict, data_start: int, mapping) -> Storage:
    if type(record) is not dict or record.get("kind") not in ("bytes", "strings"):
        raise bad(source, f"storage {i}: expected an object with kind 'bytes' or 'strings', got {record!r:.80}")
    strings = record["kind"] == "strings"
    if record.get("device") == "meta":
        nbytes = record.get("nbytes")
        if type(nbytes) is not int or not 0 <= nbytes <= sys.maxsize or (strings and nbytes % OBJECT_SLOT_BYTES):
            raise bad(source, f"storage {i}: meta storage needs a valid 'nbytes', got {nbytes!r}")
        return Storage(nbytes, device="meta", holds_objects=strings)
    name = record.get("entry")
    if name not in entries:
        raise bad(source, f"storage {i} refers to entry {name!r}, which the header does not have")
    _, _, begin, end = entries[name]
    if not strings:
        return read_storage(source, begin, end, data_start, mapping)
    lengths = record.get("lengths")
    if not int_list(lengths) or any(n < 0 for n in lengths) or sum(lengths) != end - begin:
        raise bad(source, f"storage {i}: string lengths must be non-negative ints adding up to the entry's {end - begin} bytes")
    blob = source.read_exact(data_start + begin, end - begin, f"storage {i}") if mapping is None else mapping[data_start + begin : data_start + end].tobytes()
    storage = Storage(len(lengths) * OBJECT_SLOT_BYTES, holds_objects=True)
    slots = storage._buffer()
    position = 0
    for k, n in enumerate(lengths):
        slots[k] = blob[position : position + n]
        position += n
    return storage


def _tensor(source: Source, i: int, record: object, storages: list[Storage]) -> Tensor:
    """One view, checked so that it can only reach bytes of its own storage."""
    if type(record) is not dict:
        raise bad(source, f"tensor {i}: expected an object, got {record!r:.80}")
    si, offset, shape, stride = record.get("storage"), record.get("offset"), record.get("shape"), record.get("stride")
    dtype = _DTYPES.get(record.get("dtype")) if type(record.get("dtype")) is str else None
    if type(si) is not int or not 0 <= si < len(storages):
        raise bad(source, f"tensor {i} refers to storage {si!r}; the file has {len(storages)} storages")
    if dtype is None:
        raise bad(source, f"tensor {i} has unknown dtype {record.get('dtype')!r}")
    if type(offset) is not int or offset < 0 or not int_list(shape) or not int_list(stride) or len(shape) != len(stride):
        raise bad(source, f"tensor {i}: needs an int offset >= 0 and int lists shape and stride of one length")
    if any(s < 0 for s in shape):
        raise bad(source, f"tensor {i} has a negative size in shape {shape}")
    storage = storages[si]
    if (dtype is _dt.string) != storage._holds_objects:
        raise bad(source, f"tensor {i} of dtype {dtype.name} cannot view a {'string' if storage._holds_objects else 'byte'} storage")
    check_view(source, f"tensor {i}", storage, offset, shape, stride, dtype)
    t = make_tensor(storage, offset, tuple(shape), tuple(stride), dtype)
    requires_grad = record.get("requires_grad", False)
    if type(requires_grad) is not bool or (requires_grad and not (dtype.is_floating_point or dtype.is_complex)):
        raise bad(source, f"tensor {i}: requires_grad must be a bool, and True only for floating or complex dtypes")
    t._requires_grad = requires_grad
    return t
