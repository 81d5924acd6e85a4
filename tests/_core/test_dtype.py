"""Tests for ember._core.dtype: the dtype table, conversion, promotion, limits."""

import copy
import doctest
import itertools
import pickle

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

from ember._core import dtype as D
from tests._oracle import require_torch

NUMERIC = [d for d in D.ALL_DTYPES if d is not D.string]


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    before = D.get_default_dtype()
    yield
    D.set_default_dtype(before)


class FakeTensor:
    """Anything with a DType `.dtype` counts as a tensor for result_type; a tensor's `_shape`
    and `_dtype` tell it whether it is 0-d."""

    def __init__(self, dtype, shape=(2,)):
        self.dtype = self._dtype = dtype
        self.shape = self._shape = shape


# ----------------------------------------------------------------------- the table

# name, itemsize, kind, floating, complex, signed, NumPy dtype, DLPack, TF DataType
ATTRIBUTES = [
    ("bool", 1, "b", False, False, False, np.dtype(np.bool_), (6, 8, 1), 10),
    ("int8", 1, "i", False, False, True, np.dtype(np.int8), (0, 8, 1), 6),
    ("int16", 2, "i", False, False, True, np.dtype(np.int16), (0, 16, 1), 5),
    ("int32", 4, "i", False, False, True, np.dtype(np.int32), (0, 32, 1), 3),
    ("int64", 8, "i", False, False, True, np.dtype(np.int64), (0, 64, 1), 9),
    ("uint8", 1, "u", False, False, False, np.dtype(np.uint8), (1, 8, 1), 4),
    ("uint16", 2, "u", False, False, False, np.dtype(np.uint16), (1, 16, 1), 17),
    ("uint32", 4, "u", False, False, False, np.dtype(np.uint32), (1, 32, 1), 22),
    ("uint64", 8, "u", False, False, False, np.dtype(np.uint64), (1, 64, 1), 23),
    ("float16", 2, "f", True, False, True, np.dtype(np.float16), (2, 16, 1), 19),
    ("bfloat16", 2, "f", True, False, True, np.dtype(ml_dtypes.bfloat16), (4, 16, 1), 14),
    ("float32", 4, "f", True, False, True, np.dtype(np.float32), (2, 32, 1), 1),
    ("float64", 8, "f", True, False, True, np.dtype(np.float64), (2, 64, 1), 2),
    ("complex64", 8, "c", False, True, True, np.dtype(np.complex64), (5, 64, 1), 8),
    ("complex128", 16, "c", False, True, True, np.dtype(np.complex128), (5, 128, 1), 18),
    ("string", 8, "O", False, False, False, np.dtype(object), None, 7),
]


def test_all_dtypes_order_and_module_names():
    assert [d.name for d in D.ALL_DTYPES] == [row[0] for row in ATTRIBUTES]
    assert D.bool_.name == "bool"
    for d in D.ALL_DTYPES:
        if d is not D.bool_:
            assert getattr(D, d.name) is d


@pytest.mark.parametrize("row", ATTRIBUTES, ids=[row[0] for row in ATTRIBUTES])
def test_attributes(row):
    name, itemsize, kind, floating, cplx, signed, np_dtype, dlpack, tf_enum = row
    d = D.as_dtype(name)
    assert d.name == name
    assert d.itemsize == itemsize
    assert d.kind == kind
    assert d.is_floating_point is floating
    assert d.is_complex is cplx
    assert d.is_signed is signed
    assert d.numpy_dtype == np_dtype
    assert isinstance(d.numpy_dtype, np.dtype)
    assert d.dlpack == dlpack
    assert d.tf_enum == tf_enum
    assert repr(d) == str(d) == f"ember.{name}"


