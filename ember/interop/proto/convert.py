"""Tensor <-> TensorProto, with TensorFlow's encodings and reading rules.

Writing (TensorFlow's ``Tensor::AsProtoTensorContent`` and ``Tensor::AsProtoField``):

- ``encoding="content"``: the values as little-endian bytes in row-major order, in
  ``tensor_content``; a string tensor's content is every length as a varint32, then every
  string's bytes (TensorFlow's ``EncodeStringList``).
- ``encoding="fields"``: the typed repeated field of the dtype: ``half_val`` (float16 and
  bfloat16 bit patterns), ``float_val``, ``double_val``, ``int_val`` (int32, int16, int8,
  uint8, uint16), ``int64_val``, ``uint32_val``, ``uint64_val``, ``bool_val``,
  ``scomplex_val``/``dcomplex_val`` (real and imaginary parts in turn), ``string_val``.

Either fills a new message or, with ``proto=``, the caller's (cleared first, as TensorFlow's
``AsProto*`` do), which may be another library's class with TensorFlow's fields.

Reading (TensorFlow's ``Tensor::FromProto`` and ``tensor_util.MakeNdarray``): a non-empty
``tensor_content`` wins; otherwise the dtype's typed field, where fewer values than elements
repeat the last value to fill the shape (one value makes a constant tensor) and no values at
all give zeros (empty strings). More values than elements, content whose length does not
match the shape, a value in another dtype's field, an unknown rank or a negative dimension
are errors. Dimension names are read and dropped: ember's tensors have no named dimensions.

Memory: a proto that fills its shape from fewer values than elements could ask for any amount
of memory with a few bytes (a scalar broadcast to 10**12 elements is 4 TB). Such an expansion
is refused above `MAX_EXPANDED_BYTES` (2 GiB, the size above which TensorFlow refuses to make
a proto at all); a tensor read from data that is present is never limited.

Parsed tensors are writable and own their memory (one copy of the values, as
``MakeNdarray`` makes), so they behave like any other ember tensor.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np
from google.protobuf import message as _message

from ..._core import dtype as _dt
from ..._core.allocator import DataPtr
from ..._core.shape import contiguous_strides
from ..._core.storage import Storage
from ..._core.tensor import Tensor, empty_tensor, make_tensor
from ..numpy import from_numpy
from . import wire
from .messages import DataType, TensorProto, TensorShapeProto

__all__ = ["MAX_EXPANDED_BYTES", "from_proto", "parse_tensor", "serialize_tensor", "to_proto"]

MAX_EXPANDED_BYTES = 1 << 31
_MAX_NDIM = 64  # NumPy's limit, which ember's memory views share
_BIG_ENDIAN = sys.byteorder == "big"

_DTYPE_OF_ENUM = {d.tf_enum: d for d in _dt.ALL_DTYPES}
# The typed field of each dtype, and the NumPy type protobuf holds its values in.
_FIELD = {
    _dt.float16: ("half_val", np.int32), _dt.bfloat16: ("half_val", np.int32),
    _dt.float32: ("float_val", np.float32), _dt.float64: ("double_val", np.float64),
    _dt.int32: ("int_val", np.int32), _dt.int16: ("int_val", np.int32), _dt.int8: ("int_val", np.int32),
    _dt.uint8: ("int_val", np.int32), _dt.uint16: ("int_val", np.int32),
    _dt.int64: ("int64_val", np.int64), _dt.uint32: ("uint32_val", np.uint32), _dt.uint64: ("uint64_val", np.uint64),
    _dt.bool_: ("bool_val", np.bool_), _dt.complex64: ("scomplex_val", np.float32),
    _dt.complex128: ("dcomplex_val", np.float64), _dt.string: ("string_val", None),
}
_VALUE_FIELDS = frozenset({name for name, _ in _FIELD.values()} | {"float8_val", "resource_handle_val", "variant_val"})
# TensorFlow's dtypes whose values are runtime objects, not numbers: their field and what it holds.
_OBJECT_DTYPES = {
    DataType.DT_RESOURCE: ("resource_handle_val", "resource handle", "handles to resources that a TensorFlow runtime owns"),
    DataType.DT_VARIANT: ("variant_val", "variant value", "serialized C++ objects of a TensorFlow runtime"),
}
_NUMBER = {f.name: f.number for f in TensorProto.DESCRIPTOR.fields}
_DT_INVALID = DataType.Value("DT_INVALID")  # the wrapper's attribute lookup costs microseconds a call
# The keys serialize_tensor writes itself: TensorProto's dtype, tensor_shape and tensor_content;
# TensorShapeProto's dim; TensorShapeProto.Dim's size.
_DTYPE_KEY = wire.field_key(_NUMBER["dtype"], wire.VARINT)
_SHAPE_KEY = wire.field_key(_NUMBER["tensor_shape"], wire.LENGTH_DELIMITED)
_CONTENT_KEY = wire.field_key(_NUMBER["tensor_content"], wire.LENGTH_DELIMITED)
_DIM_KEY = wire.field_key(TensorShapeProto.DESCRIPTOR.fields_by_name["dim"].number, wire.LENGTH_DELIMITED)
_SIZE_KEY = wire.field_key(TensorShapeProto.Dim.DESCRIPTOR.fields_by_name["size"].number, wire.VARINT)
_IN_PLACE_BYTES = 1 << 16  # below this, protobuf's copies cost less than finding the content by hand
_HALF_RANGE = (-(1 << 15), (1 << 16) - 1)  # int16 or uint16 bit patterns (TensorFlow keeps the low 16 bits)


def _name(enum: int) -> str:
    try:
        return f"{DataType.Name(enum)} ({enum})"
    except ValueError:
        return f"unknown DataType {enum}"


def _check_tensor(tensor: object, op: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    if tensor.device.type != "cpu":
        why = "a meta tensor has shape and dtype only, no values" if tensor.is_meta else "copy it to the CPU first"
        raise ValueError(f"{op}(): can't serialize a tensor on {tensor.device}: {why}")


def _contiguous_le(tensor: Tensor) -> np.ndarray:
    """The tensor's values, C-contiguous and little-endian (a copy only where needed)."""
    array = np.ascontiguousarray(tensor._host_array())
    return array.byteswap() if _BIG_ENDIAN and tensor.dtype is not _dt.string else array


