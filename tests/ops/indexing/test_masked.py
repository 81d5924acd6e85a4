"""masked_fill, masked_select, masked_scatter and nonzero/argwhere: against PyTorch and NumPy on
hypothesis-drawn shapes and every dtype, meta tensors, errors, and the derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import ALL_DTYPES, TORCH_DTYPES, check, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, leaf, values


@needs_torch
@OPS
@given(data=st.data())
def test_masked_ops_and_nonzero_match_torch(data):
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
    source = values((a.size + 1,), dtype, 9)
    assert_same(t.masked_scatter(e_m, ember.from_numpy(source)), to_torch(a).masked_scatter(t_m, to_torch(source)))
    assert_same(t.nonzero(), torch.nonzero(to_torch(a)))
    assert_same(ember.argwhere(t), torch.argwhere(to_torch(a)))
    if a.ndim:
        assert_same(t.nonzero(as_tuple=True), torch.nonzero(to_torch(a), as_tuple=True))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_masked_fill_and_nonzero_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    mask = np.array([True, False, True])
    expected = v.copy()
    expected[mask] = v[0, 0]
    assert_same(t.masked_fill(ember.from_numpy(mask[:, None]), v[0, 0].item()), expected)
    assert_same(t.nonzero(), np.argwhere(v))


def test_data_dependent_ops_refuse_meta():
    m = ember.empty(2, 3, device="meta")
    for call in (
        lambda: m.nonzero(),
        lambda: m.masked_select(ember.empty(2, 3, dtype=ember.bool, device="meta")),
    ):
        with pytest.raises(NotImplementedError, match="meta"):
            call()


def test_masked_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"only supports boolean masks, but got mask with dtype ember\.int64"):
        t.masked_fill(ember.tensor([1, 0, 1]), 1.0)
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor"):
        t.masked_fill(ember.tensor([True, False, True]), ember.ones(1))
    with pytest.raises(RuntimeError, match="output with shape \\[2, 3\\] doesn't match the broadcast shape \\[4, 2, 3\\]"):
        t.masked_fill_(ember.zeros(4, 2, 3, dtype=ember.bool), 1.0)
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        t.masked_scatter(ember.ones(2, 3, dtype=ember.bool), ember.ones(5))


# -- derivatives ------------------------------------------------------------------------------

MASK = ember.tensor([[True, False, True], [False, False, True]])

CASES = {
    # name: (input shapes, fn)
    "masked_fill": (((2, 3),), lambda x: x.masked_fill(MASK, 0.5)),
    "masked_fill_broadcast": (((3,),), lambda x: x.masked_fill(MASK, 0.5)),
    "masked_fill_tensor": (((2, 3), ()), lambda x, v: x.masked_fill(MASK, v)),
    "masked_select": (((2, 3),), lambda x: x.masked_select(MASK)),
    "masked_select_broadcast": (((1, 3),), lambda x: x.masked_select(MASK)),
    "masked_scatter": (((2, 3), (5,)), lambda x, s: x.masked_scatter(MASK, s)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shapes, fn = CASES[name]
    assert gradcheck(fn, tuple(leaf(s, k) for k, s in enumerate(shapes)))


def test_gradgradcheck():
    shapes, fn = CASES["masked_scatter"]
    assert gradgradcheck(lambda *a: fn(*a) * fn(*a), tuple(leaf(s, k) for k, s in enumerate(shapes)))


def test_nonzero_is_not_differentiable():
    assert not ember.nonzero(leaf((3, 4)) > 0).requires_grad


@needs_torch
def test_gradients_match_torch():
    rng = np.random.default_rng(5)
    a, s = rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
    mask = rng.standard_normal((4, 5)) > 0
    check(
        lambda x, s: x.masked_scatter(ember.tensor(mask), s),
        lambda x, s: x.masked_scatter(torch.tensor(mask), s),
        a, s, grad=True, rtol=1e-12, atol=1e-12,
    )  # fmt: skip
