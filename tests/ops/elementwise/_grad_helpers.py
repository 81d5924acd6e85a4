"""What the elementwise test modules share for derivatives: gradcheck (finite differences in
float64) over a module's cases, and the comparison with PyTorch's gradients."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import grad, gradcheck
from tests._oracle import require_torch

F64 = ember.float64
SHAPE = (2, 3)


def leaf(a, dtype=F64):
    return ember.tensor(np.asarray(a), dtype=dtype, requires_grad=True)


def rand(shape, lo, hi, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def away_from(points_values, points, gap=0.15):
    """Push values off the kinks in ``points``."""
    found = np.array(points_values, dtype=np.float64)
    for p in points:
        near = np.abs(found - p) < gap
        found[near] = p + np.where(found[near] >= p, gap, -gap)
    return found


def nn_available() -> bool:
    try:
        import ember.nn.functional  # noqa: F401 - a test of the activations' nn names skips without it
    except Exception:
        return False
    return True


def unary_gradcheck(cases: dict, *, needs_nn=()):
    """The gradcheck test of unary cases ``name -> (function, low, high, kinks to avoid)``;
    ``needs_nn``: cases written with ``ember.nn.functional``."""

    @pytest.mark.parametrize("name", sorted(cases))
    def test_unary_gradcheck(name):
        fn, lo, hi, kinks = cases[name]
        if name in needs_nn and not nn_available():
            pytest.skip("ember.nn.functional is not importable")
        x = leaf(away_from(rand(SHAPE, lo, hi, seed=len(name)), kinks))
        assert gradcheck(fn, (x,))

    return test_unary_gradcheck


def pair(cases: dict, name: str, shape_a, shape_b, prepare=None):
    """Inputs of the binary case ``name`` (``cases[name] = (fn, (a_low, a_high), (b_low, b_high))``),
    with ``prepare(name, a, b) -> (a, b)`` moving them off the op's kinks."""
    _, (alo, ahi), (blo, bhi) = cases[name]
    a = rand(shape_a, alo, ahi, seed=1)
    b = rand(shape_b, blo, bhi, seed=2)
    return prepare(name, a, b) if prepare is not None else (a, b)


def binary_gradcheck(cases: dict, prepare=None):
    """The gradcheck test of binary cases (see ``pair``)."""

    @pytest.mark.parametrize("name", sorted(cases))
    def test_binary_gradcheck(name):
        fn = cases[name][0]
        a, b = pair(cases, name, SHAPE, SHAPE, prepare)
        assert gradcheck(fn, (leaf(a), leaf(b)))

    return test_binary_gradcheck


def binary_broadcast_gradcheck(cases: dict, names, prepare=None):
    """The gradcheck test of binary cases with either input broadcast."""

    @pytest.mark.parametrize("name", list(names))
    def test_binary_broadcast_gradcheck(name):
        fn = cases[name][0]
        a, b = pair(cases, name, SHAPE, (3,), prepare)
        assert gradcheck(fn, (leaf(a), leaf(b)))
        assert gradcheck(fn, (leaf(a[:1]), leaf(b.reshape(1, 3) * np.ones((2, 1)))))  # the first input broadcast

    return test_binary_broadcast_gradcheck


def scalar_gradcheck(cases: dict):
    """The gradcheck test of tensor-scalar cases ``name -> (function, low, high, kinks to avoid)``."""

    @pytest.mark.parametrize("name", sorted(cases))
    def test_scalar_gradcheck(name):
        fn, lo, hi, kinks = cases[name]
        x = rand(SHAPE, lo, hi, seed=3)
        if kinks:
            x = away_from(x, kinks)
        assert gradcheck(fn, (leaf(x),))

    return test_scalar_gradcheck


def _torch_grads(tfn, arrays, gout):
    torch = require_torch()
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = tfn(*ts)
    gs = torch.autograd.grad(out, ts, torch.tensor(gout), allow_unused=True)
    return [None if g is None else g.numpy() for g in gs]


def _ember_grads(efn, arrays, gout):
    ts = [ember.tensor(a, requires_grad=True) for a in arrays]
    out = efn(*ts)
    gs = grad(out, ts, ember.tensor(gout), allow_unused=True)
    return [None if g is None else g.numpy() for g in gs]


def compare_grads(efn, tfn, arrays, out_dtype=None, seed=11):
    """ember's and torch's gradients of ``efn``/``tfn`` at ``arrays`` for one random output
    gradient (complex with ``out_dtype='complex'``) agree to float64 precision."""
    require_torch()
    rng = np.random.default_rng(seed)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    complex_out = out_dtype == "complex"
    gout = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if complex_out else 0)
    for e, t in zip(_ember_grads(efn, arrays, gout), _torch_grads(tfn, arrays, gout), strict=True):
        assert e is not None and t is not None
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


def complex_unary_against_torch(names):
    """The test of unary derivatives at complex points against torch's (``ember.name`` against
    ``torch.name``)."""

    @pytest.mark.parametrize("name", sorted(names))
    def test_complex_unary_against_torch(name):
        torch = require_torch()
        rng = np.random.default_rng(15)
        z = rng.uniform(-0.8, 0.8, 5) + 1j * rng.uniform(-0.8, 0.8, 5)
        compare_grads(getattr(ember, name), getattr(torch, name), [z], "complex")

    return test_complex_unary_against_torch
