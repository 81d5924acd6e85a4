"""TransformerDecoderLayer, TransformerDecoder and Transformer: causality and shapes always, PyTorch's
outputs and gradients (same weights) where torch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests._oracle import needs_torch, torch


def _rand(*shape, seed=0):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_square_subsequent_mask():
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=ember.float64)
    assert mask.dtype == ember.float64
    expected = np.triu(np.full((4, 4), -np.inf), 1)
    np.testing.assert_array_equal(mask.numpy(), expected)


@pytest.mark.parametrize("norm_first", [False, True])
def test_causal_decoder_ignores_later_targets(norm_first):
    ember.manual_seed(0)
    layer = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=norm_first)
    decoder = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(8)).eval()
    tgt, memory = _rand(2, 5, 8), _rand(2, 3, 8, seed=1)
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    out = decoder(tgt, memory, tgt_mask=mask).detach().numpy()
    changed = tgt.clone()
    changed[:, 3:] = 10.0
    out2 = decoder(changed, memory, tgt_mask=mask, tgt_is_causal=True).detach().numpy()
    np.testing.assert_allclose(out[:, :3], out2[:, :3], rtol=1e-5, atol=1e-5)
    assert not np.allclose(out[:, 3:], out2[:, 3:])
    unbatched = decoder(tgt[0], memory[0], tgt_mask=mask).detach().numpy()
    np.testing.assert_allclose(unbatched, out[0], rtol=1e-5, atol=1e-5)


def test_transformer_shapes_gradients_and_errors():
    ember.manual_seed(0)
    model = nn.Transformer(8, 2, 1, 2, dim_feedforward=16)
    assert len(model.decoder.layers) == 2 and model.decoder.layers[0] is not model.decoder.layers[1]
    out = model(_rand(6, 3, 8), _rand(4, 3, 8))
    assert out.shape == (4, 3, 8)
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(_rand(6, 3, 8), _rand(4, 2, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt must be equal to d_model"):
        model(_rand(6, 3, 8), _rand(4, 3, 6))


@needs_torch
@pytest.mark.filterwarnings("ignore:enable_nested_tensor")  # torch's own note on its fast path
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(batch_first, norm_first):
    kwargs = {"d_model": 8, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 2, "dim_feedforward": 16,
              "batch_first": batch_first, "norm_first": norm_first, "activation": "gelu"}  # fmt: skip
    torch.manual_seed(0)
    theirs = torch.nn.Transformer(**kwargs).eval()
    ours = nn.Transformer(**kwargs).eval()
    ours.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    src, tgt = _rand(3, 6, 8), _rand(3, 4, 8, seed=1)
    if not batch_first:
        src, tgt = src.transpose(0, 1).contiguous(), tgt.transpose(0, 1).contiguous()
    src.requires_grad_(True)
    tgt.requires_grad_(True)
    src_t = torch.tensor(src.detach().numpy(), requires_grad=True)
    tgt_t = torch.tensor(tgt.detach().numpy(), requires_grad=True)
    padding = np.zeros((3, 6), dtype=bool)
    padding[1, 4:] = True
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    mask_t = torch.nn.Transformer.generate_square_subsequent_mask(4)
    out = ours(src, tgt, tgt_mask=mask, src_key_padding_mask=ember.tensor(padding), memory_key_padding_mask=ember.tensor(padding))
    out_t = theirs(src_t, tgt_t, tgt_mask=mask_t, src_key_padding_mask=torch.tensor(padding),
                   memory_key_padding_mask=torch.tensor(padding))  # fmt: skip
    np.testing.assert_allclose(out.detach().numpy(), out_t.detach().numpy(), rtol=1e-4, atol=1e-5)
    weights = np.random.default_rng(2).standard_normal(tuple(out_t.shape)).astype(np.float32)
    (out * ember.tensor(weights)).sum().backward()
    (out_t * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(src.grad.numpy(), src_t.grad.numpy(), rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(tgt.grad.numpy(), tgt_t.grad.numpy(), rtol=1e-3, atol=1e-5)
    grads = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), grads[name].grad.numpy(), rtol=1e-3, atol=1e-5, err_msg=name)
