"""The index and the shard files of a sharded checkpoint: what they hold, and reading them back checked.

``index.json`` is ``{"sha256": <hex>, "index": {...}}``; the hash covers the canonical JSON of
``index`` (sorted keys, no spaces), so an edited or truncated index is refused before it is used.
``index`` holds the format and version, the saving world's size, the object tree (plain values
inline, tensors as ``{"tensor": i}``; ``ember.save``'s tree) and, for each tensor, its logical
shape and dtype, its placement and SBP (null for a local tensor) and its pieces: the shard file,
the safetensors entry, the slice of the logical tensor (``[[start, stop], ...]``) and the sha256
of each block of ``block_rows`` rows (dim 0) of the piece's bytes, so that a reader checks just
the blocks it reads. The pieces of a tensor tile it exactly.

>>> sbp_from_text(sbp_text((split(1), broadcast, partial_max)))
(sbp.split(dim=1), sbp.broadcast, sbp.partial_max)
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import os

import numpy as np

from ..._core import dtype as _dt
from ...dispatch.sbp import SBP, broadcast, partial_max, partial_min, partial_sum, split
from ...interop._safetensors_file import Source, check_entries, check_metadata, int_list, read_header
from .placement import placement as Placement

__all__ = [
    "BLOCK_BYTES", "FORMAT", "INDEX_NAME", "VERSION", "Shards", "bad", "digests", "index_bytes", "read_index", "sbp_from_text", "sbp_text",
    "shard_name",
]  # fmt: skip

FORMAT = "ember-sharded"
VERSION = 1
INDEX_NAME = "index.json"
BLOCK_BYTES = 4 << 20  # a piece is checksummed in blocks of rows of about this size
DTYPES = {d.name: d for d in _dt.ALL_DTYPES}
_PARTIALS = {"P(sum)": partial_sum, "P(max)": partial_max, "P(min)": partial_min}


def shard_name(rank: int) -> str:
    return f"rank-{rank:05d}.safetensors"


def bad(op: str, where: str, what: str) -> ValueError:
    return ValueError(f"{op}: {where}: {what}")


def sbp_text(sbp: tuple) -> list[str]:
    return [e.short() for e in sbp]


def sbp_from_text(texts: list) -> tuple[SBP, ...]:
    out = []
    for text in texts:
        if text == "B":
            out.append(broadcast)
        elif text in _PARTIALS:
            out.append(_PARTIALS[text])
        elif type(text) is str and text.startswith("S(") and text.endswith(")") and text[2:-1].isdigit():
            out.append(split(int(text[2:-1])))
        else:
            raise ValueError(f"unknown sbp {text!r}")
    return tuple(out)


def _canonical(index: dict) -> bytes:
    return json.dumps(index, sort_keys=True, separators=(",", ":"), allow_nan=False).encode("utf-8")


def index_bytes(index: dict) -> bytes:
    """The index file's bytes: the index and the sha256 of its canonical JSON."""
    digest = hashlib.sha256(_canonical(index)).hexdigest()
    return json.dumps({"sha256": digest, "index": index}, separators=(",", ":"), allow_nan=False).encode("utf-8")


