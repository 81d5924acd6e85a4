"""Data types: the DType singletons, conversion to and from NumPy, type promotion.

Every dtype is one immutable `DType` object (compare with `is`). Promotion follows the
Python array API standard (2025.12) where it specifies a result, and PyTorch where the
standard is silent. This module is the bottom layer and imports nothing from ember.

Aliases named like builtins (`float`, `int`) are bound at the very bottom of the file, so
function bodies here reach the builtins through `builtins.` only.
"""

import builtins
import contextlib
import dataclasses
import functools
from collections.abc import Iterator

import ml_dtypes
import numpy as np

# DLPack DLDataTypeCode (dmlc/dlpack include/dlpack/dlpack.h).
_kDLInt, _kDLUInt, _kDLFloat, _kDLBfloat, _kDLComplex, _kDLBool = 0, 1, 2, 4, 5, 6


class DType:
    """One element type. There is exactly one object per dtype; compare with ``is``.

    >>> float32.name, float32.itemsize, float32.is_floating_point
    ('float32', 4, True)
    >>> complex64.to_real(), float32.dlpack
    (ember.float32, (2, 32, 1))
    """

    __slots__ = ("dlpack", "is_complex", "is_floating_point", "is_signed", "itemsize",
                 "kind", "name", "numpy_dtype", "tf_enum")

    def __init__(self, name: str, numpy_type: object, kind: str,
                 dlpack_code: "builtins.int | None", tf_enum: "builtins.int") -> None:
        if name in _BY_NAME:
            raise RuntimeError(f"dtype {name!r} already exists; use ember's singleton")
        np_dtype = np.dtype(numpy_type)
        itemsize = 8 if kind == "O" else np_dtype.itemsize  # string: a pointer to bytes
        fields = {
            "name": name,
            "itemsize": itemsize,
            "kind": kind,
            "is_floating_point": kind == "f",
            "is_complex": kind == "c",
            "is_signed": kind in "ifc",
            "numpy_dtype": np_dtype,
            "dlpack": None if dlpack_code is None else (dlpack_code, itemsize * 8, 1),
            "tf_enum": tf_enum,
        }
        for key, value in fields.items():
            object.__setattr__(self, key, value)
        _BY_NAME[name] = self

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"{self} is immutable")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"{self} is immutable")

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        # Unpickling looks the name up again, so the singleton survives a round trip.
        return (_dtype_by_name, (self.name,))

    def to_real(self) -> "DType":
        """The real counterpart of a complex dtype; any other dtype is returned as is.

        >>> complex128.to_real()
        ember.float64
        """
        return _TO_REAL.get(self, self)

    # TensorFlow's spellings of the same facts (ember.compat.v1's dtypes are these objects):
    # TF1 programs read x.dtype.base_dtype, .as_numpy_dtype, .is_floating, .min/.max.

    @property
    def base_dtype(self) -> "DType":
        """TensorFlow's: the dtype itself (ember has no reference dtypes)."""
        return self

    @property
    def as_numpy_dtype(self) -> type:
        """TensorFlow's: the NumPy scalar type (``numpy.float32``)."""
        return self.numpy_dtype.type

    @property
    def as_datatype_enum(self) -> "builtins.int":
        """TensorFlow's ``DataType`` number (``DT_FLOAT`` is 1)."""
        return self.tf_enum

    @property
    def is_floating(self) -> bool:
        """TensorFlow's ``is_floating_point``."""
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        """TensorFlow's: an integer dtype (not bool)."""
        return self.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self.kind in "ub"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def real_dtype(self) -> "DType":
        """TensorFlow's ``to_real()``."""
        return self.to_real()

    @property
    def size(self) -> "builtins.int":
        """TensorFlow's ``itemsize``."""
        return self.itemsize

    @property
    def min(self):
        """The smallest value of the dtype (TensorFlow's ``DType.min``)."""
        return _limits(self, "minimum")[0]

    @property
    def max(self):
        """The largest value of the dtype (TensorFlow's ``DType.max``)."""
        return _limits(self, "maximum")[1]

    def is_compatible_with(self, other) -> bool:
        """TensorFlow's: whether a value of ``other`` can be used as this dtype (the same dtype)."""
        return as_dtype(other) is self

    def to_complex(self) -> "DType":
        """The complex dtype of this precision (float16/bfloat16 widen to complex64).

        >>> float64.to_complex()
        ember.complex128
        """
        result = _TO_COMPLEX.get(self)
        if result is None:
            raise TypeError(f"to_complex(): {self} has no complex counterpart")
        return result


