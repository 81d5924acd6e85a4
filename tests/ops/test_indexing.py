"""Indexing ops against NumPy and PyTorch: ``t[key]`` / ``t[key] = v`` through the op path
(NumPy's rules, IndexError out of bounds), gather/scatter, index_*, masked_*, take/put,
nonzero, sort/topk/kthvalue, unique, searchsorted/bucketize, on hypothesis-drawn shapes
(0-d, empty, non-contiguous) and every dtype; in-place variants and their version counter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.dispatch import interpreter_scope

from .test_shape import ALL_DTYPES, TORCH_DTYPES, Recorder, _values, arrays, assert_same, from_torch, needs_torch, to_torch, torch

OPS = settings(max_examples=30, deadline=None)
REAL_DTYPES = tuple(d for d in TORCH_DTYPES if not d.startswith("complex"))


def _index(data, size: int, shape: tuple, label: str = "index", negative: bool = True) -> np.ndarray:
    n = int(np.prod(shape))
    if size == 0:
        return np.zeros(shape, dtype=np.int64) if n == 0 else None
    lo = -size if negative else 0
    values = data.draw(st.lists(st.integers(lo, size - 1), min_size=n, max_size=n), label=label)
    return np.array(values, dtype=np.int64).reshape(shape)


# -- getitem / setitem are ops --------------------------------------------------------------------


def test_getitem_and_setitem_dispatch_as_ops():
    t = ember.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    idx = ember.tensor([2, 0])
    values = ember.tensor([1.0, 2.0])
    cases = [
        (lambda: t[1], ["getitem"]),
        (lambda: t[1:, None, ::-2], ["getitem"]),
        (lambda: t[idx], ["getitem", "index"]),
        (lambda: t[:, idx], ["getitem", "index"]),
        (lambda: t.__setitem__((0, slice(None)), 5.0), ["getitem", "index_put_scalar"]),
        (lambda: t.__setitem__((idx, 1), values), ["getitem", "index_put"]),
        (lambda: t.index_put_((idx,), ember.tensor(3.0)), ["getitem", "index_put"]),
    ]
    for call, ops in cases:
        recorder = Recorder()
        with interpreter_scope(recorder):
            call()
        assert recorder.ops == ops


def test_basic_indexing_is_a_view_and_advanced_a_copy():
    t = ember.zeros(3, 4)
    v = t[1:, ::2]
    assert v.untyped_storage() is t.untyped_storage() and v._base is t
    v[0, 1] = 5.0
    assert t[1, 2].item() == 5.0
    c = t[[1, 2]]
    assert c.untyped_storage() is not t.untyped_storage() and c._base is None
    c[0, 2] = 7.0
    assert t[1, 2].item() == 5.0


# NumPy's rule for where the indexed dims go, including ints next to arrays (which PyTorch
# handles differently: ember follows NumPy)
NUMPY_KEYS = [
    (0, slice(None), [0, 1]),
    ([0, 1], slice(None), [2, 0]),
    (slice(None), [1, 0], [3, 2]),
    (Ellipsis, [[1], [0]], [0, 3]),
    (None, [1], None, 0),
    ([1, 0], None, 2),
    (slice(None), True, [0, 1]),
    (False, Ellipsis),
    (np.array([[True, False, True, True]] * 3),),
    (slice(1, None), np.array([True, False, True, False])),
    ([-1, -3], -2),
    (np.int64(1), [2, 2, 0]),
]


@pytest.mark.parametrize("key", NUMPY_KEYS, ids=range(len(NUMPY_KEYS)))
def test_advanced_keys_follow_numpy(key):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)[:, :, :] if len(key) > 2 else np.arange(12, dtype=np.int32).reshape(3, 4)
    if key and isinstance(key[0], np.ndarray) and key[0].ndim == 2:
        x = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = ember.from_numpy(x)
    expected = x[key]
    assert_same(t[key], expected)
    ekey = tuple(ember.tensor(k) if isinstance(k, (list, np.ndarray)) else k for k in key)
    assert_same(t[ekey], expected)
    y = x.copy()
    y[key] = -1
    t2 = ember.from_numpy(x.copy())
    t2[key] = -1
    assert_same(t2, y)
    values = np.arange(expected.size, dtype=np.int32).reshape(expected.shape)
    y[key] = values
    t2[key] = ember.from_numpy(values)
    assert_same(t2, y)


@OPS
@given(data=st.data())
def test_random_advanced_keys_match_numpy(data):
    t, a = data.draw(arrays(dtypes=ALL_DTYPES, min_dims=1))
    items = []
    for d in range(a.ndim):
        kind = data.draw(st.sampled_from(["slice", "int", "ints", "mask", "none"]), label=f"kind{d}")
        n = a.shape[d]
        if kind == "int" and n:
            items.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "ints" and n:
            items.append(_index(data, n, (data.draw(st.integers(0, 3)),)))
        elif kind == "mask":
            items.append(np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
        elif kind == "none":
            items.extend([None, slice(None)])
        else:
            items.append(slice(None, None, data.draw(st.sampled_from([1, -1, 2]))))
    key = (*items, Ellipsis)  # keeps all-int results arrays, as ember's 0-d tensors
    try:
        expected = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            t[key]
        return
    assert_same(t[key], expected)
    values = _values(expected.shape, str(a.dtype) if a.dtype.name != "bfloat16" else "bfloat16", 7)
    b = a.copy()
    b[key] = values
    t[key] = ember.from_numpy(values)
    assert_same(t, b)


@needs_torch
def test_advanced_indexing_matches_torch_where_torch_agrees_with_numpy():
    x = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    for key in [
        ([0, 2],),
        (slice(None), [1, 3], [0, 4]),
        (x > 30,),
        (Ellipsis, [4, 0]),
        ([[0, 1], [2, 0]], 0),
        (slice(None), [-1, 0]),
    ]:
        tkey = tuple(torch.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key)
        assert_same(ember.from_numpy(x)[key], torch.from_numpy(x)[tkey])
        ours, theirs = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
        ours[key] = 1.5
        theirs[tkey] = 1.5
        assert_same(ours, theirs)


def test_out_of_bounds_indices_raise_index_error_never_wrap():
    t = ember.zeros(3, 4)
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 3$"):
        t[[0, 5]]
    with pytest.raises(IndexError, match=r"^index -4 is out of bounds for dimension 0 with size 3$"):
        t[ember.tensor([-4])]
    with pytest.raises(IndexError, match=r"^index 4 is out of bounds for dimension 1 with size 4$"):
        t[:, [4]]
    with pytest.raises(IndexError, match=r"^index 3 is out of bounds for dimension 0 with size 3$"):
        t[3, [0]]
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for dimension 0 with size 3"):
        t[[5]] = 1.0
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for dimension 1 with size 4"):
        t.gather(1, ember.tensor([[4]]))
    with pytest.raises(IndexError, match=r"index -5 is out of bounds for dimension 1 with size 4"):
        t.scatter_(1, ember.tensor([[-5]]), 1.0)
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for dimension 0 with size 3"):
        t.index_select(0, ember.tensor([3]))
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for dimension 0 with size 3"):
        t.index_add_(0, ember.tensor([3]), ember.ones(1, 4))
    with pytest.raises(IndexError, match=r"out of range: tried to access index 12 on a tensor of 12 elements"):
        ember.take(t, ember.tensor([12]))
    with pytest.raises(IndexError, match=r"out of range: tried to access index -13 on a tensor of 12 elements"):
        t.put_(ember.tensor([-13]), ember.tensor([1.0]))
    assert t.tolist() == [[0.0] * 4] * 3  # nothing was written
    assert t[[-3, -1]].shape == (2, 4)  # negative indices count from the end


def test_setitem_refuses_read_only_and_expanded_targets():
    readonly = np.zeros(3)
    readonly.flags.writeable = False
    t = ember.from_numpy(readonly)
    for write in (
        lambda: t.__setitem__(0, 1.0),
        lambda: t.__setitem__([0], 1.0),
        lambda: t.masked_fill_(ember.tensor([True, False, True]), 1.0),
    ):
        with pytest.raises(RuntimeError, match="read-only"):
            write()
    e = ember.zeros(1, 3).expand(2, 3)
    for write in (
        lambda: e.__setitem__((slice(None), 0), 1.0),
        lambda: e.__setitem__([0, 1], 1.0),
        lambda: e.index_fill_(1, ember.tensor([0]), 1.0),
        lambda: e.scatter_(0, ember.tensor([[0]]), 1.0),
        lambda: e.index_put_((ember.tensor([0]),), ember.tensor(1.0)),
    ):
        with pytest.raises(RuntimeError, match="single memory location"):
            write()
    e[0] = ember.tensor([1.0, 2.0, 3.0])  # one row: nothing written twice
    assert e.tolist() == [[1.0, 2.0, 3.0]] * 2


def test_setitem_values_broadcast_cast_and_errors():
    t = ember.zeros(2, 3, dtype=ember.int32)
    t[0] = [1.7, 2.2, -3.9]
    t[1, [0, 2]] = ember.tensor([[True, True]])  # leading 1s are dropped, bools cast
    assert t.tolist() == [[1, 2, -3], [1, 0, 1]]
    with pytest.raises(ValueError, match=r"__setitem__\(\).*\(2,\).*\(3,\)"):
        t[0] = ember.ones(2)
    with pytest.raises(TypeError, match="must be a number, not str"):
        t[0] = "x"
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[0, 0, [0]] = 1
    with pytest.raises(IndexError, match="must be long, int, byte or bool tensors"):
        t[ember.tensor([0.0])]


def test_index_put_accumulates_and_is_in_place():
    t = ember.zeros(3)
    r = t.index_put_((ember.tensor([0, 0, 2]),), ember.tensor([1.0, 2.0, 3.0]), accumulate=True)
    assert r is t and t.tolist() == [3.0, 0.0, 3.0] and t._version == 1
    copy = ember.index_put(t, (ember.tensor([1]),), ember.tensor(9.0))
    assert copy.tolist() == [3.0, 9.0, 3.0] and t.tolist() == [3.0, 0.0, 3.0]
    m = ember.zeros(2, 3)
    m.index_put_((None, ember.tensor([2, 0])), ember.tensor([1.0, 2.0]))
    assert m.tolist() == [[2.0, 0.0, 1.0], [2.0, 0.0, 1.0]]
    with pytest.raises(RuntimeError, match="dtypes match"):
        m.index_put_((ember.tensor([0]),), ember.tensor(1))


# -- gather / scatter / index_* / masked_* / take / put against torch --------------------------------


@needs_torch
@OPS
@given(data=st.data())
def test_gather_scatter_family_matches_torch(data):
    t, a = data.draw(arrays(dtypes=REAL_DTYPES))
    ndim = a.ndim
    d = data.draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1), label="dim")
    size = a.shape[d] if ndim else 1
    ishape = tuple(data.draw(st.integers(0, s), label="index size") for s in a.shape) if ndim else ()
    if ndim:
        ishape = tuple(data.draw(st.integers(0, 3)) if k == d % ndim else s for k, s in enumerate(ishape))
    index = _index(data, size, ishape, negative=False)
    if index is None:
        return
    ti = to_torch(index)
    assert_same(t.gather(d, ember.from_numpy(index)), torch.gather(to_torch(a), d, ti))
    src = _values(ishape, str(a.dtype) if a.dtype.name != "bfloat16" else "bfloat16", 3)
    e_src, t_src = ember.from_numpy(src), to_torch(src)
    repeated = index.ndim > 0 and bool(np.any(np.diff(np.sort(index, axis=d), axis=d) == 0))
    if not repeated:  # torch's result is undefined where two values land on one place
        assert_same(t.scatter(d, ember.from_numpy(index), e_src), torch.scatter(to_torch(a), d, ti, t_src))
    assert_same(t.scatter(d, ember.from_numpy(index), 2), torch.scatter(to_torch(a), d, ti, 2))
    if a.dtype != np.bool_:
        assert_same(t.scatter_add(d, ember.from_numpy(index), e_src), torch.scatter_add(to_torch(a), d, ti, t_src))
        reduce = data.draw(st.sampled_from(["sum", "prod", "amax", "amin", "mean"]), label="reduce")
        include_self = data.draw(st.booleans(), label="include_self")
        if not (reduce == "mean" and a.dtype.kind in "iu"):
            got = t.scatter_reduce(d, ember.from_numpy(index), e_src, reduce, include_self=include_self)
            want = torch.scatter_reduce(to_torch(a), d, ti, t_src, reduce, include_self=include_self)
            if a.dtype.kind == "f":  # sums in another order
                np.testing.assert_allclose(
                    got.numpy().astype(np.float64), from_torch(want).astype(np.float64), rtol=2e-2, atol=1e-2
                )
            else:
                assert_same(got, want)


@needs_torch
@OPS
@given(data=st.data())
def test_index_select_add_copy_fill_match_torch(data):
    t, a = data.draw(arrays(dtypes=REAL_DTYPES, min_dims=1))
    d = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    size = a.shape[d]
    n = data.draw(st.integers(0, 4), label="n")
    index = _index(data, size, (n,), negative=False)  # torch refuses negative ones here
    if index is None:
        return
    e_i, t_i = ember.from_numpy(index), to_torch(index)
    assert_same(t.index_select(d, e_i), torch.index_select(to_torch(a), d, t_i))
    sshape = tuple(n if k == d % a.ndim else s for k, s in enumerate(a.shape))
    dtype = "bfloat16" if a.dtype.name == "bfloat16" else str(a.dtype)
    src = _values(sshape, dtype, 5)
    if a.dtype != np.bool_:
        alpha = data.draw(st.sampled_from([1, 2]))
        got = t.index_add(d, e_i, ember.from_numpy(src), alpha=alpha)
        want = torch.index_add(to_torch(a), d, t_i, to_torch(src), alpha=alpha)
        if a.dtype.kind == "f":
            np.testing.assert_allclose(got.numpy().astype(np.float64), from_torch(want).astype(np.float64), rtol=2e-2, atol=1e-2)
        else:
            assert_same(got, want)
    if len(np.unique(index % max(size, 1))) == index.size:  # repeated targets: torch picks any
        assert_same(t.index_copy(d, e_i, ember.from_numpy(src)), torch.index_copy(to_torch(a), d, t_i, to_torch(src)))
    assert_same(t.index_fill(d, e_i, 1), torch.index_fill(to_torch(a), d, t_i, 1))
    assert_same(t.index_fill(d, e_i, ember.tensor(0)), torch.index_fill(to_torch(a), d, t_i, torch.tensor(0)))


@needs_torch
@OPS
@given(data=st.data())
def test_masked_ops_take_put_nonzero_match_torch(data):
    t, a = data.draw(arrays(dtypes=TORCH_DTYPES))
    mshape = a.shape[data.draw(st.integers(0, a.ndim), label="mask dims dropped") :]
    mask = np.array(
        data.draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)), max_size=int(np.prod(mshape)))), dtype=bool
    ).reshape(mshape)
    e_m, t_m = ember.from_numpy(mask), to_torch(mask)
    assert_same(t.masked_fill(e_m, 1), torch.masked_fill(to_torch(a), t_m, 1))
    assert_same(t.masked_fill(e_m, ember.tensor(0)), torch.masked_fill(to_torch(a), t_m, torch.tensor(0)))
    assert_same(t.masked_select(e_m), torch.masked_select(to_torch(a), t_m))
    dtype = "bfloat16" if a.dtype.name == "bfloat16" else str(a.dtype)
    source = _values((a.size + 1,), dtype, 9)
    assert_same(t.masked_scatter(e_m, ember.from_numpy(source)), to_torch(a).masked_scatter(t_m, to_torch(source)))
    assert_same(t.nonzero(), torch.nonzero(to_torch(a)))
    assert_same(ember.argwhere(t), torch.argwhere(to_torch(a)))
    if a.ndim:
        assert_same(t.nonzero(as_tuple=True), torch.nonzero(to_torch(a), as_tuple=True))
    if a.size:
        index = _index(data, a.size, (data.draw(st.integers(0, 2)), data.draw(st.integers(0, 3))))
        assert_same(ember.take(t, ember.from_numpy(index)), torch.take(to_torch(a), to_torch(index)))
        flat = np.unique(index.reshape(-1) % a.size)
        values = _values(flat.shape, dtype, 11)
        assert_same(t.put(ember.from_numpy(flat), ember.from_numpy(values)), to_torch(a).put(to_torch(flat), to_torch(values)))
        if a.dtype.kind in "iu" and a.dtype != np.uint8:
            assert_same(
                t.put(ember.from_numpy(index), ember.from_numpy(_values(index.shape, dtype, 2)), accumulate=True),
                to_torch(a).put(to_torch(index), to_torch(_values(index.shape, dtype, 2)), accumulate=True),
            )


@needs_torch
@OPS
@given(data=st.data())
def test_take_along_dim_matches_torch(data):
    t, a = data.draw(arrays(dtypes=("float32", "int64", "bool"), min_dims=1))
    d = data.draw(st.integers(-a.ndim, a.ndim - 1))
    ishape = tuple(data.draw(st.sampled_from([1, s])) for s in a.shape)
    ishape = tuple(data.draw(st.integers(0, 3)) if k == d % a.ndim else s for k, s in enumerate(ishape))
    index = _index(data, a.shape[d], ishape)
    if index is None:
        return
    index %= max(a.shape[d], 1)  # torch refuses negative indices here
    assert_same(ember.take_along_dim(t, ember.from_numpy(index), d), torch.take_along_dim(to_torch(a), to_torch(index), d))
    if a.size:
        flat = _index(data, a.size, (3,), negative=False)
        assert_same(t.take_along_dim(ember.from_numpy(flat)), torch.take_along_dim(to_torch(a), to_torch(flat)))


# -- sorting, unique, searchsorted against torch -----------------------------------------------------


@needs_torch
@OPS
@given(data=st.data())
def test_sort_argsort_topk_kthvalue_match_torch(data):
    t, a = data.draw(arrays(dtypes=REAL_DTYPES))
    if a.dtype.kind == "f" and a.size and data.draw(st.booleans()):
        a = a.copy()
        a.reshape(-1)[0] = np.nan
        t = ember.from_numpy(a)
    d = data.draw(st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1), label="dim")
    desc = data.draw(st.booleans(), label="descending")
    assert_same(t.sort(d, desc, stable=True), torch.sort(to_torch(a), dim=d, descending=desc, stable=True))
    assert_same(t.argsort(d, desc, stable=True), torch.argsort(to_torch(a), dim=d, descending=desc, stable=True))
    if a.dtype == np.bool_:
        return  # torch has no topk / kthvalue for bool
    size = a.shape[d] if a.ndim else 1
    k = data.draw(st.integers(0, size), label="k")
    largest = data.draw(st.booleans(), label="largest")
    values, indices = t.topk(k, d, largest)
    want = torch.topk(to_torch(a), k, d, largest)
    assert_same(values, want.values)  # indices of ties may differ: check they point at the values
    assert_same(ember.take_along_dim(t, indices, d) if a.ndim else t, want.values if a.ndim else to_torch(a))
    if k and a.dtype.kind != "b" and not np.isnan(a.astype(np.float64)).any():
        kept = data.draw(st.booleans())
        result = t.kthvalue(k, d, kept)
        expected = torch.kthvalue(to_torch(a), k, d, kept)
        assert_same(result.values, expected.values)


@needs_torch
@OPS
@given(data=st.data())
def test_unique_matches_torch(data):
    t, a = data.draw(arrays(dtypes=("int64", "int32", "uint8", "bool", "float32", "float64", "int16")))
    dim = None if not a.ndim or data.draw(st.booleans()) else data.draw(st.integers(-a.ndim, a.ndim - 1))
    flags = data.draw(st.tuples(st.booleans(), st.booleans()), label="inverse, counts")
    try:
        expected = torch.unique(to_torch(a), return_inverse=flags[0], return_counts=flags[1], dim=dim)
    except RuntimeError:
        return  # torch refuses some empty dims
    assert_same(ember.unique(t, return_inverse=flags[0], return_counts=flags[1], dim=dim), expected)
    try:
        expected = torch.unique_consecutive(to_torch(a), return_inverse=flags[0], return_counts=flags[1], dim=dim)
    except RuntimeError:
        return
    assert_same(ember.unique_consecutive(t, return_inverse=flags[0], return_counts=flags[1], dim=dim), expected)


@needs_torch
@OPS
@given(data=st.data())
def test_searchsorted_and_bucketize_match_torch(data):
    dtype = data.draw(st.sampled_from(["int64", "float32", "float64", "int32"]))
    lead = tuple(data.draw(st.lists(st.integers(0, 2), max_size=2), label="lead"))
    n = data.draw(st.integers(0, 5))
    seq = np.sort(_values((*lead, n), dtype, data.draw(st.integers(0, 99))), axis=-1)
    values = _values(
        (*lead, data.draw(st.integers(0, 4))) if lead else tuple(data.draw(st.lists(st.integers(0, 3), max_size=2))), dtype, 1
    )
    right = data.draw(st.booleans())
    out_int32 = data.draw(st.booleans())
    assert_same(
        ember.searchsorted(ember.from_numpy(seq), ember.from_numpy(values), right=right, out_int32=out_int32),
        torch.searchsorted(to_torch(seq), to_torch(values), right=right, out_int32=out_int32),
    )
    if not lead:
        assert_same(
            ember.bucketize(ember.from_numpy(values), ember.from_numpy(seq), right=right),
            torch.bucketize(to_torch(values), to_torch(seq), right=right),
        )
        assert_same(
            ember.searchsorted(ember.from_numpy(seq), 2, side="right"), torch.searchsorted(to_torch(seq), 2, side="right")
        )
        perm = np.random.default_rng(0).permutation(n)
        assert_same(
            ember.searchsorted(ember.from_numpy(seq[perm]), ember.from_numpy(values), sorter=ember.from_numpy(np.argsort(perm))),
            torch.searchsorted(to_torch(seq[perm]), to_torch(values), sorter=to_torch(np.argsort(perm))),
        )


def test_sort_is_stable_and_puts_nan_last_like_torch():
    x = ember.tensor([2.0, float("nan"), 1.0, 2.0, 1.0])
    r = x.sort()
    assert r.indices.tolist() == [2, 4, 0, 3, 1] and type(r).__name__ == "sort"
    r = x.sort(descending=True)
    assert r.indices.tolist() == [1, 0, 3, 2, 4]
    assert x.topk(2).indices.tolist() == [1, 0]
    k = ember.tensor([[3, 1], [2, 4]]).kthvalue(1, 0, keepdim=True)
    assert k.values.tolist() == [[2, 1]] and k.indices.tolist() == [[1, 0]]
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(6)
    with pytest.raises(RuntimeError, match="complex"):
        ember.zeros(2, dtype=ember.complex64).sort()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_indexing_ops_take_every_dtype_like_numpy(dtype):
    x = _values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    idx = np.array([2, 0, -1])
    assert_same(t[idx], v[idx])
    assert_same(t[v != v[0, 0]], v[v != v[0, 0]])
    assert_same(t.index_select(1, ember.from_numpy(idx)), np.take(v, idx, axis=1))
    gi = np.array([[0, 2], [1, 1], [2, 0]])
    assert_same(t.gather(1, ember.from_numpy(gi)), np.take_along_axis(v, gi, 1))
    assert_same(ember.take(t, ember.from_numpy(idx)), np.take(v, idx))
    mask = np.array([True, False, True])
    expected = v.copy()
    expected[mask] = v[0, 0]
    assert_same(t.masked_fill(ember.from_numpy(mask[:, None]), v[0, 0].item()), expected)
    assert_same(t.nonzero(), np.argwhere(v))
    y = v.copy()
    y[[0, 2], 1:] = v[1, 1:]
    t2 = ember.from_numpy(v.copy())
    t2[[0, 2], 1:] = t2[1, 1:]
    assert_same(t2, y)
    if not dtype.startswith("complex"):
        order = np.argsort(v.astype(np.float64) if dtype == "bfloat16" else v, axis=1, kind="stable")
        assert_same(t.sort(1).indices, order)
        assert_same(t.sort(1).values, np.take_along_axis(v, order, 1))
        assert_same(ember.unique(t), np.unique(v))
        seq = np.sort(v[0])
        assert_same(ember.searchsorted(ember.from_numpy(seq), t), np.searchsorted(seq, v).astype(np.int64))


def test_in_place_ops_write_through_views_and_bump_the_version():
    base = ember.zeros(3, 4)
    v = base[:, 1:]  # a view: the writes land in base
    i = ember.tensor([[0, 2]])
    v.scatter_(1, i, 1.0)
    v.scatter_add_(0, ember.tensor([[1, 1, 1]]), ember.ones(1, 3))
    v.index_add_(0, ember.tensor([2]), ember.ones(1, 3), alpha=2)
    v.index_fill_(1, ember.tensor([1]), 5)
    v.index_copy_(0, ember.tensor([0]), ember.full((1, 3), 3.0))
    v.masked_fill_(ember.tensor([True, False, False]), -1.0)
    v.masked_scatter_(ember.tensor([[False, True, False]]), ember.tensor([8.0, 9.0, 10.0]))
    v.put_(ember.tensor([8]), ember.tensor([4.0]))
    v.scatter_reduce_(1, ember.tensor([[0]]), ember.tensor([[7.0]]), "amax")
    assert base._version == v._version == 9
    assert base.tolist() == [[0.0, 7.0, 8.0, 3.0], [0.0, -1.0, 9.0, 1.0], [0.0, -1.0, 10.0, 4.0]]  # as torch


def test_data_dependent_ops_refuse_meta_and_others_infer():
    m = ember.empty(2, 3, device="meta")
    for call in (
        lambda: m.nonzero(),
        lambda: m.masked_select(ember.empty(2, 3, dtype=ember.bool, device="meta")),
        lambda: ember.unique(m),
        lambda: m[ember.empty(2, dtype=ember.bool, device="meta")],
    ):
        with pytest.raises(NotImplementedError, match="meta"):
            call()
    assert m[[0]].shape == (1, 3) and m[[0]].is_meta  # integer indices: the shape needs no data
    assert m.gather(1, ember.empty(2, 5, dtype=ember.int64, device="meta")).shape == (2, 5)
    assert m.sort().values.is_meta and m.topk(2).indices.shape == (2, 2)


def test_indexing_op_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        t.gather(0, ember.zeros(1, 1))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        t.gather(0, ember.zeros(1, dtype=ember.int64))
    with pytest.raises(
        RuntimeError,
        match=r"Size does not match at dimension 1 expected index \[1, 4\] to be smaller than self \[2, 3\] apart from dimension 0",
    ):
        t.gather(0, ember.zeros(1, 4, dtype=ember.int64))
    with pytest.raises(RuntimeError, match=r"Expected self\.dtype to be equal to src\.dtype"):
        t.scatter(0, ember.zeros(1, 1, dtype=ember.int64), ember.ones(1, 1, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="reduce argument must be one of"):
        t.scatter(0, ember.zeros(1, 1, dtype=ember.int64), 1.0, reduce="max")
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        t.index_select(0, ember.zeros(1, 1, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Source/destination tensor must have same slice shapes"):
        t.index_add(0, ember.tensor([0]), ember.ones(1, 2))
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        ember.zeros(2, dtype=ember.int64).index_add(0, ember.tensor([0]), ember.ones(1, dtype=ember.int64), alpha=0.5)
    with pytest.raises(RuntimeError, match=r"only supports boolean masks, but got mask with dtype ember\.int64"):
        t.masked_fill(ember.tensor([1, 0, 1]), 1.0)
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor"):
        t.masked_fill(ember.tensor([True, False, True]), ember.ones(1))
    with pytest.raises(RuntimeError, match="output with shape \\[2, 3\\] doesn't match the broadcast shape \\[4, 2, 3\\]"):
        t.masked_fill_(ember.zeros(4, 2, 3, dtype=ember.bool), 1.0)
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        t.masked_scatter(ember.ones(2, 3, dtype=ember.bool), ember.ones(5))
    with pytest.raises(RuntimeError, match="same number of elements"):
        t.put(ember.tensor([0, 1]), ember.ones(3))
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        ember.searchsorted(ember.tensor([1, 2]), ember.tensor([1]), right=True, side="left")
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        ember.bucketize(ember.tensor([1]), ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="first N-1 dimensions of boundaries tensor and input value tensor must match"):
        ember.searchsorted(ember.zeros(2, 3), ember.zeros(3, 1))


def test_advanced_indexing_of_meta_tensors_infers_shapes_without_data():
    m = ember.empty(4, 5, device="meta")
    i = ember.empty(3, dtype=ember.int64, device="meta")
    assert m[i].shape == (3, 5) and m[i].is_meta
    assert m[[0, 2]].shape == (2, 5) and m[:, [1, 2, 3]].shape == (4, 3) and m[i, 1:].shape == (3, 4)
    assert m[[True, False, True, True]].shape == (3, 5)  # a host mask: its count is known
    m[[0, 1]] = 1.0  # inference only
    with pytest.raises(NotImplementedError, match="boolean masks of meta tensors"):
        m[ember.empty(4, dtype=ember.bool, device="meta")]
