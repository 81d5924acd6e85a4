"""TensorFlow's V2 checkpoint format, checked without TensorFlow: CRC32C, the table of the
``.index`` file byte by byte, and the bundle against a checkpoint TensorFlow 2.21 wrote
(``data/tf_checkpoint``, made by the script beside it): ember reads every tensor of it and
writes the same bytes for the same values. ``test_saver.py`` tests the Saver on top."""

import os
import struct

import ml_dtypes
import numpy as np
import pytest

import ember
from ember.graph import crc32c
from ember.graph.checkpoint import BundleReader, NewCheckpointReader, TableError, list_variables, write_bundle
from ember.graph.checkpoint.table import MAGIC, read_table, write_table
from ember.graph.errors import DataLossError, NotFoundError
from ember.graph.proto import VersionDef
from ember.graph.proto.checkpoint import BundleEntryProto, BundleHeaderProto
from ember.interop.numpy import from_numpy

TF_CHECKPOINT = os.path.join(os.path.dirname(__file__), "data", "tf_checkpoint", "model.ckpt-7")

# The values of the TensorFlow-written checkpoint, one variable per dtype (named v/<dtype>).
VALUES = {
    "float16": np.array([1.5, -2.25], np.float16),
    "float32": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
    "float64": np.array(3.25),
    "bfloat16": np.array([1.0, -0.5, 3.0], ml_dtypes.bfloat16),
    "int8": np.array([-128, 127], np.int8),
    "int16": np.array([-3, 4], np.int16),
    "int32": np.array([[7]], np.int32),
    "int64": np.array([2**40, -1], np.int64),
    "uint8": np.array([0, 255], np.uint8),
    "uint16": np.array([65535], np.uint16),
    "bool": np.array([True, False, True]),
    "complex64": np.array([1 + 2j, -3j], np.complex64),
    "complex128": np.array([[1e300 + 1j]], np.complex128),
    "string": np.array([b"ab", b"", b"\xff\x00z"], dtype=object),
    "empty": np.zeros((0, 3), np.float32),
}


def _tensor(value: np.ndarray):
    if value.dtype == object:
        return ember.tensor(value.tolist(), dtype=ember.string)
    return from_numpy(value.copy())


def _assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.tobytes() == expected.tobytes() if expected.dtype != object else actual.tolist() == expected.tolist()


# ------------------------------------------------------------------------------------------ CRC32C


def test_crc32c_long_path_matches_the_byte_loop_at_every_lane_count():
    rng = np.random.default_rng(1)
    for n in (1 << 14, (1 << 14) + 3, 100_003, (1 << 20) + 5):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        slow = crc32c._update(0xFFFFFFFF, data) ^ 0xFFFFFFFF
        assert crc32c.crc32c(data) == slow
        assert crc32c.crc32c(data[7:], crc32c.crc32c(data[:7])) == slow  # continuing a CRC
        assert crc32c.crc32c(np.frombuffer(data, np.uint8)) == slow  # any bytes-like object


def test_mask_and_unmask_are_inverse_and_match_tensorflow():
    assert crc32c.masked_crc32c(b"123456789") == crc32c.mask(0xE3069283)
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert crc32c.unmask(crc32c.mask(crc)) == crc
    assert crc32c.mask(0) == 0xA282EAD8


# ------------------------------------------------------------------------------------------- table


def _footer(data: bytes):
    metaindex_offset, metaindex_size, index_offset, index_size, pos = _varints(data, len(data) - 48, 4)
    assert data[pos : len(data) - 8] == bytes(len(data) - 8 - pos)  # zero padding
    assert struct.unpack("<Q", data[-8:])[0] == MAGIC == 0xDB4775248B80FB57
    return (metaindex_offset, metaindex_size), (index_offset, index_size)


def _varints(data: bytes, pos: int, n: int):
    out = []
    for _ in range(n):
        value = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        out.append(value)
    return (*out, pos)


def _check_trailer(data: bytes, offset: int, size: int) -> bytes:
    block, kind, (stored,) = data[offset : offset + size], data[offset + size], struct.unpack_from("<I", data, offset + size + 1)
    assert kind == 0  # uncompressed
    assert stored == crc32c.mask(crc32c.crc32c(block + b"\0"))
    return block


