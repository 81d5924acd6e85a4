"""linear and bilinear against torch.nn.functional: values, dtypes, empty dimensions, errors, and
the derivatives with linear's one-kernel backward."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops import functional as F
from tests._oracle import needs_torch, torch

from ._helpers import (
    FLOATS,
    SETTINGS,
    TF,
    TOL,
    TORCH_ADVICE,
    both,
    check,
    check_exact,
    compare_grads,
    count_kernel_calls,
    leaf,
    make,
    pair,
    seeded,
    shapes,
)

pytestmark = TORCH_ADVICE


@needs_torch
@SETTINGS
@given(lead=shapes(0, 3, 0, 3), k=st.integers(0, 5), out=st.integers(1, 4), dtype=st.sampled_from(FLOATS), bias=st.booleans(),
       noncontig=st.booleans(), vector_weight=st.booleans())
def test_linear(lead, k, out, dtype, bias, noncontig, vector_weight):
    rng = seeded(k * 7 + out)
    x = rng.normal(size=(*lead, k)).astype(dtype)
    w = rng.normal(size=(k,) if vector_weight else (out, k)).astype(dtype)
    b = rng.normal(size=() if vector_weight else (out,)).astype(dtype) if bias and not vector_weight else None
    (e, t), (ew, tw) = make(x, noncontig), make(w, noncontig)
    eb, tb = make(b) if b is not None else (None, None)
    check(ember.linear(e, ew, eb), TF.linear(t, tw, tb), **TOL[dtype])
    if k == 0:
        return  # torch's bilinear cannot reshape an empty input
    w2 = rng.normal(size=(out, k, 3)).astype(dtype)
    x2 = rng.normal(size=(*lead, 3)).astype(dtype)
    b2 = rng.normal(size=(out,)).astype(dtype)
    (ew2, tw2), (ex2, tx2), (eb2, tb2) = make(w2), make(x2), make(b2)
    check(ember.bilinear(e, ex2, ew2, eb2 if bias else None), TF.bilinear(t, tx2, tw2, tb2 if bias else None), **TOL[dtype])


@needs_torch
def test_linear_half_and_int():
    x = seeded(3).normal(size=(2, 4)).astype(np.float32)
    w = seeded(4).normal(size=(3, 4)).astype(np.float32)
    (e, t), (ew, tw) = make(x), make(w)
    check(ember.linear(e.to(ember.bfloat16), ew.to(ember.bfloat16)), TF.linear(t.bfloat16(), tw.bfloat16()), rtol=2e-2, atol=5e-2)
    xi, wi = np.arange(8).reshape(2, 4), np.arange(12).reshape(3, 4)
    check(ember.linear(ember.tensor(xi), ember.tensor(wi)), TF.linear(torch.from_numpy(xi), torch.from_numpy(wi)))


def test_linear_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 3x5\)"):
        ember.linear(ember.zeros((2, 3, 4)), ember.zeros((5, 3)))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float32 != float64"):
        ember.linear(ember.zeros((2, 4)), ember.zeros((5, 4), dtype=ember.float64))
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D, but they are 0D and 2D"):
        ember.linear(ember.tensor(1.0), ember.zeros((4, 1)))
    with pytest.raises(RuntimeError, match=r"linear\(\): bias of size \[4\] cannot be added to the output of size \[2, 5\]"):
        ember.linear(ember.zeros((2, 4)), ember.zeros((5, 4)), ember.zeros(4))
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input2 size does not match weight size: got 4 but expected 3"):
        ember.bilinear(ember.zeros((2, 3)), ember.zeros((2, 4)), ember.zeros((5, 3, 3)))


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


@needs_torch
@pytest.mark.parametrize("x_shape, w_shape", [((0, 0), (0, 0)), ((2, 3), (0, 3)), ((0, 3), (2, 3)), ((2, 0), (3, 0)), ((0,), (0,)),
                                              ((2, 0, 3), (4, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("transpose", [False, True])
def test_linear_empty_dims(x_shape, w_shape, dtype, transpose):
    x, w = np.ones(x_shape, dtype), np.ones(w_shape, dtype)
    if transpose and x.ndim == 2 and w.ndim == 2:  # non-contiguous operands
        e = ember.linear(ember.tensor(x.T.copy()).t(), ember.tensor(w.T.copy()).t())
        check_exact(e, TF.linear(torch.from_numpy(x), torch.from_numpy(w)))
    check_exact(*both("linear", x, w))
    if len(w_shape) == 2:
        check_exact(*both("linear", x, w, np.ones(w_shape[0], dtype)))


@needs_torch
@pytest.mark.parametrize("shapes_", [((2, 3), (2, 4), (0, 3, 4)), ((0, 3), (0, 4), (2, 3, 4)), ((0, 3, 3), (0, 3, 3), (0, 3, 3)),
                                     ((0, 2, 3), (0, 2, 4), (5, 3, 4))])
def test_bilinear_empty_dims(shapes_):
    a, b, w = (np.ones(s, np.float32) for s in shapes_)
    check_exact(*both("bilinear", a, b, w))
    check_exact(*both("bilinear", a, b, w, np.ones(w.shape[0], np.float32)))


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


def test_linear_grad():
    gradcheck(lambda x, w, b: F.linear(x, w, b), (leaf((2, 3, 4)), leaf((5, 4)), leaf((5,))))
    gradcheck(lambda x, w: F.linear(x, w), (leaf((4,)), leaf((5, 4))))
    gradcheck(lambda x, w: F.linear(x, w), (leaf((3, 4)), leaf((4,))))
    gradgradcheck(lambda x, w: F.linear(x, w), (leaf((2, 4)), leaf((3, 4))))  # a bias gradient is constant in the inputs


def test_bilinear_grad():
    gradcheck(lambda a, b, w, c: F.bilinear(a, b, w, c), (leaf((3, 2)), leaf((3, 4)), leaf((5, 2, 4)), leaf((5,))))


def test_linear_grad_shapes():
    gradcheck(lambda x, w, b: F.linear(x, w, b), (leaf((2, 3, 4)), leaf((5, 4)), leaf((5,))))
    gradcheck(lambda x, w, b: F.linear(x, w, b), (leaf((4,)), leaf((5, 4)), leaf((1,))))
    gradgradcheck(lambda x, w, b: F.linear(x, w, b) ** 2, (leaf((3, 4)), leaf((5, 4)), leaf((5,))))


@needs_torch
def test_gradients_against_torch():
    cases = [
        (lambda x, w, b: F.linear(x, w, b), lambda x, w, b: TF.linear(x, w, b), [pair((2, 3, 4)), pair((5, 4)), pair((5,))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)


@pytest.mark.parametrize("x_shape", [(6, 4), (2, 3, 4), (0, 4)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_grad", [True, False])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_linear_backward_kernel_equals_the_composite_formula(monkeypatch, x_shape, bias, x_grad, dtype):
    # without create_graph linear's derivative is one linear_backward kernel computing only the
    # gradients asked for; with it, the composite of matmuls and a sum: both must agree
    calls = count_kernel_calls(monkeypatch, "linear_backward")
    gen = ember.Generator().manual_seed(1)
    x = ember.randn(x_shape, generator=gen, dtype=dtype)
    w = ember.randn(5, 4, generator=gen, dtype=dtype)
    b = ember.randn(5, generator=gen, dtype=dtype) if bias else None
    upstream = ember.randn(5, *x_shape[:-1], generator=gen, dtype=dtype).mT if len(x_shape) == 2 else None  # non-contiguous
    results = []
    for create_graph in (False, True):
        leaves = [x.clone().requires_grad_(x_grad), w.clone().requires_grad_(), *([b.clone().requires_grad_()] if bias else [])]
        y = F.linear(leaves[0], leaves[1], leaves[2] if bias else None)
        wanted = [t for t in leaves if t.requires_grad]
        grads = ember.autograd.grad(y, wanted, upstream if upstream is not None else ember.ones_like(y), create_graph=create_graph)
        results.append([g.detach().numpy() for g in grads])
    assert len(calls) == 1 and calls[0]["output_mask"] == (x_grad, True, bias)
    for fast, composite in zip(*results, strict=True):
        np.testing.assert_allclose(fast, composite, rtol=1e-6, atol=1e-6)
