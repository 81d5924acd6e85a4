"""softmax's one-kernel backward (``softmax_backward``) against its composite formula and PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.ops import functional as F

from ._helpers import count_kernel_calls

TOL = {ember.float32: 1e-6, ember.float64: 1e-14, ember.float16: 2e-3, ember.bfloat16: 2e-2}


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize(("shape", "dim"), [((4, 5, 6), -1), ((4, 5, 6), 1), ((7,), 0), ((0, 3), 1), ((3, 0), 1)])
def test_softmax_backward_kernel_equals_the_composite_formula(monkeypatch, dtype, shape, dim):
    calls = count_kernel_calls(monkeypatch, "softmax_backward")
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal(shape[::-1]) * 3).to(dtype).permute(*reversed(range(len(shape))))  # non-contiguous
    x[..., :1] = float("-inf") if x.numel() else 0.0  # a masked entry in each row
    g = ember.tensor(rng.standard_normal(shape)).to(dtype)
    results = []
    for create_graph in (False, True):
        xi = x.detach().clone().requires_grad_()
        (gx,) = ember.autograd.grad(F.softmax(xi, dim), [xi], g, create_graph=create_graph)
        results.append(gx.detach().float().numpy())
    assert len(calls) == 1
    np.testing.assert_allclose(results[0], results[1], rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_softmax_backward_matches_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((6, 8, 16)) * 4, rng.standard_normal((6, 8, 16))
    results = []
    for lib in (ember, torch):
        t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        lib.nn.functional.softmax(t, dim=-1).backward(lib.tensor(g).to(getattr(lib, dtype)))
        results.append(t.grad.float().numpy())
    tol = TOL[getattr(ember, dtype)] * 4
    np.testing.assert_allclose(results[0], results[1], rtol=tol, atol=tol)
