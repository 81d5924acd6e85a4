"""Arguments refused where the generated functions convert them: a size list left out, an int
beyond int64, a parameter PyTorch requires. Parametrized over the schema, so a new entry with a
size list is covered the moment it is declared."""

import numpy as np
import pytest

import ember
from ember.ops import args as _args, codegen, functional
from ember.ops.schema import load_schema
from tests._oracle import needs_torch, torch

ENTRIES = load_schema()


def _function(entry):
    target = functional.NAMESPACES[entry.namespace] if entry.namespace else functional.FUNCTIONS
    return target[entry.short_name]


def _size_varargs(entry):
    param = codegen.vararg_param(list(entry.signatures))
    return param if param is not None and param.type.base == "IntList" else None


SIZE_VARARGS = [e for e in ENTRIES if _size_varargs(e) is not None]
FACTORIES = [e for e in SIZE_VARARGS if len(e.signatures[0].positional) == 1]


def _leading(entry) -> list:
    """A tensor for each positional parameter before the size list (they are all tensors)."""
    return [ember.ones(2, 3) for _ in entry.signatures[0].positional[:-1]]


def test_the_size_vararg_entries_include_every_factory_and_shape_method():
    names = {e.name for e in SIZE_VARARGS}
    assert {"empty", "zeros", "ones", "rand", "randn", "reshape", "expand", "permute", "repeat", "tile"} <= names
    assert {"Tensor.new_empty", "Tensor.new_zeros", "Tensor.new_ones"} <= names


@pytest.mark.parametrize("entry", SIZE_VARARGS, ids=lambda e: e.name)
def test_a_size_list_left_out_is_missing(entry):
    param = _size_varargs(entry)
    with pytest.raises(TypeError, match=rf'{entry.name}\(\) missing 1 required positional arguments: "{param.name}"'):
        _function(entry)(*_leading(entry))


@pytest.mark.parametrize("entry", FACTORIES, ids=lambda e: e.name)
def test_an_empty_size_is_a_zero_dim_tensor(entry):
    fn = _function(entry)
    assert fn(()).shape == ()
    assert fn([]).shape == ()
    assert fn(2, 3).shape == fn((2, 3)).shape == (2, 3)


@needs_torch
@pytest.mark.parametrize("entry", FACTORIES, ids=lambda e: e.name)
def test_torch_refuses_the_same_factory_call(entry):
    with pytest.raises(TypeError):
        getattr(torch, entry.name)()


def test_tensor_view_without_a_size_is_missing():
    x = ember.ones(2, 3)
    with pytest.raises(TypeError, match=r'view\(\) missing 1 required positional arguments: "size"'):
        x.view()
    assert ember.ones(1).view(()).shape == ()


# ---------------------------------------------------------------------------------------
# ints beyond int64: PyTorch unpacks every int argument as a C long long

_X = ember.ones(2, 3)

INT_OVERFLOWS = {
    "chunk": (lambda: ember.chunk(_X, 2**64), "chunks"),
    "select": (lambda: _X.select(0, 2**64), "index"),
    "narrow": (lambda: ember.narrow(_X, 0, 0, 2**63), "length"),
    "topk": (lambda: _X.topk(2**64), "k"),
    "transpose": (lambda: _X.transpose(0, -(2**63) - 1), "dim1"),
    "cumsum": (lambda: _X.cumsum(2**64), "dim"),
}
INT_LIST_OVERFLOWS = {
    "sum": (lambda: _X.sum(2**64), "dim"),
    "sum(tuple)": (lambda: _X.sum((0, 2**64)), "dim"),
    "view": (lambda: _X.view(-1, 2**64), "size"),
    "reshape": (lambda: _X.reshape(2**63), "shape"),
    "permute": (lambda: _X.permute(0, 2**64), "dims"),
    "Tensor.new_ones": (lambda: _X.new_ones(2**64), "size"),
    "repeat": (lambda: _X.repeat(2**64, 1), "repeats"),
    "ones": (lambda: ember.ones(2**63), "size"),
    "zeros(numpy)": (lambda: ember.zeros(np.uint64(2**64 - 1)), "size"),
}