_BY_NAME: dict[str, DType] = {}


def _limits(dtype: DType, which: str) -> tuple:
    if dtype.kind in "iu":
        info = np.iinfo(dtype.numpy_dtype)
        return builtins.int(info.min), builtins.int(info.max)
    if dtype.kind == "f":
        info = ml_dtypes.finfo(dtype.numpy_dtype) if dtype.name == "bfloat16" else np.finfo(dtype.numpy_dtype)
        return builtins.float(info.min), builtins.float(info.max)
    if dtype.kind == "b":
        return False, True
    raise TypeError(f"Cannot find {which} value of {dtype.name}.")


def _dtype_by_name(name: str) -> DType:
    return _BY_NAME[name]


# The dtype table: name, NumPy scalar type, NumPy kind, DLPack type code, and the
# TensorFlow DataType number (tensorflow/core/framework/types.proto).
bool_ = DType("bool", np.bool_, "b", _kDLBool, 10)
int8 = DType("int8", np.int8, "i", _kDLInt, 6)
int16 = DType("int16", np.int16, "i", _kDLInt, 5)
int32 = DType("int32", np.int32, "i", _kDLInt, 3)
int64 = DType("int64", np.int64, "i", _kDLInt, 9)
uint8 = DType("uint8", np.uint8, "u", _kDLUInt, 4)
uint16 = DType("uint16", np.uint16, "u", _kDLUInt, 17)
uint32 = DType("uint32", np.uint32, "u", _kDLUInt, 22)
uint64 = DType("uint64", np.uint64, "u", _kDLUInt, 23)
float16 = DType("float16", np.float16, "f", _kDLFloat, 19)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, "f", _kDLBfloat, 14)
float32 = DType("float32", np.float32, "f", _kDLFloat, 1)
float64 = DType("float64", np.float64, "f", _kDLFloat, 2)
complex64 = DType("complex64", np.complex64, "c", _kDLComplex, 8)
complex128 = DType("complex128", np.complex128, "c", _kDLComplex, 18)
string = DType("string", np.object_, "O", None, 7)

ALL_DTYPES: tuple[DType, ...] = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, complex64, complex128, string,
)

_ALIASES: dict[str, DType] = {
    "half": float16, "float": float32, "double": float64, "short": int16,
    "int": int32, "long": int64, "cfloat": complex64, "cdouble": complex128,
}
_NAMES: dict[str, DType] = {**_BY_NAME, **_ALIASES}
_TO_REAL = {complex64: float32, complex128: float64}
_TO_COMPLEX = {float16: complex64, bfloat16: complex64, float32: complex64,
               float64: complex128, complex64: complex64, complex128: complex128}
_FROM_NUMPY: dict[np.dtype, DType] = {d.numpy_dtype: d for d in ALL_DTYPES}
# PyTorch's mapping of Python types; str and bytes name the string dtype.
_FROM_PYTHON = {bool: bool_, builtins.int: int64, builtins.float: float64,
                complex: complex128, str: string, bytes: string}


# --------------------------------------------------------------------------- conversion

def _bad_dtype(op: str, arg: str, why: str) -> TypeError:
    return TypeError(f"{op}(): argument '{arg}' must be an ember dtype, a NumPy dtype "
                     f"or a dtype name; {why}")


def _unsupported_numpy(np_dtype: object, op: str, arg: str) -> TypeError:
    supported = ", ".join(d.name for d in ALL_DTYPES)
    return TypeError(f"{op}(): argument '{arg}' has NumPy dtype {np_dtype}, which ember "
                     f"does not support (supported: {supported})")


