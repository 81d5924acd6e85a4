"""relu's one-kernel backward (``threshold_backward``) against its composite formula.

relu is an elementwise op, so its test lives with the elementwise tests
(``F.relu`` is ``torch.nn.functional.relu``'s twin)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.ops import functional as F
from tests.ops.nn._helpers import count_kernel_calls


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_relu_backward_kernel_equals_the_composite_formula(monkeypatch, dtype):
    calls = count_kernel_calls(monkeypatch, "threshold_backward")
    x = ember.tensor([[-1.0, 0.0, 2.0, float("nan")], [3.0, -0.0, float("inf"), -float("inf")]], dtype=dtype)
    g = ember.arange(8, dtype=dtype).reshape(4, 2).mT  # a non-contiguous upstream gradient
    results = []
    for create_graph in (False, True):
        xi = x.clone().requires_grad_()
        (gx,) = ember.autograd.grad(F.relu(xi), [xi], g, create_graph=create_graph)
        results.append(gx.detach().numpy())
    assert len(calls) == 1
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], np.where(x.numpy() <= 0, 0, g.numpy()))  # NaN passes g, as in PyTorch