def test_singletons_hash_and_immutability():
    assert len(set(D.ALL_DTYPES)) == len(D.ALL_DTYPES)
    assert {D.float32: 1}[D.as_dtype("float32")] == 1
    assert D.float32 != D.float64
    with pytest.raises(AttributeError):
        D.float32.name = "x"
    with pytest.raises(AttributeError):
        D.float32.extra = 1
    with pytest.raises(AttributeError):
        del D.float32.itemsize
    with pytest.raises(RuntimeError, match="already exists"):
        D.DType("float32", np.float32, "f", 2, 1)


@pytest.mark.parametrize("d", D.ALL_DTYPES, ids=str)
def test_pickle_and_copy_keep_the_singleton(d):
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(d, protocol)) is d
    assert copy.copy(d) is d
    assert copy.deepcopy([d])[0] is d


def test_to_real_and_to_complex():
    assert D.complex64.to_real() is D.float32
    assert D.complex128.to_real() is D.float64
    assert D.float32.to_real() is D.float32
    assert D.int8.to_real() is D.int8
    assert D.float32.to_complex() is D.complex64
    assert D.float64.to_complex() is D.complex128
    assert D.float16.to_complex() is D.complex64
    assert D.bfloat16.to_complex() is D.complex64
    assert D.complex128.to_complex() is D.complex128
    for d in (D.bool_, D.int32, D.uint8, D.string):
        with pytest.raises(TypeError, match=f"to_complex\\(\\): ember.{d.name}"):
            d.to_complex()


# ----------------------------------------------------------------------- as_dtype

ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
           "int": "int32", "long": "int64", "cfloat": "complex64", "cdouble": "complex128"}


@pytest.mark.parametrize("alias", ALIASES)
def test_aliases_as_attributes_and_names(alias):
    target = getattr(D, ALIASES[alias])
    assert getattr(D, alias) is target
    assert D.as_dtype(alias) is target


def test_aliases_do_not_break_the_module():
    # `float` and `int` are rebound inside the module; code paths using builtins still work.
    assert D.as_dtype(float) is D.float64
    assert D.as_dtype(int) is D.int64
    assert isinstance(D.finfo(D.float32).eps, float)
    assert isinstance(D.iinfo(D.int8).max, int)
    assert D.result_type(D.int8, 2.5) is D.float32
    assert D.result_type(D.int8, 2) is D.int8


NUMPY_TYPES = [
    (np.bool_, D.bool_), (np.int8, D.int8), (np.int16, D.int16), (np.int32, D.int32),
    (np.int64, D.int64), (np.uint8, D.uint8), (np.uint16, D.uint16),
    (np.uint32, D.uint32), (np.uint64, D.uint64), (np.float16, D.float16),
    (ml_dtypes.bfloat16, D.bfloat16), (np.float32, D.float32), (np.float64, D.float64),
    (np.complex64, D.complex64), (np.complex128, D.complex128),
    (np.bytes_, D.string), (np.str_, D.string), (np.object_, D.string),
]


@pytest.mark.parametrize("np_type, expected", NUMPY_TYPES, ids=lambda x: str(x))
def test_as_dtype_numpy(np_type, expected):
    assert D.as_dtype(np_type) is expected
    assert D.as_dtype(np.dtype(np_type)) is expected
    assert D.from_numpy_dtype(np.dtype(np_type)) is expected


def test_as_dtype_numpy_strings_and_byte_order():
    assert D.as_dtype(np.dtype("S5")) is D.string
    assert D.as_dtype(np.dtype("U3")) is D.string
    assert D.from_numpy_dtype(np.dtype(">f4")) is D.float32
    assert D.from_numpy_dtype(np.dtype(">i8")) is D.int64
    assert D.from_numpy_dtype(np.zeros(2, np.uint16).dtype) is D.uint16


def test_as_dtype_python_types_and_dtypes():
    assert D.as_dtype(bool) is D.bool_
    assert D.as_dtype(int) is D.int64
    assert D.as_dtype(float) is D.float64
    assert D.as_dtype(complex) is D.complex128
    assert D.as_dtype(str) is D.string
    assert D.as_dtype(bytes) is D.string
    for d in D.ALL_DTYPES:
        assert D.as_dtype(d) is d
        assert D.as_dtype(d.name) is d