def _header(tensor: Tensor, proto=None) -> TensorProto:
    """``proto`` (a new TensorProto when None) cleared, with the tensor's dtype and shape."""
    if proto is None:
        proto = TensorProto(dtype=tensor.dtype.tf_enum)
    else:
        proto.Clear()  # TensorFlow's AsProtoField and AsProtoTensorContent start from an empty message
        proto.dtype = tensor.dtype.tf_enum
    shape = proto.tensor_shape
    shape.SetInParent()  # a scalar still carries its (empty) shape, as TensorFlow writes it
    dims = shape.dim
    for size in tensor._shape:
        dims.add(size=size)
    return proto


def _encode_strings(flat: np.ndarray) -> list[bytes]:
    items = [x if type(x) is bytes else bytes(x) for x in flat.tolist()]
    for x in items:
        if len(x) >= 1 << 32:
            raise ValueError(f"to_proto(): a string of {len(x)} bytes does not fit TensorFlow's varint32 length")
    return items


def _length_delimited(field: str, parts: list) -> list:
    """The parts of one length-delimited field (its key, its length, its bytes)."""
    nbytes = sum(memoryview(p).nbytes for p in parts)
    return [wire.field_key(_NUMBER[field], wire.LENGTH_DELIMITED), wire.varint(nbytes), *parts]


def _content_parts(tensor: Tensor) -> list:
    """The bytes of ``tensor_content``, as a list of buffers to join (no copy of big arrays here)."""
    flat = _contiguous_le(tensor).reshape(-1)
    if tensor.dtype is _dt.string:
        items = _encode_strings(flat)
        return [b"".join(wire.varint(len(x)) for x in items), *items]
    return [flat.view(np.uint8)]


def _fill_fields(proto: TensorProto, tensor: Tensor) -> None:
    flat = _contiguous_le(tensor).reshape(-1)
    dtype = tensor.dtype
    field, _ = _FIELD[dtype]
    if dtype is _dt.string:
        proto.string_val.extend(_encode_strings(flat))
        return
    if flat.size == 0:
        return
    if dtype.is_complex:
        payload = flat.view(np.uint8)  # real, imaginary, ... as packed fixed-width floats
    elif dtype.itemsize == 2 and dtype.kind == "f":
        payload = wire.encode_varints(flat.view(np.uint16))
    elif dtype in (_dt.float32, _dt.float64):
        payload = flat.view(np.uint8)
    else:
        payload = wire.encode_varints(flat)
    # One packed field, merged as wire bytes: the same message, without a Python object per value.
    proto.MergeFromString(b"".join(_length_delimited(field, [payload])))