def from_numpy_dtype(np_dtype: np.dtype, *, op: str = "dtype", arg: str = "dtype") -> DType:
    """The ember dtype of a NumPy dtype (bytes, str and object dtypes map to `string`).

    >>> from_numpy_dtype(np.dtype("int16"))
    ember.int16
    """
    try:
        result = _FROM_NUMPY.get(np_dtype)
    except TypeError:  # unhashable, so not a dtype; as_dtype says what came
        result = None
    if result is not None:
        return result
    if not isinstance(np_dtype, np.dtype):
        return as_dtype(np_dtype, op=op, arg=arg)
    if np_dtype.kind in "SU":
        return string
    if not np_dtype.isnative:  # same values, other byte order
        return from_numpy_dtype(np_dtype.newbyteorder("="), op=op, arg=arg)
    raise _unsupported_numpy(np_dtype, op, arg)


def as_dtype(x: object, *, op: str = "dtype", arg: str = "dtype") -> DType:
    """Turn a DType, dtype name or alias, NumPy dtype or type, or Python type into a DType.

    `op` and `arg` name the caller in error messages. None is not accepted.

    >>> as_dtype("double"), as_dtype(np.int8), as_dtype(complex)
    (ember.float64, ember.int8, ember.complex128)
    """
    if type(x) is DType:
        return x
    if isinstance(x, str):
        result = _NAMES.get(x)
        if result is None:
            known = ", ".join(_NAMES)
            raise _bad_dtype(op, arg, f"unknown dtype name {x!r} (known: {known})")
        return result
    if isinstance(x, np.dtype):
        return from_numpy_dtype(x, op=op, arg=arg)
    if isinstance(x, type):
        if x in _FROM_PYTHON:
            return _FROM_PYTHON[x]
        if issubclass(x, np.generic):
            try:
                np_dtype = np.dtype(x)
            except TypeError:
                raise _unsupported_numpy(x.__name__, op, arg) from None
            return from_numpy_dtype(np_dtype, op=op, arg=arg)
    shown = repr(x)
    if len(shown) > 60:
        shown = f"an object of type {type(x).__name__}"
    raise _bad_dtype(op, arg, f"got {shown}")


def _dtype_of(x: object, op: str, arg: str) -> DType:
    """The dtype of a dtype-like, or of an array/tensor (anything with `.dtype`)."""
    if type(x) is DType:
        return x
    if not isinstance(x, (str, type, np.dtype)) and hasattr(x, "dtype"):
        return as_dtype(x.dtype, op=op, arg=arg)
    return as_dtype(x, op=op, arg=arg)


# ---------------------------------------------------------------------- default dtype

_DEFAULT_CHOICES = (float16, bfloat16, float32, float64)
_default_float = float32  # process-global, as in PyTorch


def get_default_dtype() -> DType:
    """The dtype given to floating-point values created without one.

    >>> get_default_dtype()
    ember.float32
    """
    return _default_float


def get_default_complex_dtype() -> DType:
    """complex128 when the default dtype is float64, otherwise complex64.

    >>> get_default_complex_dtype()
    ember.complex64
    """
    return complex128 if _default_float is float64 else complex64


def set_default_dtype(d: object) -> None:
    """Set the default floating-point dtype (float16, bfloat16, float32 or float64).

    >>> set_default_dtype(float64); get_default_dtype()
    ember.float64
    >>> set_default_dtype("float32")
    """
    global _default_float
    new = as_dtype(d, op="set_default_dtype", arg="d")
    if new not in _DEFAULT_CHOICES:
        choices = ", ".join(c.name for c in _DEFAULT_CHOICES)
        raise TypeError(f"set_default_dtype(): argument 'd' must be one of {choices}, "
                        f"not {new}")
    if new is not _default_float:
        _default_float = new
        for callback in DEFAULT_DTYPE_LISTENERS:
            callback()


# Called after the default dtype changes: caches of inferred dtypes (the interpreter's) clear.
DEFAULT_DTYPE_LISTENERS: list = []


@contextlib.contextmanager
def default_dtype(d: object) -> Iterator[DType]:
    """Set the default dtype inside a ``with`` block, restoring the old one after.

    >>> with default_dtype(float64):
    ...     get_default_complex_dtype()
    ember.complex128
    >>> get_default_dtype()
    ember.float32
    """
    previous = _default_float
    set_default_dtype(d)
    try:
        yield _default_float
    finally:
        set_default_dtype(previous)


