"""Python data becoming a tensor keeps its values or is refused: ``ember.tensor``, ``as_tensor``,
``Tensor(data)``, ``full``, ``fill_``, ``x[i] = v`` and scalar arguments of ops.

Expected values are Python ints (or NumPy arrays built from them in the dtype), never a float
detour. The last part runs every case through PyTorch as well and checks the same outcome: the
same dtype and values, or an error of the same type.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def bounds(name: str) -> tuple[int, int]:
    info = np.iinfo(name)
    return int(info.min), int(info.max)


def as_exact(t: ember.Tensor, name: str) -> np.ndarray:
    """The values of ``t`` as NumPy built from Python ints of dtype ``name``."""
    return np.array(t.tolist(), dtype=name)


# --- integers arrive exactly ------------------------------------------------------------------------


@pytest.mark.parametrize("name", INT_DTYPES)
def test_every_integer_that_fits_arrives_exactly(name):
    low, high = bounds(name)
    values = [low, high, 0, 1, high - 1, low + 1]
    for data in (values, [values[:3], values[3:]], tuple(values)):
        t = ember.tensor(data, dtype=getattr(ember, name))
        assert t.dtype is getattr(ember, name)
        assert t.tolist() == (list(data) if not isinstance(data[0], list) else data)
        np.testing.assert_array_equal(t.numpy(), np.array(data, dtype=name))


@pytest.mark.parametrize(
    ("data", "dtype", "expected"),
    [
        ([1, 2**64 - 1], "uint64", [1, 2**64 - 1]),
        ([1, 2**63 + 1], "uint64", [1, 2**63 + 1]),
        ([[2**63], [2**64 - 2]], "uint64", [[2**63], [2**64 - 2]]),
        ([-(2**63), 2**63 - 1], None, [-(2**63), 2**63 - 1]),
        ([2**53 + 1, 1], None, [2**53 + 1, 1]),
        ([2**53 + 1, 1.5], "int64", [2**53 + 1, 1]),  # floats truncate, the big int stays exact
        ([True, 2, False], None, [1, 2, 0]),
        ([True, 200], "uint8", [1, 200]),
        ([np.int64(2**62 + 1), 1], None, [2**62 + 1, 1]),
        ([np.uint64(2**64 - 1)], "uint64", [2**64 - 1]),
        ([np.int8(3), np.int8(-4)], None, [3, -4]),
        ([-1, -255], "uint8", [255, 1]),  # PyTorch wraps negative ints into unsigned dtypes
        ([-1], "uint32", [2**32 - 1]),
        ([1.9, -1.9], "int8", [1, -1]),
        ([127.0, -128.0], "int8", [127, -128]),
    ],
)
def test_integer_literals_are_exact(data, dtype, expected):
    t = ember.tensor(data, dtype=None if dtype is None else getattr(ember, dtype))
    assert t.tolist() == expected
    name = dtype or "int64"
    np.testing.assert_array_equal(t.numpy(), np.array(expected, dtype=name))


def test_as_tensor_legacy_constructor_and_setitem_lists_are_exact():
    assert ember.as_tensor([1, 2**64 - 1], dtype=ember.uint64).tolist() == [1, 2**64 - 1]
    assert ember.zeros(1, dtype=ember.uint64).new_tensor([1, 2**64 - 1]).tolist() == [1, 2**64 - 1]
    assert ember.Tensor([1, 2**24 + 1]).tolist() == [1.0, float(2**24)]  # the legacy constructor: the default dtype
    x = ember.zeros(2, dtype=ember.uint64)
    x[:] = [1, 2**64 - 1]
    assert x.tolist() == [1, 2**64 - 1]
    x[0] = 2**63 + 1
    assert x.tolist() == [2**63 + 1, 2**64 - 1]
    assert ember.full((2,), 2**64 - 1, dtype=ember.uint64).tolist() == [2**64 - 1] * 2
    assert ember.zeros(1, dtype=ember.int64).fill_(2**63 - 1).tolist() == [2**63 - 1]
    assert ember.zeros(1, dtype=ember.uint8).fill_(-1).tolist() == [255]  # PyTorch wraps here too


# --- a literal that does not fit is an error ------------------------------------------------------------


@pytest.mark.parametrize("name", INT_DTYPES)
def test_integer_out_of_range_is_refused(name):
    low, high = bounds(name)
    dtype = getattr(ember, name)
    too_low = -(2**63) - 1 if name in ("int64", "uint64") else (low - 1 if name.startswith("int") else -high - 1)
    too_high = high + 1
    for bad in (too_low, too_high):
        with pytest.raises((RuntimeError, ValueError, OverflowError), match="tensor"):
            ember.tensor([1, bad], dtype=dtype)
        with pytest.raises((RuntimeError, ValueError, OverflowError), match="tensor"):
            ember.tensor([[1], [bad]], dtype=dtype)
    if name != "int64" and name != "uint64":
        with pytest.raises(RuntimeError, match=rf"value {too_high} cannot be converted to type ember.{name} without overflow"):
            ember.tensor([1, too_high], dtype=dtype)
        for write in (
            lambda: ember.full((2,), too_high, dtype=dtype),
            lambda: ember.zeros(2, dtype=dtype).fill_(too_high),
            lambda: ember.zeros(2, dtype=dtype).__setitem__(0, too_high),
            lambda: ember.zeros(2, dtype=dtype).__setitem__(slice(None), [0, too_high]),
        ):
            with pytest.raises(RuntimeError, match="without overflow"):
                write()


@pytest.mark.parametrize("name", [n for n in INT_DTYPES if n != "uint64"])
@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), 1e30])
def test_non_finite_and_huge_floats_into_integers_are_refused(name, value):
    dtype = getattr(ember, name)
    with pytest.raises(RuntimeError, match="without overflow"):
        ember.tensor([1.0, value], dtype=dtype)
    with pytest.raises(RuntimeError, match=r"full.*without overflow"):
        ember.full((1,), value, dtype=dtype)
    with pytest.raises(RuntimeError, match=r"fill_.*without overflow"):
        ember.zeros(1, dtype=dtype).fill_(value)


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: ember.tensor(2**70), ValueError, "Overflow when unpacking long long"),
        (lambda: ember.zeros(1, dtype=ember.int8).new_tensor([300]), RuntimeError, "value 300 cannot be converted"),
        (lambda: ember.tensor([1, 2**63]), ValueError, "Overflow when unpacking long long"),
        (lambda: ember.tensor([2**64], dtype=ember.uint64), OverflowError, "int too big to convert"),
        (lambda: ember.tensor([-1], dtype=ember.uint64), OverflowError, "can't convert negative int to unsigned"),
        (lambda: ember.tensor([1, 2**1030], dtype=ember.float64), OverflowError, "int too large to convert to float"),
        (lambda: ember.tensor([1, "a"]), TypeError, "invalid data type 'str'"),
        (lambda: ember.tensor([1, b"a"]), TypeError, "invalid data type 'bytes'"),
        (lambda: ember.tensor([1, None]), RuntimeError, "Could not infer dtype of NoneType"),
        (lambda: ember.tensor({1: 2}), RuntimeError, "Could not infer dtype of dict"),
        (lambda: ember.tensor([[1, 2], [3, 4, 5]]), ValueError, r"expected sequence of length 2 at dim 1 \(got 3\)"),
        (lambda: ember.tensor([[[1, 2]], [[3, 4, 5]]]), ValueError, r"expected sequence of length 2 at dim 2 \(got 3\)"),
        (lambda: ember.tensor([[1, 2], 3]), TypeError, "expected a sequence of length 2 at dim 1"),
        (lambda: ember.tensor([1, [2, 3]]), TypeError, "'list' object cannot be interpreted"),
        (lambda: ember.tensor([ember.ones(2), ember.ones(3)]), ValueError, "only one element tensors"),
        (lambda: ember.tensor([ember.ones(2), ember.ones(2)]), ValueError, "only one element tensors"),
        (lambda: ember.tensor([1 + 2j], dtype=ember.float32), TypeError, "complex.*ember.float32"),
        (lambda: ember.tensor([1 + 0j], dtype=ember.int64), TypeError, "complex.*ember.int64"),
        (lambda: ember.full((1,), 1 + 2j, dtype=ember.float32), RuntimeError, "full.*float32 without overflow"),
        (lambda: ember.full((1,), 2**70), OverflowError, "full.*int too big to convert"),
        (lambda: ember.full((1,), 1e300, dtype=ember.float32), RuntimeError, "full.*float32 without overflow"),
        (lambda: ember.zeros(1).fill_(1 + 2j), RuntimeError, "fill_.*without overflow"),
        (lambda: ember.add(ember.ones(1, dtype=ember.int8), 1, alpha=300), RuntimeError, "add.*int8 without overflow"),
        (
            lambda: ember.sub(ember.ones(1, dtype=ember.int8), ember.ones(1, dtype=ember.int8), alpha=300),
            RuntimeError,
            "sub.*int8",
        ),
        (lambda: ember.clamp(ember.ones(1, dtype=ember.int8), max=300), RuntimeError, "clamp.*int8 without overflow"),
        (lambda: ember.ones(1, dtype=ember.int8) + 2**70, OverflowError, "add.*int too big to convert"),
        (lambda: 2**70 - ember.ones(1, dtype=ember.int8), OverflowError, "int too big to convert"),
        (lambda: ember.nn.functional.pad(ember.ones(1, dtype=ember.int8), (1, 1), value=300), RuntimeError, "pad.*int8"),
        (lambda: ember.nn.functional.hardtanh(ember.ones(1, dtype=ember.int8), -300, 300), RuntimeError, "hardtanh.*int8"),
        (lambda: ember.linspace(0, 300, 2, dtype=ember.int8), RuntimeError, "linspace.*int8 without overflow"),
    ],
)
def test_bad_literals_are_clear_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


# --- what is accepted keeps its meaning ---------------------------------------------------------------


def test_accepted_data_keeps_pytorchs_dtypes_and_values():
    assert ember.tensor([ember.tensor(1.0), 2.0]).tolist() == [1.0, 2.0]
    assert ember.tensor([ember.tensor([1.0]), 2.0]).tolist() == [1.0, 2.0]  # one-element tensors are scalars
    assert ember.tensor([ember.tensor(1.0, dtype=ember.float64), 2.5]).dtype is ember.float64
    assert ember.tensor([ember.tensor(1, dtype=ember.int8), 300]).tolist() == [1, 300]  # promoted to int64
    assert ember.tensor([np.float64(1.0), 2.5]).dtype is ember.float64
    assert ember.tensor([1.5, True]).dtype is ember.float32
    assert ember.tensor([True, 1j]).dtype is ember.complex64
    assert ember.tensor([1.5, 2**70]).tolist() == [1.5, float(2**70)]
    assert ember.tensor([1j], dtype=ember.bool).tolist() == [True]
    assert ember.tensor([100000], dtype=ember.float16).tolist() == [float("inf")]  # past float16: inf, as in PyTorch
    assert ember.full((1,), 1 + 0j, dtype=ember.float32).tolist() == [1.0]
    assert ember.zeros(1, dtype=ember.int8).fill_(ember.tensor(300)).tolist() == [44]  # a tensor value casts like copy_
    assert ember.add(ember.ones(1, dtype=ember.int8), 300).tolist() == [45]  # PyTorch wraps a binary op's scalar


def test_string_tensors_need_all_strings_or_the_string_dtype():
    assert ember.tensor(["a", "bc"]).dtype is ember.string
    assert ember.tensor([["a"], [b"b"]]).tolist() == [[b"a"], [b"b"]]
    assert ember.tensor("a").tolist() == b"a"
    assert ember.tensor(["a"], dtype=ember.string).tolist() == [b"a"]
    with pytest.raises(TypeError, match="string tensor takes bytes or str values, not int"):
        ember.tensor(["a", 1], dtype=ember.string)
    with pytest.raises(TypeError, match=r"cannot make a ember\.float32 tensor from str data"):
        ember.tensor(["a"], dtype=ember.float32)


# --- the same cases through PyTorch ---------------------------------------------------------------------

# (name, build(lib)): each runs against ember and torch; the outcomes must agree.
DIFFERENTIAL = [
    ("u64 max", lambda L: L.tensor([1, 2**64 - 1], dtype=L.uint64)),
    ("u64 2**63+1", lambda L: L.tensor([1, 2**63 + 1], dtype=L.uint64)),
    ("no dtype 2**63", lambda L: L.tensor([1, 2**63])),
    ("int64 extremes", lambda L: L.tensor([-(2**63), 2**63 - 1])),
    ("int64 extremes with a float", lambda L: L.tensor([-(2**63), 2**63 - 1, 1.5])),
    ("2**53+1 int64", lambda L: L.tensor([2**53 + 1, 1], dtype=L.int64)),
    ("2**53+1 float64", lambda L: L.tensor([2**53 + 1], dtype=L.float64)),
    ("int8 300", lambda L: L.tensor([1, 300], dtype=L.int8)),
    ("int8 -129", lambda L: L.tensor([-129], dtype=L.int8)),
    ("uint8 -1", lambda L: L.tensor([-1], dtype=L.uint8)),
    ("uint8 -256", lambda L: L.tensor([-256], dtype=L.uint8)),
    ("uint8 256", lambda L: L.tensor([256], dtype=L.uint8)),
    ("int8 1.9", lambda L: L.tensor([1.9, -1.9], dtype=L.int8)),
    ("int8 127.9", lambda L: L.tensor([127.9], dtype=L.int8)),
    ("int8 300.0", lambda L: L.tensor([300.0], dtype=L.int8)),
    ("int32 1e10", lambda L: L.tensor([1e10], dtype=L.int32)),
    ("int64 2.0**63", lambda L: L.tensor([2.0**63], dtype=L.int64)),
    ("int8 inf", lambda L: L.tensor([float("inf")], dtype=L.int8)),
    ("int64 nan", lambda L: L.tensor([float("nan")], dtype=L.int64)),
    ("uint8 -0.5", lambda L: L.tensor([-0.5], dtype=L.uint8)),
    ("float16 100000", lambda L: L.tensor([100000], dtype=L.float16)),
    ("float32 1e40", lambda L: L.tensor([1e40], dtype=L.float32)),
    ("float32 2**70", lambda L: L.tensor([2**70], dtype=L.float32)),
    ("float32 2**1030", lambda L: L.tensor([2**1030], dtype=L.float32)),
    ("2**70", lambda L: L.tensor(2**70)),
    ("[2**64]", lambda L: L.tensor([2**64])),
    ("uint32 2**32", lambda L: L.tensor([2**32], dtype=L.uint32)),
    ("uint64 -1", lambda L: L.tensor([-1], dtype=L.uint64)),
    ("uint64 2**64", lambda L: L.tensor([2**64], dtype=L.uint64)),
    ("int64 2**63", lambda L: L.tensor([2**63], dtype=L.int64)),
    ("int8 2**70", lambda L: L.tensor([2**70], dtype=L.int8)),
    ("bool 2", lambda L: L.tensor([2, 0], dtype=L.bool)),
    ("bool 1j", lambda L: L.tensor([1j], dtype=L.bool)),
    ("[1, 'a']", lambda L: L.tensor([1, "a"])),
    ("[1, None]", lambda L: L.tensor([1, None])),
    ("None", lambda L: L.tensor(None)),
    ("dict", lambda L: L.tensor({1: 2})),
    ("[dict]", lambda L: L.tensor([{1: 2}])),
    ("ragged", lambda L: L.tensor([[1, 2], [3, 4, 5]])),
    ("ragged deeper", lambda L: L.tensor([[[1, 2]], [[3, 4, 5]]])),
    ("number where a list was", lambda L: L.tensor([[1, 2], 3])),
    ("list where a number was", lambda L: L.tensor([1, [2, 3]])),
    ("tensors of two elements", lambda L: L.tensor([L.ones(2), L.ones(2)])),
    ("tensors of different shapes", lambda L: L.tensor([L.ones(2), L.ones(3)])),
    ("0-d tensor and a number", lambda L: L.tensor([L.tensor(1.0), 2.0])),
    ("1-element tensor and a number", lambda L: L.tensor([L.tensor([1.0]), 2.0])),
    ("int8 tensor and 300", lambda L: L.tensor([L.tensor(1, dtype=L.int8), 300])),
    ("float64 tensor and a float", lambda L: L.tensor([L.tensor(1.0, dtype=L.float64), 2.5])),
    ("float64 scalar and a float", lambda L: L.tensor([np.float64(1.0), 2.5])),
    ("int8 scalars", lambda L: L.tensor([np.int8(3), np.int8(4)])),
    ("object with __float__", lambda L: L.tensor([_HasFloat()])),
    ("object with __float__, float32", lambda L: L.tensor([_HasFloat()], dtype=L.float32)),
    ("complex into float32", lambda L: L.tensor([1 + 2j], dtype=L.float32)),
    ("complex 0j into float32", lambda L: L.tensor([1 + 0j], dtype=L.float32)),
    ("complex into int64", lambda L: L.tensor([1 + 2j], dtype=L.int64)),
    ("float and bool", lambda L: L.tensor([1.5, True])),
    ("int and bool", lambda L: L.tensor([True, 2])),
    ("bool and complex", lambda L: L.tensor([True, 1j])),
    ("empty", lambda L: L.tensor([])),
    ("empty nested", lambda L: L.tensor([[], []])),
    ("as_tensor int8 300", lambda L: L.as_tensor([300], dtype=L.int8)),
    ("as_tensor uint64 max", lambda L: L.as_tensor([2**64 - 1], dtype=L.uint64)),
    ("new_tensor int8 300", lambda L: L.zeros(1, dtype=L.int8).new_tensor([300])),
    ("new_tensor uint64 max", lambda L: L.zeros(1, dtype=L.uint64).new_tensor([2**64 - 1])),
    ("new_tensor 1.5 into int8", lambda L: L.zeros(1, dtype=L.int8).new_tensor([1.5])),
    ("new_tensor 2**70", lambda L: L.zeros(1, dtype=L.int8).new_tensor([2**70])),
    ("full int8 300", lambda L: L.full((2,), 300, dtype=L.int8)),
    ("full int8 300.0", lambda L: L.full((2,), 300.0, dtype=L.int8)),
    ("full int8 127.9", lambda L: L.full((2,), 127.9, dtype=L.int8)),
    ("full int8 1.5", lambda L: L.full((2,), 1.5, dtype=L.int8)),
    ("full uint8 -1", lambda L: L.full((1,), -1, dtype=L.uint8)),
    ("full uint8 -256", lambda L: L.full((1,), -256, dtype=L.uint8)),
    ("full uint64 -1", lambda L: L.full((1,), -1, dtype=L.uint64)),
    ("full uint64 max", lambda L: L.full((2,), 2**64 - 1, dtype=L.uint64)),
    ("full 2**63", lambda L: L.full((1,), 2**63)),
    ("full 2**70", lambda L: L.full((1,), 2**70)),
    ("full float32 2**70", lambda L: L.full((1,), 2**70, dtype=L.float32)),
    ("full float32 1e300", lambda L: L.full((1,), 1e300, dtype=L.float32)),
    ("full float16 1e300", lambda L: L.full((2,), 1e300, dtype=L.float16)),
    ("full int8 inf", lambda L: L.full((1,), float("inf"), dtype=L.int8)),
    ("full complex float32", lambda L: L.full((1,), 1 + 2j, dtype=L.float32)),
    ("full 1+0j float32", lambda L: L.full((1,), 1 + 0j, dtype=L.float32)),
    ("full complex bool", lambda L: L.full((1,), 1 + 2j, dtype=L.bool)),
    ("full None", lambda L: L.full((1,), None)),
    ("fill_ int8 300", lambda L: L.zeros(2, dtype=L.int8).fill_(300)),
    ("fill_ uint8 -1", lambda L: L.zeros(2, dtype=L.uint8).fill_(-1)),
    ("fill_ int32 1e10", lambda L: L.zeros(1, dtype=L.int32).fill_(1e10)),
    ("fill_ float32 1e39", lambda L: L.zeros(1).fill_(1e39)),
    ("fill_ tensor 300 into int8", lambda L: L.zeros(1, dtype=L.int8).fill_(L.tensor(300))),
    ("setitem int8 300", lambda L: _setitem(L.zeros(2, dtype=L.int8), 0, 300)),
    ("setitem int8 1.5", lambda L: _setitem(L.zeros(2, dtype=L.int8), 0, 1.5)),
    ("setitem complex into float32", lambda L: _setitem(L.zeros(2), 0, 1 + 2j)),
    ("setitem mask int8 300", lambda L: _setitem(L.zeros(2, dtype=L.int8), L.zeros(2) == 0, 300)),
    ("masked_fill int8 300", lambda L: L.zeros(1, dtype=L.int8).masked_fill(L.tensor([True]), 300)),
    ("masked_fill uint8 -1", lambda L: L.zeros(1, dtype=L.uint8).masked_fill(L.tensor([True]), -1)),
    ("index_fill int8 300", lambda L: L.zeros(1, dtype=L.int8).index_fill(0, L.tensor([0]), 300)),
    ("add int8 300", lambda L: L.add(L.ones(1, dtype=L.int8), 300)),
    ("add int8 alpha 300", lambda L: L.add(L.ones(1, dtype=L.int8), 1, alpha=300)),
    ("add int8 tensors alpha 300", lambda L: L.add(L.ones(1, dtype=L.int8), L.ones(1, dtype=L.int8), alpha=300)),
    ("sub int8 alpha 300", lambda L: L.sub(L.ones(1, dtype=L.int8), 1, alpha=300)),
    ("mul int8 300", lambda L: L.ones(1, dtype=L.int8) * 300),
    ("add int8 2**63", lambda L: L.ones(1, dtype=L.int8) + 2**63),
    ("add int8 2**64", lambda L: L.ones(1, dtype=L.int8) + 2**64),
    ("add int64 2**62+1", lambda L: L.zeros(1, dtype=L.int64) + (2**62 + 1)),
    ("clamp int8 max 300", lambda L: L.clamp(L.ones(1, dtype=L.int8), max=300)),
    ("clamp int8 min -300", lambda L: L.clamp(L.ones(1, dtype=L.int8), min=-300)),
    ("clamp uint8 min -1", lambda L: L.clamp(L.ones(1, dtype=L.uint8), min=-1)),
    ("clamp int8 max 1.5", lambda L: L.clamp(L.ones(1, dtype=L.int8), max=1.5)),
    ("where int8 300", lambda L: L.where(L.tensor([True]), L.ones(1, dtype=L.int8), 300)),
    ("eq int8 300", lambda L: L.tensor([44], dtype=L.int8) == 300),
    ("add uint8 -1", lambda L: L.ones(1, dtype=L.uint8) + (-1)),
    ("pow int8 300", lambda L: L.ones(1, dtype=L.int8) ** 300),
    ("2**70 - int8", lambda L: 2**70 - L.ones(1, dtype=L.int8)),
    ("lt int8 2**70", lambda L: L.ones(1, dtype=L.int8) < 2**70),
    ("pad int8 300", lambda L: L.nn.functional.pad(L.ones(1, dtype=L.int8), (1, 1), value=300)),
    ("pad int8 1.5", lambda L: L.nn.functional.pad(L.ones(1, dtype=L.int8), (1, 1), value=1.5)),
    ("hardtanh int8 300", lambda L: L.nn.functional.hardtanh(L.ones(1, dtype=L.int8), -300, 300)),
    ("hardtanh int8 5", lambda L: L.nn.functional.hardtanh(L.ones(3, dtype=L.int8) * 9, -5, 5)),
    ("linspace int8 300", lambda L: L.linspace(0, 300, 2, dtype=L.int8)),
    ("linspace int8 100", lambda L: L.linspace(0, 100, 3, dtype=L.int8)),
]


class _HasFloat:
    def __float__(self) -> float:
        return 2.5


def _setitem(t, index, value):
    t[index] = value
    return t


def _outcome(lib, build):
    try:
        t = build(lib)
    except (TypeError, RuntimeError, ValueError, OverflowError) as exc:
        return type(exc)
    return str(t.dtype).rpartition(".")[2], t.tolist()


@needs_torch
@pytest.mark.parametrize(("name", "build"), DIFFERENTIAL, ids=[name for name, _ in DIFFERENTIAL])
def test_same_outcome_as_torch(name, build):
    expected = _outcome(torch, build)
    got = _outcome(ember, build)
    if isinstance(expected, type):
        assert got is expected, f"{name}: torch raises {expected.__name__}, ember gives {got}"
        return
    assert not isinstance(got, type), f"{name}: torch gives {expected}, ember raises {got.__name__}"
    assert got[0] == expected[0], name
    np.testing.assert_array_equal(np.array(got[1], dtype=object), np.array(expected[1], dtype=object), err_msg=name)


# --- a double anywhere in the data makes the result double (not only the first element) ---------

_DOUBLE_DATA = {
    "float_then_np_float64": ([2.5, np.float64(1.0)], "float64"),
    "int_then_np_float64": ([1, np.float64(1.0)], "float64"),
    "bool_then_np_float64": ([True, np.float64(1.0)], "float64"),
    "np_float32_then_np_float64": ([np.float32(1.0), np.float64(2.0)], "float64"),
    "float_then_np_complex128": ([2.5, np.complex128(1)], "complex128"),
    "complex_then_np_float64": ([1j, np.float64(1.0)], "complex128"),
    "nested": ([[1.0, 2.0], [3.0, np.float64(1.0)]], "float64"),
    "long": ([float(i) for i in range(100)] + [np.float64(1e308), np.float64(1e308)], "float64"),
    "long_nested": ([[1.5] * 50, [2.5] * 49 + [np.float64(1)]], "float64"),
    "float_then_np_float32": ([2.5, np.float32(1.0)], "float32"),
    "float_then_np_float16": ([2.5, np.float16(1.0)], "float32"),
    "float_then_np_int32": ([1.5, np.int32(2)], "float32"),
    "float_then_np_complex64": ([2.5, np.complex64(1)], "complex64"),
    "floats_only": ([1.5] * 100, "float32"),
    "nested_floats_only": ([[1.5] * 50] * 3, "float32"),
    "ragged": ([[1.5, 2.5], [3.5]], None),
}


@pytest.mark.parametrize("name", sorted(_DOUBLE_DATA))
def test_a_double_anywhere_makes_the_result_double(name):
    data, expected = _DOUBLE_DATA[name]
    if expected is None:
        with pytest.raises(ValueError):
            ember.tensor(data)
        return
    assert ember.tensor(data).dtype == getattr(ember, expected)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float16", "int16"])
def test_a_tensor_past_the_first_element_takes_part_in_the_inference(dtype):
    data = [2.5] * 40 + [ember.tensor(1, dtype=getattr(ember, dtype))]
    expected = {"float64": "float64", "complex128": "complex128"}.get(dtype, "float32")
    out = ember.tensor(data)
    assert out.dtype == getattr(ember, expected)
    assert out.tolist()[-1] == 1


@needs_torch
@pytest.mark.parametrize("name", sorted(k for k, (_, dt) in _DOUBLE_DATA.items() if dt is not None))
def test_a_double_anywhere_matches_torch(name):
    data = _DOUBLE_DATA[name][0]
    assert str(ember.tensor(data).dtype).split(".")[-1] == str(torch.tensor(data).dtype).split(".")[-1]
    np.testing.assert_array_equal(ember.tensor(data).numpy(), torch.tensor(data).numpy())
