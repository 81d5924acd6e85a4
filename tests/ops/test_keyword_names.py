"""Argument names as PyTorch spells them: every schema entry's parameters against torch's own
schemas (``torch._C._jit_get_schemas_for_operator``; ``inspect.signature`` cannot read torch's
builtins), and the keyword forms of the size and dims lists that also come as varargs."""

from __future__ import annotations

import inspect

import pytest

import ember
from ember.ops.schema import load_schema
from tests._oracle import needs_torch, torch

# torch parameters no entry needs to take: out= is generated from the entry's `out` key; the
# others are TorchScript-only or select kernels (cudnn), layouts or memory formats ember has none of
IGNORED = {"out", "memory_format", "layout", "pin_memory", "names", "cudnn_enabled", "cudnn_enable", "out_dtype"}

# entry -> torch names it does not take yet, with the reason
KNOWN = {
    "elu": ({"scale", "input_scale"}, "torch.elu's internal scales; nn.functional.elu, the public face, has neither"),
    "expand": ({"implicit"}, "TorchScript's flag; no Python program passes it"),
    "split": (
        {"split_size", "split_sizes"},
        "torch.split(tensor, split_size_or_sections) and Tensor.split(split_size) spell it apart",
    ),
    "tensor_split": ({"sections", "indices", "tensor_indices_or_sections"}, "one parameter here for torch's three overloads"),
    "max": ({"other"}, "max(input, other) is taken positionally only"),
    "min": ({"other"}, "min(input, other) is taken positionally only"),
    "sort": ({"values", "indices"}, "the names of out= tensors"),
    "topk": ({"values", "indices"}, "the names of out= tensors"),
    "kthvalue": ({"values", "indices"}, "the names of out= tensors"),
    "tensordot": (
        {"input", "other", "dims_self", "dims_other"},
        "torch.tensordot(a, b, dims) is a Python function: these are aten's",
    ),
    "dropout": ({"train"}, "nn.functional.dropout(input, p, training, inplace) is a Python function: train is aten's"),
    "embedding": ({"indices"}, "nn.functional.embedding(input, weight, ...) is a Python function: indices is aten's"),
    "index": ({"el"}, "TorchScript's list overload"),
    "einsum": ({"tensors", "path", "a"}, "torch.einsum(equation, *operands) is a Python function: these are aten's"),
    "view": ({"dtype"}, "the entry is the size form; Tensor.view, written by hand, also takes dtype="),
    "stft": ({"align_to_window"}, "not supported yet: frames are windowed as torch does with align_to_window left unset"),
    "isin": ({"test_element"}, "torch names its Scalar overload's second argument test_element; one name for all overloads here"),
}


def _torch_names(name: str) -> set[str]:
    names = set()
    for schema in torch._C._jit_get_schemas_for_operator(f"aten::{name}"):
        args = schema.arguments
        if not args or str(args[0].type) != "Tensor" or "out" in schema.overload_name or "Dimname" in str(schema):
            continue  # TorchScript's scalar and list overloads, out= variants, named tensors
        if any(a.alias_info is not None and a.alias_info.is_write for a in args):
            continue  # an out= variant under another name (max.dim_max)
        names.update("input" if a.name == "self" else a.name for a in args)
    return names


def _entries():
    return [e for e in load_schema() if "." not in e.name and not e.name.startswith("Tensor.")]


@needs_torch
@pytest.mark.parametrize("entry", _entries(), ids=lambda e: e.name)
def test_parameter_names_are_torchs(entry):
    mine = {p.name for s in entry.signatures for p in s.params}
    for name in (entry.name, *entry.aliases):
        missing = _torch_names(name) - mine - IGNORED - KNOWN.get(name, (set(), ""))[0]
        assert not missing, f"{name}: torch takes {sorted(missing)} by keyword, the entry does not ({sorted(mine)})"


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: e.name)
def test_every_parameter_is_a_keyword(entry):
    """The generated function takes each schema parameter by its name (varargs lists too)."""
    fn = getattr(ember, entry.python_name, None)
    if fn is None or not callable(fn):
        pytest.skip(f"{entry.name} is not a top-level function")
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        pytest.skip(f"{entry.name} has no readable signature")
    if not any(p.kind is p.VAR_POSITIONAL for p in params.values()) and "input" not in params and "tensors" not in params:
        pytest.skip(f"{entry.name} is written by hand")
    for sig in entry.signatures:
        for p in sig.params:
            if (
                p.type.base == "TensorList"
                and params.get(p.name, None) is not None
                and params[p.name].kind is params[p.name].VAR_POSITIONAL
            ):
                continue  # meshgrid(*tensors), einsum(equation, *operands): Python functions in torch as well
            assert p.name in params and params[p.name].kind is not params[p.name].VAR_POSITIONAL, (
                entry.name,
                p.name,
                list(params),
            )


def test_size_and_dims_lists_by_keyword():
    x = ember.arange(6).reshape(2, 3)
    assert ember.flip(x, dims=(0,)).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x.flip(dims=1).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert x.flip(0, 1).tolist() == x.flip((0, 1)).tolist() == [[5, 4, 3], [2, 1, 0]]
    assert ember.zeros(size=(2, 3)).shape == ember.zeros(2, 3).shape == (2, 3)
    assert x.reshape(shape=(3, 2)).shape == (3, 2)
    assert x.permute(dims=(1, 0)).shape == (3, 2)
    assert x.repeat(repeats=(2, 1)).shape == (4, 3)
    assert x.tile(dims=(1, 2)).shape == (2, 6)
    assert x.expand(size=(2, 2, 3)).shape == (2, 2, 3)
    assert x.view(size=(3, 2)).shape == (3, 2) and x.view(size=6).shape == (6,)
    assert x.float().view(dtype=ember.int32).dtype == ember.int32
    with pytest.raises(TypeError, match="got multiple values for argument 'dims'"):
        ember.flip(x, 0, dims=1)
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dims"'):
        ember.flip(x)


def test_renamed_parameters():
    x = ember.arange(6.0).reshape(2, 3)
    assert ember.swapaxes(x, axis0=0, axis1=1).shape == x.swapaxes(axis0=1, axis1=0).shape == (3, 2)
    assert ember.swapdims(x, dim0=0, dim1=1).shape == (3, 2)
    assert ember.dot(ember.ones(2), tensor=ember.ones(2)).item() == 2.0
    assert ember.matrix_power(input=ember.eye(2) * 2, n=2).tolist() == [[4.0, 0.0], [0.0, 4.0]]
    assert ember.linalg.matrix_power(A=ember.eye(2), n=3).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert ember.nn.functional.one_hot(input=ember.tensor([1]), num_classes=3).tolist() == [[0, 1, 0]]


@needs_torch
def test_renamed_parameters_are_torchs():
    x = torch.arange(6.0).reshape(2, 3)
    assert torch.swapaxes(x, axis0=0, axis1=1).shape == (3, 2)
    assert torch.dot(torch.ones(2), tensor=torch.ones(2)).item() == 2.0
    assert torch.matrix_power(input=torch.eye(2), n=2).shape == (2, 2)
    assert torch.nn.functional.one_hot(input=torch.tensor([1]), num_classes=3).tolist() == [[0, 1, 0]]
    assert torch.flip(x, dims=(0,)).tolist() == ember.flip(ember.tensor(x.numpy()), dims=(0,)).tolist()
    assert x.view(size=(3, 2)).shape == (3, 2)
