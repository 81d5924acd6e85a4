"""ember.io's TensorProto: both encodings, TensorFlow's reading rules, errors, and wire
compatibility with TensorFlow's own message (tensorboard ships its exact generated code)."""

import pickle
import tracemalloc

import numpy as np
import pytest
from google.protobuf import descriptor_pb2
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import ember
from ember import io
from ember._core.dtype import ALL_DTYPES
from ember.interop.proto import wire
from ember.interop.proto.compiler import ProtoSyntaxError, compile_proto

NUMERIC = [d for d in ALL_DTYPES if d is not ember.string]
ENCODINGS = ["content", "fields"]


def sample(dtype, shape, seed=0):
    """A NumPy array of ``dtype`` with varied values (negative, large, fractional where the dtype allows)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype is ember.string:
        flat = np.empty(n, dtype=object)
        flat[:] = [bytes(rng.integers(0, 256, int(rng.integers(0, 6)), dtype=np.uint8)) for _ in range(n)]
        return flat.reshape(shape)
    np_dtype = dtype.numpy_dtype
    if dtype is ember.bool:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        return rng.integers(int(info.min), int(info.max), n, dtype=np_dtype, endpoint=True).reshape(shape)
    values = rng.standard_normal(n) * 100
    if dtype.is_complex:
        values = values + 1j * rng.standard_normal(n)
    return values.astype(np_dtype).reshape(shape)


def as_tensor(array, dtype):
    return ember.tensor(array, dtype=dtype) if dtype is ember.string else ember.from_numpy(array.copy(order="C"))


def same(t, expected, dtype):
    """Bit-for-bit equality (NaN payloads included) of a tensor and an array of ``dtype``."""
    assert t.dtype is dtype
    assert tuple(t.shape) == expected.shape
    got = t.numpy()
    if dtype is ember.string:
        assert got.tolist() == expected.tolist()
        assert all(type(x) is bytes for x in got.reshape(-1))
    else:
        assert np.array_equal(np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(expected).view(np.uint8))


# ------------------------------------------------------------------------------ round trips

@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (5,), (2, 3, 4)], ids=str)
def test_round_trip_every_dtype(dtype, shape, encoding):
    array = sample(dtype, shape)
    t = as_tensor(array, dtype)
    proto = io.to_proto(t, encoding=encoding)
    assert io.DataType.Name(proto.dtype) == io.DataType.Name(dtype.tf_enum)
    assert [d.size for d in proto.tensor_shape.dim] == list(shape)
    if encoding == "fields":
        assert proto.tensor_content == b""
    same(io.from_proto(proto), array, dtype)
    same(io.parse_tensor(proto.SerializeToString()), array, dtype)
    out = io.parse_tensor(io.serialize_tensor(t), out_type=dtype)
    same(out, array, dtype)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_non_contiguous_inputs(encoding):
    base = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    for view in (base.transpose(2, 0, 1), base[::-1, 1:, ::2], base[:, 2, ::-2]):
        t = ember.from_numpy(view)
        same(io.from_proto(io.to_proto(t, encoding=encoding)), np.ascontiguousarray(view), ember.float64)
    t = ember.from_numpy(base).transpose(0, 2)
    same(io.parse_tensor(io.serialize_tensor(t)), base.transpose(2, 1, 0), ember.float64)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=str)
def test_half_bit_patterns_survive(dtype, encoding):
    # Every 16-bit pattern: signed zeros, infinities, NaNs with payloads, subnormals.
    bits = np.arange(1 << 16, dtype=np.uint16)
    t = ember.from_numpy(bits.view(dtype.numpy_dtype))
    proto = io.to_proto(t, encoding=encoding)
    if encoding == "fields":
        assert list(proto.half_val[:3]) == [0, 1, 2] and proto.half_val[-1] == 0xFFFF
    back = io.from_proto(proto).numpy().view(np.uint16)
    assert np.array_equal(back, bits)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_special_floats_and_complex(encoding):
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38], dtype=np.float32)
    same(io.from_proto(io.to_proto(ember.from_numpy(specials), encoding)), specials, ember.float32)
    z = np.array([1 + 2j, -0.0 - 1j, complex(np.inf, np.nan)], dtype=np.complex128)
    proto = io.to_proto(ember.from_numpy(z), encoding)
    if encoding == "fields":
        assert list(proto.dcomplex_val)[:4] == [1.0, 2.0, -0.0, -1.0]
    same(io.from_proto(proto), z, ember.complex128)


def test_strings_with_arbitrary_bytes():
    items = [b"", b"\x00", bytes(range(256)), "héllo".encode(), b"x" * 1000]
    array = np.empty(len(items), dtype=object)
    array[:] = items
    t = ember.tensor(array)
    for encoding in ENCODINGS:
        same(io.from_proto(io.to_proto(t, encoding)), array, ember.string)
    # TensorFlow's tensor_content for strings: every varint32 length, then every string.
    content = io.to_proto(t, "content").tensor_content
    assert content == b"".join(wire.varint(len(x)) for x in items) + b"".join(items)
    # serialize_tensor writes strings in string_val, as tf.io.serialize_tensor does.
    assert list(io.TensorProto.FromString(io.serialize_tensor(t)).string_val) == items


def test_parsed_tensor_is_writable_and_owns_its_memory():
    data = io.serialize_tensor(ember.arange(6, dtype=ember.int32))
    t = io.parse_tensor(data)
    t[0] = 100
    assert t.tolist() == [100, 1, 2, 3, 4, 5]
    assert io.parse_tensor(data).tolist() == [0, 1, 2, 3, 4, 5]
    buffer = bytearray(data)
    u = io.parse_tensor(buffer)
    buffer[-4:] = b"\xff\xff\xff\xff"  # the caller's buffer changes: the tensor does not
    assert u.tolist() == [0, 1, 2, 3, 4, 5]


def test_parse_tensor_reads_big_content_in_place_in_any_field_order():
    array = np.arange(50_000, dtype=np.int32).reshape(100, 500)  # 200 KB: the in-place path
    data = io.serialize_tensor(ember.from_numpy(array))
    same(io.parse_tensor(data), array, ember.int32)
    proto = io.TensorProto.FromString(data)
    field = b"\x22" + wire.varint(array.nbytes) + array.tobytes()
    shape_first = io.TensorProto(tensor_shape=proto.tensor_shape).SerializeToString()
    dtype_last = io.TensorProto(dtype=proto.dtype).SerializeToString()
    # Protobuf allows fields in any order, unknown fields, and repeats (the last one wins).
    same(io.parse_tensor(field + shape_first + dtype_last), array, ember.int32)
    unknown = b"\xa8\x06\x07"  # field 101, varint 7
    same(io.parse_tensor(shape_first + unknown + field + dtype_last), array, ember.int32)
    first = b"\x22" + wire.varint(array.nbytes) + bytes(array.nbytes)
    same(io.parse_tensor(first + field + shape_first + dtype_last), array, ember.int32)
    with pytest.raises(ValueError, match=r"parse_tensor\(\): could not parse"):
        io.parse_tensor(data[:-1])


def test_serialize_tensor_matches_the_message_bytes():
    # serialize_tensor writes tensor_content itself; it must equal protobuf's own encoding.
    for dtype in NUMERIC:
        for shape in [(), (0,), (4, 3)]:
            t = as_tensor(sample(dtype, shape, seed=3), dtype)
            assert io.serialize_tensor(t) == io.to_proto(t).SerializeToString()
    t = ember.zeros(1 << 20, dtype=ember.uint8)  # a length that needs a three-byte varint
    assert io.serialize_tensor(t) == io.to_proto(t).SerializeToString()


def test_fields_encoding_matches_protobufs_own_packing():
    # to_proto(fields) merges packed wire bytes it encodes itself; compare with protobuf's extend().
    for dtype in NUMERIC:
        array = sample(dtype, (7,), seed=5)
        proto = io.to_proto(ember.from_numpy(array), "fields")
        reference = io.TensorProto()
        reference.CopyFrom(proto)
        name = next(f.name for f, _ in proto.ListFields() if f.name.endswith("_val"))
        values = list(getattr(proto, name))
        reference.ClearField(name)
        getattr(reference, name).extend(values)
        assert reference.SerializeToString() == proto.SerializeToString(), dtype


def test_encode_varints_edges():
    values = np.array([0, 1, 127, 128, 16383, 16384, 2**63, 2**64 - 1], dtype=np.uint64)
    assert wire.encode_varints(values) == b"".join(wire.varint(int(v)) for v in values)
    signed = np.array([-1, -(2**31), 2**31 - 1], dtype=np.int32)
    assert wire.encode_varints(signed) == b"".join(wire.varint(int(v) % 2**64) for v in signed)
    big = np.arange(-300_000, 300_000, 7, dtype=np.int64)  # more than one chunk
    assert wire.encode_varints(big) == b"".join(wire.varint(int(v) % 2**64) for v in big)


def test_messages_pickle_and_print():
    proto = io.to_proto(ember.tensor([1.0, 2.0]), "fields")
    assert pickle.loads(pickle.dumps(proto)) == proto
    assert "float_val: 2" in str(proto)


# --------------------------------------------------------------- TensorFlow's reading rules

def make(dtype, shape, **fields):
    return io.TensorProto(dtype=dtype.tf_enum, tensor_shape={"dim": [{"size": s} for s in shape]}, **fields)


def test_single_value_fills_the_shape():
    t = io.from_proto(make(ember.float32, (2, 3), float_val=[1.5]))
    assert t.tolist() == [[1.5] * 3] * 2
    assert io.from_proto(make(ember.string, (3,), string_val=[b"ab"])).tolist() == [b"ab"] * 3
    assert io.from_proto(make(ember.complex64, (2,), scomplex_val=[1, -1])).tolist() == [1 - 1j, 1 - 1j]


def test_fewer_values_repeat_the_last():
    assert io.from_proto(make(ember.int32, (5,), int_val=[1, 2, 3])).tolist() == [1, 2, 3, 3, 3]
    assert io.from_proto(make(ember.bfloat16, (3,), half_val=[16256, 16384])).tolist() == [1.0, 2.0, 2.0]
    assert io.from_proto(make(ember.string, (3,), string_val=[b"a", b"b"])).tolist() == [b"a", b"b", b"b"]


def test_no_values_give_zeros():
    for dtype in ALL_DTYPES:
        t = io.from_proto(make(dtype, (2, 2)))
        assert t.dtype is dtype
        expected = [[b"", b""]] * 2 if dtype is ember.string else np.zeros((2, 2), dtype.numpy_dtype).tolist()
        assert t.tolist() == expected


def test_scalar_shape_names_version_and_content_precedence():
    assert io.from_proto(io.TensorProto(dtype=ember.int64.tf_enum, int64_val=[7])).tolist() == 7
    named = io.TensorProto(dtype=ember.int32.tf_enum, int_val=[1, 2], version_number=3,
                           tensor_shape={"dim": [{"size": 2, "name": "batch"}]})
    assert io.from_proto(named).tolist() == [1, 2]
    # TensorFlow reads tensor_content first when it is present.
    both = make(ember.int32, (2,), int_val=[9, 9], tensor_content=np.array([1, 2], np.int32).tobytes())
    assert io.from_proto(both).tolist() == [1, 2]


def test_negative_half_val_patterns_are_accepted():
    # TensorFlow keeps the low 16 bits: -1 is the pattern 0xFFFF (a NaN for float16).
    t = io.from_proto(make(ember.float16, (1,), half_val=[-16384]))
    assert t.numpy().view(np.uint16).tolist() == [0xC000] and t.tolist() == [-2.0]


# --------------------------------------------------------------------------------- errors

@pytest.mark.parametrize(("proto", "message"), [
    (make(ember.float32, (3,), tensor_content=b"\x00" * 8), r"from_proto\(\): tensor_content has 8 bytes, but shape \[3\] of DT_FLOAT \(1\) needs 3 x 4 = 12 bytes"),
    (io.TensorProto(float_val=[1.0]), r"from_proto\(\): .*dtype is DT_INVALID \(0\)"),
    (io.TensorProto(dtype=99), r"from_proto\(\): .*dtype unknown DataType 99 has no ember dtype"),
    (io.TensorProto(dtype=io.DataType.DT_QINT8), r"DT_QINT8 \(11\) has no ember dtype \(supported: .*DT_FLOAT"),
    (io.TensorProto(dtype=io.DataType.DT_RESOURCE), r"DT_RESOURCE \(20\), with 0 resource handles in resource_handle_val .*ember has no tensor of that dtype"),
    (io.TensorProto(dtype=io.DataType.DT_FLOAT8_E5M2, float8_val=b"\x01"), r"DT_FLOAT8_E5M2 \(24\) has no ember dtype"),
    (io.TensorProto(dtype=io.DataType.DT_FLOAT_REF), r"DT_FLOAT_REF \(101\) has no ember dtype"),
    (make(ember.float32, (2, -1)), r"tensor_shape.dim\[1\].size is -1; a tensor's dimensions must be >= 0"),
    (io.TensorProto(dtype=1, tensor_shape={"unknown_rank": True}), r"unknown_rank"),
    (make(ember.float32, (2,), float_val=[1, 2, 3]), r"float_val has 3 values, more than the 2 elements of shape \[2\]"),
    (make(ember.float32, (0,), float_val=[1]), r"float_val has 1 value, more than the 0 elements"),
    (make(ember.complex64, (2,), scomplex_val=[1, 2, 3]), r"scomplex_val has 3 values; .* pairs"),
    (make(ember.int8, (2,), int_val=[1, 300]), r"int_val holds 300, which is out of range for DT_INT8 \(6\) \(-128 to 127\)"),
    (make(ember.uint16, (1,), int_val=[-1]), r"int_val holds -1, which is out of range for DT_UINT16"),
    (make(ember.float16, (1,), half_val=[70000]), r"half_val holds 70000, which is out of range for DT_HALF"),
    (make(ember.float32, (2,), int_val=[1, 2]), r"dtype is DT_FLOAT \(1\), whose values belong in float_val, but it has 2 values in int_val"),
    (make(ember.bool, (2,), tensor_content=b"\x01\x02"), r"DT_BOOL tensor holds a byte other than 0 or 1"),
    (make(ember.string, (2,), tensor_content=b"\x01\x01abc"), r"string lengths add up to 2 bytes, but 3 bytes follow"),
    (make(ember.string, (2,), tensor_content=b"\x05\x01ab"), r"string lengths add up to 6 bytes, but 2 bytes follow"),
    (make(ember.string, (4,), tensor_content=b"\x01a"), r"too few for the lengths of the 4 strings"),
    (make(ember.string, (1,), tensor_content=b"\xff\xff\xff\xff\xff\xff"), r"malformed string length"),
    (make(ember.float32, (2**40, 2**40)), r"more elements than int64 can count"),
    (make(ember.float32, (1,) * 65), r"65 dimensions; at most 64"),
])
def test_malformed_protos(proto, message):
    with pytest.raises(ValueError, match=message):
        io.from_proto(proto)
    with pytest.raises(ValueError, match=message.replace("from_proto", "parse_tensor")):
        io.parse_tensor(proto.SerializeToString())


def test_parse_tensor_rejects_what_is_not_a_tensor_proto():
    with pytest.raises(ValueError, match=r"parse_tensor\(\): could not parse 'serialized' \(3 bytes\) as a TensorProto"):
        io.parse_tensor(b"\xff\xff\xff")
    with pytest.raises(ValueError, match=r"parse_tensor\(\): could not parse"):
        io.parse_tensor(b"\x22\x10abc")  # tensor_content claims 16 bytes, 3 follow
    with pytest.raises(ValueError, match=r"parse_tensor\(\): "):
        io.parse_tensor(b"hello world")  # parses as unknown fields; no dtype
    with pytest.raises(TypeError, match=r"parse_tensor\(\): argument 'serialized' must be bytes, not str"):
        io.parse_tensor("\x08\x01")
    with pytest.raises(TypeError, match=r"from_proto\(\): argument 'proto' must be a TensorProto, not bytes"):
        io.from_proto(b"\x08\x01")


def test_parse_tensor_checks_out_type():
    data = io.serialize_tensor(ember.tensor([1.0]))
    with pytest.raises(ValueError, match=r"parse_tensor\(\): type mismatch between parsed tensor \(float32\) and dtype \(int32\)"):
        io.parse_tensor(data, out_type=ember.int32)
    assert io.parse_tensor(data, out_type="float32").dtype is ember.float32
    with pytest.raises(TypeError, match=r"parse_tensor\(\): argument 'out_type'"):
        io.parse_tensor(data, out_type="floaty")


def test_to_proto_argument_errors():
    with pytest.raises(ValueError, match=r"to_proto\(\): argument 'encoding' must be 'content' or 'fields', got 'raw'"):
        io.to_proto(ember.ones(2), encoding="raw")
    with pytest.raises(TypeError, match=r"to_proto\(\): argument 'tensor' must be Tensor, not list"):
        io.to_proto([1.0])
    with pytest.raises(ValueError, match=r"serialize_tensor\(\): can't serialize a tensor on meta: a meta tensor"):
        io.serialize_tensor(ember.empty(3, device="meta"))


@pytest.mark.parametrize("dtype", [ember.float32, ember.string], ids=str)
def test_huge_claims_are_refused_before_allocating(dtype):
    ember.reset_peak_memory_stats()
    before = ember.memory_stats()["allocated_bytes.peak"]
    tracemalloc.start()  # NumPy reports its allocations here; ember's allocator in memory_stats
    field = {"string_val": [b"x"]} if dtype is ember.string else {"float_val": [1.0]}
    for proto in (make(dtype, (10**6, 10**6), **field), make(dtype, (10**12,))):
        with pytest.raises(ValueError, match=r"filling more than 2147483648 bytes from fewer values is refused"):
            io.from_proto(proto)
        with pytest.raises(ValueError, match=r"parse_tensor\(\).*is refused"):
            io.parse_tensor(proto.SerializeToString())
    content = b"\x01x" if dtype is ember.string else b"\x00" * 4
    with pytest.raises(ValueError, match=r"tensor_content has"):
        io.from_proto(make(dtype, (10**12,), tensor_content=content))
    _, numpy_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert ember.memory_stats()["allocated_bytes.peak"] - before < 1 << 20
    assert numpy_peak < 1 << 20


def test_expansion_limit_allows_what_it_documents():
    # Just under the limit in elements is fine in principle; check the arithmetic on a small case.
    assert io.MAX_EXPANDED_BYTES == 1 << 31
    t = io.from_proto(make(ember.uint8, (1 << 20,), int_val=[3]))
    assert t.sum().item() == 3 << 20


# ------------------------------------------------------------------------------ compiler

def test_compiler_builds_nested_types_and_options():
    fd = compile_proto("""
        syntax = "proto3";  /* block comment */
        package demo.v1;
        enum Kind { K_NONE = 0; K_ONE = 1; reserved 5 to 7; }
        message Outer {
          message Inner { sint64 x = 1; }
          repeated Inner items = 1;
          Kind kind = 2;
          repeated uint32 ids = 3 [packed = false];
          reserved 4, 9 to 11;
          reserved "old";
        };
    """, "demo.proto")
    outer = fd.message_type[0]
    assert fd.package == "demo.v1" and [f.name for f in outer.field] == ["items", "kind", "ids"]
    assert outer.field[0].type_name == ".demo.v1.Outer.Inner" and outer.field[1].type_name == ".demo.v1.Kind"
    assert not outer.field[2].options.packed
    assert [(r.start, r.end) for r in outer.reserved_range] == [(4, 5), (9, 12)] and list(outer.reserved_name) == ["old"]
    assert [(r.start, r.end) for r in fd.enum_type[0].reserved_range] == [(5, 7)]


@pytest.mark.parametrize(("text", "message"), [
    ('syntax = "proto2";', r"only proto3 is supported"),
    ('message A {}', r"x.proto:1: expected 'syntax = \"proto3\";' first"),
    ('syntax = "proto3";\nmessage A {\n  int32 a = 1\n}', r"x.proto:4: expected ';', got '}'"),
    ('syntax = "proto3"; message A { Missing a = 1; }', r"unknown type 'Missing' for field a"),
    ('syntax = "proto3"; message A { int32 a = 1; int32 b = 1; }', r"field number 1 is used by a and b"),
    ('syntax = "proto3"; message A { int32 a = 1; reserved 1; }', r"uses reserved number 1"),
    ('syntax = "proto3"; message A { string a = 1 [packed = true]; }', r"\[packed\] needs a repeated numeric field"),
    ('syntax = "proto3"; message A { int32 a = 1 [deprecated = true]; }', r"expected the option 'packed'"),
    ('syntax = "proto3"; enum E { ONE = 1; }', r"the first value of a proto3 enum must be 0"),
    ('syntax = "proto3"; option x = 1;', r"expected 'package', 'message' or 'enum', got 'option'"),
    ('syntax = "proto3"; message A { int32 a = 0; }', r"field number 0 is out of range"),
    ('syntax = "proto3"; message A { int32 a = 1; } @', r"unexpected character '@'"),
])
def test_compiler_errors(text, message):
    with pytest.raises(ProtoSyntaxError, match=message):
        compile_proto(text, "x.proto")


# ------------------------------------------------------------------- a caller's TensorProto

@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("dtype", [ember.float16, ember.int8, ember.uint64, ember.complex128, ember.string], ids=str)
def test_fills_a_callers_proto(dtype, encoding):
    """``proto=``: the seed's ``AsProtoField``/``AsProtoTensorContent`` into the caller's message,
    which is cleared first (stale fields of another dtype would make it unreadable)."""
    array = sample(dtype, (3, 2), seed=4)
    mine = io.TensorProto(dtype=io.DataType.DT_FLOAT, version_number=3, float_val=[1.0], tensor_content=b"xx",
                          tensor_shape={"dim": [{"size": 9}]})
    out = io.to_proto(as_tensor(array, dtype), encoding, proto=mine)
    assert out is mine and mine == io.to_proto(as_tensor(array, dtype), encoding)
    assert mine.version_number == 0 and [d.size for d in mine.tensor_shape.dim] == [3, 2]
    same(io.from_proto(mine), array, dtype)


def test_fills_a_callers_scalar_and_empty_proto():
    mine = io.TensorProto()
    io.to_proto(ember.tensor(2.5), proto=mine)
    assert mine.HasField("tensor_shape") and not mine.tensor_shape.dim and io.from_proto(mine).item() == 2.5
    io.to_proto(ember.empty(0, 4), "fields", proto=mine)
    assert mine.tensor_content == b"" and [d.size for d in mine.tensor_shape.dim] == [0, 4]


@pytest.mark.parametrize("bad", [io.TensorShapeProto(), b"", descriptor_pb2.FileDescriptorProto()], ids=lambda b: type(b).__name__)
def test_refuses_a_proto_of_another_kind(bad):
    with pytest.raises(TypeError, match=r"to_proto\(\): argument 'proto' must be a TensorProto with TensorFlow's fields, not"):
        io.to_proto(ember.tensor([1.0]), proto=bad)


@pytest.mark.parametrize(("proto", "message"), [
    (io.TensorProto(dtype=io.DataType.DT_RESOURCE, resource_handle_val=[io.ResourceHandleProto(name="v")]),
     r"dtype is DT_RESOURCE \(20\), with 1 resource handle in resource_handle_val .*ember has no tensor of that dtype"),
    (io.TensorProto(dtype=io.DataType.DT_VARIANT, variant_val=[io.VariantTensorDataProto()] * 2),
     r"dtype is DT_VARIANT \(21\), with 2 variant values in variant_val .*ember has no tensor of that dtype"),
    (io.TensorProto(dtype=io.DataType.DT_FLOAT, resource_handle_val=[io.ResourceHandleProto()]),
     r"dtype is DT_FLOAT \(1\), whose values belong in float_val, but it has 1 value in resource_handle_val"),
    (io.TensorProto(dtype=io.DataType.DT_INT32, variant_val=[io.VariantTensorDataProto()]),
     r"dtype is DT_INT32 \(3\), whose values belong in int_val, but it has 1 value in variant_val"),
    (io.TensorProto(dtype=io.DataType.DT_FLOAT8_E4M3FN, float8_val=b"\x01"),
     r"dtype DT_FLOAT8_E4M3FN \(25\) has no ember dtype"),
], ids=["resource", "variant", "handle in float", "variant in int", "float8"])
def test_runtime_object_dtypes_are_refused_clearly(proto, message):
    with pytest.raises(ValueError, match="from_proto\\(\\): the TensorProto's " + message):
        io.from_proto(proto)
    with pytest.raises(ValueError, match="parse_tensor\\(\\): the TensorProto's " + message):
        io.parse_tensor(proto.SerializeToString())


# -------------------------------------------------------------- TensorFlow's own TensorProto

tb_tensor = pytest.importorskip("tensorboard.compat.proto.tensor_pb2", reason="tensorboard ships TensorFlow's TensorProto")
tb_types = pytest.importorskip("tensorboard.compat.proto.types_pb2")
tb_shape = pytest.importorskip("tensorboard.compat.proto.tensor_shape_pb2")
tb_handle = pytest.importorskip("tensorboard.compat.proto.resource_handle_pb2")


def fields(descriptor):
    return {f.name: (f.number, f.type, f.is_repeated, f.is_packed) for f in descriptor.fields}


def test_enum_values_are_tensorflows():
    theirs = {v.name: v.number for v in tb_types.DataType.DESCRIPTOR.values}
    ours = {v.name: v.number for v in io.DataType.DESCRIPTOR.values}
    assert ours == theirs
    tf_dtypes = pytest.importorskip("tensorboard.compat.tensorflow_stub.dtypes")
    for dtype in ALL_DTYPES:  # and ember's dtype table holds TensorFlow's number for each dtype
        assert tf_dtypes.as_dtype(dtype.tf_enum).name == dtype.name
        assert io.to_proto(ember.empty(0, dtype=dtype)).dtype == dtype.tf_enum


def reserved_numbers(descriptor):
    proto = descriptor_pb2.DescriptorProto()
    descriptor.CopyToProto(proto)
    return {n for r in proto.reserved_range for n in range(r.start, r.end)}


@pytest.mark.parametrize(("ours", "theirs"), [
    (io.TensorProto, tb_tensor.TensorProto),
    (io.TensorShapeProto, tb_shape.TensorShapeProto),
    (io.TensorShapeProto.Dim, tb_shape.TensorShapeProto.Dim),
    (io.ResourceHandleProto, tb_handle.ResourceHandleProto),
    (io.ResourceHandleProto.DtypeAndShape, tb_handle.ResourceHandleProto.DtypeAndShape),
    (io.VariantTensorDataProto, tb_tensor.VariantTensorDataProto),
], ids=lambda cls: cls.DESCRIPTOR.full_name)
def test_field_numbers_are_tensorflows(ours, theirs):
    assert fields(ours.DESCRIPTOR) == fields(theirs.DESCRIPTOR)
    assert {f.name: f.message_type and f.message_type.name for f in ours.DESCRIPTOR.fields} == {
        f.name: f.message_type and f.message_type.name for f in theirs.DESCRIPTOR.fields}
    assert reserved_numbers(ours.DESCRIPTOR) == reserved_numbers(theirs.DESCRIPTOR)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("dtype", [ember.float32, ember.int16, ember.uint32, ember.complex128, ember.string, ember.bool], ids=str)
def test_tensorflow_reads_and_writes(dtype, encoding):
    """TensorFlow's own class filled in place (``AsProto*`` into the caller's message), read by
    TensorFlow's C++ ``FromProto`` (``parse_tensor``) and, except string content, which its Python
    reader cannot decode, by ``tf.make_ndarray``; and ``make_tensor_proto``'s protos read by ember."""
    array = sample(dtype, (2, 3), seed=5)
    tf = pytest.importorskip("tensorflow")
    theirs = tf.make_tensor_proto(np.zeros(1, np.float32))
    io.to_proto(as_tensor(array, dtype), encoding, proto=theirs)
    parsed = tf.io.parse_tensor(theirs.SerializeToString(), tf.as_dtype(dtype.name)).numpy()
    assert parsed.tolist() == array.tolist()
    if dtype is not ember.string or encoding == "fields":
        assert tf.make_ndarray(theirs).tolist() == array.tolist()
    same(io.from_proto(tf.make_tensor_proto(array)), array, dtype)


