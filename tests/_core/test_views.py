"""Tests for ember._core.views (and shape.py's stride rule): every view op against NumPy
(values, the memory it addresses, writes both ways) and PyTorch (shape, strides, offset)."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from numpy.lib.stride_tricks import as_strided as np_as_strided, sliding_window_view

import ember
from tests._oracle import require_torch

from ._strided import (
    DTYPES,
    address,
    assert_same_layout,
    assert_torch_layout,
    assert_values,
    assert_view_of,
    booleans,
    filled,
    ints,
    one_of,
    permutations,
    positive,
    strided_arrays,
    torch_twin,
)

# Each op of the table runs twice (NumPy, PyTorch): a third of the profile's examples keeps the file fast.
OP_SETTINGS = settings(max_examples=max(1, settings.default.max_examples // 3))


# -- the op table: how to draw arguments, the call (same for ember and torch), NumPy's equivalent --


def _dim(data, ndim: int, extra: int = 0) -> int:
    return data.draw(ints(-(ndim + extra), ndim + extra - 1))


def _axis_slice(ndim: int, d: int, item) -> tuple:
    return (slice(None),) * (d % ndim) + (item, Ellipsis)  # the Ellipsis keeps 0-d results arrays


def _split_points(sizes) -> list[int]:
    return list(np.cumsum(sizes)[:-1])


def _args_transpose(data, shape):
    ndim = max(len(shape), 1)  # a 0-d tensor takes dims -1 and 0
    return _dim(data, ndim), _dim(data, ndim)


def _ref_transpose(x, a, b):
    return np.swapaxes(x, a, b) if x.ndim else x[...]


def _args_permute(data, shape):
    perm = data.draw(permutations(len(shape)))
    return (tuple(p - len(shape) if data.draw(booleans) else p for p in perm),)


def _args_movedim(data, shape):
    ndim = len(shape)
    if not ndim:
        return data.draw(one_of([-1, 0])), data.draw(one_of([-1, 0]))
    k = data.draw(ints(1, ndim))
    src = data.draw(permutations(ndim))[:k]
    dst = data.draw(permutations(ndim))[:k]
    if k == 1 and data.draw(booleans):
        return src[0], dst[0] - ndim
    return tuple(src), tuple(dst)


def _ref_movedim(x, src, dst):
    return np.moveaxis(x, src, dst) if x.ndim else x[...]


def _args_squeeze(data, shape):
    ndim = len(shape)
    kind = data.draw(one_of(["none", "int", "tuple"]))
    if kind == "none":
        return ()
    if kind == "int":
        return (_dim(data, max(ndim, 1)),)
    return (tuple(data.draw(st.lists(ints(-ndim, ndim - 1), max_size=ndim, unique_by=lambda d: d % ndim))) if ndim else (),)


def _ref_squeeze(x, dim=None):
    ndim = x.ndim
    if dim is None:
        dims = range(ndim)
    elif isinstance(dim, tuple):
        dims = dim
    else:
        dims = (dim,)
    return np.squeeze(x, axis=tuple(d % max(ndim, 1) for d in dims if ndim and x.shape[d] == 1))


def _args_expand(data, shape):
    lead = data.draw(st.lists(ints(0, 3), max_size=2))
    sizes = [data.draw(one_of([-1, 0, 1, 2, 3]) if n == 1 else one_of([-1, n])) for n in shape]
    return (tuple(lead + sizes),)


def _resolve(x, sizes):
    lead = len(sizes) - x.ndim
    return tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))


def _args_narrow(data, shape):
    assume(shape)
    d = _dim(data, len(shape))
    n = shape[d]
    start = data.draw(ints(-n, n))
    length = data.draw(ints(0, n - start % n if n and start < 0 else n - start))
    return d, start, length


def _ref_narrow(x, d, start, length):
    start = start + x.shape[d] if start < 0 else start
    return x[_axis_slice(x.ndim, d, slice(start, start + length))]


def _args_select(data, shape):
    assume(shape)
    d = _dim(data, len(shape))
    assume(shape[d])
    return d, data.draw(ints(-shape[d], shape[d] - 1))


def _args_dim(data, shape):
    assume(shape)
    return (_dim(data, len(shape)),)


def _ref_unbind(x, d):
    return [x[_axis_slice(x.ndim, d, i)] for i in range(x.shape[d])]


def _args_split_size(data, shape):
    assume(shape)
    d = _dim(data, len(shape))
    return data.draw(ints(1, shape[d] + 2)), d


def _ref_split_size(x, size, d):
    return np.split(x, list(range(size, x.shape[d], size)), axis=d)


def _args_split_sections(data, shape):
    assume(shape)
    d = _dim(data, len(shape))
    n = shape[d]
    cuts = sorted(data.draw(st.lists(ints(0, n), max_size=3)))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    return sizes, d


def _ref_split_sections(x, sizes, d):
    return np.split(x, _split_points(sizes), axis=d)


def _args_chunk(data, shape):
    assume(shape)
    return data.draw(ints(1, 5)), _dim(data, len(shape))


def _ref_chunk(x, chunks, d):
    n = x.shape[d]
    if n == 0:
        return [x] * chunks
    step = -(-n // chunks)
    return np.split(x, list(range(step, n, step)), axis=d)


def _args_tensor_split_sections(data, shape):
    assume(shape)
    return data.draw(ints(1, 5)), _dim(data, len(shape))


def _args_tensor_split_indices(data, shape):
    assume(shape)
    d = _dim(data, len(shape))
    n = shape[d]
    return data.draw(st.lists(ints(-n - 2, n + 2), max_size=4)), d


def _args_diagonal(data, shape):
    assume(len(shape) >= 2)
    d1 = _dim(data, len(shape))
    d2 = _dim(data, len(shape))
    assume(d1 % len(shape) != d2 % len(shape))
    return data.draw(ints(-5, 5)), d1, d2


def _args_unfold(data, shape):
    d = _dim(data, max(len(shape), 1))
    n = shape[d] if shape else 1
    return d, data.draw(ints(0, n)), data.draw(ints(1, 4))


def _ref_unfold(x, d, size, step):
    if x.ndim == 0:
        return np.expand_dims(x, 0)[:size]
    windows = sliding_window_view(x, size, axis=d)
    return windows[_axis_slice(x.ndim, d, slice(None, None, step))]


def _args_mT(data, shape):
    assume(len(shape) >= 2)
    return ()


def _args_t(data, shape):
    assume(len(shape) <= 2)
    return ()


@dataclass(frozen=True)
class ViewOp:
    name: str
    args: Callable  # (data, shape) -> tuple of arguments
    call: Callable  # (tensor, *args) -> view or tuple of views; the same for ember and torch
    ref: Callable  # (ndarray, *args) -> NumPy view or list of views
    dims: tuple[int, int] = (0, 4)  # the input's number of dimensions, least and most


def _method(name: str) -> Callable:
    return lambda t, *args: getattr(t, name)(*args)


VIEW_OPS = [
    ViewOp("transpose", _args_transpose, _method("transpose"), _ref_transpose),
    ViewOp("swapaxes", _args_transpose, _method("swapaxes"), _ref_transpose),
    ViewOp("swapdims", _args_transpose, _method("swapdims"), _ref_transpose),
    ViewOp("permute", _args_permute, lambda t, perm: t.permute(*perm) if perm else t.permute(perm), np.transpose),
    ViewOp("permute_tuple", _args_permute, _method("permute"), np.transpose),
    ViewOp("movedim", _args_movedim, _method("movedim"), _ref_movedim),
    ViewOp("moveaxis", _args_movedim, _method("moveaxis"), _ref_movedim),
    ViewOp("t", _args_t, _method("t"), lambda x: x.T, dims=(0, 2)),
    ViewOp("T", _args_t, lambda t: t.T, lambda x: x.T, dims=(0, 2)),
    ViewOp("mT", _args_mT, lambda t: t.mT, lambda x: np.swapaxes(x, -1, -2), dims=(2, 4)),
    ViewOp("squeeze", _args_squeeze, _method("squeeze"), _ref_squeeze),
    ViewOp("unsqueeze", lambda data, shape: (_dim(data, len(shape) + 1),), _method("unsqueeze"), np.expand_dims),
    ViewOp("expand", _args_expand, lambda t, sizes: t.expand(*sizes) if sizes else t.expand(sizes), lambda x, s: np.broadcast_to(x, _resolve(x, s))),
    ViewOp("expand_tuple", _args_expand, _method("expand"), lambda x, s: np.broadcast_to(x, _resolve(x, s))),
    ViewOp("broadcast_to", _args_expand, _method("broadcast_to"), lambda x, s: np.broadcast_to(x, _resolve(x, s))),
    ViewOp("narrow", _args_narrow, _method("narrow"), _ref_narrow, dims=(1, 4)),
    ViewOp("select", _args_select, _method("select"), lambda x, d, i: x[_axis_slice(x.ndim, d, i)], dims=(1, 4)),
    ViewOp("unbind", _args_dim, _method("unbind"), _ref_unbind, dims=(1, 4)),
    ViewOp("split_size", _args_split_size, _method("split"), _ref_split_size, dims=(1, 4)),
    ViewOp("split_sections", _args_split_sections, _method("split"), _ref_split_sections, dims=(1, 4)),
    ViewOp("chunk", _args_chunk, _method("chunk"), _ref_chunk, dims=(1, 4)),
    ViewOp("tensor_split_sections", _args_tensor_split_sections, _method("tensor_split"), lambda x, k, d: np.array_split(x, k, axis=d), dims=(1, 4)),
    ViewOp("tensor_split_indices", _args_tensor_split_indices, _method("tensor_split"), lambda x, i, d: np.array_split(x, i, axis=d), dims=(1, 4)),
    ViewOp("diagonal", _args_diagonal, _method("diagonal"), np.diagonal, dims=(2, 4)),
    ViewOp("unfold", _args_unfold, _method("unfold"), _ref_unfold),
]


def _pairs(result, expected):
    if isinstance(result, tuple):
        assert isinstance(expected, list)
        assert len(result) == len(expected), (len(result), len(expected))
        return list(zip(result, expected, strict=True))
    return [(result, expected)]


@pytest.mark.parametrize("op", VIEW_OPS, ids=lambda op: op.name)
@OP_SETTINGS
@given(data=st.data())
def test_view_op_matches_numpy(op, data):
    root, x = data.draw(strided_arrays(*op.dims))
    t = ember.from_numpy(x)
    args = op.args(data, x.shape)
    for result, expected in _pairs(op.call(t, *args), op.ref(x, *args)):
        assert_values(result, expected)
        assert_same_layout(result, expected)
        assert result._base is t
        assert_view_of(result, t, root)


@pytest.mark.parametrize("op", VIEW_OPS, ids=lambda op: op.name)
@OP_SETTINGS
@given(data=st.data())
def test_view_op_layout_matches_torch(op, data):
    torch = require_torch()
    x = positive(data.draw(strided_arrays(*op.dims))[1])
    args = op.args(data, x.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch deprecates x.T on 0-d tensors
        ours = op.call(ember.from_numpy(x), *args)
        theirs = op.call(torch_twin(torch, x), *args)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert_torch_layout(a, b)


def test_view_ops_are_bound_under_their_torch_names():
    t = ember.zeros(2, 3)
    assert t.swapaxes(0, 1).shape == t.swapdims(0, 1).shape == t.transpose(0, 1).shape == (3, 2)
    assert t.moveaxis(0, 1).shape == (3, 2)


def test_T_on_more_than_two_dims_warns_and_reverses():
    x = filled((2, 3, 4), np.dtype(np.int32))
    with pytest.warns(UserWarning, match="deprecated"):
        r = ember.from_numpy(x).T
    assert_values(r, x.T)


# -- view(shape), reshape, flatten, unflatten: the stride rule --------------------------


@st.composite
def _new_shapes(draw, shape):
    """Shapes holding as many elements as ``shape``, sometimes with one -1: either adjacent dims of
    ``shape`` merged (and ones sprinkled in), which is where views succeed or fail interestingly,
    or any factorization."""
    n = math.prod(shape)
    if shape and draw(booleans):
        cuts = sorted(draw(st.sets(ints(1, len(shape)), max_size=len(shape))) | {len(shape)})
        out = [math.prod(shape[a:b]) for a, b in zip([0, *cuts], cuts, strict=False) if b > a]
        for _ in range(draw(ints(0, 1))):
            out.insert(draw(ints(0, len(out))), 1)
    else:
        out = _factorization(draw, n)
    if n and out and draw(booleans):
        out[draw(ints(0, len(out) - 1))] = -1
    return tuple(out)


def _factorization(draw, n: int) -> list[int]:
    ndim = draw(ints(0 if n == 1 else 1, 4))
    out = []
    left = n
    for i in range(ndim):
        if i == ndim - 1:
            out.append(left)
        elif n == 0:
            out.append(draw(ints(0, 3)))
        else:
            k = draw(one_of([k for k in range(1, left + 1) if left % k == 0]))
            out.append(k)
            left //= k
    if n == 0 and 0 not in out:
        out[draw(ints(0, ndim - 1))] = 0
    return list(draw(st.permutations(out)))


def _numpy_view_or_none(x: np.ndarray, shape):
    try:
        return np.reshape(x, shape, copy=False)
    except ValueError:
        return None


@given(arrays=strided_arrays(min_dims=1), data=st.data())
def test_view_succeeds_exactly_when_torch_does(arrays, data):
    torch = require_torch()
    x = positive(arrays[1])
    shape = data.draw(_new_shapes(x.shape))
    t = ember.from_numpy(x)
    try:
        expected = torch_twin(torch, x).view(shape)
    except RuntimeError:
        with pytest.raises(RuntimeError, match=r"\.reshape"):
            t.view(shape)
        return
    assert_torch_layout(t.view(*shape) if shape else t.view(shape), expected)  # t.view() is the size left out


@given(arrays=strided_arrays(min_dims=1), data=st.data())
def test_view_and_reshape_match_numpy(arrays, data):
    root, x = arrays
    shape = data.draw(_new_shapes(x.shape))
    t = ember.from_numpy(x)
    expected_values = np.reshape(x, shape)
    no_copy = _numpy_view_or_none(x, shape)
    try:
        viewed = t.view(shape)
    except RuntimeError as exc:
        assert "view size is not compatible" in str(exc)
        assert ".reshape(" in str(exc)
        viewed = None
    if viewed is not None:
        assert_values(viewed, expected_values)
        if x.size:
            assert viewed.data_ptr() == address(x)  # a view starts where its input does
        assert_view_of(viewed, t, root)
    # NumPy and PyTorch agree on when no copy is needed, as long as no stride is negative
    if all(s >= 0 for s in x.strides) and x.size:
        assert (viewed is None) == (no_copy is None), (x.shape, x.strides, shape)
    reshaped = t.reshape(shape)
    assert_values(reshaped, expected_values)
    if viewed is not None:
        assert reshaped.untyped_storage() is t.untyped_storage()
        assert reshaped.stride() == viewed.stride()
    else:
        assert reshaped.untyped_storage() is not t.untyped_storage()
        assert reshaped.is_contiguous()
        assert not np.shares_memory(reshaped.numpy(), root)


@given(arrays=strided_arrays(), data=st.data())
def test_flatten_and_unflatten_match_numpy(arrays, data):
    _, x = arrays
    t = ember.from_numpy(x)
    ndim = max(x.ndim, 1)
    start = data.draw(ints(-ndim, ndim - 1))
    end = data.draw(ints(start % ndim, ndim - 1))
    flat = t.flatten(start, end)
    if x.ndim:
        s, e = start % ndim, end
        expected = np.reshape(x, (*x.shape[:s], math.prod(x.shape[s : e + 1]), *x.shape[e + 1 :]))
    else:
        expected = x.reshape(1)
    assert_values(flat, expected)
    assert_values(t.flatten(), x.reshape(-1))
    if x.ndim:
        d = data.draw(ints(-x.ndim, x.ndim - 1))
        sizes = data.draw(_new_shapes((x.shape[d],)))
        assume(sizes)
        try:
            result = t.unflatten(d, sizes)
        except RuntimeError as exc:
            assert ".reshape(" in str(exc)
            return
        resolved = tuple(x.shape[d] // -math.prod(sizes) if s == -1 else s for s in sizes)
        assert_values(result, x.reshape(x.shape[: d % x.ndim] + resolved + x.shape[d % x.ndim + 1 :]))
        assert result.untyped_storage() is t.untyped_storage()


@given(arrays=strided_arrays(), data=st.data())
def test_flatten_unflatten_layout_matches_torch(arrays, data):
    torch = require_torch()
    x = positive(arrays[1])
    assume(x.ndim)
    d = data.draw(ints(-x.ndim, x.ndim - 1))
    end = data.draw(ints(d % x.ndim, x.ndim - 1))
    sizes = data.draw(_new_shapes((x.shape[d],)))
    assume(sizes)
    shape = data.draw(_new_shapes(x.shape))
    calls = (lambda t: t.flatten(d, end), lambda t: t.unflatten(d, sizes), lambda t: t.reshape(shape), lambda t: t.reshape(-1))
    for call in calls:
        twin, t = torch_twin(torch, x), ember.from_numpy(x)
        try:
            b = call(twin)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                call(t)
            continue
        a = call(t)
        # a view exactly where torch's is one, with torch's layout; otherwise a fresh copy
        shares = b.untyped_storage().data_ptr() == twin.untyped_storage().data_ptr()
        assert (a.untyped_storage() is t.untyped_storage()) == shares or not x.size
        if shares:
            assert_torch_layout(a, b)
        else:
            assert tuple(a.shape) == tuple(b.shape) and a.is_contiguous()


def test_view_of_size_zero_and_zero_dim():
    t = ember.zeros(0, 3)
    assert t.view(3, 0).shape == (3, 0)
    assert t.view(-1, 3).shape == (0, 3)
    with pytest.raises(RuntimeError, match="ambiguous"):
        t.view(-1, 0)
    s = ember.tensor(5.0)
    assert s.view(1, 1).shape == (1, 1)
    assert s.view(-1).tolist() == [5.0]
    assert s.view(()).shape == ()
    assert ember.ones(1, 1).view(()).item() == 1.0


@pytest.mark.parametrize(
    ("shape", "new"),
    [((), (1, 1)), ((), (-1,)), ((), ()), ((1, 1), ()), ((0, 3), (3, 0)), ((0, 3), (-1, 3)), ((2, 0, 3), (0, 6)), ((2, 0, 3), (3, 0, 2)), ((3, 0), (0,))],
)
def test_view_of_empty_and_zero_dim_matches_torch(shape, new):
    torch = require_torch()
    reverse = tuple(range(len(shape) - 1, -1, -1))
    for make in (lambda m: m.zeros(shape), lambda m: m.zeros(shape[::-1]).permute(*reverse) if shape else m.zeros(())):
        assert_torch_layout(make(ember).view(new), make(torch).view(new))


def test_view_as_reshape_as_expand_as():
    x = filled((2, 6), np.dtype(np.int64))
    t = ember.from_numpy(x)
    assert_values(t.view_as(ember.zeros(3, 4)), x.reshape(3, 4))
    assert_values(t.T.reshape_as(ember.zeros(12)), x.T.reshape(12))
    col = ember.from_numpy(x[:, :1])
    assert_values(col.expand_as(t), np.broadcast_to(x[:, :1], (2, 6)))


# -- view(dtype) ---------------------------------------------------------------------------


@given(arrays=strided_arrays(), dtype=one_of(DTYPES))
def test_view_dtype_matches_numpy(arrays, dtype):
    root, x = arrays
    t = ember.from_numpy(x)
    target = ember.from_numpy(np.zeros(0, dtype)).dtype
    try:
        result = t.view(target)
    except RuntimeError as exc:
        assert "view()" in str(exc) and str(target) in str(exc)
        return
    assert result.dtype is target
    if dtype == x.dtype:
        return assert_values(result, x)
    expected = x.view(dtype)  # whatever ember accepts, NumPy must accept too
    assert_values(result, expected)
    assert_same_layout(result, expected)
    assert result.untyped_storage() is t.untyped_storage()
    if result.numel():
        assert np.shares_memory(result.numpy(), root)


@given(arrays=strided_arrays(), dtype=one_of(DTYPES))
def test_view_dtype_succeeds_exactly_when_torch_does(arrays, dtype):
    torch = require_torch()
    x = positive(arrays[1])
    target = ember.from_numpy(np.zeros(0, dtype)).dtype
    torch_target = getattr(torch, target.name)
    try:
        expected = torch_twin(torch, x).view(torch_target)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="view"):
            ember.from_numpy(x).view(target)
        return
    assert_torch_layout(ember.from_numpy(x).view(target), expected)


VIEW_DTYPE_CASES = [
    ((8,), "int8", (slice(1, None),), "int16"),
    ((8,), "int8", (slice(2, None),), "int16"),
    ((8,), "int8", (slice(2, 6),), "int32"),
    ((4, 6), "int8", (slice(None), slice(None, 4)), "int32"),
    ((4, 6), "int8", (slice(None), slice(None, 4)), "int16"),
    ((4, 6), "int8", (slice(None), slice(1, 5)), "int16"),
    ((3, 1), "int16", (slice(None, None, 2),), "int8"),
    ((3, 2), "int16", (slice(None), slice(None, 1)), "int32"),
    ((2, 2), "int8", (slice(None), slice(1, None)), "int16"),
    ((), "int16", (), "int8"),
    ((), "int16", (), "uint16"),
    ((0,), "int16", (), "int32"),
    ((2, 0), "int16", (), "int32"),
    ((3, 2), "int64", (), "complex128"),
    ((3, 4), "float32", (slice(None), slice(None, None, 2)), "int32"),
    ((3, 4), "float32", (slice(None), slice(None, None, 2)), "float16"),
    ((3, 4), "complex64", (slice(1, None),), "bfloat16"),
]


@pytest.mark.parametrize(("shape", "dtype", "key", "target"), VIEW_DTYPE_CASES)
def test_view_dtype_matches_torch_on_offsets_and_strides(shape, dtype, key, target):
    torch = require_torch()
    ours = ember.zeros(shape, dtype=getattr(ember, dtype))[key]
    theirs = torch.zeros(shape, dtype=getattr(torch, dtype))[key]
    try:
        expected = theirs.view(getattr(torch, target))
    except RuntimeError as exc:
        needle = re.split(" must | cannot ", str(exc))[0]  # which check failed, e.g. "self.storage_offset()"
        with pytest.raises(RuntimeError, match=re.escape(needle.replace("self.stride(0)", "self.stride(i)"))):
            ours.view(getattr(ember, target))
        return
    assert_torch_layout(ours.view(getattr(ember, target)), expected)


def test_view_dtype_spellings_and_strings():
    t = ember.zeros(4, dtype=ember.int32)
    assert t.view(ember.uint8).shape == (16,)
    assert t.view(np.int16).shape == (8,)
    assert t.view("float32").dtype is ember.float32
    s = ember.tensor([b"a", b"bc"])
    assert s.view(ember.string).tolist() == [b"a", b"bc"]
    with pytest.raises(RuntimeError, match="string"):
        s.view(ember.int64)
    with pytest.raises(RuntimeError, match="string"):
        t.view(ember.string)


# -- as_strided ----------------------------------------------------------------------------


@st.composite
def _layouts(draw, capacity: int):
    ndim = draw(ints(0, 3))
    size = tuple(draw(ints(0, 4)) for _ in range(ndim))
    stride = tuple(draw(ints(-6, 6)) for _ in range(ndim))
    offset = draw(ints(-2, capacity + 3))
    return size, stride, offset


def _span(size, stride, offset):
    lo = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True) if s < 0)
    hi = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True) if s > 0)
    return lo, hi


@given(n=ints(0, 24), dtype=one_of(DTYPES), data=st.data())
def test_as_strided_within_bounds_matches_numpy_and_outside_raises(n, dtype, data):
    base = filled((n,), dtype)
    # a reversed view's storage is the same n elements, from base[0]: offsets count from there
    t = ember.from_numpy(base[::-1] if data.draw(booleans) else base)
    size, stride, offset = data.draw(_layouts(n))
    lo, hi = _span(size, stride, offset)
    empty = 0 in size
    inside = offset >= 0 and (empty or (lo >= 0 and hi < n))
    if not inside:
        with pytest.raises(RuntimeError, match=r"out of bounds for storage of \d+ elements|invalid storage offset"):
            t.as_strided(size, stride, offset)
        return
    result = t.as_strided(size, stride, offset)
    assert (tuple(result.shape), result.stride(), result.storage_offset()) == (size, stride, offset)
    if empty:
        return
    itemsize = dtype.itemsize
    expected = np_as_strided(base[offset:], size, tuple(s * itemsize for s in stride))
    assert_values(result, expected)
    assert_view_of(result, t, base)


def test_as_strided_respects_the_whole_storage_and_keeps_the_offset():
    x = filled((3, 4), np.dtype(np.float32))
    t = ember.from_numpy(x)[1:, 1:]
    assert t.storage_offset() == 5
    assert t.as_strided((2,), (1,)).storage_offset() == 5  # default: the tensor's own offset
    assert t.as_strided((2,), (1,)).tolist() == x.reshape(-1)[5:7].tolist()
    assert t.as_strided((12,), (1,), 0).tolist() == x.reshape(-1).tolist()
    with pytest.raises(RuntimeError, match="out of bounds for storage of 12 elements"):
        t.as_strided((13,), (1,), 0)
    with pytest.raises(RuntimeError, match="out of bounds"):
        t.as_strided((2, 2), (4, 1), 7)
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        t.as_strided((1,), (1,), -1)
    with pytest.raises(RuntimeError, match="negative dimension"):
        t.as_strided((-1,), (1,))
    with pytest.raises(RuntimeError, match="mismatch in length"):
        t.as_strided((2, 2), (1,))


def test_as_strided_over_a_dtype_view_counts_the_new_itemsize():
    t = ember.zeros(4, dtype=ember.int32)
    bytes_ = t.view(ember.uint8)
    assert bytes_.as_strided((16,), (1,), 0).shape == (16,)
    with pytest.raises(RuntimeError, match="out of bounds"):
        bytes_.as_strided((17,), (1,), 0)
    wide = t.view(ember.int64)
    with pytest.raises(RuntimeError, match="out of bounds"):
        wide.as_strided((3,), (1,), 0)


def test_as_strided_matches_torch():
    torch = require_torch()
    x = np.arange(20, dtype=np.float32)
    for size, stride, offset in [((2, 3), (3, 1), 2), ((3, 3), (1, 1), 0), ((4,), (0,), 7), ((2, 2), (10, 1), 8)]:
        a = ember.from_numpy(x).as_strided(size, stride, offset)
        b = torch.from_numpy(x).as_strided(size, stride, offset)
        assert a.tolist() == b.tolist()
        assert (a.stride(), a.storage_offset()) == (b.stride(), b.storage_offset())


# -- _version and _base ----------------------------------------------------------------------


def test_version_is_shared_by_views_and_bumped_by_writes():
    a = ember.zeros(3, 4)
    v = a[1:]
    w = v.T.reshape(8)  # a copy (the transpose cannot be viewed that way)
    u = a.view(12)
    assert a._version == v._version == u._version == 0
    v[0, 0] = 1.0
    assert a._version == v._version == u._version == 1
    u.fill_(2.0)
    assert a._version == 2
    a.copy_(ember.ones(4))
    assert v._version == 3
    assert w._version == 0
    w.fill_(1.0)
    assert w._version == 1 and a._version == 3


def test_base_of_a_view_of_a_view_is_the_root():
    a = ember.zeros(2, 3, 4)
    assert a._base is None
    v = a.transpose(0, 2)[1:].unsqueeze(0).view(3, 3, 1, 2)[::2]
    assert v._base is a
    for other in (a.select(1, 0), a.unbind(2)[3], a.split(1)[1], a.diagonal(), a.unfold(2, 2, 1), a.expand(5, 2, 3, 4)):
        assert other._base is a
        assert other.untyped_storage() is a.untyped_storage()
    assert a.reshape(24)._base is a
    assert a.transpose(0, 1).reshape(24)._base is None  # a copy


def test_seed_view_shares_the_storage_pointer():
    a = ember.ones((3, 3))
    b = a.view(9)
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    b[4] = 5.0
    assert a[1, 1].item() == 5.0


# -- bad input: clear errors naming what was expected and what came -----------------------------


def test_incompatible_view_suggests_reshape():
    t = ember.zeros(4, 6).T
    with pytest.raises(RuntimeError, match=r"view size is not compatible.*\.reshape"):
        t.view(24)
    with pytest.raises(RuntimeError, match=r"shape '\[5, 5\]' is invalid for input of size 24"):
        t.view(5, 5)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        t.view(-1, -1)
    with pytest.raises(RuntimeError, match="invalid shape dimension -2"):
        t.view(-2, 12)
    with pytest.raises(TypeError, match="must be a tuple of ints"):
        t.view(2.0, 12)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.transpose(0, 3),
        lambda t: t.transpose(-4, 0),
        lambda t: t.permute(0, 1, 5),
        lambda t: t.squeeze(3),
        lambda t: t.unsqueeze(4),
        lambda t: t.movedim(0, 3),
        lambda t: t.select(3, 0),
        lambda t: t.narrow(-4, 0, 1),
        lambda t: t.unbind(3),
        lambda t: t.split(1, 3),
        lambda t: t.chunk(2, -4),
        lambda t: t.tensor_split(2, 3),
        lambda t: t.diagonal(0, 0, 3),
        lambda t: t.unfold(3, 1, 1),
        lambda t: t.flatten(0, 3),
        lambda t: t.unflatten(3, (1,)),
    ],
)
def test_dim_out_of_range(call):
    t = ember.zeros(2, 3, 4)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-\d, \d\], but got -?\d\)"):
        call(t)


def test_zero_dim_tensors_take_dims_minus_one_and_zero():
    s = ember.tensor(3.0)
    assert s.unsqueeze(0).shape == (1,)
    assert s.unsqueeze(-1).shape == (1,)
    assert s.squeeze(0).shape == ()
    assert s.transpose(0, -1).shape == ()
    assert s.permute(()).shape == ()
    assert s.flatten().shape == (1,)
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        s.squeeze(1)
    with pytest.raises(IndexError, match="0-dim"):
        s.select(0, 0)
    with pytest.raises(RuntimeError, match="0-dim"):
        s.narrow(0, 0, 1)
    with pytest.raises(IndexError, match="no dimensions"):
        s.unbind()
    with pytest.raises(IndexError, match="no dimensions"):
        s.unflatten(0, (1,))
    assert s.movedim(0, -1).shape == ()
    for call in (lambda t: t.split(1), lambda t: t.chunk(1), lambda t: t.tensor_split(1), lambda t: t.tensor_split([0])):
        with pytest.raises(RuntimeError, match="expected at least a 1-dimensional tensor, but got a tensor with 0 dims"):
            call(s)


def test_permute_errors():
    t = ember.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="duplicate dims are not allowed, got \\[0, 1, 0\\]"):
        t.permute(0, 1, 0)
    with pytest.raises(RuntimeError, match="duplicate dims"):
        t.permute(0, -3, 1)
    with pytest.raises(RuntimeError, match=r"input.dim\(\) = 3 is not equal to len\(dims\) = 2"):
        t.permute(0, 1)
    with pytest.raises(RuntimeError, match="repeated dim"):
        t.movedim((0, 0), (1, 2))
    with pytest.raises(RuntimeError, match="same number of dims"):
        t.movedim((0, 1), (1,))


def test_expand_errors():
    t = ember.zeros(3, 1)
    with pytest.raises(RuntimeError, match=r"expanded size of the tensor \(4\) must match the existing size \(3\) at non-singleton dimension 0.*Target sizes: \[4, 2\].*Tensor sizes: \[3, 1\]"):
        t.expand(4, 2)
    with pytest.raises(RuntimeError, match=r"number of sizes provided \(1\) must be greater or equal to the number of dimensions in the tensor \(2\)"):
        t.expand(3)
    with pytest.raises(RuntimeError, match="leading, non-existing dimension"):
        t.expand(-1, 3, 1)
    with pytest.raises(RuntimeError, match=r"\(-2\)"):
        t.expand(3, -2)
    with pytest.raises(RuntimeError, match=r"cannot be broadcast|shape mismatch"):
        t.broadcast_to((2, 2))


def test_slicing_op_errors():
    t = ember.zeros(4, 5)
    with pytest.raises(RuntimeError, match=r"start \(2\) \+ length \(3\) exceeds dimension size \(4\)"):
        t.narrow(0, 2, 3)
    with pytest.raises(RuntimeError, match="length"):
        t.narrow(0, 2, -1)
    with pytest.raises(IndexError, match=r"start \(5\) is out of bounds for dimension 0 of size 4"):
        t.narrow(0, 5, 0)
    with pytest.raises(IndexError, match=r"index 5 out of range for tensor of size \[4, 5\] at dimension 1"):
        t.select(1, 5)
    with pytest.raises(IndexError, match="index -5 out of range"):
        t.select(0, -5)
    with pytest.raises(RuntimeError, match=r"split_sizes to sum exactly to 4 .* but got split_sizes=\[1, 2\]"):
        t.split([1, 2])
    with pytest.raises(RuntimeError, match=r"only non-negative entries, but got split_sizes=\[5, -1\]"):  # torch's words
        t.split([5, -1])
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0, but got 0"):
        t.split(0)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        t.split(-1)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        t.chunk(0)
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        t.tensor_split(0)
    with pytest.raises(RuntimeError, match=r"maximum size for tensor at dimension 1 is 5 but size is 6"):
        t.unfold(1, 6, 1)
    with pytest.raises(RuntimeError, match="size is -1"):
        t.unfold(1, -1, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        t.unfold(1, 2, 0)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 0, -2"):
        t.diagonal(0, 0, -2)
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        t.flatten(1, 0)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        ember.zeros(1, 2, 3).t()
    with pytest.raises(RuntimeError, match=r"mT is only supported on matrices or batches of matrices\. Got 1-D"):
        ember.zeros(3).mT
    with pytest.raises(RuntimeError, match="shape '\\[2, -1\\]' is invalid for input of size 5"):
        t.unflatten(1, (2, -1))
    with pytest.raises(TypeError, match="must be int, not float"):
        t.narrow(0, 1.0, 1)


def test_empty_views_keep_pytorchs_offsets_and_read_as_empty():
    torch = require_torch()
    for call in (
        lambda t: t[1],
        lambda t: t[:, 1:],
        lambda t: t[5:],
        lambda t: t.narrow(1, 1, 0),
        lambda t: t.select(0, 1),
        lambda t: t.diagonal(1),
        lambda t: t.split(1, 1)[-1],
        lambda t: t.unsqueeze(0)[:, 1:, 1:],
    ):
        for shape in ((2, 0), (0, 2), (3, 2)):
            try:
                theirs = call(torch.zeros(shape))
            except (IndexError, RuntimeError) as exc:
                with pytest.raises(type(exc)):
                    call(ember.zeros(shape))
                continue
            ours = call(ember.zeros(shape))
            assert_torch_layout(ours, theirs)
            assert ours.tolist() == theirs.tolist()
            assert ours.numpy().shape == tuple(theirs.shape)
            repr(ours)
    past_the_end = ember.zeros(2, 0)[1]
    assert past_the_end.storage_offset() == 1 and past_the_end.untyped_storage().nbytes() == 0
    assert past_the_end.as_strided((0,), (1,)).shape == (0,)  # an empty layout may start anywhere
    with pytest.raises(RuntimeError, match="out of bounds"):
        past_the_end.as_strided((1,), (1,))


def test_split_of_an_empty_dimension_gives_one_empty_piece():
    # torch.zeros(0).split(2) == (tensor([]),), like np.split
    pieces = ember.zeros(0, 3).split(2)
    assert [p.shape for p in pieces] == [(0, 3)]
    assert [p.shape for p in ember.zeros(0).split(0)] == [(0,)]


def test_tensor_split_and_chunk_match_torch_on_edge_cases():
    torch = require_torch()
    for n in (0, 1, 5, 7):
        for call in (
            lambda t: t.chunk(3),
            lambda t: t.chunk(8),
            lambda t: t.tensor_split(3),
            lambda t: t.tensor_split([-2, 1, 9]),
            lambda t: t.tensor_split([3, 1]),
            lambda t: t.split(3),
            lambda t: t.split(10),
        ):
            ours = call(ember.from_numpy(np.arange(n)))
            theirs = call(torch.arange(n))
            assert [p.tolist() for p in ours] == [p.tolist() for p in theirs]


# -- meta tensors: metadata works, data access says why it cannot ------------------------------


def test_meta_tensor_views_work_and_data_access_raises_clearly():
    m = ember.empty(2, 3, device="meta")
    assert m.is_meta
    v = m.T.unsqueeze(0).expand(4, 3, 2)[1:, ::2]
    assert v.shape == (3, 2, 2) and v.stride() == (0, 2, 3) and v.is_meta
    assert m.view(6).shape == (6,) and m.view(ember.int32).dtype is ember.int32
    assert m.reshape(3, 2).is_meta and m.T.reshape(6).is_meta
    assert m.as_strided((2,), (1,), 4).storage_offset() == 4
    with pytest.raises(RuntimeError, match="out of bounds"):
        m.as_strided((2,), (1,), 5)
    for read in (lambda t: t.numpy(), lambda t: t.tolist(), lambda t: t.item()):
        with pytest.raises((TypeError, RuntimeError, NotImplementedError), match="meta"):
            read(m[0, 0])
        with pytest.raises((TypeError, RuntimeError, NotImplementedError), match="meta"):
            read(m.view(6)[1:2])
    for read in (lambda t: t.numpy(), lambda t: t.tolist()):
        with pytest.raises((TypeError, RuntimeError, NotImplementedError), match="meta"):
            read(v)


# -- string tensors -----------------------------------------------------------------------------


def test_string_tensor_views():
    s = ember.tensor([b"a", b"bc", b"d"])
    assert s.dtype is ember.string
    r = s[::-1]
    assert r.tolist() == [b"d", b"bc", b"a"]
    assert r.stride() == (-1,) and r.untyped_storage() is s.untyped_storage()
    assert s[::-2].tolist() == [b"d", b"a"]
    assert s.view(3, 1).T.tolist() == [[b"a", b"bc", b"d"]]
    assert s.unsqueeze(0).expand(2, 3).tolist() == [[b"a", b"bc", b"d"]] * 2
    assert [p.tolist() for p in s.split(2)] == [[b"a", b"bc"], [b"d"]]
    assert s.unfold(0, 2, 1).tolist() == [[b"a", b"bc"], [b"bc", b"d"]]
    assert s.as_strided((2,), (2,), 0).tolist() == [b"a", b"d"]
    with pytest.raises(RuntimeError, match="out of bounds"):
        s.as_strided((2,), (2,), 1)
    r[0] = b"z"
    assert s.tolist() == [b"a", b"bc", b"z"]
    s.view(3)[1] = "\u00e9"
    assert r.tolist() == [b"z", "\u00e9".encode(), b"a"]
    m = ember.tensor([[b"a", b"b"], [b"c", b"d"]])
    assert m.diagonal().tolist() == [b"a", b"d"]
    assert m.T[::-1, ::-1].tolist() == [[b"d", b"b"], [b"c", b"a"]]


def test_bfloat16_view_round_trip():
    x = np.arange(6, dtype=ml_dtypes.bfloat16).reshape(2, 3)
    t = ember.from_numpy(x)
    bits = t.view(ember.int16)
    assert bits.tolist() == x.view(np.int16).tolist()
    assert_values(bits.view(ember.bfloat16).T, x.T)
