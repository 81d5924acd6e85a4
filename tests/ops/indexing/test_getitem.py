"""``t[key]`` / ``t[key] = v`` through the op path (NumPy's rules, IndexError out of bounds),
``index`` and ``index_put``: against NumPy and PyTorch on hypothesis-drawn keys and every dtype,
and their derivatives (gradcheck, gradgradcheck, PyTorch's gradients).

The behaviour of ``t[key]`` itself (views, layouts, strings, writes through views) is tested
against NumPy and PyTorch in ``tests/_core/test_indexing.py``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.dispatch import OP_REGISTRY, interpreter_scope
from tests._numpy_keys import ints_first, numpy_get
from tests._oracle import ALL_DTYPES, check, needs_torch, torch
from tests.ops._arrays import OPS, Recorder, arrays, assert_same, draw_index, idx, leaf, values


def test_getitem_and_setitem_dispatch_as_ops():
    t = ember.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    index = ember.tensor([2, 0])
    written = ember.tensor([1.0, 2.0])
    cases = [
        (lambda: t[1], ["getitem"]),
        (lambda: t[1:, None, ::-2], ["getitem"]),
        (lambda: t[index], ["getitem", "index"]),
        (lambda: t[:, index], ["getitem", "index"]),
        (lambda: t.__setitem__((0, slice(None)), 5.0), ["getitem", "index_put_scalar"]),
        (lambda: t.__setitem__((index, 1), written), ["getitem", "index_put"]),
        (lambda: t.index_put_((index,), ember.tensor(3.0)), ["getitem", "index_put"]),
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


# Where the indexed dims go: NumPy's rule, after PyTorch's first step: ints (and 0-d integer
# tensors) select before the tensor indices apply, so an int between a slice and an index does
# not send the index's dims to the front as in NumPy. Each key with its NumPy equivalent
# x[basic][advanced] (basic gives a view, so writing through it lands in x), or None: the key
# itself, which has no int beside an index.
_ = slice(None)
TORCH_KEYS = [
    ((0, _, [0, 1]), (0, (_, [0, 1]))),
    (([0, 1], _, [2, 0]), None),
    ((_, [1, 0], [3, 2]), None),
    ((Ellipsis, [[1], [0]], [0, 3]), None),
    ((None, [1], None, 0), ((_, 0), (None, [1], None))),
    (([1, 0], None, 2), ((_, 2), ([1, 0], None))),
    ((_, True, [0, 1]), None),
    ((False, Ellipsis), None),
    ((np.array([[True, False, True, True]] * 3),), None),
    ((slice(1, None), np.array([True, False, True, False])), None),
    (([-1, -3], -2), ((_, -2), [-1, -3])),
    ((np.int64(1), [2, 2, 0]), (1, [2, 2, 0])),
    ((_, 0, [1, 0]), ((_, 0), (_, [1, 0]))),
    ((1, _, [[0, 2], [3, 1]]), (1, (_, [[0, 2], [3, 1]]))),
    (([1, 0], _, 0), ((_, _, 0), ([1, 0], _))),
]


@pytest.mark.parametrize(("key", "equivalent"), TORCH_KEYS, ids=range(len(TORCH_KEYS)))
def test_advanced_keys_put_dims_where_torch_does(key, equivalent):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4) if len(key) > 2 else np.arange(12, dtype=np.int32).reshape(3, 4)
    if key and isinstance(key[0], np.ndarray) and key[0].ndim == 2:
        x = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = ember.from_numpy(x)
    expected = x[key] if equivalent is None else x[equivalent[0]][equivalent[1]]
    assert_same(t[key], expected)
    ekey = tuple(ember.tensor(k) if isinstance(k, (list, np.ndarray)) else k for k in key)
    assert_same(t[ekey], expected)
    written = np.arange(expected.size, dtype=np.int32).reshape(expected.shape)
    y = x.copy()
    if equivalent is None:
        y[key] = written
    else:
        y[equivalent[0]][equivalent[1]] = written
    t2 = ember.from_numpy(x.copy())
    t2[key] = ember.from_numpy(written)
    assert_same(t2, y)


# keys on a (2, 3, 4, 5) tensor mixing ints, slices, None, ..., bools, masks and index tensors
# (lists here; tensors in the test), compared with torch: values, gradients, setitem, index_put
MIXED_KEYS = {
    "0,:,idx": (0, _, [1, 0, 2]),
    "idx,:,0": ([1, 0], _, 0),
    ":,0,:,idx": (_, 0, _, [1, 3]),
    "0,:,idx2d": (0, _, [[1, 0], [2, 3]]),
    "idx,:,idx_broadcast": ([[1], [0]], _, [1, 2, 3]),
    ":,idx,:,idx": (_, [1, 0], _, [2, 1]),
    ":,0,idx": (_, 0, [1, 0]),
    "mask,:,0": ([True, False], _, 0),
    "0,mask,:,idx": (0, [True, False, True], _, [1, 2]),
    "...,idx,0": (Ellipsis, [1, 2], 0),
    "0,...,idx": (0, Ellipsis, [1, 2]),
    "None,0,:,idx": (None, 0, _, [1, 0]),
    "0,None,idx": (0, None, [1, 0]),
    "0,:,idx,0": (0, _, [1, 2], 0),
    "1:,0,:,idx": (slice(1, None), 0, _, [1, 2]),
    "0,:,mask": (0, _, [True, False, True, False]),
    "0,:,:,True": (0, _, _, True),
    "mask2d,:,0": ([[True, False, True], [False, True, True]], _, 0),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(MIXED_KEYS))
def test_mixed_keys_match_torch(name):
    base = np.arange(120, dtype=np.float64).reshape(2, 3, 4, 5)
    results = []
    for lib in (ember, torch):
        key = tuple(lib.tensor(k) if isinstance(k, list) else k for k in MIXED_KEYS[name])
        x = lib.tensor(base, requires_grad=True)
        out = x[key]
        weights = lib.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        written = lib.tensor(base.copy())
        written[key] = weights + 1000
        results.append((out.detach().numpy(), x.grad.numpy(), written.numpy()))
    for got, want in zip(*results, strict=True):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_index_put_with_a_tensor_key_is_setitem():
    x = ember.zeros(2, 3, 4)
    i, j = ember.tensor([1, 0]), ember.tensor([2, 1])
    x.index_put_((i, ember.tensor([0, 1]), j), ember.tensor([5.0, 6.0]))
    assert x[1, 0, 2].item() == 5.0 and x[0, 1, 1].item() == 6.0 and x.sum().item() == 11.0


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
            items.append(draw_index(data, n, (data.draw(st.integers(0, 3)),)))
        elif kind == "mask":
            items.append(np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
        elif kind == "none":
            items.extend([None, slice(None)])
        else:
            items.append(slice(None, None, data.draw(st.sampled_from([1, -1, 2]))))
    key = (*items, Ellipsis)  # keeps all-int results arrays, as ember's 0-d tensors
    try:
        expected = numpy_get(a, key)  # PyTorch's placement: ints select first
    except IndexError:
        with pytest.raises(IndexError):
            t[key]
        return
    assert_same(t[key], expected)
    written = values(expected.shape, str(a.dtype) if a.dtype.name != "bfloat16" else "bfloat16", 7)
    b = a.copy()
    first, rest = ints_first(key)
    b[first][rest] = written
    t[key] = ember.from_numpy(written)
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


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_getitem_and_setitem_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    index = np.array([2, 0, -1])
    assert_same(t[index], v[index])
    assert_same(t[v != v[0, 0]], v[v != v[0, 0]])
    y = v.copy()
    y[[0, 2], 1:] = v[1, 1:]
    t2 = ember.from_numpy(v.copy())
    t2[[0, 2], 1:] = t2[1, 1:]
    assert_same(t2, y)


def test_advanced_indexing_of_meta_tensors_infers_shapes_without_data():
    m = ember.empty(4, 5, device="meta")
    i = ember.empty(3, dtype=ember.int64, device="meta")
    assert m[i].shape == (3, 5) and m[i].is_meta
    assert m[[0, 2]].shape == (2, 5) and m[:, [1, 2, 3]].shape == (4, 3) and m[i, 1:].shape == (3, 4)
    assert m[[True, False, True, True]].shape == (3, 5)  # a host mask: its count is known
    m[[0, 1]] = 1.0  # inference only
    with pytest.raises(NotImplementedError, match="boolean masks of meta tensors"):
        m[ember.empty(4, dtype=ember.bool, device="meta")]
    m = ember.empty(2, 3, device="meta")
    with pytest.raises(NotImplementedError, match="meta"):
        m[ember.empty(2, dtype=ember.bool, device="meta")]
    assert m[[0]].shape == (1, 3) and m[[0]].is_meta  # integer indices: the shape needs no data


# -- derivatives ------------------------------------------------------------------------------

MASK = ember.tensor([[True, False, True], [False, False, True]])

CASES = {
    # name: (input shapes, fn)
    "getitem_int": (((3, 4),), lambda x: x[1]),
    "getitem_slices": (((4, 5),), lambda x: x[1:3, ::2]),
    "getitem_mixed": (((3, 4, 5),), lambda x: x[..., None, 1, -3::-1]),
    "index_1d": (((4, 3),), lambda x: x[idx([0, 2, 2, 3])]),
    "index_adjacent": (((2, 4, 3),), lambda x: x[:, idx([[1, 1], [0, 3]]), idx([2, 0])]),
    "index_separated": (((3, 4, 3),), lambda x: x[idx([0, 2]), 1:3, idx([1, 1])]),
    "index_mask": (((2, 3),), lambda x: x[MASK]),
    "index_functor": (((3, 3),), lambda x: ember.index(x, (None, idx([2, 0, 2])))),
    "index_put": (((4, 3), (2, 3)), lambda x, v: x.index_put((idx([1, 3]),), v)),
    "index_put_accumulate": (
        ((4, 3), (3,)),
        lambda x, v: x.index_put((idx([1, 1]), idx([0, 0])), v[:1].expand(2), accumulate=True),
    ),
    "index_put_broadcast": (((3, 4), (1, 1, 4)), lambda x, v: x.index_put((idx([0, 2]),), v)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shapes, fn = CASES[name]
    assert gradcheck(fn, tuple(leaf(s, k) for k, s in enumerate(shapes)))


@pytest.mark.parametrize("name", ["getitem_mixed", "index_adjacent", "index_put"])
def test_gradgradcheck(name):
    shapes, fn = CASES[name]
    assert gradgradcheck(lambda *a: fn(*a) * fn(*a), tuple(leaf(s, k) for k, s in enumerate(shapes)))


def test_setitem_advanced_key_on_non_leaf():
    def fn(x, v):
        y = x * 1
        y[:, idx([2, 0])] = v
        return y

    assert gradcheck(fn, (leaf((3, 3)), leaf((2,), 1)))


def test_index_put_scalar(monkeypatch):
    # the schema marks index_put_scalar non-differentiable (via setitem's entry); its derivative
    # is registered: check it with the flag on
    monkeypatch.setattr(OP_REGISTRY["index_put_scalar"], "differentiable", True)

    def fn(x):
        y = x * 1
        y[idx([2, 0]), idx([1, 1])] = 0.5
        return y

    assert gradcheck(fn, (leaf((3, 3)),))


@needs_torch
def test_gradients_match_torch():
    rng = np.random.default_rng(5)
    a, s = rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
    rows = np.array([3, 0, 3])
    check(
        lambda x, s: x[ember.tensor(rows)][:, [4, 0]], lambda x, s: x[torch.tensor(rows)][:, [4, 0]], a, s, grad=True, rtol=1e-12, atol=1e-12
    )
    check(
        lambda x, s: x.index_put((ember.tensor([1, 2, 1]),), s, accumulate=True),
        lambda x, s: x.index_put((torch.tensor([1, 2, 1]),), s, accumulate=True),
        a, s, grad=True, rtol=1e-12, atol=1e-12,
    )  # fmt: skip