def test_as_dtype_bad_name_message():
    with pytest.raises(TypeError) as info:
        D.as_dtype("flaot32", op="empty", arg="dtype")
    msg = str(info.value)
    assert msg.startswith("empty(): argument 'dtype' must be an ember dtype, a NumPy dtype "
                          "or a dtype name; unknown dtype name 'flaot32' (known: bool, int8")
    assert "cdouble" in msg


@pytest.mark.parametrize("bad, shown", [
    (None, "got None"), ([1, 2], "got [1, 2]"), (3, "got 3"), (list, "got <class 'list'>"),
    ("ember.float32", "unknown dtype name 'ember.float32'"),
])
def test_as_dtype_bad_objects(bad, shown):
    with pytest.raises(TypeError, match=r"^zeros\(\): argument 'like' must be") as info:
        D.as_dtype(bad, op="zeros", arg="like")
    assert shown in str(info.value)


@pytest.mark.parametrize("bad, name", [
    (np.dtype("datetime64[ns]"), "datetime64[ns]"), (np.datetime64, "datetime64"),
    (np.dtype([("a", "f4")]), "[('a', '<f4')]"), (np.longdouble, "float128"),
    (np.dtype("timedelta64[s]"), "timedelta64[s]"),
])
def test_as_dtype_unsupported_numpy(bad, name):
    if np.dtype(np.longdouble).itemsize == 8 and bad is np.longdouble:
        pytest.skip("long double is float64 on this platform")
    with pytest.raises(TypeError) as info:
        D.as_dtype(bad, op="empty", arg="dtype")
    msg = str(info.value)
    assert msg.startswith("empty(): argument 'dtype' has NumPy dtype ")
    assert name in msg
    assert "not support" in msg
    if isinstance(bad, np.dtype):
        with pytest.raises(TypeError, match=r"^cast\(\): argument 'to' has NumPy dtype"):
            D.from_numpy_dtype(bad, op="cast", arg="to")


def test_from_numpy_dtype_rejects_non_dtypes():
    with pytest.raises(TypeError, match=r"^cast\(\): argument 'to' must be .*got \[1\]"):
        D.from_numpy_dtype([1], op="cast", arg="to")
    with pytest.raises(TypeError, match="got an object of type tuple"):
        D.as_dtype(("x" * 80,))


# ----------------------------------------------------------------- type promotion

# The array API 2025.12 tables (spec/2025.12/API_specification/type_promotion.rst),
# transcribed row by row with the spec's own type codes.
CODES = {"b": D.bool_, "i1": D.int8, "i2": D.int16, "i4": D.int32, "i8": D.int64,
         "u1": D.uint8, "u2": D.uint16, "u4": D.uint32, "u8": D.uint64,
         "f4": D.float32, "f8": D.float64, "c8": D.complex64, "c16": D.complex128}
SPEC_TABLES = [
    # columns, then (row, results...)
    (["i1", "i2", "i4", "i8"], [
        ("i1", "i1", "i2", "i4", "i8"),
        ("i2", "i2", "i2", "i4", "i8"),
        ("i4", "i4", "i4", "i4", "i8"),
        ("i8", "i8", "i8", "i8", "i8")]),
    (["u1", "u2", "u4", "u8"], [
        ("u1", "u1", "u2", "u4", "u8"),
        ("u2", "u2", "u2", "u4", "u8"),
        ("u4", "u4", "u4", "u4", "u8"),
        ("u8", "u8", "u8", "u8", "u8")]),
    (["u1", "u2", "u4"], [
        ("i1", "i2", "i4", "i8"),
        ("i2", "i2", "i4", "i8"),
        ("i4", "i4", "i4", "i8"),
        ("i8", "i8", "i8", "i8")]),
    (["f4", "f8", "c8", "c16"], [
        ("f4", "f4", "f8", "c8", "c16"),
        ("f8", "f8", "f8", "c16", "c16"),
        ("c8", "c8", "c16", "c8", "c16"),
        ("c16", "c16", "c16", "c16", "c16")]),
    # bool is its own lattice in the spec's diagram: bool with bool is bool.
    (["b"], [("b", "b")]),
]