def _is_tensorflow_tensor_proto(message: object) -> bool:
    """A protobuf message with TensorFlow's TensorProto fields (ember's class, TensorFlow's, tensorboard's)."""
    if not isinstance(message, _message.Message) or message.DESCRIPTOR.name != "TensorProto":
        return False
    numbers = {f.name: f.number for f in message.DESCRIPTOR.fields}
    return all(numbers.get(name) == _NUMBER[name] for name in ("dtype", "tensor_shape", "tensor_content"))


def to_proto(tensor: Tensor, encoding: str = "content", *, proto=None) -> TensorProto:
    """A ``TensorProto`` of ``tensor``: ``"content"`` (compact bytes) or ``"fields"`` (typed values).

    ``proto``: a caller's TensorProto to fill instead of a new one (ember's class, or another
    library's with TensorFlow's fields, such as TensorFlow's own); it is cleared first, as
    TensorFlow's ``Tensor::AsProtoField`` and ``Tensor::AsProtoTensorContent`` do, and returned.

    >>> from ember import tensor, bfloat16
    >>> to_proto(tensor([1, 2], dtype=bfloat16), encoding="fields").half_val
    [16256, 16384]
    >>> mine = TensorProto(string_val=[b"old"])
    >>> to_proto(tensor([7]), "fields", proto=mine) is mine, list(mine.int64_val), list(mine.string_val)
    (True, [7], [])
    """
    _check_tensor(tensor, "to_proto")
    if encoding not in ("content", "fields"):
        raise ValueError(f"to_proto(): argument 'encoding' must be 'content' or 'fields', got {encoding!r}")
    if proto is not None and not _is_tensorflow_tensor_proto(proto):
        raise TypeError(f"to_proto(): argument 'proto' must be a TensorProto with TensorFlow's fields, not "
                        f"{type(proto).__name__}")
    proto = _header(tensor, proto)
    if encoding == "fields":
        _fill_fields(proto, tensor)
    elif tensor.numel():
        proto.tensor_content = b"".join(_content_parts(tensor))
    return proto


def serialize_tensor(tensor: Tensor) -> bytes:
    """``to_proto(tensor).SerializeToString()`` (strings: the fields encoding), like ``tf.io.serialize_tensor``.

    >>> from ember import tensor
    >>> serialize_tensor(tensor(True))
    b'\\x08\\n\\x12\\x00"\\x01\\x01'
    """
    _check_tensor(tensor, "serialize_tensor")
    if tensor.dtype is _dt.string:
        return to_proto(tensor, "fields").SerializeToString()
    header = _header_bytes(tensor.dtype.tf_enum, tensor._shape)
    if not tensor.numel():
        return header
    # tensor_content (4) follows dtype, shape and version (1-3) and precedes every typed field
    # (5 and up), so appending it yields exactly SerializeToString's bytes, with one copy.
    content = _contiguous_le(tensor).reshape(-1).view(np.uint8)  # bytes: bfloat16 has no buffer format
    return b"".join([header, _CONTENT_KEY, wire.varint(content.nbytes), content])


@functools.lru_cache(maxsize=512)
def _header_bytes(enum: int, shape: tuple[int, ...]) -> bytes:
    """``_header(tensor).SerializeToString()``, written directly: field 1 (dtype), then field 2
    (tensor_shape, present even when empty) holding one ``Dim`` (field 2) per dimension, whose
    ``size`` (field 1) is left out when 0, as protobuf leaves out every default value."""
    dims = [_DIM_KEY + wire.varint(len(size_field)) + size_field for size_field in (_size_field(n) for n in shape)]
    shape_bytes = b"".join(dims)
    return b"".join([_DTYPE_KEY, wire.varint(enum), _SHAPE_KEY, wire.varint(len(shape_bytes)), shape_bytes])


def _size_field(size: int) -> bytes:
    return _SIZE_KEY + wire.varint(size) if size else b""


# ------------------------------------------------------------------------------- reading


def _dtype_of(proto: TensorProto, op: str) -> _dt.DType:
    enum = proto.dtype
    dtype = _DTYPE_OF_ENUM.get(enum)
    if dtype is not None:
        return dtype
    if enum == _DT_INVALID:
        raise ValueError(f"{op}(): the TensorProto's dtype is DT_INVALID (0): a tensor proto must name its element type")
    if enum in _OBJECT_DTYPES:
        field, what, meaning = _OBJECT_DTYPES[enum]
        count = len(getattr(proto, field))
        raise ValueError(f"{op}(): the TensorProto's dtype is {_name(enum)}, with {count} {what}{'s' * (count != 1)} in {field} "
                         f"({meaning}); ember has no tensor of that dtype, so it cannot make one of this proto")
    known = ", ".join(DataType.Name(d.tf_enum) for d in _dt.ALL_DTYPES)
    raise ValueError(f"{op}(): the TensorProto's dtype {_name(enum)} has no ember dtype (supported: {known})")


