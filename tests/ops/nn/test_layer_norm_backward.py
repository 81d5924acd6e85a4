"""layer_norm's one-kernel backward (``layer_norm_backward``) against its composite formula and PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.ops import functional as F

from ._helpers import count_kernel_calls

CASES = [
    ((4, 5, 6), (6,), "both"),
    ((3, 4, 5), (4, 5), "both"),
    ((4, 5, 6), (6,), "none"),
    ((2, 7), (7,), "weight"),
    ((0, 6), (6,), "both"),
]
TOL = {ember.float32: 2e-5, ember.float64: 1e-12, ember.float16: 4e-3, ember.bfloat16: 3e-2}


def _grads(x, g, normalized_shape, affine, create_graph):
    rng = np.random.default_rng(1)
    xi = x.detach().clone().requires_grad_()
    w = ember.tensor(rng.standard_normal(normalized_shape)).to(x.dtype).requires_grad_() if affine != "none" else None
    b = ember.tensor(rng.standard_normal(normalized_shape)).to(x.dtype).requires_grad_() if affine == "both" else None
    params = [t for t in (xi, w, b) if t is not None]
    y = F.layer_norm(xi, normalized_shape, w, b)
    return [t.detach().float().numpy() for t in ember.autograd.grad(y, params, g, create_graph=create_graph)]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize(("shape", "normalized_shape", "affine"), CASES)
def test_layer_norm_backward_kernel_equals_the_composite_formula(monkeypatch, dtype, shape, normalized_shape, affine):
    calls = count_kernel_calls(monkeypatch, "layer_norm_backward")
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal(shape[::-1]) * 3 + 1).to(dtype).permute(*reversed(range(len(shape))))  # non-contiguous
    g = ember.tensor(rng.standard_normal(shape)).to(dtype)
    fast = _grads(x, g, normalized_shape, affine, create_graph=False)
    slow = _grads(x, g, normalized_shape, affine, create_graph=True)
    assert len(calls) == 1
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_layer_norm_backward_matches_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((6, 8, 16)), rng.standard_normal((6, 8, 16))
    w, b = rng.standard_normal(16), rng.standard_normal(16)
    results = []
    for lib in (ember, torch):
        dt = getattr(lib, dtype)
        tensors = [lib.tensor(a).to(dt).requires_grad_() for a in (x, w, b)]
        lib.nn.functional.layer_norm(tensors[0], (16,), tensors[1], tensors[2]).backward(lib.tensor(g).to(dt))
        results.append([t.grad.float().numpy() for t in tensors])
    tol = TOL[getattr(ember, dtype)] * 2
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_layer_norm_grad_of_the_weight_only_skips_the_input_gradient(monkeypatch):
    calls = count_kernel_calls(monkeypatch, "layer_norm_backward")
    layer = ember.nn.LayerNorm(5)
    x = ember.randn(3, 5)  # no gradient wanted for the input
    layer(x).sum().backward()
    assert calls[0]["output_mask"] == (False, True, True)
    np.testing.assert_allclose(layer.bias.grad.numpy(), np.full(5, 3.0))