def _spec_table():
    table = {}
    for columns, rows in SPEC_TABLES:
        for row, *results in rows:
            for column, result in zip(columns, results, strict=True):
                a, b, r = CODES[row], CODES[column], CODES[result]
                table[a, b] = r
                table[b, a] = r  # the spec's mixed table is given one way round
    return table


SPEC = _spec_table()
SPEC_DTYPES = sorted({a for a, _ in SPEC}, key=D.ALL_DTYPES.index)


def _promote_or_none(a, b):
    try:
        return D.promote_types(a, b)
    except TypeError:
        return None


def test_spec_table_size():
    # 4x4 signed + 4x4 unsigned + 2*(4x3) mixed + 4x4 floating + bool
    assert len(SPEC) == 16 + 16 + 24 + 16 + 1


@pytest.mark.parametrize("pair", sorted(SPEC, key=str), ids=lambda p: f"{p[0].name}-{p[1].name}")
def test_promote_types_matches_spec(pair):
    a, b = pair
    assert D.promote_types(a, b) is SPEC[pair]
    assert D.result_type(a, b) is SPEC[pair]


def test_spec_promotion_is_commutative_and_associative():
    for a, b, c in itertools.product(SPEC_DTYPES, repeat=3):
        ab, bc = SPEC.get((a, b)), SPEC.get((b, c))
        if ab is None or bc is None or (ab, c) not in SPEC or (a, bc) not in SPEC:
            continue
        assert SPEC[ab, c] is SPEC[a, bc]
        left = D.promote_types(D.promote_types(a, b), c)
        assert left is D.promote_types(a, D.promote_types(b, c))
        assert D.result_type(a, b, c) is SPEC[ab, c]
    for a, b in itertools.product(D.ALL_DTYPES, repeat=2):
        assert _promote_or_none(a, b) is _promote_or_none(b, a)


@given(st.lists(st.sampled_from(D.ALL_DTYPES), min_size=1, max_size=5), st.randoms())
def test_result_type_is_order_independent(dtypes, rnd):
    shuffled = list(dtypes)
    rnd.shuffle(shuffled)
    try:
        expected = D.result_type(*dtypes)
    except TypeError:
        with pytest.raises(TypeError, match="not defined"):
            D.result_type(*shuffled)
        return
    assert D.result_type(*shuffled) is expected
    # Pairwise folding agrees whenever every step is defined.
    folded = dtypes[0]
    for d in dtypes[1:]:
        folded = _promote_or_none(folded, d)
        if folded is None:
            return
    assert folded is expected


FLOATS = [D.float16, D.bfloat16, D.float32, D.float64]
INTS = [D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16, D.uint32, D.uint64]
COMPLEX = [D.complex64, D.complex128]


def test_promotion_outside_the_spec_follows_pytorch_rules():
    for d in NUMERIC:
        assert D.promote_types(D.bool_, d) is d
    for i, f in itertools.product(INTS, FLOATS + COMPLEX):
        assert D.promote_types(i, f) is f
    assert D.promote_types(D.float16, D.bfloat16) is D.float32
    assert D.promote_types(D.float16, D.float32) is D.float32
    assert D.promote_types(D.bfloat16, D.float64) is D.float64
    for f, c in itertools.product(FLOATS, COMPLEX):
        wider = D.promote_types(f, c.to_real()).to_complex()
        assert D.promote_types(f, c) is wider
    assert D.promote_types(D.float16, D.complex64) is D.complex64
    assert D.promote_types(D.string, D.string) is D.string