def test_resource_and_variant_values_cross_the_wire():
    handle = io.ResourceHandleProto(device="/cpu:0", container="c", name="v", hash_code=2**64 - 1,
                                    dtypes_and_shapes=[{"dtype": io.DataType.DT_FLOAT, "shape": {"dim": [{"size": 3}]}}])
    inner = io.to_proto(ember.tensor([1.0, 2.0]))
    ours = io.TensorProto(dtype=io.DataType.DT_RESOURCE, resource_handle_val=[handle],
                          variant_val=[io.VariantTensorDataProto(type_name="T", metadata=b"m", tensors=[inner])])
    theirs = tb_tensor.TensorProto.FromString(ours.SerializeToString())
    assert theirs.resource_handle_val[0].hash_code == 2**64 - 1 and theirs.resource_handle_val[0].name == "v"
    assert theirs.resource_handle_val[0].dtypes_and_shapes[0].shape.dim[0].size == 3
    assert theirs.variant_val[0].type_name == "T" and theirs.variant_val[0].tensors[0].tensor_shape.dim[0].size == 2
    assert theirs.SerializeToString() == ours.SerializeToString()
    assert io.from_proto(io.TensorProto.FromString(theirs.variant_val[0].tensors[0].SerializeToString())).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("dtype", [ember.float32, ember.int64, ember.complex64, ember.string, ember.bool], ids=str)
