"""cat (concat) and the stacks built on it (stack, hstack, vstack, dstack, column_stack), against
PyTorch and NumPy on hypothesis-drawn shapes and every dtype, and their derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import ALL_DTYPES, check, needs_torch, to_torch, torch
from tests.ops._arrays import OPS, arrays, assert_same, leaf, values


@needs_torch
@OPS
@given(data=st.data())
def test_cat_and_stack_match_torch(data):
    ndim = data.draw(st.integers(1, 3))
    shape = data.draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim))
    d = data.draw(st.integers(-ndim, ndim - 1))
    pieces = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[d] = data.draw(st.integers(0, 3))
        pieces.append(data.draw(arrays(shape=tuple(s))))
    ts = [p[0] for p in pieces]
    expected = torch.cat([to_torch(p[1]) for p in pieces], d)
    assert_same(ember.cat(ts, d), expected)
    assert_same(ember.concat(ts, axis=d), expected)
    same = [data.draw(arrays(shape=tuple(shape))) for _ in range(len(pieces))]
    sd = data.draw(st.integers(-ndim - 1, ndim))
    assert_same(ember.stack([p[0] for p in same], sd), torch.stack([to_torch(p[1]) for p in same], sd))
    for fn in ("hstack", "vstack", "dstack", "column_stack"):
        try:
            expected = getattr(torch, fn)([to_torch(p[1]) for p in same])
        except RuntimeError:
            continue
        assert_same(getattr(ember, fn)([p[0] for p in same]), expected)


@needs_torch
def test_stack_family_on_0d_and_1d_match_torch():
    for shapes in [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)], [(0,), (0,)]]:
        arrays_ = [values(s, "int64", i) for i, s in enumerate(shapes)]
        for fn in ("hstack", "vstack", "dstack", "column_stack", "stack"):
            assert_same(
                getattr(ember, fn)([ember.from_numpy(a) for a in arrays_]), getattr(torch, fn)([to_torch(a) for a in arrays_])
            )


def test_cat_promotes_and_skips_legacy_empty_tensors_like_torch():
    r = ember.cat(
        [
            ember.tensor([[1, 2]], dtype=ember.int32),
            ember.tensor([[True, False]]),
            ember.tensor([[0.5, 1.0]], dtype=ember.float16),
        ]
    )
    assert r.dtype is ember.float16 and r.tolist() == [[1.0, 2.0], [1.0, 0.0], [0.5, 1.0]]
    r = ember.cat([ember.zeros(2, 3, dtype=ember.bfloat16), ember.ones(1, 3, dtype=ember.complex64)])
    assert r.dtype is ember.complex64 and r.shape == (3, 3)
    r = ember.cat([ember.zeros(0), ember.ones(2, 2), ember.zeros(0)], dim=1)
    assert r.shape == (2, 2)
    assert ember.cat([ember.zeros(0), ember.zeros(0)]).shape == (0,)
    out = ember.empty(4)
    assert ember.cat([ember.ones(2), ember.zeros(2)], out=out) is out and out.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert out._version == 1


def test_cat_errors_like_torch():
    with pytest.raises(
        RuntimeError,
        match=r"^Sizes of tensors must match except in dimension 1\. Expected size 2 but got size 3 for tensor number 1 in the list\.$",
    ):
        ember.cat([ember.zeros(2, 2), ember.zeros(3, 2)], dim=1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        ember.cat([ember.zeros(2, 2)], 2)
    with pytest.raises(RuntimeError, match="zero-dimensional tensor \\(at position 1\\) cannot be concatenated"):
        ember.cat([ember.zeros(2), ember.tensor(1.0)])
    with pytest.raises(RuntimeError, match="expected a non-empty list of Tensors"):
        ember.cat([])
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 1"):
        ember.cat([ember.zeros(2, 2), ember.zeros(2)])
    with pytest.raises(TypeError, match="must be tuple of Tensors"):
        ember.cat([ember.zeros(2), [1.0]])
    with pytest.raises(
        RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 and \[3\] at entry 1"
    ):
        ember.stack([ember.zeros(2), ember.zeros(3)])
    with pytest.raises(RuntimeError, match="output with shape \\[3\\]"):
        ember.cat([ember.zeros(2), ember.zeros(2)], out=ember.empty(3))


def test_array_api_spellings():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3)
    t = ember.from_numpy(x)
    assert ember.concat([t, t], axis=1).shape == (1, 4, 1, 3)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cat_and_stack_take_every_dtype_like_numpy(dtype):
    x = values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    assert_same(ember.cat([t, t], 1), np.concatenate([v, v], 1))
    assert_same(ember.stack([t, t]), np.stack([v, v]))


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    "cat": ((2, 3), lambda x: ember.cat([x, x * 2, x[:1]], 0)),
    "stack": ((2, 3), lambda x: ember.stack([x, x.sin()], 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))


def test_gradgradcheck():
    shape, fn = CASES["cat"]
    assert gradgradcheck(lambda x: fn(x) * fn(x), (leaf(shape),))


def test_cat_several_inputs_and_dtype_promotion():
    a, b = leaf((2, 2)), leaf((2, 3), 1)
    assert gradcheck(lambda a, b: ember.cat([a, b], 1), (a, b))
    c = ember.tensor(np.ones((2, 1)), dtype=ember.float32, requires_grad=True)
    out = ember.cat([a, c], 1)
    out.sum().backward()
    assert c.grad.dtype is ember.float32 and c.grad.shape == (2, 1)
    np.testing.assert_allclose(a.grad.numpy(), np.ones((2, 2)))


@needs_torch
def test_gradients_match_torch():
    a = np.random.default_rng(3).standard_normal((3, 4, 5))
    check(lambda t: ember.cat(t.chunk(2, 1)[::-1], 2), lambda t: torch.cat(t.chunk(2, 1)[::-1], 2), a, grad=True, rtol=1e-12, atol=1e-12)