@pytest.mark.parametrize("signed", [D.int8, D.int16, D.int32, D.int64], ids=str)
def test_uint64_with_signed_is_undefined(signed):
    for a, b in ((D.uint64, signed), (signed, D.uint64)):
        with pytest.raises(TypeError) as info:
            D.promote_types(a, b)
        msg = str(info.value)
        assert msg.startswith("promote_types(): type promotion between ")
        assert str(a) in msg and str(b) in msg and "not defined" in msg


def test_string_promotes_only_with_string():
    for d in NUMERIC:
        with pytest.raises(TypeError, match="string promotes only with string"):
            D.promote_types(D.string, d)
        with pytest.raises(TypeError, match="string promotes only with string"):
            D.result_type(d, D.string)


def test_promote_types_accepts_dtype_likes_and_names_bad_args():
    assert D.promote_types("int8", np.uint8) is D.int16
    with pytest.raises(TypeError, match=r"promote_types\(\): argument 'type2'.*got None"):
        D.promote_types(D.int8, None)


# ------------------------------------------------------------------- result_type

def test_result_type_weak_scalars():
    t = FakeTensor
    assert D.result_type(t(D.int32), 2.5) is D.float32
    assert D.result_type(t(D.float16), 2.5) is D.float16
    assert D.result_type(t(D.int8), 1000) is D.int8
    assert D.result_type(t(D.bool_), 1) is D.int64
    assert D.result_type(t(D.bool_), 2.5) is D.float32
    assert D.result_type(t(D.float32), 1j) is D.complex64
    assert D.result_type(t(D.float64), 1j) is D.complex128
    assert D.result_type(t(D.bfloat16), 1j) is D.complex64
    assert D.result_type(t(D.int16), 1j) is D.complex64
    assert D.result_type(t(D.bool_), True) is D.bool_
    assert D.result_type(t(D.uint8), True, 3) is D.uint8
    assert D.result_type(2, 2.5) is D.float32
    assert D.result_type(True, False) is D.bool_
    assert D.result_type(1, True) is D.int64
    assert D.result_type(1, 1j) is D.complex64
    with D.default_dtype(D.float64):
        assert D.result_type(t(D.int32), 2.5) is D.float64
        assert D.result_type(t(D.int32), 1j) is D.complex128
        assert D.result_type(t(D.float32), 1j) is D.complex64
        assert D.result_type(2.5) is D.float64
    with D.default_dtype(D.bfloat16):
        assert D.result_type(t(D.int32), 2.5) is D.bfloat16


def test_result_type_strong_inputs():
    # NumPy arrays and NumPy scalars are strong; a 0-d tensor lifts only the category (PyTorch),
    # except in the array API's result_type, where every array counts.
    assert D.result_type(FakeTensor(D.int8), FakeTensor(D.int32, shape=())) is D.int8
    assert D.result_type(FakeTensor(D.int8), FakeTensor(D.float64, shape=())) is D.float64
    assert D.array_api_result_type(FakeTensor(D.int8), FakeTensor(D.int32, shape=())) is D.int32
    assert D.result_type(np.zeros(3, np.int8), D.uint8) is D.int16
    assert D.result_type(D.float32, np.float64(1.0)) is D.float64
    assert D.result_type(D.float32, np.dtype("float64")) is D.float64
    assert D.result_type(D.int8, np.int64(3), 2.5) is D.float32
    assert D.result_type(D.uint64, D.int8, D.float32) is D.float32


def test_result_type_errors():
    with pytest.raises(TypeError, match=r"^result_type\(\): expected at least one"):
        D.result_type()
    with pytest.raises(TypeError, match=r"string dtype cannot be combined with a Python int"):
        D.result_type(D.string, 1)
    with pytest.raises(TypeError, match=r"argument 'arrays_and_dtypes\[1\]'.*got None"):
        D.result_type(D.int8, None)
    with pytest.raises(TypeError, match="not defined"):
        D.result_type(D.uint64, D.int8, 1)