def _shape_of(proto: TensorProto, op: str) -> tuple[int, ...]:
    shape_proto = proto.tensor_shape
    if shape_proto.unknown_rank:
        raise ValueError(f"{op}(): the TensorProto's tensor_shape has unknown_rank set; a tensor needs a known shape")
    shape = tuple([d.size for d in shape_proto.dim])
    if len(shape) <= 4 and (not shape or min(shape) >= 0) and math.prod(shape) < 1 << 31:  # the common case, at once
        return shape
    if len(shape) > _MAX_NDIM:
        raise ValueError(f"{op}(): the TensorProto's tensor_shape has {len(shape)} dimensions; at most {_MAX_NDIM} are supported")
    for i, size in enumerate(shape):
        if size < 0:
            raise ValueError(f"{op}(): the TensorProto's tensor_shape.dim[{i}].size is {size}; a tensor's dimensions must be >= 0")
    if math.prod(shape) >= 1 << 63:
        raise ValueError(f"{op}(): the TensorProto's shape {list(shape)} has more elements than int64 can count")
    return shape


def _check_other_fields(proto: TensorProto, dtype: _dt.DType, op: str) -> None:
    # TensorFlow reads only the dtype's own field and would silently give zeros here.
    own = _FIELD[dtype][0]
    # the fields present only (a few, not every typed one); the first by name is the one named
    stray = [(d.name, len(values)) for d, values in proto.ListFields() if d.name in _VALUE_FIELDS and d.name != own]
    if stray:
        field, count = min(stray)
        raise ValueError(f"{op}(): the TensorProto's dtype is {_name(dtype.tf_enum)}, whose values belong in {own}, "
                         f"but it has {count} {'byte' if field == 'float8_val' else 'value'}{'s' * (count != 1)} "
                         f"in {field}")


def _decode_string_list(content, n: int, op: str) -> list[bytes]:
    # TensorFlow's DecodeStringList: n varint32 lengths, then the strings, nothing left over.
    if n > len(content):  # every length takes at least one byte
        raise ValueError(f"{op}(): tensor_content has {len(content)} bytes, too few for the lengths of "
                         f"the {n} strings of its shape")
    sizes = []
    pos = 0
    for _ in range(n):
        try:
            size, pos = wire.read_varint(content, pos)
        except ValueError:
            size = -1
        if not 0 <= size < 1 << 32:
            raise ValueError(f"{op}(): tensor_content holds a malformed string length at byte {pos}")
        sizes.append(size)
    if sum(sizes) != len(content) - pos:
        raise ValueError(f"{op}(): tensor_content's string lengths add up to {sum(sizes)} bytes, "
                         f"but {len(content) - pos} bytes follow them")
    items = []
    for size in sizes:
        items.append(bytes(content[pos:pos + size]))
        pos += size
    return items


def _from_content(content, dtype: _dt.DType, shape: tuple[int, ...], n: int, op: str) -> Tensor:
    # Everything is checked against the bytes present before any memory is allocated.
    if dtype is _dt.string:
        values = _decode_string_list(content, n, op)
        out = empty_tensor(shape, dtype)
        out._host_array().reshape(-1)[...] = values
        return out
    expected = n * dtype.itemsize
    if len(content) != expected:
        raise ValueError(f"{op}(): tensor_content has {len(content)} bytes, but shape {list(shape)} of "
                         f"{_name(dtype.tf_enum)} needs {n} x {dtype.itemsize} = {expected} bytes")
    if dtype is _dt.bool_ and n and np.frombuffer(content, dtype=np.uint8).max() > 1:
        raise ValueError(f"{op}(): tensor_content of a DT_BOOL tensor holds a byte other than 0 or 1")
    if _BIG_ENDIAN:
        return from_numpy(np.frombuffer(content, dtype=dtype.numpy_dtype).byteswap().reshape(shape))
    return _owning_tensor(content, dtype, shape)