def test_fills_tensorflows_message(dtype, encoding):
    t = as_tensor(sample(dtype, (2, 3)), dtype)
    theirs = tb_tensor.TensorProto(version_number=7, float_val=[9.0], string_val=[b"stale"])
    assert io.to_proto(t, encoding, proto=theirs) is theirs
    assert theirs.SerializeToString() == io.to_proto(t, encoding).SerializeToString()  # cleared, then filled
    same(io.from_proto(theirs), sample(dtype, (2, 3)), dtype)


def test_package_name_is_not_on_the_wire():
    assert io.TensorProto.DESCRIPTOR.full_name == "ember.TensorProto"
    assert tb_tensor.TensorProto.DESCRIPTOR.full_name != io.TensorProto.DESCRIPTOR.full_name
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    theirs = tb_tensor.TensorProto(dtype=tb_types.DT_FLOAT, tensor_content=array.tobytes())
    theirs.tensor_shape.dim.add(size=2)
    theirs.tensor_shape.dim.add(size=3)
    assert io.serialize_tensor(ember.from_numpy(array)) == theirs.SerializeToString()


TYPED = {  # ember dtype -> TensorFlow's field and how its values look there
    "float16": "half_val", "bfloat16": "half_val", "float32": "float_val", "float64": "double_val",
    "int8": "int_val", "int16": "int_val", "int32": "int_val", "uint8": "int_val", "uint16": "int_val",
    "int64": "int64_val", "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val",
    "complex64": "scomplex_val", "complex128": "dcomplex_val", "string": "string_val",
}


