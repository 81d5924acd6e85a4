"""dropout and dropout1d/2d/3d: the kept fraction and scale, generators, in place, errors and the derivative."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.ops import functional as F

from ._helpers import RNG, TORCH_ADVICE, count_kernel_calls, leaf

pytestmark = TORCH_ADVICE


def test_dropout():
    x = ember.ones((200, 100))
    ember.manual_seed(0)
    y = ember.dropout(x, 0.3).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    ember.manual_seed(0)
    np.testing.assert_array_equal(ember.dropout(x, 0.3).numpy(), y)  # the default generator drives it
    g = ember.Generator().manual_seed(5)
    a = ember.dropout(x, 0.5, generator=g).numpy()
    g.manual_seed(5)
    np.testing.assert_array_equal(ember.dropout(x, 0.5, generator=g).numpy(), a)
    assert ember.dropout(x, 0.5, training=False) is x
    assert ember.dropout(x, 0.0) is x
    assert (ember.dropout(x, 1.0).numpy() == 0).all()
    # in place: the input is overwritten and returned
    z = ember.ones((10, 10), dtype=ember.float64)
    out = ember.dropout(z, 0.5, inplace=True)
    assert out is z and set(np.unique(z.numpy())) <= {0.0, 2.0}
    # non-contiguous input and half dtypes
    xt = ember.ones((50, 40)).t()
    assert set(np.unique(ember.dropout(xt, 0.5).numpy())) <= {0.0, 2.0}
    assert ember.dropout(ember.ones(100, dtype=ember.bfloat16), 0.5).dtype is ember.bfloat16


def test_feature_dropout():
    ember.manual_seed(1)
    y = ember.dropout2d(ember.ones((8, 16, 3, 3)), 0.5).numpy()
    per_channel = y.reshape(8, 16, 9)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    assert 0 < (per_channel == 0).all(-1).mean() < 1
    y = ember.dropout1d(ember.ones((16, 5)), 0.5).numpy()  # unbatched (C, L)
    assert ((y == 0).all(-1) | (y == 2).all(-1)).all()
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        ember.dropout1d(ember.ones((2, 2, 2, 2)))


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got 1\.5"):
        ember.dropout(ember.ones(3), 1.5)
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got -0\.1"):
        ember.dropout(ember.ones(3), -0.1)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.dropout(ember.tensor([1, 2]), 0.5)


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


def test_dropout_grad():
    x = leaf((4, 5))
    gen = ember.Generator().manual_seed(3) if hasattr(ember, "Generator") else None
    y = F.dropout(x, 0.4, training=True, generator=gen)
    g = ember.tensor(RNG.standard_normal((4, 5)))
    y.backward(g)
    yn, gn = y.detach().numpy(), g.numpy()
    keep = yn != 0
    np.testing.assert_allclose(x.grad.numpy(), np.where(keep, gn / 0.6, 0))
    x2 = leaf((2, 3, 4, 4))
    y2 = F.dropout2d(x2, 0.5, training=True)
    y2.sum().backward()
    np.testing.assert_allclose(x2.grad.numpy(), np.where(y2.detach().numpy() != 0, 2.0, 0.0))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16])
@pytest.mark.parametrize("name", ["dropout", "dropout2d"])
def test_dropout_backward_kernel_equals_the_composite_formula(monkeypatch, dtype, name):
    calls = count_kernel_calls(monkeypatch, "dropout_backward")
    x = ember.randn(4, 6, 5, 3).to(dtype)
    g = ember.randn(3, 5, 6, 4).to(dtype).permute(3, 2, 1, 0)  # a non-contiguous upstream gradient
    results = []
    for create_graph in (False, True):  # with a graph recorded, the composite formula runs
        ember.manual_seed(7)
        xi = x.clone().requires_grad_()
        y = getattr(ember.nn.functional, name)(xi, p=0.3)
        (gx,) = ember.autograd.grad(y, [xi], g, create_graph=create_graph)
        results.append((y.detach().float().numpy(), gx.detach().float().numpy()))
    assert len(calls) == 1
    np.testing.assert_array_equal(results[0][0], results[1][0])  # the same draw
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-3 if dtype == ember.float16 else 1e-6)
    kept = results[0][0] != 0
    expected = np.where(kept, g.float().numpy() / 0.7, 0.0)
    np.testing.assert_allclose(results[0][1], expected, rtol=2e-3 if dtype == ember.float16 else 1e-6)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_keeps_a_fraction_near_one_minus_p(p):
    ember.manual_seed(0)
    y = ember.nn.functional.dropout(ember.ones(200_000), p=p)
    kept = (y.numpy() != 0).mean()
    assert abs(kept - (1 - p)) < 5 * (p * (1 - p) / 200_000) ** 0.5  # five standard deviations
    np.testing.assert_allclose(y.numpy()[y.numpy() != 0], 1 / (1 - p), rtol=1e-6)