# ------------------------------------------------------------------------- promotion
#
# The array API standard 2025.12 (spec/2025.12/API_specification/type_promotion.rst)
# specifies these joins for two arrays:
#   * signed ints with signed ints and unsigned with unsigned: the wider one;
#   * mixed: i1|u1 -> i2, i1|u2 -> i4, i1|u4 -> i8, i2|u1 -> i2, i2|u2 -> i4, i2|u4 -> i8,
#     i4|u1 -> i4, i4|u2 -> i4, i4|u4 -> i8, i8|u1,u2,u4 -> i8; uint64 with a signed
#     int has no entry;
#   * f4|f8 -> f8, f4|c8 -> c8, f4|c16 -> c16, f8|c8 -> c16, f8|c16 -> c16, c8|c16 -> c16;
#   * bool, integer and floating kinds are not connected (mixed kinds unspecified).
# Where it is silent we follow torch.promote_types: bool joins below everything numeric,
# every float is above every int (int|float -> the float, int|complex -> the complex),
# float16|bfloat16 -> float32. The standard draws the whole thing as a lattice where
# promotion is the join; this is that lattice extended, as each dtype's direct successors.
# Where two dtypes have no least common successor (uint64 with a signed int: the common
# ones start at float16 and bfloat16, neither below the other) promotion is undefined.
# string is a lattice of its own.
_LATTICE: dict[DType, tuple[DType, ...]] = {
    bool_: (int8, uint8),
    uint8: (uint16, int16),
    uint16: (uint32, int32),
    uint32: (uint64, int64),
    uint64: (float16, bfloat16),
    int8: (int16,),
    int16: (int32,),
    int32: (int64,),
    int64: (float16, bfloat16),
    float16: (float32,),
    bfloat16: (float32,),
    float32: (float64, complex64),
    float64: (complex128,),
    complex64: (complex128,),
    complex128: (),
    string: (),
}


def _upper_set(d: DType) -> frozenset[DType]:
    seen = {d}
    for up in _LATTICE[d]:
        seen |= _upper_set(up)
    return frozenset(seen)


_UPPER = {d: _upper_set(d) for d in ALL_DTYPES}
# A common upper set has a least element m exactly when it equals m's own upper set.
_LEAST = {ups: d for d, ups in _UPPER.items()}
_PROMOTE: dict[tuple[DType, DType], DType] = {
    (a, b): _LEAST[_UPPER[a] & _UPPER[b]]
    for a in ALL_DTYPES for b in ALL_DTYPES if _UPPER[a] & _UPPER[b] in _LEAST
}
# can_cast stays inside one kind, since the standard connects no kinds.
_FAMILY = {d: {"b": 0, "i": 1, "u": 1, "f": 2, "c": 2, "O": 3}[d.kind] for d in ALL_DTYPES}


def _no_promotion(op: str, dtypes: "list[DType]") -> TypeError:
    dtypes = list(dict.fromkeys(dtypes))
    names = " and ".join(builtins.str(d) for d in dtypes)
    if string in dtypes:
        why = "string promotes only with string"
    else:
        why = "no integer dtype holds every value of both; cast one operand explicitly"
    return TypeError(f"{op}(): type promotion between {names} is not defined ({why})")


def _join(dtypes: "list[DType]", op: str) -> DType:
    common = _UPPER[dtypes[0]]
    for d in dtypes[1:]:
        common = common & _UPPER[d]
    result = _LEAST.get(common)
    if result is None:
        raise _no_promotion(op, dtypes)
    return result


def promote_types(type1: object, type2: object) -> DType:
    """The smallest dtype both arguments promote to (array API table, else PyTorch).

    >>> promote_types(int8, uint8), promote_types(int32, float16)
    (ember.int16, ember.float16)
    """
    if type(type1) is not DType:
        type1 = as_dtype(type1, op="promote_types", arg="type1")
    if type(type2) is not DType:
        type2 = as_dtype(type2, op="promote_types", arg="type2")
    result = _PROMOTE.get((type1, type2))
    if result is None:
        raise _no_promotion("promote_types", [type1, type2])
    return result


