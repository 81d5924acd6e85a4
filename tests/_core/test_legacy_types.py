"""PyTorch's legacy tensor types (FloatTensor, ...), Tensor.type() and Tensor.__format__."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

LEGACY = {
    "FloatTensor": ember.float32,
    "DoubleTensor": ember.float64,
    "HalfTensor": ember.float16,
    "BFloat16Tensor": ember.bfloat16,
    "LongTensor": ember.int64,
    "IntTensor": ember.int32,
    "ShortTensor": ember.int16,
    "CharTensor": ember.int8,
    "ByteTensor": ember.uint8,
    "BoolTensor": ember.bool,
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_constructor_forms_give_the_type_dtype(name):
    cls, dtype = getattr(ember, name), LEGACY[name]
    sized = cls(2, 3)
    assert sized.shape == (2, 3) and sized.dtype is dtype
    assert cls(ember.Size([4])).shape == (4,) and cls().shape == (0,)
    data = cls([1, 0, 1])
    assert data.dtype is dtype and data.tolist() == [1, 0, 1] if dtype is not ember.bool else [True, False, True]
    assert cls((2, 3)).shape == (2,)  # a tuple is data, as in PyTorch; a Size is sizes
    assert isinstance(data, cls) and isinstance(data, ember.Tensor)
    other = next(c for n, c in LEGACY.items() if c is not dtype)
    assert not isinstance(ember.zeros(1, dtype=other), cls)
    assert data.type() == f"torch.{name}" and ember.zeros(1, dtype=ember.float64).type(cls).dtype is dtype


def test_constructor_converts_data_and_aliases_a_tensor_of_its_dtype():
    assert ember.LongTensor([1.7, -2.2]).tolist() == [1, -2]
    assert ember.FloatTensor(np.array([1, 2])).tolist() == [1.0, 2.0]
    z = ember.zeros(3)
    alias = ember.FloatTensor(z)
    alias[0] = 5.0
    assert z[0].item() == 5.0 and alias is not z
    assert ember.Tensor(2, 3).dtype is ember.get_default_dtype() and ember.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert isinstance(ember.nn.Parameter(ember.zeros(2)), ember.FloatTensor)
    assert not isinstance(ember.zeros(1, device="meta"), ember.FloatTensor)
    assert not issubclass(ember.Tensor, ember.FloatTensor) and repr(ember.FloatTensor) == "<class 'ember.FloatTensor'>"


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda: ember.FloatTensor("a"), TypeError, "invalid data type 'str'"),
        (lambda: ember.FloatTensor(2.0), TypeError, r"data must be a sequence \(got float\)"),
        (lambda: ember.FloatTensor(2, "a"), TypeError, r"FloatTensor\(\): expected sizes"),
        (lambda: ember.FloatTensor([1], [2]), TypeError, r"got \(list, list\)"),
        (lambda: ember.FloatTensor(-1), RuntimeError, "negative dimension -1"),
        (lambda: ember.FloatTensor(ember.zeros(2, dtype=ember.int64)), TypeError, "expected a tensor of dtype ember.float32"),
        (lambda: ember.FloatTensor(2, dtype=ember.float64), TypeError, "unexpected keyword argument 'dtype'"),
        (lambda: ember.FloatTensor(2, device="cuda"), RuntimeError, "legacy constructor expects device type: cpu"),
        (lambda: ember.tensor([1.0]).type("foo"), ValueError, "invalid type: 'foo'"),
        (lambda: ember.tensor([1.0]).type("torch.float64"), ValueError, "invalid type"),
        (lambda: ember.tensor([1.0]).type("torch.cuda.FloatTensor"), RuntimeError, "no cuda device"),
        (lambda: ember.tensor([1.0]).type(3), TypeError, "dtype must be a type, str, or dtype object"),
    ],
)
def test_bad_calls_raise_as_pytorch(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_type_conversions():
    t = ember.tensor([1.5, 2.5])
    assert t.type() == "torch.FloatTensor" and ember.zeros(1, device="meta").type() == "torch.meta.FloatTensor"
    assert t.type(ember.LongTensor).tolist() == [1, 2] and t.type("torch.IntTensor").dtype is ember.int32
    assert t.type("ember.DoubleTensor").dtype is ember.float64 and t.type(ember.float16).dtype is ember.float16
    assert t.type(ember.FloatTensor) is t and t.type(ember.float32, non_blocking=True) is t
    assert ember.zeros(1, dtype=ember.complex64).type() == "torch.ComplexFloatTensor"


def test_set_default_tensor_type_warns_and_sets_the_dtype():
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            ember.set_default_tensor_type(ember.DoubleTensor)
        assert ember.tensor([1.0]).dtype is ember.float64 and ember.Tensor(1).dtype is ember.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ember.set_default_tensor_type("torch.FloatTensor")
        assert ember.get_default_dtype() is ember.float32
        with pytest.raises(TypeError, match="only floating-point types"):
            ember.set_default_tensor_type(ember.LongTensor)
        with pytest.raises(TypeError, match="only floating-point types"):
            ember.set_default_tensor_type(ember.float64)
    finally:
        ember.set_default_dtype(ember.float32)


@needs_torch
@pytest.mark.parametrize("name", sorted(LEGACY))
def test_matches_torch(name):
    ours, theirs = getattr(ember, name), getattr(torch, name)
    for data in ([1.7, 2.0, 0.0], [[1, 2], [3, 4]]):
        a, b = ours(data), theirs(data)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        assert a.tolist() == b.tolist() and a.type() == b.type()
    assert tuple(ours(2, 5).shape) == tuple(theirs(2, 5).shape)


# --- __format__ ---------------------------------------------------------------------------------


def test_format_of_a_0d_tensor_is_that_of_its_number():
    loss, acc = ember.tensor(0.123456), ember.tensor(0.5)
    assert f"{loss:>7f}" == format(loss.item(), ">7f") and f"{acc:.2%}" == "50.00%"
    assert f"{loss:.3}" == "0.123" and f"{ember.tensor(3):5}" == "    3" and f"{ember.tensor(True)}" == "True"
    assert format(ember.tensor(1.5, requires_grad=True), ".2f") == "1.50"
    assert f"{ember.tensor([1.5])}" == str(ember.tensor([1.5]))


def test_format_of_other_tensors_takes_only_the_empty_spec():
    with pytest.raises(TypeError, match=r"unsupported format string passed to Tensor\.__format__"):
        f"{ember.tensor([1.0, 2.0]):.2f}"
    with pytest.raises(TypeError, match="unsupported format string"):
        format(ember.zeros((), device="meta"), ".2f")


@needs_torch
@pytest.mark.parametrize("spec", ["", ">7f", ".2%", ".3", "e", "+.1f", "10.4g"])
@pytest.mark.parametrize("value", [0.123456, -3.0, 1e-8])
def test_format_matches_torch(spec, value):
    assert format(ember.tensor(value), spec) == format(torch.tensor(value), spec)
    assert format(ember.tensor(value, dtype=ember.float64), spec) == format(torch.tensor(value, dtype=torch.float64), spec)


# --- small Tensor habits: new, type_as, is_floating_point ------------------------------------------


def test_new_type_as_and_dtype_predicates():
    x = ember.tensor([1, 2], dtype=ember.int32)
    assert x.new(2, 3).dtype is ember.int32 and x.new(2, 3).shape == (2, 3) and x.new([7]).tolist() == [7]
    assert x.new().shape == (0,) and x.new([1.9]).dtype is ember.int32
    assert ember.tensor([1.7, -1.2]).type_as(x).tolist() == [1, -1] and x.type_as(x) is x
    assert not x.is_floating_point() and ember.is_floating_point(x.float()) and x.is_signed() and x.ndimension() == 1
    assert ember.is_complex(ember.tensor([1j])) and not ember.zeros(1, dtype=ember.uint8).is_signed()
