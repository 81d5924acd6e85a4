"""gather/scatter/scatter_add/scatter_reduce, take_along_dim, take/put: against PyTorch and
NumPy on hypothesis-drawn shapes (0-d, empty, non-contiguous) and every dtype, in-place variants
and their version counter, errors, and the derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import ALL_DTYPES, TORCH_DTYPES, check, from_torch, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, draw_index, idx, leaf, values

REAL_DTYPES = tuple(d for d in TORCH_DTYPES if not d.startswith("complex"))


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
    index = draw_index(data, size, ishape, negative=False)
    if index is None:
        return
    ti = to_torch(index)
    assert_same(t.gather(d, ember.from_numpy(index)), torch.gather(to_torch(a), d, ti))
    src = values(ishape, str(a.dtype) if a.dtype.name != "bfloat16" else "bfloat16", 3)
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
def test_take_along_dim_matches_torch(data):
    t, a = data.draw(arrays(dtypes=("float32", "int64", "bool"), min_dims=1))
    d = data.draw(st.integers(-a.ndim, a.ndim - 1))
    ishape = tuple(data.draw(st.sampled_from([1, s])) for s in a.shape)
    ishape = tuple(data.draw(st.integers(0, 3)) if k == d % a.ndim else s for k, s in enumerate(ishape))
    index = draw_index(data, a.shape[d], ishape)
    if index is None:
        return
    index %= max(a.shape[d], 1)  # torch refuses negative indices here
    assert_same(ember.take_along_dim(t, ember.from_numpy(index), d), torch.take_along_dim(to_torch(a), to_torch(index), d))
    if a.size:
        flat = draw_index(data, a.size, (3,), negative=False)
        assert_same(t.take_along_dim(ember.from_numpy(flat)), torch.take_along_dim(to_torch(a), to_torch(flat)))


@needs_torch
@OPS
@given(data=st.data())
def test_take_and_put_match_torch(data):
    t, a = data.draw(arrays(dtypes=TORCH_DTYPES))
    if not a.size:
        return
    dtype = "bfloat16" if a.dtype.name == "bfloat16" else str(a.dtype)
    index = draw_index(data, a.size, (data.draw(st.integers(0, 2)), data.draw(st.integers(0, 3))))
    assert_same(ember.take(t, ember.from_numpy(index)), torch.take(to_torch(a), to_torch(index)))
    flat = np.unique(index.reshape(-1) % a.size)
    written = values(flat.shape, dtype, 11)
    assert_same(t.put(ember.from_numpy(flat), ember.from_numpy(written)), to_torch(a).put(to_torch(flat), to_torch(written)))
    if a.dtype.kind in "iu" and a.dtype != np.uint8:
        assert_same(
            t.put(ember.from_numpy(index), ember.from_numpy(values(index.shape, dtype, 2)), accumulate=True),
            to_torch(a).put(to_torch(index), to_torch(values(index.shape, dtype, 2)), accumulate=True),
        )


def test_out_of_bounds_indices_raise_never_wrap():
    # gather and scatter raise RuntimeError, as PyTorch's (test_index_bounds.py covers every op)
    t = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"gather\(\): index 4 is out of bounds for dimension 1 with size 4"):
        t.gather(1, ember.tensor([[4]]))
    with pytest.raises(RuntimeError, match=r"scatter\(\): index -5 is out of bounds for dimension 1 with size 4"):
        t.scatter_(1, ember.tensor([[-5]]), 1.0)
    with pytest.raises(IndexError, match=r"out of range: tried to access index 12 on a tensor of 12 elements"):
        ember.take(t, ember.tensor([12]))
    with pytest.raises(IndexError, match=r"out of range: tried to access index -13 on a tensor of 12 elements"):
        t.put_(ember.tensor([-13]), ember.tensor([1.0]))
    assert t.tolist() == [[0.0] * 4] * 3  # nothing was written


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_gather_and_take_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    gi = np.array([[0, 2], [1, 1], [2, 0]])
    assert_same(t.gather(1, ember.from_numpy(gi)), np.take_along_axis(v, gi, 1))
    index = np.array([2, 0, -1])
    assert_same(ember.take(t, ember.from_numpy(index)), np.take(v, index))


def test_in_place_ops_write_through_views_and_bump_the_version():
    # the scatters with the other writing ops of the family (index_*, masked_*, put)
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


def test_meta_tensors_infer():
    m = ember.empty(2, 3, device="meta")
    assert m.gather(1, ember.empty(2, 5, dtype=ember.int64, device="meta")).shape == (2, 5)


def test_gather_scatter_errors():
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
    with pytest.raises(RuntimeError, match="same number of elements"):
        t.put(ember.tensor([0, 1]), ember.ones(3))


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    # name: (input shapes, fn)
    "gather": (((3, 4),), lambda x: x.gather(1, idx([[0, 0, 3], [1, 2, 1], [3, 3, 3]]))),
    "scatter": (((3, 4), (2, 3)), lambda x, s: x.scatter(1, idx([[0, 2], [3, 1]]), s)),
    "scatter_add": (((3, 4), (2, 2)), lambda x, s: x.scatter_add(0, idx([[0, 2], [0, 1]]), s)),
    "scatter_reduce_sum": (
        ((3, 4), (2, 2)),
        lambda x, s: x.scatter_reduce(0, idx([[0, 2], [0, 1]]), s, "sum", include_self=False),
    ),
    "scatter_reduce_mean": (((3, 4), (2, 2)), lambda x, s: x.scatter_reduce(0, idx([[0, 2], [0, 1]]), s, "mean")),
    "scatter_reduce_mean_excl": (
        ((3, 4), (2, 2)),
        lambda x, s: x.scatter_reduce(0, idx([[0, 2], [0, 1]]), s, "mean", include_self=False),
    ),
    "scatter_value": (((3, 4),), lambda x: x.scatter(1, idx([[0, 2], [3, 3]]), 1.5)),
    "scatter_value_add": (((3, 4),), lambda x: x.scatter(1, idx([[0, 2]]), 1.5, reduce="add")),
    "take": (((2, 3),), lambda x: x.take(idx([[0, 5], [5, -1]]))),
    "put": (((2, 3), (2,)), lambda x, s: x.put(idx([4, 0]), s)),
    "put_accumulate": (((2, 3), (3,)), lambda x, s: x.put(idx([4, 0, 4]), s, accumulate=True)),
    "take_along_dim": (((3, 4),), lambda x: ember.take_along_dim(x, idx([[1], [0], [3]]), 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shapes, fn = CASES[name]
    assert gradcheck(fn, tuple(leaf(s, k) for k, s in enumerate(shapes)))


@pytest.mark.parametrize("name", ["gather", "scatter", "take"])
def test_gradgradcheck(name):
    shapes, fn = CASES[name]
    assert gradgradcheck(lambda *a: fn(*a) * fn(*a), tuple(leaf(s, k) for k, s in enumerate(shapes)))


def test_scatter_unsupported_reduce_refused():
    x, s = leaf((3,)), leaf((2,), 1)
    out = x.scatter_reduce(0, idx([0, 2]), s, "prod")
    with pytest.raises(NotImplementedError, match="prod"):
        out.sum().backward()


@needs_torch
def test_gradients_match_torch():
    rng = np.random.default_rng(5)
    a, s = rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
    rows = np.array([3, 0, 3])[:, None].repeat(5, 1)
    check(
        lambda x, s: x.gather(0, ember.tensor(rows)) * s, lambda x, s: x.gather(0, torch.tensor(rows)) * s, a, s, grad=True, rtol=1e-12, atol=1e-12
    )