def _owning_tensor(content, dtype: _dt.DType, shape: tuple[int, ...], strides: tuple[int, ...] | None = None) -> Tensor:
    """A contiguous tensor over a copy of ``content`` (its values, little-endian, row-major): the
    one copy, so that the tensor owns writable memory; what ``from_numpy(a.copy())`` makes,
    without the checks an array of unknown origin needs."""
    buffer = np.frombuffer(content, dtype=np.uint8).copy()
    storage = Storage._from_dataptr(DataPtr(None, buffer, buffer, None))
    return make_tensor(storage, 0, shape, contiguous_strides(shape) if strides is None else strides, dtype)


def _read_canonical(view: memoryview) -> tuple[_dt.DType, tuple[int, ...], tuple[int, ...], int] | None:
    """(dtype, shape, strides, where the content starts) of a message as serialize_tensor and
    TensorFlow write a non-empty numeric tensor: dtype, tensor_shape (sizes only) and
    tensor_content, in that order, each once, nothing else, the content's length matching the
    shape. None for any other message: protobuf reads those, and the checks say what is wrong.

    With nothing but these three fields there is no stray typed field to refuse, and the header
    (dtype and shape) was checked when first seen (:func:`_canonical_header` keeps it), so a
    small message costs a few byte reads and the one copy of its values.
    """
    end = len(view)
    if end < 6 or view[0] != _DTYPE_KEY[0] or view[1] >= 0x80 or view[2] != _SHAPE_KEY[0]:
        return None
    length = view[3]
    pos = 4
    if length >= 0x80:  # a shape of more than 127 bytes: a 2-byte length, or protobuf reads it
        if view[4] >= 0x80:
            return None
        length = (length & 0x7F) | view[4] << 7
        pos = 5
    header_end = pos + length
    if header_end + 2 > end or view[header_end] != _CONTENT_KEY[0]:
        return None
    known = _canonical_header(bytes(view[:header_end]))
    if known is None:
        return None
    try:
        size, start = wire.read_varint(view, header_end + 1)
    except ValueError:
        return None
    dtype, shape, strides, nbytes = known
    if size != nbytes or start + size != end or _BIG_ENDIAN:
        return None
    return dtype, shape, strides, start


@functools.lru_cache(maxsize=512)
def _canonical_header(header: bytes) -> tuple[_dt.DType, tuple[int, ...], tuple[int, ...], int] | None:
    """(dtype, shape, strides, bytes of content) when ``header`` is exactly what serialize_tensor
    writes for a numeric dtype and a valid shape (read and checked by protobuf once); else None."""
    proto = TensorProto()
    try:
        proto.ParseFromString(header)
        dtype = _dtype_of(proto, "parse_tensor")
        shape = _shape_of(proto, "parse_tensor")
    except (_message.DecodeError, ValueError):
        return None
    # bool's content needs its bytes checked (0 or 1), strings theirs decoded: protobuf's path does both
    if dtype in (_dt.string, _dt.bool_) or _header_bytes(dtype.tf_enum, shape) != header:
        return None
    return dtype, shape, contiguous_strides(shape), math.prod(shape) * dtype.itemsize


def _field_values(values, dtype: _dt.DType, field: str, op: str) -> np.ndarray:
    """The typed field's values as an array of ``dtype``, range-checked (TensorFlow would truncate)."""
    if dtype.is_complex:
        return values.view(dtype.numpy_dtype)
    if field == "half_val":
        low, high = _HALF_RANGE
    elif field == "int_val" and dtype is not _dt.int32:
        info = np.iinfo(dtype.numpy_dtype)
        low, high = int(info.min), int(info.max)
    else:
        return values.astype(dtype.numpy_dtype, copy=False)
    if values.size and (values.min() < low or values.max() > high):
        bad = values[(values < low) | (values > high)][0]
        raise ValueError(f"{op}(): the TensorProto's {field} holds {bad}, which is out of range for "
                         f"{_name(dtype.tf_enum)} ({low} to {high})")
    if field == "half_val":
        return (values & 0xFFFF).astype(np.uint16).view(dtype.numpy_dtype)
    return values.astype(dtype.numpy_dtype)