# ----------------------------------------------------------------- against torch

def _torch_dtype(torch, d):
    return getattr(torch, d.name)


# Pairs where torch.promote_types refuses (it does not promote uint16/32/64 with other
# integer, bool or complex dtypes) but ember gives a result:
#   * the spec defines these: uint16/uint32/uint64 with each other, uint16/uint32 with
#     signed ints;
#   * ember extends PyTorch's own rules to them: bool with uint16/32/64 -> the uint,
#     uint16/32/64 with complex -> the complex.
_WIDE_UINTS = [D.uint16, D.uint32, D.uint64]
TORCH_REFUSES = set()
for _u in _WIDE_UINTS:
    for _other in [D.bool_, D.uint8, *_WIDE_UINTS, D.int8, D.int16, D.int32, D.int64,
                   *COMPLEX]:
        if _other is _u or (_u is D.uint64 and _other.kind == "i"):
            continue
        TORCH_REFUSES |= {(_u, _other), (_other, _u)}


def test_promote_types_against_torch():
    torch = require_torch()
    for a, b in itertools.product(NUMERIC, repeat=2):
        try:
            expected = str(torch.promote_types(_torch_dtype(torch, a), _torch_dtype(torch, b)))
        except RuntimeError:
            expected = None
        ours = _promote_or_none(a, b)
        if (a, b) in TORCH_REFUSES:
            assert expected is None and ours is not None, (a, b)
            if (a, b) in SPEC:
                assert ours is SPEC[a, b]
        else:
            assert (None if ours is None else f"torch.{ours.name}") == expected, (a, b)


# Where torch.result_type differs with weak scalars: float16 with a complex scalar is
# complex32 (ComplexHalf) in torch, which ember does not have; ember gives complex64.
def _torch_result(torch, *args):
    try:
        return str(torch.result_type(*args)).removeprefix("torch.")
    except RuntimeError:
        return None


def _ours_result(*args):
    try:
        return D.result_type(*args).name
    except TypeError:
        return None


SCALARS = [True, 7, 2.5, 1j]


@pytest.mark.parametrize("default", [D.float32, D.float64], ids=str)
def test_result_type_with_scalars_against_torch(default):
    torch = require_torch()
    torch_default = torch.get_default_dtype()
    torch.set_default_dtype(_torch_dtype(torch, default))
    try:
        with D.default_dtype(default):
            for d, s in itertools.product(NUMERIC, SCALARS):
                tensor = torch.zeros(2, dtype=_torch_dtype(torch, d))
                expected = _torch_result(torch, tensor, s)
                if d is D.float16 and isinstance(s, complex):
                    assert expected == "complex32"
                    expected = "complex64"
                assert _ours_result(FakeTensor(d), s) == expected, (d, s)
            for s1, s2 in itertools.product(SCALARS, repeat=2):
                assert _ours_result(s1, s2) == _torch_result(torch, s1, s2), (s1, s2)
            # Two tensors and a scalar: torch.result_type takes two operands, so the
            # tensors are first joined with torch.promote_types.
            for a, b in itertools.product(NUMERIC, repeat=2):
                if (a, b) in TORCH_REFUSES:
                    continue
                try:
                    joined = torch.promote_types(_torch_dtype(torch, a), _torch_dtype(torch, b))
                except RuntimeError:
                    joined = None
                for s in SCALARS:
                    expected = None
                    if joined is not None:
                        expected = _torch_result(torch, torch.zeros(2, dtype=joined), s)
                    if expected == "complex32":
                        expected = "complex64"
                    assert _ours_result(FakeTensor(a), FakeTensor(b), s) == expected, (a, b, s)
    finally:
        torch.set_default_dtype(torch_default)