def read_index(path: str, op: str) -> dict:
    """The checked index of the checkpoint folder ``path``."""
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{op}: {path!r} is not a checkpoint folder (no such directory)")
    where = os.path.join(path, INDEX_NAME)
    if not os.path.isfile(where):
        raise FileNotFoundError(f"{op}: {where!r} is missing: not a sharded checkpoint, or its save did not finish")
    with open(where, "rb") as f:
        raw = f.read()
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise bad(op, where, f"the index is not valid JSON (truncated or corrupt?): {e}") from None
    if type(document) is not dict or set(document) != {"sha256", "index"} or type(document["index"]) is not dict:
        raise bad(op, where, "the index must be an object with 'sha256' and 'index'")
    index = document["index"]
    if hashlib.sha256(_canonical(index)).hexdigest() != document["sha256"]:
        raise bad(op, where, "the index fails its sha256 check: it was edited or corrupted after it was written")
    if index.get("format") != FORMAT or index.get("version") != VERSION:
        raise bad(
            op,
            where,
            f"format {index.get('format')!r} version {index.get('version')!r}; this ember reads {FORMAT!r} version {VERSION}",
        )
    tensors = index.get("tensors")
    if type(tensors) is not list or "root" not in index:
        raise bad(op, where, "the index needs a 'tensors' list and a 'root'")
    for i, record in enumerate(tensors):
        _check_record(op, where, i, record)
    return index


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _check_record(op: str, where: str, i: int, record: object) -> None:
    """A tensor record that can be trusted to index files and arrays: the checksum only says
    that the index is the one written, not that its writer was sound."""
    if type(record) is not dict:
        raise bad(op, where, f"tensor {i}: expected an object, got {record!r:.80}")
    key = record.get("key", i)
    shape, dtype, pieces = record.get("shape"), record.get("dtype"), record.get("pieces")
    if not int_list(shape) or any(s < 0 for s in shape) or dtype not in DTYPES or type(pieces) is not list:
        raise bad(op, where, f"tensor {key!r}: needs a shape of non-negative ints, a known dtype and a pieces list")
    if record.get("placement") is not None:
        try:
            p = record["placement"]
            mesh = Placement.recorded(p["type"], p["ranks"])
            if len(sbp_from_text(record["sbp"])) != mesh.ndim:
                raise ValueError(f"{len(record['sbp'])} sbp entries for a {mesh.ndim}-d mesh")
        except (KeyError, TypeError, ValueError) as e:
            raise bad(op, where, f"tensor {key!r}: bad placement or sbp ({e})") from None
    volume = 0
    boxes = []
    for piece in pieces:
        box = piece.get("slice") if type(piece) is dict else None
        if (
            type(box) is not list
            or len(box) != len(shape)
            or not all(int_list(r) and len(r) == 2 and 0 <= r[0] <= r[1] <= n for r, n in zip(box, shape, strict=False))
            or type(piece.get("file")) is not str
            or os.path.basename(piece["file"]) != piece["file"]  # a file of this folder, never a path out of it
            or piece["file"].startswith(".")
            or type(piece.get("entry")) is not str
            or type(piece.get("block_rows")) is not int
            or piece["block_rows"] < 1
            or type(piece.get("sha256")) is not list
            or not all(type(h) is str for h in piece["sha256"])
            or len(piece["sha256"]) != -(-((box[0][1] - box[0][0]) if box else 1) // piece["block_rows"])
        ):
            raise bad(op, where, f"tensor {key!r}: malformed piece {piece!r:.120}")
        volume += math.prod(b - a for a, b in box)
        boxes.append(box)
    clash = _overlapping(boxes)
    if clash is not None:
        raise bad(op, where, f"tensor {key!r}: pieces {boxes[clash[0]]} and {boxes[clash[1]]} overlap")
    if volume != math.prod(shape):
        raise bad(op, where, f"tensor {key!r}: its pieces cover {volume} of its {math.prod(shape)} elements")


def _overlapping(boxes: list) -> tuple[int, int] | None:
    """Two pieces that share an element, if any (all pairs at once: a checkpoint of many ranks
    has many pieces)."""
    if len(boxes) < 2:
        return None
    array = np.array(boxes, dtype=np.int64).reshape(len(boxes), -1, 2)
    low = np.maximum(array[:, None, :, 0], array[None, :, :, 0])
    high = np.minimum(array[:, None, :, 1], array[None, :, :, 1])
    shared = np.all(low < high, axis=-1)
    np.fill_diagonal(shared, False)
    found = np.argwhere(shared)
    return (int(found[0][0]), int(found[0][1])) if len(found) else None


def _overlap(a: list, b: list) -> list | None:
    """The intersection of two boxes, or None when it holds no element."""
    out = []
    for (a0, a1), (b0, b1) in zip(a, b, strict=True):
        lo, hi = max(a0, b0), min(a1, b1)
        if lo >= hi:
            return None
        out.append([lo, hi])
    return out


def _rows(array: np.ndarray) -> np.ndarray:
    """The array as a 2-d array of its dim-0 rows (a 0-d array: one row of one element)."""
    if array.ndim == 0:
        return array.reshape(1, 1)
    return array.reshape(array.shape[0], math.prod(array.shape[1:]))


def digests(array: np.ndarray) -> tuple[int, list[str]]:
    """A contiguous piece's checksums: rows of dim 0 in blocks of about ``BLOCK_BYTES`` (a 0-d
    piece is one block of one row); returns (rows per block, the sha256 of each block)."""
    flat = _rows(array)
    block = max(1, BLOCK_BYTES // max(1, flat.shape[1] * flat.itemsize))
    return block, [hashlib.sha256(flat[b : b + block].view(np.uint8)).hexdigest() for b in range(0, len(flat), block)]


class Shards:
    """The shard files of one checkpoint, opened (mapped read-only) on first use. A piece's bytes
    are checked in blocks of rows (``digests``), each once, when first read: a rank that needs a
    few rows of a saved piece reads and checks only the blocks that hold them."""

    def __init__(self, folder: str, op: str) -> None:
        self.folder, self.op = folder, op
        self._files: dict[str, tuple] = {}
        self._arrays: dict[tuple, np.ndarray] = {}
        self._checked: set[tuple] = set()

    def _open(self, name: str) -> tuple:
        found = self._files.get(name)
        if found is not None:
            return found
        where = os.path.join(self.folder, name)
        if not os.path.isfile(where):
            raise FileNotFoundError(f"{self.op}: shard {where!r} is missing")
        source = Source(where, self.op)
        try:
            header, data_start = read_header(source)
            entries = check_entries(source, header, data_start)
            check_metadata(source, header)
            mapping = mmap.mmap(source.file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError as e:  # the safetensors layer speaks as ember.load(): say who reads
            raise bad(self.op, where, str(e).partition(": ")[2].partition(": ")[2] or str(e)) from None
        finally:
            source.file.close()
        found = self._files[name] = (where, entries, data_start, np.frombuffer(mapping, np.uint8))
        return found

    def piece(self, record: dict, piece: dict, rows: tuple[int, int]) -> np.ndarray:
        """The saved piece as an array of its slice's shape (read-only), with the blocks that hold
        its ``rows`` (along dim 0, local to the piece; a 0-d piece has one row) checked."""
        key = (piece["file"], piece["entry"])
        found = self._arrays.get(key)
        if found is None:
            found = self._arrays[key] = self._map(record, piece)
        flat = _rows(found)
        block = piece["block_rows"]
        for b in range(rows[0] // block, -(-rows[1] // block)):
            if (key, b) in self._checked:
                continue
            if hashlib.sha256(flat[b * block : (b + 1) * block].view(np.uint8)).hexdigest() != piece["sha256"][b]:
                raise bad(
                    self.op,
                    os.path.join(self.folder, piece["file"]),
                    f"entry {piece['entry']!r} of {record.get('key')!r} fails its sha256 check in rows from {b * block}: "
                    "the piece was changed or corrupted",
                )
            self._checked.add((key, b))
        return found

    def _map(self, record: dict, piece: dict) -> np.ndarray:
        where, entries, data_start, data = self._open(piece["file"])
        entry = entries.get(piece["entry"])
        name = record.get("key")
        if entry is None:
            raise bad(
                self.op,
                where,
                f"has no entry {piece['entry']!r} for {name!r} (the index and the shards are from different saves?)",
            )
        dtype = DTYPES[record["dtype"]]
        shape = [b - a for a, b in piece["slice"]]
        _, _, begin, end = entry
        need = math.prod(shape) * dtype.itemsize
        if end - begin != need:
            raise bad(
                self.op,
                where,
                f"entry {piece['entry']!r} holds {end - begin} bytes; {name!r}'s piece {shape} of {dtype.name} needs {need}",
            )
        return data[data_start + begin : data_start + end].view(dtype.numpy_dtype).reshape(shape)

    def region(self, record: dict, box: list) -> np.ndarray:
        """The region ``box`` of a saved tensor, assembled from the saved pieces that overlap it
        (only those are read)."""
        dtype = DTYPES[record["dtype"]]
        out = np.empty([b - a for a, b in box], dtype.numpy_dtype)
        if out.size == 0:
            return out
        for piece in record["pieces"]:
            common = _overlap(piece["slice"], box)
            if common is None:
                continue
            first = piece["slice"][0][0] if common else 0
            array = self.piece(record, piece, (common[0][0] - first, common[0][1] - first) if common else (0, 1))
            source = tuple(slice(lo - s[0], hi - s[0]) for (lo, hi), s in zip(common, piece["slice"], strict=True))
            target = tuple(slice(lo - b[0], hi - b[0]) for (lo, hi), b in zip(common, box, strict=True))
            out[target] = array[source]
        return out