def tf_values(array, dtype):
    """What TensorFlow's typed field holds for ``array`` (its documented layout, computed with NumPy)."""
    flat = array.reshape(-1)
    if dtype in (ember.float16, ember.bfloat16):
        return flat.view(np.uint16).astype(int).tolist()
    if dtype.is_complex:
        return flat.view(flat.real.dtype).tolist()
    return flat.tolist()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_ember_bytes_parse_in_tensorflow(dtype):
    array = sample(dtype, (2, 3), seed=11)
    t = as_tensor(array, dtype)
    for encoding in ENCODINGS:
        theirs = tb_tensor.TensorProto.FromString(io.to_proto(t, encoding).SerializeToString())
        assert theirs.dtype == dtype.tf_enum
        assert [d.size for d in theirs.tensor_shape.dim] == [2, 3]
        if encoding == "fields":
            assert list(getattr(theirs, TYPED[dtype.name])) == tf_values(array, dtype)
            assert theirs.tensor_content == b""
        elif dtype is not ember.string:
            assert theirs.tensor_content == array.astype(array.dtype.newbyteorder("<")).tobytes()
    theirs = tb_tensor.TensorProto.FromString(io.serialize_tensor(t))
    if dtype is ember.string:
        assert list(theirs.string_val) == array.reshape(-1).tolist()
    else:
        assert theirs.tensor_content == array.astype(array.dtype.newbyteorder("<")).tobytes()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_tensorflow_bytes_parse_in_ember(dtype):
    array = sample(dtype, (3, 2), seed=13)
    theirs = tb_tensor.TensorProto(dtype=dtype.tf_enum)
    for size in array.shape:
        theirs.tensor_shape.dim.add(size=size)
    typed = tb_tensor.TensorProto()
    typed.CopyFrom(theirs)
    getattr(typed, TYPED[dtype.name]).extend(tf_values(array, dtype))
    protos = [typed]
    if dtype is not ember.string:
        theirs.tensor_content = array.astype(array.dtype.newbyteorder("<")).tobytes()
        protos.append(theirs)
    for proto in protos:
        same(io.parse_tensor(proto.SerializeToString()), array, dtype)
        same(io.from_proto(proto), array, dtype)  # TensorFlow's message object is accepted too


