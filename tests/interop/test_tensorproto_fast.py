"""serialize_tensor's hand-written header and parse_tensor's reader of canonical messages give
what protobuf's message path gives, and every other message still goes through protobuf."""

import numpy as np
import pytest

import ember
from ember import io
from ember._core.dtype import ALL_DTYPES
from ember.interop.proto import convert, wire

NUMERIC = [d for d in ALL_DTYPES if d is not ember.string]
SHAPES = [(), (0,), (1,), (3, 3), (2, 0, 3), (300,), (130, 2), (1,) * 40, (200,) * 2 + (1,) * 30]


def _values(dtype, shape):
    n = int(np.prod(shape))
    return ember.arange(n).to(dtype).reshape(shape) if n else ember.empty(shape, dtype=dtype)


def _general(data: bytes):
    """What protobuf's path reads: the message object, then from_proto's checks."""
    return io.from_proto(io.TensorProto.FromString(data))


def _same(a, b):
    assert a.dtype is b.dtype and a.shape == b.shape
    assert a.numpy().tobytes() == b.numpy().tobytes()


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_written_bytes_are_the_messages_and_read_back_as_protobuf_reads_them(dtype, shape):
    t = _values(dtype, shape)
    data = io.serialize_tensor(t)
    assert data == io.to_proto(t).SerializeToString()
    back = io.parse_tensor(data)
    _same(back, _general(data))
    _same(back, t)


def test_a_long_shape_takes_a_two_byte_length_and_still_reads_fast():
    t = _values(ember.float32, (200,) * 2 + (1,) * 30)
    data = io.serialize_tensor(t)
    assert data[3] >= 0x80  # the shape field's length needs two bytes
    assert convert._read_canonical(memoryview(data)) is not None


def test_non_contiguous_and_half_precision_inputs():
    base = ember.arange(24.0).reshape(4, 6)
    for t in (base.t(), base[:, ::2], base.to(ember.float16).t(), base.to(ember.bfloat16)[1:, ::3]):
        data = io.serialize_tensor(t)
        assert data == io.to_proto(t).SerializeToString()
        _same(io.parse_tensor(data), t.contiguous())


def test_a_parsed_tensor_owns_writable_memory():
    data = io.serialize_tensor(ember.ones(2, 2))
    before = bytes(data)
    t = io.parse_tensor(data)
    t[0, 0] = 5.0
    assert bytes(data) == before and t.tolist() == [[5.0, 1.0], [1.0, 1.0]]


def _field(number: int, wire_type: int, payload: bytes) -> bytes:
    key = wire.field_key(number, wire_type)
    if wire_type == wire.LENGTH_DELIMITED:
        return key + wire.varint(len(payload)) + payload
    return key + payload


CONTENT = np.arange(4, dtype=np.float32).tobytes()
DTYPE = _field(1, wire.VARINT, wire.varint(1))
SHAPE = _field(2, wire.LENGTH_DELIMITED, _field(2, wire.LENGTH_DELIMITED, _field(1, wire.VARINT, wire.varint(4))))
NAMED = _field(
    2,
    wire.LENGTH_DELIMITED,
    _field(2, wire.LENGTH_DELIMITED, _field(1, wire.VARINT, wire.varint(4)) + _field(2, wire.LENGTH_DELIMITED, b"x")),
)
BODY = _field(4, wire.LENGTH_DELIMITED, CONTENT)


@pytest.mark.parametrize(
    "data",
    [
        DTYPE + SHAPE + BODY,  # canonical
        SHAPE + DTYPE + BODY,  # another order
        DTYPE + SHAPE + _field(3, wire.VARINT, wire.varint(7)) + BODY,  # a version number
        DTYPE + NAMED + BODY,  # a named dimension
        _field(1, wire.VARINT, wire.varint(2)) + DTYPE + SHAPE + BODY,  # dtype twice: the last wins
        DTYPE + SHAPE + BODY + _field(99, wire.VARINT, b"\x01"),  # an unknown field after the content
    ],
)
def test_other_layouts_of_the_same_tensor_read_alike(data):
    back = io.parse_tensor(data)
    _same(back, _general(data))
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (DTYPE + SHAPE + _field(4, wire.LENGTH_DELIMITED, CONTENT[:-4]), "tensor_content has 12 bytes"),
        (DTYPE + SHAPE + BODY + _field(7, wire.LENGTH_DELIMITED, b"\x00"), "has 1 value in int_val"),
        (_field(1, wire.VARINT, b"\x00") + SHAPE + BODY, "DT_INVALID"),
        (DTYPE + _field(2, wire.LENGTH_DELIMITED, _field(2, wire.LENGTH_DELIMITED, _field(1, wire.VARINT, wire.varint((1 << 64) - 4)))) + BODY,
         "must be >= 0"),
        (_field(1, wire.VARINT, wire.varint(10)) + SHAPE + _field(4, wire.LENGTH_DELIMITED, b"\x00\x02\x01\x00"), "other than 0 or 1"),
    ],
)  # fmt: skip
def test_bad_messages_are_refused_as_before(data, message):
    with pytest.raises(ValueError, match=message) as fast:
        io.parse_tensor(data)
    with pytest.raises(ValueError) as general:
        _general(data)
    assert str(fast.value).replace("parse_tensor", "from_proto") == str(general.value)


def test_out_type_is_checked_on_the_fast_path():
    data = io.serialize_tensor(ember.ones(3))
    assert io.parse_tensor(data, out_type=ember.float32).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=r"type mismatch between parsed tensor \(float32\) and dtype \(int32\)"):
        io.parse_tensor(data, out_type=ember.int32)


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    for dtype in (ember.float32, ember.float16, ember.bfloat16, ember.int64, ember.bool):
        t = _values(dtype, (3, 4)) if dtype is not ember.bool else ember.tensor([[True, False]])
        back = io.parse_tensor(io.serialize_tensor(t))
        expected = torch.from_dlpack(t.contiguous())
        assert torch.equal(torch.from_dlpack(back), expected)
