"""sort/argsort, topk, kthvalue, unique/unique_consecutive, searchsorted/bucketize: against
PyTorch and NumPy on hypothesis-drawn shapes and every dtype, meta tensors, errors, and the
derivatives of the values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import ALL_DTYPES, TORCH_DTYPES, check, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, leaf, values

REAL_DTYPES = tuple(d for d in TORCH_DTYPES if not d.startswith("complex"))


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
    top, indices = t.topk(k, d, largest)
    want = torch.topk(to_torch(a), k, d, largest)
    assert_same(top, want.values)  # indices of ties may differ: check they point at the values
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
    seq = np.sort(values((*lead, n), dtype, data.draw(st.integers(0, 99))), axis=-1)
    probes = values(
        (*lead, data.draw(st.integers(0, 4))) if lead else tuple(data.draw(st.lists(st.integers(0, 3), max_size=2))), dtype, 1
    )
    right = data.draw(st.booleans())
    out_int32 = data.draw(st.booleans())
    assert_same(
        ember.searchsorted(ember.from_numpy(seq), ember.from_numpy(probes), right=right, out_int32=out_int32),
        torch.searchsorted(to_torch(seq), to_torch(probes), right=right, out_int32=out_int32),
    )
    if not lead:
        assert_same(
            ember.bucketize(ember.from_numpy(probes), ember.from_numpy(seq), right=right),
            torch.bucketize(to_torch(probes), to_torch(seq), right=right),
        )
        assert_same(
            ember.searchsorted(ember.from_numpy(seq), 2, side="right"), torch.searchsorted(to_torch(seq), 2, side="right")
        )
        perm = np.random.default_rng(0).permutation(n)
        assert_same(
            ember.searchsorted(ember.from_numpy(seq[perm]), ember.from_numpy(probes), sorter=ember.from_numpy(np.argsort(perm))),
            torch.searchsorted(to_torch(seq[perm]), to_torch(probes), sorter=to_torch(np.argsort(perm))),
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


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if not d.startswith("complex")])  # complex has no order
def test_sort_unique_searchsorted_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    order = np.argsort(v.astype(np.float64) if dtype == "bfloat16" else v, axis=1, kind="stable")
    assert_same(t.sort(1).indices, order)
    assert_same(t.sort(1).values, np.take_along_axis(v, order, 1))
    assert_same(ember.unique(t), np.unique(v))
    seq = np.sort(v[0])
    assert_same(ember.searchsorted(ember.from_numpy(seq), t), np.searchsorted(seq, v).astype(np.int64))


def test_data_dependent_unique_refuses_meta_and_sorts_infer():
    m = ember.empty(2, 3, device="meta")
    with pytest.raises(NotImplementedError, match="meta"):
        ember.unique(m)
    assert m.sort().values.is_meta and m.topk(2).indices.shape == (2, 2)


def test_searchsorted_errors():
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        ember.searchsorted(ember.tensor([1, 2]), ember.tensor([1]), right=True, side="left")
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        ember.bucketize(ember.tensor([1]), ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="first N-1 dimensions of boundaries tensor and input value tensor must match"):
        ember.searchsorted(ember.zeros(2, 3), ember.zeros(3, 1))


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    # name: (input shapes, fn)
    "sort": (((3, 4),), lambda x: x.sort(1).values),
    "sort_desc_dim0": (((3, 4),), lambda x: x.sort(0, descending=True).values),
    "topk": (((3, 5),), lambda x: x.topk(2, 1).values),
    "topk_smallest": (((5, 2),), lambda x: x.topk(3, 0, largest=False).values),
    "kthvalue": (((3, 5),), lambda x: x.kthvalue(2, 1).values),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shapes, fn = CASES[name]
    assert gradcheck(fn, tuple(leaf(s, k) for k, s in enumerate(shapes)))


def test_gradgradcheck():
    shapes, fn = CASES["sort"]
    assert gradgradcheck(lambda *a: fn(*a) * fn(*a), tuple(leaf(s, k) for k, s in enumerate(shapes)))


def test_non_differentiable_outputs():
    x = leaf((3, 4))
    sorted_values, indices = x.sort(1)
    assert sorted_values.requires_grad
    assert indices.grad_fn is None and not indices.requires_grad
    assert not x.argsort(1).requires_grad
    assert not ember.searchsorted(ember.tensor([0.0, 1.0], dtype=ember.float64), x).requires_grad


def test_unused_sort_values_zero():
    x = leaf((2, 3))
    sorted_values, _ = x.sort(1)
    (sorted_values * 0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.zeros((2, 3)))


@needs_torch
def test_gradients_match_torch():
    a = np.random.default_rng(5).standard_normal((4, 5))
    top_then_sort = lambda x: x.topk(3, 1).values.sort(0).values  # noqa: E731 - the same expression in both libraries
    check(top_then_sort, top_then_sort, a, grad=True, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("dim", [0, -1])
def test_unique_along_a_dim_of_a_0d_tensor_is_torchs_index_error(name, dim):
    with pytest.raises(IndexError, match=rf"{name}\(\): Dimension specified as {dim} but tensor has no dimensions"):
        getattr(ember, name)(ember.tensor(1.5), dim=dim)
    assert getattr(ember, name)(ember.tensor(1.5)).tolist() == [1.5]  # without a dim, one value


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
def test_unique_along_a_dim_refuses_other_empty_dims(name):
    fn = getattr(ember, name)
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't selected"):
        fn(ember.zeros(2, 0), dim=0)
    assert fn(ember.zeros(2, 0), dim=1).shape == (2, 0)
    assert fn(ember.zeros(0, 2), dim=0).shape == (0, 2)


def test_unique_keeps_each_nan_its_own_value_as_torch_does():
    values, inverse, counts = ember.unique(ember.tensor([float("nan"), 1.0, float("nan"), 1.0]), return_inverse=True, return_counts=True)
    assert values.tolist()[0] == 1.0 and all(v != v for v in values.tolist()[1:]) and len(values) == 3
    assert inverse.tolist() == [1, 0, 2, 0] and counts.tolist() == [2, 1, 1]
