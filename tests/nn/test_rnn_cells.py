"""RNNCell, LSTMCell, GRUCell: one step of the matching layer, PyTorch's checks, and torch's numbers."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests._oracle import require_torch


def _copy_layer_weights(cell, layer):
    """The cell takes the single-layer RNN's weights (names without the _l0 suffix)."""
    cell.load_state_dict({name[: -len("_l0")]: value for name, value in layer.state_dict().items()})


@pytest.mark.parametrize(("cell_type", "layer_type"), [(nn.RNNCell, nn.RNN), (nn.LSTMCell, nn.LSTM), (nn.GRUCell, nn.GRU)])
def test_unrolled_cell_equals_the_layer(cell_type, layer_type):
    ember.manual_seed(0)
    layer, cell = layer_type(3, 4), cell_type(3, 4)
    _copy_layer_weights(cell, layer)
    x = ember.randn(5, 2, 3)  # (L, N, H_in)
    expected, _ = layer(x)
    state = None
    for step in range(5):
        state = cell(x[step], state)
        h = state[0] if isinstance(state, tuple) else state
        np.testing.assert_allclose(h.detach().numpy(), expected[step].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_unbatched_zero_state_and_repr():
    cell = nn.LSTMCell(3, 4, bias=False)
    assert repr(cell) == "LSTMCell(3, 4, bias=False)" and cell.bias_ih is None
    assert [name for name, _ in cell.named_parameters()] == ["weight_ih", "weight_hh"]
    h, c = cell(ember.ones(3))
    assert h.shape == (4,) and c.shape == (4,)
    h2, _ = cell(ember.ones(1, 3), (ember.zeros(1, 4), ember.zeros(1, 4)))
    np.testing.assert_allclose(h2[0].detach().numpy(), h.detach().numpy())
    assert repr(nn.RNNCell(2, 3, nonlinearity="relu")) == "RNNCell(2, 3, nonlinearity=relu)"
    assert nn.GRUCell(2, 3).weight_ih.shape == (9, 2)


def test_cell_errors():
    cell = nn.GRUCell(3, 5)
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D instead"):
        cell(ember.zeros(1, 2, 3))
    with pytest.raises(ValueError, match="GRUCell: Expected hidden to be 1D or 2D, got 3D instead"):
        cell(ember.zeros(2, 3), ember.zeros(1, 2, 5))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 4 expected 3"):
        cell(ember.zeros(2, 4))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        cell(ember.zeros(2, 3), ember.zeros(3, 5))
    with pytest.raises(RuntimeError, match="hidden1 has inconsistent hidden_size: got 4, expected 5"):
        nn.LSTMCell(3, 5)(ember.zeros(2, 3), (ember.zeros(2, 5), ember.zeros(2, 4)))
    with pytest.raises(ValueError, match=r"LSTMCell: Expected hx\[1\] to be 1D or 2D"):
        nn.LSTMCell(3, 5)(ember.zeros(2, 3), (ember.zeros(2, 5), ember.zeros(1, 2, 5)))
    with pytest.raises(RuntimeError, match="Unknown nonlinearity: gelu"):
        nn.RNNCell(3, 5, nonlinearity="gelu")(ember.zeros(2, 3))


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("kwargs", [{}, {"bias": False}], ids=["bias", "no-bias"])
def test_cells_match_torch(name, kwargs):
    torch = require_torch()
    if name == "RNNCell":
        kwargs = {**kwargs, "nonlinearity": "relu"}
    ours, theirs = getattr(nn, name)(4, 6, **kwargs), getattr(torch.nn, name)(4, 6, **kwargs)
    ours.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((3, 2, 4)).astype(np.float32)
    x_ours, x_theirs = ember.tensor(xs, requires_grad=True), torch.tensor(xs, requires_grad=True)
    state_ours = state_theirs = None
    for step in range(3):  # a short unrolled loop, the way the cells are used
        state_ours, state_theirs = ours(x_ours[step], state_ours), theirs(x_theirs[step], state_theirs)
    h_ours = state_ours[0] if isinstance(state_ours, tuple) else state_ours
    h_theirs = state_theirs[0] if isinstance(state_theirs, tuple) else state_theirs
    np.testing.assert_allclose(h_ours.detach().numpy(), h_theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    h_ours.sum().backward()
    h_theirs.sum().backward()
    np.testing.assert_allclose(x_ours.grad.numpy(), x_theirs.grad.numpy(), rtol=1e-4, atol=1e-6)
    for (key, p_ours), (_, p_theirs) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        np.testing.assert_allclose(p_ours.grad.numpy(), p_theirs.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=key)