def _from_field(proto: TensorProto, dtype: _dt.DType, shape: tuple[int, ...], n: int, op: str) -> Tensor:
    field, held_as = _FIELD[dtype]
    container = getattr(proto, field)
    count = len(container)
    if dtype.is_complex:
        if count % 2:
            raise ValueError(f"{op}(): the TensorProto's {field} has {count} values; a complex tensor needs "
                             "real and imaginary parts in pairs")
        count //= 2
    if count > n:
        raise ValueError(f"{op}(): the TensorProto's {field} has {count} value{'s' * (count != 1)}, more than the {n} elements "
                         f"of shape {list(shape)}")
    if count < n and n * dtype.itemsize > MAX_EXPANDED_BYTES:
        raise ValueError(f"{op}(): the TensorProto's shape {list(shape)} of {_name(dtype.tf_enum)} needs "
                         f"{n * dtype.itemsize} bytes but carries {count} value{'s' * (count != 1)} to fill it with; "
                         f"filling more than {MAX_EXPANDED_BYTES} bytes from fewer values is refused")
    if dtype is _dt.string:
        out = empty_tensor(shape, dtype)
        flat = out._host_array().reshape(-1)  # every slot starts as b""
        if count:
            flat[:count] = list(container)
            flat[count:] = flat[count - 1]  # TensorFlow's rule: the last value fills the rest of the shape
        return out
    flat = np.empty(n, dtype=dtype.numpy_dtype)
    if count == 0:
        flat[...] = 0
    else:
        values = _field_values(np.asarray(container, dtype=held_as), dtype, field, op)
        flat[:count] = values
        flat[count:] = values[-1]
    return from_numpy(flat.reshape(shape))


def _decode(proto: TensorProto, content, op: str, dtype: _dt.DType | None = None) -> Tensor:
    if dtype is None:
        dtype = _dtype_of(proto, op)
    shape = _shape_of(proto, op)
    _check_other_fields(proto, dtype, op)
    n = math.prod(shape)
    if len(content):
        return _from_content(content, dtype, shape, n, op)
    return _from_field(proto, dtype, shape, n, op)


def from_proto(proto: TensorProto) -> Tensor:
    """The tensor a ``TensorProto`` describes (TensorFlow's ``Tensor::FromProto`` rules).

    Any protobuf message named ``TensorProto`` with TensorFlow's fields is accepted (for
    example TensorFlow's own class): it is read through its serialized bytes.

    >>> from_proto(TensorProto(dtype=DataType.DT_STRING, string_val=[b"a"])).tolist()
    b'a'
    """
    if not isinstance(proto, TensorProto):
        if not _is_tensorflow_tensor_proto(proto):
            raise TypeError(f"from_proto(): argument 'proto' must be a TensorProto, not {type(proto).__name__}")
        proto = TensorProto.FromString(proto.SerializeToString())
    return _decode(proto, proto.tensor_content, "from_proto")


def parse_tensor(serialized: bytes, out_type: object = None) -> Tensor:
    """The tensor in a serialized ``TensorProto`` (``tf.io.parse_tensor``); ``out_type`` checks its dtype.

    >>> parse_tensor(b'\\x08\\x03\\x12\\x04\\x12\\x02\\x08\\x02:\\x02\\x05\\x06').tolist()
    [5, 6]
    """
    if not isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse_tensor(): argument 'serialized' must be bytes, not {type(serialized).__name__}")
    expected = None if out_type is None else _dt.as_dtype(out_type, op="parse_tensor", arg="out_type")
    view = memoryview(serialized).cast("B")
    canonical = _read_canonical(view)
    if canonical is not None:
        dtype, shape, strides, start = canonical
        if expected is not None and expected is not dtype:
            raise ValueError(f"parse_tensor(): type mismatch between parsed tensor ({dtype.name}) and dtype ({expected.name})")
        return _owning_tensor(view[start:], dtype, shape, strides)
    # Fast path for big messages: read tensor_content in place and let protobuf parse only the
    # rest (a few bytes), instead of copying the content into protobuf's memory and out again.
    span = wire.find_length_delimited(view, _NUMBER["tensor_content"]) if len(view) >= _IN_PLACE_BYTES else None
    rest = view if span is None else b"".join([view[:span[0]], view[span[2]:]])
    proto = TensorProto()
    try:
        proto.ParseFromString(rest)
    except _message.DecodeError as exc:
        raise ValueError(f"parse_tensor(): could not parse 'serialized' ({len(view)} bytes) as a TensorProto: {exc}") from None
    dtype = _dtype_of(proto, "parse_tensor")
    if expected is not None and expected is not dtype:
        raise ValueError(f"parse_tensor(): type mismatch between parsed tensor ({dtype.name}) and dtype ({expected.name})")
    content = proto.tensor_content if span is None else view[span[1]:span[2]]
    return _decode(proto, content, "parse_tensor", dtype)