# Python scalars are weak: only their category counts (bool < int < float < complex).
_SCALAR_RANK = {bool: 0, builtins.int: 1, builtins.float: 2, complex: 3}
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _scalar_rank(x: object) -> "builtins.int | None":
    rank = _SCALAR_RANK.get(type(x))
    if rank is not None or hasattr(x, "dtype"):  # NumPy scalars are strong
        return rank
    for kind, kind_rank in _SCALAR_RANK.items():
        if isinstance(x, kind):
            return kind_rank
    return None


def _weak_dtype(rank: "builtins.int") -> DType:
    return (bool_, int64, _default_float, get_default_complex_dtype())[rank]


def array_api_result_type(*arrays_and_dtypes: object) -> DType:
    """The array API's ``result_type``: the dtype of an operation on these arrays, dtypes
    and Python scalars.

    Arrays and dtypes are promoted with `promote_types` whatever their shape (a 0-d array
    counts as any other). Python scalars only lift the result to a higher category: an int
    becomes int64 only next to bool, a float the default dtype next to an integer, and a
    complex the complex type of a floating operand's precision.

    >>> array_api_result_type(int8, 1000), array_api_result_type(int32, 2.5)
    (ember.int8, ember.float32)
    """
    if not arrays_and_dtypes:
        raise TypeError("result_type(): expected at least one tensor, array, dtype or "
                        "scalar, got none")
    strong = []
    weak_rank = -1
    for i, x in enumerate(arrays_and_dtypes):
        rank = _scalar_rank(x)
        if rank is None:
            strong.append(_dtype_of(x, "result_type", f"arrays_and_dtypes[{i}]"))
        elif rank > weak_rank:
            weak_rank = rank
    if not strong:
        return _weak_dtype(weak_rank)
    result = _join(strong, "result_type")
    if weak_rank < 0:
        return result
    if result is string:
        raise TypeError("result_type(): a string dtype cannot be combined with a "
                        f"Python {('bool', 'int', 'float', 'complex')[weak_rank]} scalar")
    if weak_rank <= _KIND_RANK[result.kind]:
        return result
    if weak_rank == 3 and result.is_floating_point:
        return result.to_complex()
    return promote_types(result, _weak_dtype(weak_rank))


# PyTorch's promotion among operands of different ranks. The operands fall in three groups:
# dimensioned tensors, 0-d tensors, Python scalars. A lower group only counts when its
# category (bool < integer < floating < complex) is above the result of the groups over it;
# then a 0-d tensor brings its own dtype, a Python scalar its category's default. Without a
# dimensioned tensor, the 0-d ones lead. ``ember.array_api`` keeps the standard's rule
# (``result_type``: every array counts, whatever its rank).
def _over(higher: "DType | None", lower: "DType | None") -> "DType | None":
    """Group ``higher``'s result, lifted by the group under it where that is of a higher category."""
    if lower is None:
        return higher
    if higher is None:
        return lower
    if higher is string or lower is string:
        return _join([higher, lower], "result_type")
    if _KIND_RANK[lower.kind] <= _KIND_RANK[higher.kind]:
        return higher
    if lower.is_complex and higher.is_floating_point:
        return higher.to_complex()  # float32 next to a complex128 0-d tensor: complex64
    return lower


def promote_groups(dimensioned: "list[DType]", zero_dim: "list[DType]", scalars: tuple = (),
                   op: str = "result_type") -> DType:
    """PyTorch's result dtype of tensors of these dtypes, dimensioned or 0-d, and Python scalars.

    >>> promote_groups([float32], [float64]), promote_groups([int32], [float64])
    (ember.float32, ember.float64)
    >>> promote_groups([], [int32, int64], (2.5,))
    ember.float32
    """
    high = _join(dimensioned, op) if dimensioned else None
    low = _join(zero_dim, op) if zero_dim else None
    weak_rank = -1
    for s in scalars:
        rank = _scalar_rank(s)
        if rank is None:
            raise TypeError(f"{op}(): expected a Python scalar, got {type(s).__name__}")
        weak_rank = max(weak_rank, rank)
    if weak_rank >= 0:
        if low is string or high is string:
            raise TypeError(f"{op}(): a string dtype cannot be combined with a "
                            f"Python {('bool', 'int', 'float', 'complex')[weak_rank]} scalar")
        low = _over(low, _weak_dtype(weak_rank))
    if high is None and low is None:
        raise TypeError(f"{op}(): expected at least one tensor or scalar, got none")
    return _over(high, low)


