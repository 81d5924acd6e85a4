"""The padding layers are F.pad with a fixed mode: values, gradients, repr and checks as in torch."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests._oracle import require_torch

MODES = {"Constant": "constant", "Zero": "constant", "Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}
LAYERS = [f"{kind}Pad{dims}d" for kind in MODES for dims in (1, 2, 3)]


def _make(lib_nn, name, padding):
    return getattr(lib_nn, name)(padding, 1.5) if name.startswith("Constant") else getattr(lib_nn, name)(padding)


@pytest.mark.parametrize("name", LAYERS)
def test_layer_is_pad(name):
    dims = int(name[-2])
    padding = tuple(range(1, 2 * dims + 1)) if not name.startswith("Reflection") else (1,) * (2 * dims)
    layer = _make(nn, name, padding)
    x = ember.randn(2, 3, *([7] * dims))
    value = 1.5 if name.startswith("Constant") else 0.0
    mode = MODES[name.split("Pad")[0]]
    expected = (
        ember.nn.functional.pad(x, padding, mode, value) if mode == "constant" else ember.nn.functional.pad(x, padding, mode)
    )
    np.testing.assert_array_equal(layer(x).numpy(), expected.numpy())
    assert layer.padding == padding and list(layer.parameters()) == []
    assert _make(nn, name, 2).padding == (2,) * (2 * dims)


def test_repr_and_checks():
    assert repr(nn.ZeroPad2d((1, 0, 0, 1))) == "ZeroPad2d((1, 0, 0, 1))"
    assert repr(nn.ConstantPad1d(2, 3.5)) == "ConstantPad1d(padding=(2, 2), value=3.5)"
    assert isinstance(nn.ZeroPad2d(1), nn.ConstantPad2d)
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        nn.CircularPad2d(1)(ember.zeros(2, 3))
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        nn.ReflectionPad2d(3)(ember.zeros(1, 2, 2))


@pytest.mark.parametrize("name", LAYERS)
def test_layer_matches_torch(name):
    torch = require_torch()
    dims = int(name[-2])
    padding = (1, 2) * dims if not name.startswith("Reflection") else (1,) * (2 * dims)
    ours, theirs = _make(nn, name, padding), _make(torch.nn, name, padding)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(0).standard_normal((2, 3, *([4] * dims))).astype(np.float32)
    x_ours, x_theirs = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y_ours, y_theirs = ours(x_ours), theirs(x_theirs)
    np.testing.assert_array_equal(y_ours.detach().numpy(), y_theirs.detach().numpy())
    (y_ours * y_ours).sum().backward()
    (y_theirs * y_theirs).sum().backward()
    np.testing.assert_allclose(x_ours.grad.numpy(), x_theirs.grad.numpy(), rtol=1e-6)