def test_tensorflow_single_value_proto():
    # What tf.constant(0.5, shape=[2, 2]) puts in a graph: one value and a shape.
    theirs = tb_tensor.TensorProto(dtype=tb_types.DT_FLOAT, float_val=[0.5])
    theirs.tensor_shape.dim.add(size=2)
    theirs.tensor_shape.dim.add(size=2)
    assert io.parse_tensor(theirs.SerializeToString()).tolist() == [[0.5, 0.5], [0.5, 0.5]]


@st.composite
def tensors(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    array = sample(dtype, shape, seed=draw(st.integers(0, 1000)))
    t = as_tensor(array, dtype)
    if t.ndim > 1 and draw(st.booleans()):
        t = t.transpose(0, t.ndim - 1)
        array = np.ascontiguousarray(np.swapaxes(array, 0, array.ndim - 1))
    return t, array


@settings(max_examples=60, deadline=None)
@given(tensors(), st.sampled_from(ENCODINGS))
def test_round_trip_property(pair, encoding):
    t, array = pair
    data = io.to_proto(t, encoding).SerializeToString()
    same(io.parse_tensor(data, out_type=t.dtype), array, t.dtype)
    theirs = tb_tensor.TensorProto.FromString(data)
    assert theirs.SerializeToString() == data  # TensorFlow's message keeps every byte