def is_zero_dim(t: object) -> bool:
    """Whether a tensor (or a tensor's meta) is 0-d for promotion. A graph tensor of unknown
    rank (``_rank_known`` False) counts as dimensioned."""
    return not t._shape and getattr(t, "_rank_known", True)


def result_type_of(tensors: tuple, scalars: tuple = (), op: str = "result_type") -> DType:
    """PyTorch's result dtype of an op on ``tensors`` (tensors or their metas: anything with
    ``_shape`` and ``_dtype``) and Python ``scalars``: a 0-d tensor lifts the result only to a
    higher category. Inference rules call it; they are cached per shapes and dtypes.
    """
    dims = []
    zeros = []
    for t in tensors:
        (zeros if is_zero_dim(t) else dims).append(t._dtype)
    return promote_groups(dims, zeros, scalars, op)


def result_type(*arrays_and_dtypes: object) -> DType:
    """PyTorch's ``result_type``: the dtype of an operation on these tensors, arrays, dtypes
    and Python scalars.

    Dimensioned tensors, arrays and dtypes are promoted with `promote_types`. A 0-d tensor
    and a Python scalar only lift the result to a higher category (bool < integer < floating
    < complex); then a 0-d tensor brings its dtype, a scalar its category's default (int64,
    the default float, the complex type of a floating operand's precision).

    >>> result_type(int8, 1000), result_type(int32, 2.5), result_type(float64, 1j)
    (ember.int8, ember.float32, ember.complex128)
    """
    if not arrays_and_dtypes:
        raise TypeError("result_type(): expected at least one tensor, array, dtype or "
                        "scalar, got none")
    dims = []
    zeros = []
    scalars = []
    for i, x in enumerate(arrays_and_dtypes):
        if _scalar_rank(x) is not None:
            scalars.append(x)
        elif hasattr(x, "_shape") and is_zero_dim(x):
            zeros.append(x._dtype)
        else:
            dims.append(_dtype_of(x, "result_type", f"arrays_and_dtypes[{i}]"))
    return promote_groups(dims, zeros, tuple(scalars))


def can_cast(from_: object, to: object) -> bool:
    """Whether `from_` casts to `to` under the array API's promotion rules.

    True iff `from_` promotes to `to` within one kind (bool, integers, floating incl.
    complex, string), since the standard defines no promotion across kinds:
    ``can_cast(bool_, int8)`` and ``can_cast(int8, float32)`` are False. Unlike
    ``torch.can_cast``, which allows any cast within a category such as
    float64 -> float32 or int64 -> int8, a narrowing cast is never allowed here.

    >>> can_cast(int8, int32), can_cast(float64, float32), can_cast(uint8, int16)
    (True, False, True)
    """
    a = _dtype_of(from_, "can_cast", "from_")
    b = _dtype_of(to, "can_cast", "to")
    return _FAMILY[a] == _FAMILY[b] and _PROMOTE.get((a, b)) is b


# PyTorch's rule for writing a result into an existing tensor (in-place ops, out=): the
# category may only stay or widen, bool < integer < floating < complex, any width.
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3, "O": 4}


def can_cast_result(from_: DType, to: DType) -> bool:
    """Whether an op's result of dtype ``from_`` may be written into a ``to`` tensor.

    >>> can_cast_result(float64, float16), can_cast_result(float32, int64)
    (True, False)
    """
    a, b = _CATEGORY[from_.kind], _CATEGORY[to.kind]
    return a <= b if b != 4 else a == 4


_SIGNED = frozenset({int8, int16, int32, int64})
_UNSIGNED = frozenset({uint8, uint16, uint32, uint64})
# float16 and bfloat16 count as real floating: an extension the standard allows.
_REAL = frozenset({float16, bfloat16, float32, float64})
_COMPLEX = frozenset({complex64, complex128})
_KINDS: dict[str, frozenset[DType]] = {
    "bool": frozenset({bool_}),
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integral": _SIGNED | _UNSIGNED,
    "real floating": _REAL,
    "complex floating": _COMPLEX,
    "numeric": _SIGNED | _UNSIGNED | _REAL | _COMPLEX,
}