def _restarts(block: bytes) -> list[int]:
    (n,) = struct.unpack_from("<I", block, len(block) - 4)
    return list(struct.unpack_from(f"<{n}I", block, len(block) - 4 - 4 * n))


def test_table_layout_byte_by_byte():
    items = [(b"", b"header")] + [(b"key%04d" % i, b"v" * (i % 7)) for i in range(40)]
    data = write_table(items, block_size=100)
    (meta_offset, meta_size), (index_offset, index_size) = _footer(data)
    assert _check_trailer(data, meta_offset, meta_size) == struct.pack("<II", 0, 1)  # an empty block
    index = _check_trailer(data, index_offset, index_size)
    assert len(_restarts(index)) > 2  # several data blocks, each indexed
    pos, previous_end, keys = 0, 0, []
    limit = len(index) - 4 - 4 * len(_restarts(index))
    while pos < limit:  # the index block restarts at every entry: no shared prefixes
        shared, unshared, size, pos = _varints(index, pos, 3)
        assert shared == 0
        key, handle = index[pos : pos + unshared], index[pos + unshared : pos + unshared + size]
        pos += unshared + size
        offset, length, _ = _varints(handle, 0, 2)
        assert offset == previous_end  # blocks follow one another
        block = _check_trailer(data, offset, length)
        previous_end = offset + length + 5
        restarts = _restarts(block)
        assert restarts[0] == 0
        keys.append(key)
    assert previous_end == meta_offset
    assert keys == sorted(keys) and keys[-1] == b"l"  # the last block's key: the last key's short successor
    assert read_table(data) == items


def test_table_entries_share_prefixes_between_restarts():
    items = [(b"abc%03d" % i, b"x") for i in range(20)]
    data = write_table(items)
    (_, _), (index_offset, index_size) = _footer(data)
    index = _check_trailer(data, index_offset, index_size)
    _, unshared, _, pos = _varints(index, 0, 3)
    assert index[pos : pos + unshared] == b"b"  # the shortest key after the last one, "abc019"
    offset, length, _ = _varints(index, pos + unshared, 2)
    block = _check_trailer(data, offset, length)
    starts, shared_counts, pos, key = [], [], 0, b""
    limit = len(block) - 4 - 4 * len(_restarts(block))
    while pos < limit:
        starts.append(pos)
        shared, unshared, size, pos = _varints(block, pos, 3)
        key = key[:shared] + block[pos : pos + unshared]
        assert key == items[len(starts) - 1][0]
        shared_counts.append(shared)
        pos += unshared + size
    assert _restarts(block) == [starts[0], starts[16]]  # a whole key every 16 entries
    assert shared_counts[:3] == [0, 5, 5] and shared_counts[16] == 0 and shared_counts[10] == 4  # abc009 -> abc010


def test_table_refuses_damage_snappy_and_disorder():
    data = bytearray(write_table([(b"", b"h"), (b"a", b"1")]))
    bad = bytearray(data)
    bad[3] ^= 0x01
    with pytest.raises(TableError, match="checksum mismatch"):
        read_table(bytes(bad))
    (_, _), (index_offset, index_size) = _footer(bytes(data))
    index = _check_trailer(bytes(data), index_offset, index_size)
    _, _, _, pos = _varints(index, 0, 3)
    offset, length, _ = _varints(index, pos + 1, 2)
    snappy = bytearray(data)
    snappy[offset + length] = 1  # the block's type byte says snappy (and the CRC covers it)
    snappy[offset + length + 1 : offset + length + 5] = struct.pack(
        "<I", crc32c.mask(crc32c.crc32c(bytes(data[offset : offset + length]) + b"\1"))
    )
    with pytest.raises(TableError, match="snappy"):
        read_table(bytes(snappy))
    with pytest.raises(TableError, match="magic"):
        read_table(bytes(data[:-1]) + b"\0")
    with pytest.raises(TableError, match="footer"):
        read_table(b"short")
    with pytest.raises(TableError, match="strictly increasing"):
        write_table([(b"b", b""), (b"a", b"")])