def test_zero_dim_tensors_are_weak_as_in_torch():
    # a 0-d tensor counts less than a dimensioned one of the same category (PyTorch); the array
    # API's result_type promotes by dtype alone.
    torch = require_torch()
    one_d = torch.zeros(2, dtype=torch.int8)
    zero_d = torch.tensor(1, dtype=torch.int32)
    assert torch.result_type(one_d, zero_d) == torch.int8
    assert D.result_type(FakeTensor(D.int8), FakeTensor(D.int32, shape=())) is D.int8
    assert D.array_api_result_type(FakeTensor(D.int8), FakeTensor(D.int32, shape=())) is D.int32


# --------------------------------------------------------------------- can_cast

# The array API: can_cast(a, b) iff a promotes to b under the spec's rules; those rules
# never cross kinds (bool / integer / floating incl. complex). float16 and bfloat16 sit in
# the floating kind as an extension.
CAN_CAST = {
    "bool": "bool",
    "int8": "int8 int16 int32 int64",
    "int16": "int16 int32 int64",
    "int32": "int32 int64",
    "int64": "int64",
    "uint8": "uint8 uint16 uint32 uint64 int16 int32 int64",
    "uint16": "uint16 uint32 uint64 int32 int64",
    "uint32": "uint32 uint64 int64",
    "uint64": "uint64",
    "float16": "float16 float32 float64 complex64 complex128",
    "bfloat16": "bfloat16 float32 float64 complex64 complex128",
    "float32": "float32 float64 complex64 complex128",
    "float64": "float64 complex128",
    "complex64": "complex64 complex128",
    "complex128": "complex128",
    "string": "string",
}


def test_can_cast_table():
    for a, b in itertools.product(D.ALL_DTYPES, repeat=2):
        assert D.can_cast(a, b) is (b.name in CAN_CAST[a.name].split()), (a, b)
    for a, b in SPEC:
        assert D.can_cast(a, b) is (SPEC[a, b] is b)


def test_can_cast_arrays_and_differs_from_torch():
    assert D.can_cast(np.zeros(2, np.int8), D.int16)
    assert D.can_cast(FakeTensor(D.float32), "float64")
    assert not D.can_cast(D.float64, D.float32)
    torch = require_torch()
    assert torch.can_cast(torch.float64, torch.float32)


# ---------------------------------------------------------------------- isdtype

KINDS = {
    "bool": [D.bool_],
    "signed integer": [D.int8, D.int16, D.int32, D.int64],
    "unsigned integer": [D.uint8, D.uint16, D.uint32, D.uint64],
    "integral": INTS,
    "real floating": FLOATS,
    "complex floating": COMPLEX,
    "numeric": INTS + FLOATS + COMPLEX,
}


def test_isdtype():
    for kind, members in KINDS.items():
        for d in D.ALL_DTYPES:
            assert D.isdtype(d, kind) is (d in members), (d, kind)
    assert D.isdtype(D.float32, D.float32)
    assert not D.isdtype(D.float32, D.float64)
    assert D.isdtype(D.int8, ("bool", D.int8))
    assert D.isdtype(D.complex64, ("bool", "complex floating"))
    assert not D.isdtype(D.string, ("numeric", "bool"))
    assert D.isdtype(np.float32, "real floating")
    with pytest.raises(ValueError, match="unknown kind 'floating'"):
        D.isdtype(D.float32, "floating")
    with pytest.raises(TypeError, match=r"^isdtype\(\): argument 'dtype'"):
        D.isdtype(None, "bool")


# --------------------------------------------------------------- finfo / iinfo