def isdtype(dtype: object, kind: object) -> bool:
    """Whether `dtype` is `kind`: a kind name, a dtype, or a tuple of either (array API).

    >>> isdtype(uint8, "integral"), isdtype(complex64, ("bool", "real floating"))
    (True, False)
    """
    d = as_dtype(dtype, op="isdtype", arg="dtype")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str) and k in _KINDS:
            if d in _KINDS[k]:
                return True
        elif isinstance(k, str) and k not in _NAMES:
            raise ValueError(f"isdtype(): unknown kind {k!r} (kinds: {', '.join(_KINDS)})")
        elif as_dtype(k, op="isdtype", arg="kind") is d:
            return True
    return False


# -------------------------------------------------------------------- finfo / iinfo

@dataclasses.dataclass(frozen=True, slots=True)
class FInfo:
    """Machine limits of a floating-point dtype, as the array API's finfo object."""

    bits: "builtins.int"
    eps: "builtins.float"
    max: "builtins.float"
    min: "builtins.float"
    smallest_normal: "builtins.float"
    resolution: "builtins.float"
    dtype: DType

    @property
    def tiny(self) -> "builtins.float":
        return self.smallest_normal


@dataclasses.dataclass(frozen=True, slots=True)
class IInfo:
    """Machine limits of an integer dtype, as the array API's iinfo object."""

    bits: "builtins.int"
    max: "builtins.int"
    min: "builtins.int"
    dtype: DType


@functools.cache
def _finfo(d: DType) -> FInfo:
    info = ml_dtypes.finfo(d.numpy_dtype)
    as_float = builtins.float
    return FInfo(bits=builtins.int(info.bits), eps=as_float(info.eps),
                 max=as_float(info.max), min=as_float(info.min),
                 smallest_normal=as_float(info.smallest_normal),
                 resolution=as_float(info.resolution), dtype=d)


def finfo(type: object) -> FInfo:  # noqa: A002 - the array API names it so
    """Limits of a floating-point dtype; a complex dtype gives its real component's.

    >>> finfo(complex64).dtype, finfo(bfloat16).eps
    (ember.float32, 0.0078125)
    """
    d = _dtype_of(type, "finfo", "type")
    if not (d.is_floating_point or d.is_complex):
        raise TypeError("finfo(): argument 'type' must be a floating-point or complex "
                        f"dtype, not {d}")
    return _finfo(d.to_real())


def iinfo(type: object) -> IInfo:  # noqa: A002
    """Limits of an integer dtype.

    >>> iinfo(int8).min, iinfo(uint16).max
    (-128, 65535)
    """
    d = _dtype_of(type, "iinfo", "type")
    if d.kind not in "iu":
        raise TypeError(f"iinfo(): argument 'type' must be an integer dtype, not {d}")
    info = np.iinfo(d.numpy_dtype)
    return IInfo(bits=builtins.int(info.bits), max=builtins.int(info.max),
                 min=builtins.int(info.min), dtype=d)


# `float` and `int` (aliases of float32 and int32) stay out: a star import would shadow
# the importer's builtins.
__all__ = [
    "ALL_DTYPES", "DType", "FInfo", "IInfo", "array_api_result_type", "as_dtype", "bfloat16",
    "bool_", "can_cast", "cdouble", "cfloat", "complex64", "complex128", "default_dtype",
    "double", "finfo", "float16", "float32", "float64", "from_numpy_dtype",
    "get_default_complex_dtype", "get_default_dtype", "half", "iinfo", "int8", "int16", "int32",
    "int64", "is_zero_dim", "isdtype", "long", "promote_groups", "promote_types", "result_type",
    "result_type_of", "set_default_dtype", "short", "string", "uint8", "uint16", "uint32",
    "uint64",
]

# PyTorch's aliases. `float` and `int` shadow the builtins in this module from here on,
# which is why they come last.
half = float16
double = float64
short = int16
long = int64
cfloat = complex64
cdouble = complex128
float = float32  # noqa: A001 - PyTorch alias
int = int32  # noqa: A001