# ------------------------------------------------------------------------------------------ bundle


def test_ember_reads_every_dtype_of_a_tensorflow_checkpoint():
    reader = NewCheckpointReader(TF_CHECKPOINT)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(f"v/{k}" for k in VALUES)
    for name, expected in VALUES.items():
        _assert_same(reader.get_tensor(f"v/{name}"), expected)
        assert reader.get_variable_to_shape_map()[f"v/{name}"] == list(expected.shape)
    assert reader.get_variable_to_dtype_map()["v/bfloat16"] is ember.bfloat16
    assert reader.get_variable_to_dtype_map()["v/string"] is ember.string
    assert b"v/float32 (DT_FLOAT) [2, 3]\n" in reader.debug_string()


def test_ember_writes_the_bytes_tensorflow_writes(tmp_path):
    prefix = str(tmp_path / "model.ckpt-7")
    write_bundle(prefix, {f"v/{k}": _tensor(v) for k, v in VALUES.items()})
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as mine, open(TF_CHECKPOINT + suffix, "rb") as theirs:
            assert mine.read() == theirs.read(), suffix


def test_bundle_entries_byte_level(tmp_path):
    prefix = str(tmp_path / "m")
    write_bundle(prefix, {"b": from_numpy(np.arange(3, dtype=np.int64)), "a": ember.tensor([b"xy", b"z"], dtype=ember.string)})
    with open(prefix + ".index", "rb") as f:
        items = read_table(f.read())
    with open(prefix + ".data-00000-of-00001", "rb") as f:
        data = f.read()
    assert [k for k, _ in items] == [b"", b"a", b"b"]
    header = BundleHeaderProto.FromString(items[0][1])
    assert (header.num_shards, header.endianness, header.version) == (1, BundleHeaderProto.LITTLE, VersionDef(producer=1))
    a, b = (BundleEntryProto.FromString(v) for _, v in items[1:])
    assert (a.offset, b.offset, b.size) == (0, a.size, 24)  # in key order, no padding
    assert data[b.offset :] == np.arange(3, dtype="<i8").tobytes()
    assert crc32c.unmask(b.crc32c) == crc32c.crc32c(data[b.offset :])
    # a string tensor: varint lengths, their masked CRC (over the lengths as uint32), the bytes
    lengths_crc = crc32c.crc32c(struct.pack("<II", 2, 1))
    assert data[: a.size] == b"\x02\x01" + struct.pack("<I", crc32c.mask(lengths_crc)) + b"xyz"
    assert crc32c.unmask(a.crc32c) == crc32c.crc32c(
        b"xyz", crc32c.crc32c(struct.pack("<I", crc32c.mask(lengths_crc)), lengths_crc)
    )
    assert a.dtype == ember.string.tf_enum and [d.size for d in a.shape.dim] == [2]


def test_bundle_detects_damaged_data(tmp_path):
    prefix = str(tmp_path / "m")
    write_bundle(prefix, {"w": from_numpy(np.arange(4, dtype=np.float32)), "s": ember.tensor([b"abc"], dtype=ember.string)})
    path = prefix + ".data-00000-of-00001"
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[-1] ^= 0xFF  # inside w
    data[0] = 4  # s's length: no longer the one its checksum covers
    with open(path, "wb") as f:
        f.write(data)
    reader = BundleReader(prefix)
    with pytest.raises(DataLossError, match="Checksum does not match"):
        reader.get_tensor("w")
    with pytest.raises(DataLossError):
        reader.get_tensor("s")
    with open(prefix + ".index", "r+b") as f:
        f.seek(2)
        f.write(b"\xee")
    with pytest.raises(DataLossError, match="corrupt"):
        BundleReader(prefix)


def test_reader_errors(tmp_path):
    with pytest.raises(NotFoundError, match="Failed to find any matching files for"):
        NewCheckpointReader(str(tmp_path / "nothing"))
    with pytest.raises(NotFoundError, match=r"^Key zz not found in checkpoint$"):
        NewCheckpointReader(TF_CHECKPOINT).get_tensor("zz")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        list_variables(str(tmp_path))
