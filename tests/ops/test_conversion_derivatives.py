"""Derivatives of the conversion primitives (``to``, ``copy_``, ``clone``, ``detach``):
gradients converted back to the source's dtype, and through copies into other tensors."""

from __future__ import annotations

import numpy as np

import ember
from ember.autograd import grad, gradcheck

F64 = ember.float64
SHAPE = (2, 3)


def leaf(a, dtype=F64):
    return ember.tensor(np.asarray(a), dtype=dtype, requires_grad=True)


def rand(shape, lo, hi, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def test_to_copy_converts_back():
    x = leaf([1.0, 2.0])
    y = x.to(ember.float32)
    assert y.grad_fn is not None
    (g,) = grad(y * 3, x, ember.ones(2, dtype=ember.float32))
    assert g.dtype is F64 and g.tolist() == [3.0, 3.0]
    z = leaf([1.0, -2.0])
    c = z.to(ember.complex128)
    (g,) = grad(c, z, ember.tensor([1 + 5j, 2 - 1j], dtype=ember.complex128))
    assert g.dtype is F64 and g.tolist() == [1.0, 2.0]
    assert gradcheck(lambda t: t.clone() * t, (leaf([0.5, 1.5]),))


def test_copy_grad_to_src():
    src = leaf(rand((3,), -1, 1, 8))
    assert gradcheck(lambda s: ember.zeros(SHAPE, dtype=F64).copy_(s), (src,))
    src32 = leaf([1.0, 2.0, 3.0], dtype=ember.float32)
    a = leaf(rand(SHAPE, -1, 1, 9))
    dst = a * 2
    dst.copy_(src32)
    ga, gs = grad(dst, (a, src32), ember.ones(SHAPE, dtype=F64))
    assert ga.tolist() == [[0.0] * 3] * 2
    assert gs.dtype is ember.float32 and gs.tolist() == [2.0, 2.0, 2.0]


def test_detach_is_cut():
    x = leaf([1.0])
    assert not x.detach().requires_grad


def test_permuted_clone_goes_through_copy():
    # a transposed leaf: clone keeps its layout, so it allocates that layout and copy_s into it
    x = ember.tensor(rand((3, 2), -1, 1, 10), dtype=F64).t().detach().requires_grad_()
    assert not x.is_contiguous()
    y = x.clone()
    assert y.grad_fn.name() == "CopyBackward0"
    assert gradcheck(lambda t: t.clone() * t, (x,))