@pytest.mark.parametrize("name", INT_OVERFLOWS)
def test_an_int_beyond_int64_is_refused(name):
    call, param = INT_OVERFLOWS[name]
    with pytest.raises(ValueError, match=rf"{name}\(\): argument '{param}' .*Overflow when unpacking long long"):
        call()


@pytest.mark.parametrize("name", INT_LIST_OVERFLOWS)
def test_an_int_list_element_beyond_int64_is_refused(name):
    call, param = INT_LIST_OVERFLOWS[name]
    op = name.split("(")[0]
    with pytest.raises(
        TypeError,
        match=rf"{op}\(\): argument '{param}' .*failed to unpack the object at pos \d.*Overflow when unpacking long long",
    ):
        call()


def test_int64_limits_themselves_pass():
    assert len(_X.chunk(2**63 - 1)) == 2
    assert _args.to_int(np.int64(2**63 - 1), "f", "n", 1) == 2**63 - 1
    assert _args.to_int_list((2**63 - 1, -(2**63)), "f", "n", 1) == (2**63 - 1, -(2**63))
    with pytest.raises(ValueError, match="Overflow"):
        _args.to_int(2**63, "f", "n", 1)
    with pytest.raises(TypeError, match="pos 2"):
        _args.to_int_list([1, -(2**63) - 1], "f", "n", 1)


@needs_torch
@pytest.mark.parametrize("name", INT_OVERFLOWS)
def test_torch_refuses_the_same_int(name):
    # the same calls on torch: the lambdas read ember's tensor, so rebuild them over torch's
    x = torch.ones(2, 3)
    calls = {
        "chunk": lambda: torch.chunk(x, 2**64),
        "select": lambda: x.select(0, 2**64),
        "narrow": lambda: torch.narrow(x, 0, 0, 2**63),
        "topk": lambda: x.topk(2**64),
        "transpose": lambda: x.transpose(0, -(2**63) - 1),
        "cumsum": lambda: x.cumsum(2**64),
    }
    with pytest.raises((ValueError, RuntimeError, TypeError), match="Overflow when unpacking long"):
        calls[name]()


# ---------------------------------------------------------------------------------------
# parameters PyTorch requires


REQUIRED = {
    "logsumexp": (lambda x: ember.logsumexp(x), "dim"),
    "Tensor.logsumexp": (lambda x: x.logsumexp(), "dim"),
    "flip": (lambda x: ember.flip(x), "dims"),
    "Tensor.flip": (lambda x: x.flip(), "dims"),
    "cumsum": (lambda x: ember.cumsum(x), "dim"),
}


@pytest.mark.parametrize("name", REQUIRED)
def test_a_parameter_torch_requires_is_required(name):
    call, param = REQUIRED[name]
    with pytest.raises(TypeError, match=rf"missing 1 required positional argument.*{param}"):
        call(ember.ones(2, 3))


def test_keyword_spellings_still_give_a_required_parameter():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert ember.flip(x, axis=0).tolist() == [[3.0, 4.0], [1.0, 2.0]]
    assert ember.cumsum(x, axis=1).tolist() == [[1.0, 3.0], [3.0, 7.0]]
    assert ember.logsumexp(x, axis=1, keepdims=True).shape == (2, 1)


def test_flip_with_no_dims_reverses_nothing():
    x = ember.tensor([[1, 2], [3, 4]])
    assert ember.flip(x, ()).tolist() == [[1, 2], [3, 4]]
    assert ember.array_api.flip(ember.array_api.asarray([[1, 2], [3, 4]])).tolist() == [[4, 3], [2, 1]]


def test_a_float_argument_past_float64_is_an_overflow_naming_the_argument():
    with pytest.raises(OverflowError, match=r"dropout\(\): argument 'p' \(position 2\) is an int too large to convert to float"):
        ember.nn.functional.dropout(ember.ones(3), -(10**400))
