"""Every op that takes an index tensor checks it before its kernel runs: the dtype, the number of
dimensions and the range (one rule per op in ``ember/ops/indexing/_common.py``). No index wraps
around silently: negatives count from the end only where PyTorch counts them so (``t[idx]``,
take, put, index_fill, take_along_dim with a dim), and out-of-range ones raise PyTorch's error.

Each test asserts ember's own exception and message (the op or the bad index named); with torch
installed, it also checks that torch refuses the same call, or agrees on the accepted one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from tests._oracle import REFUSALS, needs_torch, torch

pytestmark = pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")


@dataclass(frozen=True)
class Case:
    """One op called on a 1-d input of 3 elements with the index ``i`` (built by the caller)."""

    call: Callable  # (lib, F, i) -> tensor
    range_error: type  # what an index out of range raises ...
    range_match: str  # ... with this message ({bad} is the bad index)
    dtype_error: type  # what a float or bool index raises ...
    dtype_match: str  # ... with this message
    negative: bool  # negatives in [-3, 0) count from the end (as PyTorch's)
    int32: bool = True  # takes int32 indices (as PyTorch's)
    vector_only: str | None = None  # the message refusing a 2-d index, where the op takes vectors only
    torch_wraps: bool = False  # PyTorch wraps out-of-range indices modulo the size (a silent wrong answer ember refuses)


def _ones(lib, i, n=None):
    return lib.ones(int(i.numel()) if n is None else n)


def _setitem(lib, F, i):
    x = lib.zeros(3)
    x[i] = 1.0
    return x


def _along(op):
    return rf"{op}\(\): index {{bad}} is out of bounds for dimension 0 with size 3"


_ALONG_DTYPE = r"{op}\(\): Expected dtype int32/int64 for index"
_NDIM = "Index tensor must have the same number of dimensions as self tensor"
_IN_SELF = r"{op}\(\): index out of range in self \(index {{bad}} for dimension 0 with size 3\)"
_INDICES = "tensors used as indices must be long, int, byte or bool tensors"
_OUT_OF_BOUNDS = r"index {bad} is out of bounds for dimension 0 with size 3"

CASES = {
    "gather": Case(
        lambda lib, F, i: lib.gather(lib.arange(3.0), 0, i),
        RuntimeError, _along("gather"), RuntimeError, _ALONG_DTYPE.format(op="gather"), False, vector_only=_NDIM,
    ),
    "scatter": Case(
        lambda lib, F, i: lib.zeros(3).scatter(0, i, lib.ones(5)),
        RuntimeError, _along("scatter"), RuntimeError, _ALONG_DTYPE.format(op="scatter"), False, vector_only=_NDIM,
    ),
    "scatter(value)": Case(
        lambda lib, F, i: lib.zeros(3).scatter(0, i, 2.0),
        RuntimeError, _along("scatter"), RuntimeError, _ALONG_DTYPE.format(op="scatter"), False, vector_only=_NDIM,
    ),
    "scatter(reduce=add)": Case(
        lambda lib, F, i: lib.zeros(3).scatter(0, i, lib.ones(5), reduce="add"),
        RuntimeError, _along("scatter"), RuntimeError, _ALONG_DTYPE.format(op="scatter"), False, vector_only=_NDIM,
    ),
    "scatter_add": Case(
        lambda lib, F, i: lib.zeros(3).scatter_add(0, i, lib.ones(5)),
        RuntimeError, _along("scatter_add"), RuntimeError, _ALONG_DTYPE.format(op="scatter_add"), False, vector_only=_NDIM,
    ),
    "scatter_reduce": Case(
        lambda lib, F, i: lib.zeros(3).scatter_reduce(0, i, lib.ones(5), "amax"),
        RuntimeError, _along("scatter_reduce"), RuntimeError, _ALONG_DTYPE.format(op="scatter_reduce"), False,
        vector_only=_NDIM,
    ),
    "index_select": Case(
        lambda lib, F, i: lib.arange(3.0).index_select(0, i),
        IndexError, _IN_SELF.format(op="index_select"), RuntimeError,
        r"index_select\(\): Expected dtype int32 or int64 for index", False, vector_only="Index is supposed to be a vector",
    ),
    "index_add": Case(
        lambda lib, F, i: lib.zeros(3).index_add(0, i, _ones(lib, i)),
        IndexError, _IN_SELF.format(op="index_add"), RuntimeError, r"index_add\(\): Expected dtype int32/int64 for index",
        False, vector_only="Index is supposed to be a vector",
    ),
    "index_copy": Case(
        lambda lib, F, i: lib.zeros(3).index_copy(0, i, _ones(lib, i)),
        IndexError, r"index_copy\(\): " + _OUT_OF_BOUNDS, RuntimeError, r"index_copy\(\): Expected a long tensor for index",
        False, int32=False, vector_only="Index should have dimension 1 or 0",
    ),
    "index_fill": Case(
        lambda lib, F, i: lib.zeros(3).index_fill(0, i, 1.0),
        IndexError, r"index_fill\(\): " + _OUT_OF_BOUNDS, IndexError, r"index_fill\(\): Expected dtype int64 for index",
        True, int32=False, vector_only="Index has to be a vector/scalar",
    ),
    "index_fill(tensor)": Case(
        lambda lib, F, i: lib.zeros(3).index_fill(0, i, lib.tensor(1.0)),
        IndexError, r"index_fill\(\): " + _OUT_OF_BOUNDS, IndexError, r"index_fill\(\): Expected dtype int64 for index",
        True, int32=False, vector_only="Index has to be a vector/scalar",
    ),
    "take": Case(
        lambda lib, F, i: lib.take(lib.arange(3.0), i),
        IndexError, r"take\(\): out of range: tried to access index {bad} on a tensor of 3 elements", RuntimeError,
        r"take\(\): Expected a long tensor for index", True, int32=False,
    ),
    "put": Case(
        lambda lib, F, i: lib.zeros(3).put(i, _ones(lib, i)),
        IndexError, r"put_\(\): out of range: tried to access index {bad} on a tensor of 3 elements", RuntimeError,
        r"put_\(\): Expected a long tensor for index", True, int32=False,
    ),
    "take_along_dim(dim=0)": Case(
        lambda lib, F, i: lib.take_along_dim(lib.arange(3.0), i, dim=0),
        RuntimeError, _along("gather"), RuntimeError, r"take_along_dim\(\): dtype of indices should be Long", True,
        int32=False, vector_only="input and indices should have the same number of dimensions", torch_wraps=True,
    ),
    "take_along_dim(dim=None)": Case(  # PyTorch gathers from the flattened input: no negatives
        lambda lib, F, i: lib.take_along_dim(lib.arange(3.0), i),
        RuntimeError, _along("gather"), RuntimeError, _ALONG_DTYPE.format(op="gather"), False,
    ),
    "x[i]": Case(lambda lib, F, i: lib.arange(3.0)[i], IndexError, _OUT_OF_BOUNDS, IndexError, _INDICES, True),
    "x[i] = v": Case(_setitem, IndexError, _OUT_OF_BOUNDS, IndexError, _INDICES, True),
    "index_put": Case(
        lambda lib, F, i: lib.zeros(3).index_put((i,), lib.tensor(1.0), accumulate=True),
        IndexError, _OUT_OF_BOUNDS, IndexError, _INDICES, True,
    ),
    "embedding": Case(
        lambda lib, F, i: F.embedding(i, lib.ones(3, 2)),
        IndexError, _IN_SELF.format(op="embedding"), RuntimeError,
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int", False,
    ),
    "one_hot": Case(
        lambda lib, F, i: F.one_hot(i, 3),
        RuntimeError, r"Class values must be (non-negative|smaller than num_classes)\. \(one_hot\(\) got {bad}", RuntimeError,
        "one_hot is only applicable to index tensor of type LongTensor", False, int32=False,
    ),
    "nll_loss": Case(
        lambda lib, F, i: F.nll_loss(lib.zeros(int(i.numel()), 3), i, reduction="sum"),
        IndexError, r"Target {bad} is out of bounds\.", RuntimeError, "expected target dtype to be Long or Byte", False,
        int32=False,
    ),
    "cross_entropy": Case(
        lambda lib, F, i: F.cross_entropy(lib.zeros(int(i.numel()), 3), i, reduction="sum"),
        IndexError, r"Target {bad} is out of bounds\.", RuntimeError, "expected target dtype to be Long or Byte", False,
        int32=False,
    ),
}  # fmt: skip

# the ops whose bool index is a mask, not an index (t[mask])
_MASKS = {"x[i]", "x[i] = v", "index_put"}


def _lib(name: str):
    return (torch, torch.nn.functional) if name == "torch" else (ember, EF)


def _call(name: str, case: Case, values, dtype: str = "int64"):
    lib, F = _lib(name)
    return case.call(lib, F, lib.tensor(values, dtype=getattr(lib, dtype)))


def _refused(case: Case, values, error: type, match: str, dtype: str = "int64", torch_refuses: bool = True):
    """ember refuses the call with ``error`` and ``match``; torch (when installed) refuses it too."""
    with pytest.raises(error, match=match):
        _call("ember", case, values, dtype)
    if torch is not None and torch_refuses:
        with pytest.raises(REFUSALS):
            _call("torch", case, values, dtype)


def _same_as_torch(got, case: Case, values, dtype: str = "int64"):
    if torch is not None:
        want = _call("torch", case, values, dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), equal_nan=True)


@pytest.mark.parametrize("op", CASES)
def test_negative_index_is_refused_or_counts_from_the_end(op):
    case = CASES[op]
    if not case.negative:
        _refused(case, [-1, 0], case.range_error, case.range_match.format(bad=-1))
        return
    got = _call("ember", case, [-1, 0])
    assert got.tolist() == _call("ember", case, [2, 0]).tolist()  # -1 is the last position
    _same_as_torch(got, case, [-1, 0])


@pytest.mark.parametrize("op", CASES)
def test_index_out_of_range_is_refused(op):
    case = CASES[op]
    _refused(case, [0, 3], case.range_error, case.range_match.format(bad=3), torch_refuses=not case.torch_wraps)
    if case.negative:  # one past the start, counted from the end
        with pytest.raises(case.range_error, match=case.range_match.format(bad=-4)):
            _call("ember", case, [0, -4])


@pytest.mark.parametrize("dtype", ["float32", "bool", "int32"])
@pytest.mark.parametrize("op", CASES)
def test_index_dtype_is_checked(op, dtype):
    case = CASES[op]
    if dtype == "bool" and op in _MASKS:
        pytest.skip("a bool index is a mask there")
    values = [1, 0]
    if dtype == "int32" and case.int32:
        got = _call("ember", case, values, dtype)
        assert got.tolist() == _call("ember", case, values).tolist()
        _same_as_torch(got, case, values, dtype)
        return
    _refused(case, values, case.dtype_error, case.dtype_match, dtype)


@pytest.mark.parametrize("op", [op for op, case in CASES.items() if case.vector_only])
def test_index_of_the_wrong_number_of_dimensions_is_refused(op):
    case = CASES[op]
    _refused(case, [[0]], (RuntimeError, IndexError), re.escape(case.vector_only))


# what an empty index gives: the reads select nothing, the writes leave the input as it was
_WRITES = {"scatter", "scatter(value)", "scatter(reduce=add)", "scatter_add", "scatter_reduce", "index_add", "index_copy",
           "index_fill", "index_fill(tensor)", "put", "x[i] = v", "index_put"}  # fmt: skip


@pytest.mark.parametrize("op", CASES)
def test_empty_index_works(op):
    case = CASES[op]
    got = _call("ember", case, [])
    if op in _WRITES:
        assert got.tolist() == [0.0, 0.0, 0.0]
    elif op in ("nll_loss", "cross_entropy"):
        assert got.item() == 0.0
    else:
        assert got.numel() == 0
    _same_as_torch(got, case, [])


def test_padding_idx_out_of_range_is_refused():
    w = ember.ones(3, 2)
    for bad in (3, -4):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            EF.embedding(ember.tensor([1]), w, padding_idx=bad)
    assert EF.embedding(ember.tensor([2]), w, padding_idx=-1).tolist() == [[1.0, 1.0]]


def test_ignore_index_may_lie_outside_the_classes():
    x = ember.zeros(2, 3)
    assert EF.nll_loss(x, ember.tensor([5, 0]), ignore_index=5).item() == 0.0
    assert EF.cross_entropy(x, ember.tensor([-100, 0]), reduction="sum").item() == pytest.approx(np.log(3))


MASKED = {
    "masked_fill": (lambda lib, m: lib.zeros(3).masked_fill(m, 1.0), r"masked_fill\(\): only supports boolean masks"),
    "masked_scatter": (lambda lib, m: lib.zeros(3).masked_scatter(m, lib.ones(3)), r"masked_scatter\(\): only supports boolean masks"),
    "masked_select": (lambda lib, m: lib.zeros(3).masked_select(m), r"masked_select\(\): expected BoolTensor for mask"),
}  # fmt: skip


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32"])
@pytest.mark.parametrize("op", MASKED)
def test_masks_must_be_bool(op, dtype):
    call, match = MASKED[op]
    with pytest.raises(RuntimeError, match=match + f".*dtype ember.{dtype}"):
        call(ember, ember.tensor([1, 0, 0], dtype=getattr(ember, dtype)))
    if torch is not None:
        with pytest.raises(RuntimeError):
            call(torch, torch.tensor([1, 0, 0], dtype=getattr(torch, dtype)))
    assert call(ember, ember.tensor([True, False, False])).tolist() != []


def test_searchsorted_sorter_is_checked():
    seq, values = ember.tensor([1.0, 2.0, 3.0]), ember.tensor([2.0])
    for bad in (-1, 3):
        with pytest.raises(RuntimeError, match=rf"searchsorted\(\): sorter index out of range \(index {bad}"):
            ember.searchsorted(seq, values, sorter=ember.tensor([0, 1, bad]))
    with pytest.raises(RuntimeError, match=r"searchsorted\(\): sorter must be a tensor of long dtype"):
        ember.searchsorted(seq, values, sorter=ember.tensor([0, 1, 2], dtype=ember.int32))
    assert ember.searchsorted(seq, values, sorter=ember.tensor([0, 1, 2])).tolist() == [1]


def test_range_is_checked_on_every_call_and_in_graph_mode():
    # the values exist only when the kernel runs: the check is there, not in the cached inference rule
    x = ember.arange(3.0)
    for _ in range(2):  # the second call hits the signature's cached inference
        with pytest.raises(RuntimeError, match=r"gather\(\): index -1 is out of bounds"):
            ember.gather(x, 0, ember.tensor([-1, 0]))
        assert ember.gather(x, 0, ember.tensor([2, 0])).tolist() == [2.0, 0.0]
    g = ember.Graph()
    with g.as_default():
        pi = ember.placeholder(ember.int64, (2,))
        out = ember.gather(ember.arange(3.0), 0, pi)
    with ember.Session(graph=g) as sess:
        assert np.asarray(sess.run(out, {pi: np.array([2, 0])})).tolist() == [2.0, 0.0]
        with pytest.raises(RuntimeError, match=r"gather\(\): index -1 is out of bounds"):
            sess.run(out, {pi: np.array([-1, 0])})


# -- derivatives: the gradient goes where the forward read, never to a wrapped position -----------

GRAD_CASES = {
    "take_along_dim": lambda lib, x, v: lib.take_along_dim(x, lib.tensor([[-1, 0], [-3, 2]]), dim=1) * lib.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "take": lambda lib, x, v: lib.take(x, lib.tensor([-1, -6, 0])) * lib.tensor([1.0, 2.0, 3.0]),
    "index_fill(tensor)": lambda lib, x, v: x.index_fill(1, lib.tensor([-1, 0]), v) * 2,
    "x[i]": lambda lib, x, v: x[:, lib.tensor([-1, 0, -1])] * 2,
    "put": lambda lib, x, v: x.put(lib.tensor([-1, 0]), lib.stack([v, v * 3])),
}  # fmt: skip

# x.grad and v.grad, worked out by hand (x is 2 x 3; v a scalar)
GRAD_EXPECTED = {
    "take_along_dim": ([[2.0, 0.0, 1.0], [3.0, 0.0, 4.0]], None),
    "take": ([[5.0, 0.0, 0.0], [0.0, 0.0, 1.0]], None),
    "index_fill(tensor)": ([[0.0, 2.0, 0.0], [0.0, 2.0, 0.0]], 8.0),
    "x[i]": ([[2.0, 0.0, 4.0], [2.0, 0.0, 4.0]], None),
    "put": ([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]], 4.0),
}


def _grads(lib, op):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    v = lib.tensor(7.0, requires_grad=True)
    GRAD_CASES[op](lib, x, v).sum().backward()
    return x.grad.tolist(), None if v.grad is None else v.grad.item()


@pytest.mark.parametrize("op", GRAD_CASES)
def test_gradient_through_negative_indices(op):
    assert _grads(ember, op) == GRAD_EXPECTED[op]


@needs_torch
@pytest.mark.parametrize("op", [op for op in GRAD_CASES if op != "index_fill(tensor)"])  # torch's own backward fails there
def test_gradient_through_negative_indices_matches_torch(op):
    assert _grads(ember, op) == _grads(torch, op)
