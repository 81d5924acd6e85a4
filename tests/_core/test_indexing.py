"""``t[key]`` and ``t[key] = value`` (the getitem/setitem ops of ember/ops/indexing/getitem.py,
bound on Tensor) against NumPy (values, views vs copies, writes) and PyTorch (the layout of
basic-indexing views)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from tests._numpy_keys import ints_first, numpy_get
from tests._oracle import require_torch

from ._strided import (
    DTYPES,
    assert_same_layout,
    assert_torch_layout,
    assert_values,
    assert_view_of,
    booleans,
    comparable,
    filled,
    ints,
    maybe_ints,
    one_of,
    positive,
    same_view,
    strided_arrays,
    torch_twin,
)

# -- random keys -----------------------------------------------------------------------------


@st.composite
def basic_keys(draw, shape, positive_steps: bool = False):
    """A basic key for ``shape`` (ints, slices, None, at most one Ellipsis) as (ember key, NumPy key).

    Ints are sometimes NumPy integers or 0-d ember integer tensors, which index like ints."""
    ndim = len(shape)
    used = draw(ints(0, ndim))
    ellipsis = draw(booleans)
    before = draw(ints(0, used)) if ellipsis else used
    dims = [*range(before), *range(ndim - (used - before), ndim)]
    items, numpy_items = [], []
    for d in dims:
        n = shape[d]
        if n and draw(booleans):
            i = draw(ints(-n, n - 1))
            kind = draw(one_of(["int", "int", "np", "tensor"]))
            items.append({"int": i, "np": np.int64(i), "tensor": ember.tensor(i)}[kind])
            numpy_items.append(i)
        else:
            bound = maybe_ints(-n - 3, n + 3)
            steps = [1, 2, 3] if positive_steps else [1, 2, 3, -1, -2, -3]
            item = slice(draw(bound), draw(bound), draw(st.none() | one_of(steps)))
            items.append(item)
            numpy_items.append(item)
    if ellipsis:
        items.insert(before, Ellipsis)
        numpy_items.insert(before, Ellipsis)
    for _ in range(draw(ints(0, 2))):
        at = draw(ints(0, len(items)))
        items.insert(at, None)
        numpy_items.insert(at, None)
    if Ellipsis not in numpy_items:
        numpy_items.append(Ellipsis)  # keeps NumPy's all-int results 0-d arrays (views), not scalars
    if len(items) == 1 and draw(booleans):
        return items[0], tuple(numpy_items)
    return tuple(items), tuple(numpy_items)


@st.composite
def advanced_keys(draw, shape):
    """A key with at least one advanced item (int arrays, lists or tensors, bool masks), mixed with
    ints, slices, None and Ellipsis, as (ember key, NumPy key)."""
    ndim = len(shape)
    # at least 1-d: a 0-d integer array indexes like an int (a view), in NumPy and here
    index_shape = tuple(draw(st.lists(ints(0, 3), min_size=1, max_size=2)))
    items, numpy_items = [], []
    d = 0
    advanced = False
    while d < ndim:
        n = shape[d]
        kind = draw(one_of(["ints", "ints", "mask", "slice", "int", "none", "stop"]))
        if kind == "stop":
            break
        if kind == "ints" and (n or 0 in index_shape):
            index = draw(st.lists(ints(-n, n - 1), min_size=int(np.prod(index_shape)), max_size=int(np.prod(index_shape)))) if n else []
            array = np.array(index, dtype=np.int64).reshape(index_shape)
            # nested lists of nothing lose their shape: lists only where they keep it
            form = draw(one_of(["array", "tensor", "int32"] + (["list"] if array.size or array.ndim == 1 else [])))
            item = {
                "array": array,
                "list": array.tolist(),
                "tensor": ember.tensor(array),
                "int32": ember.tensor(array.astype(np.int32)),
            }[form]
            if form == "list" and array.ndim == 0:
                item = [int(array)]
                array = array.reshape(1)
            items.append(item)
            numpy_items.append(array)
            advanced = True
            d += 1
        elif kind == "mask":
            k = draw(ints(1, min(2, ndim - d)))
            mask = np.array(draw(st.lists(booleans, min_size=int(np.prod(shape[d : d + k])), max_size=int(np.prod(shape[d : d + k])))), dtype=bool)
            mask = mask.reshape(shape[d : d + k])
            items.append(ember.tensor(mask) if draw(booleans) else mask)
            numpy_items.append(mask)
            advanced = True
            d += k
        elif kind == "int" and n:
            i = draw(ints(-n, n - 1))
            items.append(i)
            numpy_items.append(i)
            d += 1
        elif kind == "none":
            items.append(None)
            numpy_items.append(None)
        else:
            item = slice(draw(maybe_ints(-n, n)), None, draw(one_of([1, -1, 2])))
            items.append(item)
            numpy_items.append(item)
            d += 1
    if not advanced:
        mask = np.zeros((), dtype=bool) if draw(booleans) else np.ones((), dtype=bool)
        items.append(mask)
        numpy_items.append(mask)
    if d < ndim and draw(booleans):
        items.append(Ellipsis)
        numpy_items.append(Ellipsis)
    return tuple(items), tuple(numpy_items)


def _values_for(dtype: np.dtype, shape, data) -> np.ndarray:
    """Small non-negative values that every dtype holds and every cast keeps (up to truncation)."""
    kinds = [np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.float32), np.dtype(np.float64), dtype]
    if dtype.kind == "c":
        kinds.append(np.dtype(np.complex64))
    source = data.draw(one_of(kinds))
    values = np.array(data.draw(st.lists(ints(0, 20), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    values = values.reshape(shape)
    if source.kind in "fc":
        values = values / 2
    if source.kind == "b":
        values = values % 2
    return np.asarray(values.astype(source))  # arithmetic on 0-d arrays gives NumPy scalars


def _broadcastable(data, shape) -> tuple[int, ...]:
    """A shape that broadcasts to ``shape``: some leading dims dropped or added as 1, some dims 1."""
    drop = data.draw(ints(0, len(shape)))
    out = [1 if data.draw(booleans) else n for n in shape[drop:]]
    return (1,) * data.draw(ints(0, 2)) + tuple(out)


def _numpy_assign(target: np.ndarray, key, value) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        target[key] = value


def _as_value(data, values: np.ndarray):
    """The same values as an ember tensor, a NumPy array, a nested list or (0-d) a Python scalar."""
    forms = ["tensor", "array"]
    if values.size:  # nested lists of nothing lose their shape
        forms.append("list")
    if values.ndim == 0:
        forms.append("scalar")
    form = data.draw(one_of(forms))
    if form == "tensor":
        return ember.from_numpy(values.copy())
    if form == "array":
        return values
    if form == "list":
        return values.tolist()
    return values.item()


# -- basic indexing: views -----------------------------------------------------------------------


@given(arrays=strided_arrays(), data=st.data())
def test_basic_getitem_is_a_view_matching_numpy(arrays, data):
    root, x = arrays
    key, numpy_key = data.draw(basic_keys(x.shape))
    t = ember.from_numpy(x)
    result = t[key]
    expected = x[numpy_key]
    assert_values(result, expected)
    assert_same_layout(result, expected)
    assert result._base is t
    assert_view_of(result, t, root)


@given(arrays=strided_arrays(), data=st.data())
def test_basic_getitem_layout_matches_torch(arrays, data):
    torch = require_torch()
    x = positive(arrays[1])
    key, _ = data.draw(basic_keys(x.shape, positive_steps=True))
    torch_key = tuple(int(k) if isinstance(k, (np.integer, ember.Tensor)) else k for k in (key if isinstance(key, tuple) else (key,)))
    assert_torch_layout(ember.from_numpy(x)[key], torch_twin(torch, x)[torch_key])


@given(arrays=strided_arrays(), data=st.data())
def test_basic_setitem_writes_through_the_view_like_numpy(arrays, data):
    root, x = arrays
    key, numpy_key = data.draw(basic_keys(x.shape))
    target_shape = x[numpy_key].shape
    values = _values_for(x.dtype, _broadcastable(data, target_shape), data)
    value = _as_value(data, values)
    expected_root = root.copy()
    _numpy_assign(same_view(x, root, expected_root), numpy_key, values)
    t = ember.from_numpy(x)
    before = t._version
    t[key] = value
    assert t._version == before + 1
    assert np.array_equal(comparable(root), comparable(expected_root))


@given(arrays=strided_arrays(min_dims=1), data=st.data())
def test_setitem_on_a_view_of_a_view_reaches_the_root(arrays, data):
    root, x = arrays
    key1, numpy_key1 = data.draw(basic_keys(x.shape))
    inner = x[numpy_key1]
    key2, numpy_key2 = data.draw(basic_keys(inner.shape))
    values = _values_for(x.dtype, _broadcastable(data, inner[numpy_key2].shape), data)
    expected_root = root.copy()
    _numpy_assign(same_view(inner, root, expected_root), numpy_key2, values)
    t = ember.from_numpy(x)
    view = t[key1]
    view[key2] = ember.from_numpy(values)
    assert np.array_equal(comparable(root), comparable(expected_root))
    assert view._version == t._version == 1


def test_scalar_setitem_casts_like_pytorch():
    t = ember.zeros(4, dtype=ember.int32)
    t[0] = 2.7
    t[1] = True
    t[2:] = -3.9
    assert t.tolist() == [2, 1, -3, -3]
    b = ember.zeros(3, dtype=ember.bool)
    b[1:] = 2
    assert b.tolist() == [False, True, True]
    f = ember.zeros(2)
    f[0] = 1.5 + 0j  # a complex with no imaginary part fits a real dtype
    assert f.tolist() == [1.5, 0.0]
    with pytest.raises(RuntimeError, match=r"__setitem__.*float32 without overflow"):
        f[0] = 1.5 + 2j  # PyTorch refuses to drop an imaginary part of a scalar
    c = ember.zeros(2, dtype=ember.complex64)
    c[1] = 1 + 2j
    assert c.tolist() == [0j, 1 + 2j]
    with pytest.raises(TypeError, match="must be a number, not str"):
        f[0] = "1"


def test_setitem_value_that_does_not_broadcast_names_both_shapes():
    t = ember.zeros(3, 4)
    with pytest.raises(ValueError, match=r"\(3,?\).*\(3, ?4\)|\(3, ?4\).*\(3,?\)"):
        t[:] = ember.ones(3)
    with pytest.raises(ValueError, match="__setitem__"):
        t[0] = [1.0, 2.0]


def test_writing_into_an_empty_tensor_with_zero_strides_is_allowed():
    """NumPy gives a copied empty array zero strides; with no elements, none is written twice."""
    empty = ember.from_numpy(np.array(np.zeros((5, 3))[:, :0], order="C"))
    assert 0 in empty.stride()
    empty.copy_(ember.zeros(5, 0))
    empty.fill_(1.0)
    assert empty.shape == (5, 0)
    with pytest.raises(RuntimeError, match="single memory location"):  # a non-empty one still is refused
        ember.zeros(1, 3).expand(4, 3).fill_(1.0)


def test_setitem_into_an_expanded_view_is_refused():
    t = ember.zeros(1, 3)
    e = t.expand(4, 3)
    e[0] = ember.tensor([1.0, 2.0, 3.0])  # one row: no element written twice
    assert t.tolist() == [[1.0, 2.0, 3.0]]
    for key in ((slice(None), 0), Ellipsis, [0, 1], (slice(None), [0])):
        with pytest.raises(RuntimeError, match=r"more than one element of the written-to tensor refers to a single memory location.*clone\(\)"):
            e[key] = 5.0
    assert t.tolist() == [[1.0, 2.0, 3.0]] and t._version == 1


def test_setitem_into_an_expanded_view_is_refused_like_torch():
    """PyTorch refuses basic writes that hit one location twice, and has deprecated the advanced
    ones (index_put_ on an expanded tensor warns); here both are refused."""
    torch = require_torch()
    for key in ((slice(None), 0), (0,), (Ellipsis,), ([0, 1],), (slice(None), [0])):
        theirs = torch.zeros(1, 3).expand(4, 3)
        ours = ember.zeros(1, 3).expand(4, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                theirs[key] = 5.0
                refused = any("deprecated" in str(w.message) for w in caught)
            except RuntimeError:
                refused = True
        if refused:
            with pytest.raises(RuntimeError, match="single memory location"):
                ours[key] = 5.0
        else:
            ours[key] = 5.0
            assert ours.tolist() == theirs.tolist()


def test_setitem_value_overlapping_the_target():
    x = np.arange(6, dtype=np.int64)
    t = ember.from_numpy(x)
    t[1:] = t[:-1]
    expected = np.arange(6)
    expected[1:] = expected[:-1].copy()
    assert t.tolist() == expected.tolist()
    t[::-1] = t
    assert t.tolist() == expected[::-1].tolist()


def test_version_bumped_by_every_write_and_shared_by_views():
    t = ember.zeros(2, 3)
    v = t[1]
    w = t[:, ::-1]
    versions = []
    for write in (
        lambda: t.__setitem__(0, 1.0),
        lambda: v.__setitem__(slice(None), ember.ones(3)),
        lambda: w.fill_(2.0),
        lambda: v.copy_(ember.zeros(3)),
        lambda: t.__setitem__(ember.tensor([0, 1]), 5.0),
        lambda: t.__setitem__(t.numpy() > 2, 0.0),
    ):
        write()
        versions.append((t._version, v._version, w._version))
    assert versions == [(i, i, i) for i in range(1, 7)]


def test_getitem_of_a_view_keeps_the_root_as_base():
    t = ember.zeros(4, 5)
    v = t[1:][:, ::2][None][0, -1]
    assert v._base is t and v.untyped_storage() is t.untyped_storage()
    assert t[[0, 1]]._base is None


# -- advanced indexing: copies ----------------------------------------------------------------------


@given(arrays=strided_arrays(), data=st.data())
def test_advanced_getitem_is_a_copy_matching_numpy(arrays, data):
    root, x = arrays
    key, numpy_key = data.draw(advanced_keys(x.shape))
    try:
        expected = numpy_get(x, numpy_key)
    except IndexError:
        with pytest.raises(IndexError):
            ember.from_numpy(x)[key]
        return
    t = ember.from_numpy(x)
    result = t[key]
    assert_values(result, expected)
    assert result.untyped_storage() is not t.untyped_storage()
    assert result._base is None
    if result.numel():
        assert not np.shares_memory(result.numpy(), root)
        before = root.copy()
        result[(0,) * result.dim()] = 1 - result[(0,) * result.dim()].item() if x.dtype.kind == "b" else 99
        assert np.array_equal(comparable(root), comparable(before))  # the copy is detached
        assert t._version == 0


@given(arrays=strided_arrays(), data=st.data())
def test_advanced_setitem_matches_numpy(arrays, data):
    root, x = arrays
    key, numpy_key = data.draw(advanced_keys(x.shape))
    try:
        target_shape = numpy_get(x, numpy_key).shape
    except IndexError:
        return
    values = _values_for(x.dtype, _broadcastable(data, target_shape), data)
    value = _as_value(data, values)
    expected_root = root.copy()
    t = ember.from_numpy(x)
    try:
        first, rest = ints_first(numpy_key)
        extra = values.ndim - len(target_shape)  # leading 1s, which PyTorch (and NumPy's general path) drop
        trimmed = values.reshape(values.shape[extra:]) if extra > 0 else values
        _numpy_assign(same_view(x, root, expected_root)[first], rest, trimmed)
    except (ValueError, TypeError) as exc:
        with pytest.raises((ValueError, TypeError)):
            t[key] = value
        assert t._version == 0, exc
        return
    t[key] = value
    assert t._version == 1
    assert np.array_equal(comparable(root), comparable(expected_root))


def test_advanced_indexing_forms():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = ember.from_numpy(x)
    cases = [
        ([1, 0],),
        (slice(None), [2, 0, 2]),
        ([0, 1], slice(None), [3, 0]),
        (Ellipsis, [[1, 2], [0, 0]]),
        (x > 10,),
        (x[:, :, 0] > 5,),
        (0, x[0, :, 0] > 1),
        (None, [1], None, slice(None, None, -1)),
        ([True, False],),
        (True,),
        (False,),
        (np.array([-1, -2]), 1),
    ]
    for key in cases:
        ours = t[tuple(ember.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key)]
        assert_values(ours, x[key])
        assert_values(t[key], x[key])


def test_advanced_indexing_matches_torch_on_common_forms():
    torch = require_torch()
    x = np.arange(60, dtype=np.int64).reshape(3, 4, 5)
    for key in [
        ([0, 2],),
        (slice(None), [1, 3], [0, 4]),
        ([0, 2], slice(1, None), [1, 2]),
        (x > 30,),
        (x[:, :, 0] % 3 == 0,),
        (Ellipsis, [4, 0]),
        (None, [2, 1], Ellipsis),
        ([[0, 1], [2, 0]], 0),
    ]:
        torch_key = tuple(torch.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key)
        assert ember.from_numpy(x)[key].tolist() == torch.from_numpy(x)[torch_key].tolist()


# -- bad keys ------------------------------------------------------------------------------------------


def test_bad_keys_raise_clear_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[..., 0, 0, None, 0]
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        t[2]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 1 with size 3"):
        t[:, -4]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        t[ember.tensor(1), ember.tensor(3)]
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        t[[0, 5]]
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        t[0, np.array([3])]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        t[::0]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        t[:, 1:2:0] = 1.0
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError, match=r"must be long, int, byte or bool tensors, not ember\.float32"):
        t[ember.tensor([0.0])]
    with pytest.raises(IndexError, match="integer or boolean type, not float64"):
        t[np.array([0.5])]
    with pytest.raises(IndexError, match="boolean index did not match"):
        t[np.array([True, False, True])]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, [0]]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        ember.tensor(1.0)[0]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        ember.tensor(1.0)[:]
    with pytest.raises((IndexError, TypeError)):
        t[1.5]
    with pytest.raises((IndexError, TypeError)):
        t["a"]
    with pytest.raises(IndexError, match="index 2 is out of bounds"):
        t[2] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        t[[0, 2]] = 1.0


def test_zero_dim_tensor_keys():
    s = ember.tensor(7.0)
    assert s[()].shape == () and s[()]._base is s
    assert s[...].item() == 7.0
    assert s[None].shape == (1,)
    assert s[None, ..., None].shape == (1, 1)
    s[()] = 3.0
    assert s.item() == 3.0
    s[...] = ember.tensor(4.0)
    assert s.item() == 4.0
    assert s[True].tolist() == [4.0]
    assert s[False].shape == (0,)


def test_an_integer_tensor_of_one_element_but_one_dim_is_advanced():
    t = ember.tensor([[1, 2], [3, 4]])
    assert t[ember.tensor(1)].untyped_storage() is t.untyped_storage()
    assert t[ember.tensor([1])].untyped_storage() is not t.untyped_storage()
    assert t[ember.tensor([1])].tolist() == [[3, 4]]
    assert t[ember.tensor(True)].tolist() == [[[1, 2], [3, 4]]]


def test_meta_tensor_indexing():
    m = ember.empty(2, 3, device="meta")
    v = m[1, ::-1]
    assert v.is_meta and v.shape == (3,) and v.stride() == (-1,) and v.storage_offset() == 5
    m[0] = 1.0  # shape-checked, no data to write
    assert m._version == 1
    assert m[[0, 1]].shape == (2, 3) and m[[0, 1]].is_meta  # advanced indexing: inference only
    m[[0]] = 1.0
    assert m._version == 2
    with pytest.raises(NotImplementedError, match="meta"):
        ember.zeros(2, 3)[0] = m[0]
    with pytest.raises(TypeError, match="meta"):
        v.numpy()


# -- string tensors ------------------------------------------------------------------------------------


def test_string_tensor_indexing_and_setitem():
    s = ember.tensor([b"a", b"bc", b"d"])
    r = s[::-1]
    assert r.tolist() == [b"d", b"bc", b"a"]
    assert s[-1].item() == b"d"
    assert s[::-2].tolist() == [b"d", b"a"]
    assert s[1:][::-1].tolist() == [b"d", b"bc"]
    r[0] = "xyz"
    assert s.tolist() == [b"a", b"bc", b"xyz"]
    s[:2] = [b"p", "\u00e9"]
    assert s.tolist() == [b"p", "\u00e9".encode(), b"xyz"]
    s[1:] = b"same"
    assert s.tolist() == [b"p", b"same", b"same"]
    s[:2] = [b"nul\x00", b"\x00"]  # bytes keep their trailing NULs
    assert s.tolist() == [b"nul\x00", b"\x00", b"same"]
    assert all(type(v) is bytes for v in s.tolist())
    s[::-1] = np.array(["u", "v", "w"])
    assert s.tolist() == [b"w", b"v", b"u"]
    assert all(type(v) is bytes for v in s.tolist())
    s[[0, 2]] = ember.tensor([b"k", b"l"])
    assert s.tolist() == [b"k", b"v", b"l"]
    assert s[[2, 0]].tolist() == [b"l", b"k"]
    assert s[ember.tensor([True, False, True])].tolist() == [b"k", b"l"]
    with pytest.raises(TypeError, match="bytes or str values, not int"):
        s[0] = 1
    with pytest.raises(TypeError, match="bytes or str values, not int"):
        s[:2] = [1, 2]
    with pytest.raises(TypeError, match="bytes or str values, not float"):
        s[[0]] = [1.5]
    with pytest.raises(TypeError, match=r"cannot assign a ember\.float32 tensor into a ember\.string tensor"):
        s[0] = ember.tensor(1.0)
    with pytest.raises(TypeError, match="cannot assign"):
        ember.zeros(2)[0] = s[0]
    m = ember.tensor([[b"a", b"b"], [b"c", b"d"]])
    m[:, ::-1] = [b"x", b"y"]
    assert m.tolist() == [[b"y", b"x"], [b"y", b"x"]]


# -- dtypes: every one indexes and writes -------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_dtype_indexes_like_numpy(dtype):
    root = filled((3, 4), dtype)
    x = root[::-1, 1::2]
    t = ember.from_numpy(x)
    assert_values(t[1:, ::-1], x[1:, ::-1])
    assert_values(t[[2, 0]], x[[2, 0]])
    assert_values(t[x != x[0, 0]], x[x != x[0, 0]])
    t[0] = t[2]
    assert np.array_equal(comparable(x[0]), comparable(x[2]))