@pytest.mark.parametrize("d", FLOATS + COMPLEX, ids=str)
def test_finfo(d):
    info = D.finfo(d)
    real = d.to_real()
    ref = ml_dtypes.finfo(ml_dtypes.bfloat16) if real is D.bfloat16 else np.finfo(real.numpy_dtype)
    assert info.dtype is real
    assert info.bits == ref.bits == real.itemsize * 8
    assert info.eps == float(ref.eps)
    assert info.max == float(ref.max)
    assert info.min == float(ref.min)
    assert info.smallest_normal == float(ref.smallest_normal)
    assert info.tiny == info.smallest_normal
    assert info.resolution == float(ref.resolution)
    for value in (info.eps, info.max, info.min, info.smallest_normal, info.resolution):
        assert type(value) is float
    with pytest.raises(AttributeError):
        info.eps = 1.0
    assert D.finfo(FakeTensor(d)) == info


def test_finfo_known_values():
    assert D.finfo(D.float32).eps == 2.0 ** -23
    assert D.finfo(D.bfloat16).eps == 2.0 ** -7
    assert D.finfo(D.float16).max == 65504.0
    assert D.finfo(D.complex128).dtype is D.float64


@pytest.mark.parametrize("d", INTS, ids=str)
def test_iinfo(d):
    info = D.iinfo(d)
    ref = np.iinfo(d.numpy_dtype)
    assert (info.bits, info.max, info.min, info.dtype) == (ref.bits, ref.max, ref.min, d)
    assert type(info.max) is int and type(info.min) is int
    with pytest.raises(AttributeError):
        info.max = 1


def test_finfo_iinfo_errors():
    for d in [*INTS, D.bool_, D.string]:
        with pytest.raises(TypeError) as info:
            D.finfo(d)
        assert str(info.value) == ("finfo(): argument 'type' must be a floating-point or "
                                   f"complex dtype, not ember.{d.name}")
    for d in FLOATS + COMPLEX + [D.bool_, D.string]:
        with pytest.raises(TypeError) as info:
            D.iinfo(d)
        assert str(info.value) == ("iinfo(): argument 'type' must be an integer dtype, "
                                   f"not ember.{d.name}")
    with pytest.raises(TypeError, match=r"^finfo\(\): argument 'type'.*'flaot'"):
        D.finfo("flaot")


# ---------------------------------------------------------------- default dtype

def test_default_dtype_switching():
    assert D.get_default_dtype() is D.float32
    assert D.get_default_complex_dtype() is D.complex64
    for d in FLOATS:
        D.set_default_dtype(d)
        assert D.get_default_dtype() is d
        expected = D.complex128 if d is D.float64 else D.complex64
        assert D.get_default_complex_dtype() is expected
    D.set_default_dtype("float32")
    assert D.get_default_dtype() is D.float32


def test_set_default_dtype_rejects_non_floating():
    for d in INTS + COMPLEX + [D.bool_, D.string]:
        with pytest.raises(TypeError) as info:
            D.set_default_dtype(d)
        msg = str(info.value)
        assert msg.startswith("set_default_dtype(): argument 'd' must be one of float16, ")
        assert msg.endswith(f"not ember.{d.name}")
    with pytest.raises(TypeError, match=r"^set_default_dtype\(\): argument 'd'.*got None"):
        D.set_default_dtype(None)
    assert D.get_default_dtype() is D.float32


def test_default_dtype_context_restores():
    with D.default_dtype(D.float64) as d:
        assert d is D.float64
        assert D.get_default_dtype() is D.float64
        with D.default_dtype("half"):
            assert D.get_default_dtype() is D.float16
        assert D.get_default_dtype() is D.float64
    assert D.get_default_dtype() is D.float32
    with pytest.raises(KeyError), D.default_dtype(D.bfloat16):
        raise KeyError("boom")
    assert D.get_default_dtype() is D.float32
    with pytest.raises(TypeError), D.default_dtype(D.int32):
        pass
    assert D.get_default_dtype() is D.float32


# ------------------------------------------------------------------------ docs

def test_docstring_examples_run():
    result = doctest.testmod(D, raise_on_error=False)
    assert result.attempted > 10
    assert result.failed == 0
