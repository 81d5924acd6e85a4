"""``nn.utils.rnn`` padding/packing and the recurrent layers over a PackedSequence: round trips and the
identity "a packed batch gives each sequence's own unbatched result" always, PyTorch's values and
gradients where torch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)
from tests._oracle import needs_torch, torch

LENGTHS = [3, 5, 1, 4]


def _sequences(lengths=LENGTHS, features=2, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, features)).astype(np.float32) for n in lengths]


def test_pad_sequence_sides_and_layout():
    seqs = [ember.tensor([1.0, 2.0]), ember.tensor([3.0])]
    assert pad_sequence(seqs).tolist() == [[1.0, 3.0], [2.0, 0.0]]
    assert pad_sequence(seqs, batch_first=True, padding_value=-1).tolist() == [[1.0, 2.0], [3.0, -1.0]]
    assert pad_sequence(seqs, True, 9.0, padding_side="left").tolist() == [[1.0, 2.0], [9.0, 3.0]]
    with pytest.raises(RuntimeError, match="padding_side to be one of left or right"):
        pad_sequence(seqs, padding_side="up")
    with pytest.raises(RuntimeError, match="empty list"):
        pad_sequence([])


def test_pack_round_trip_restores_order_and_lengths():
    seqs = [ember.tensor(s) for s in _sequences()]
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert isinstance(packed, PackedSequence)
    assert packed.batch_sizes.tolist() == [4, 3, 3, 2, 1]
    assert packed.sorted_indices.tolist() == [1, 3, 0, 2]
    assert packed.unsorted_indices.tolist() == [2, 0, 3, 1]
    padded, lengths = pad_packed_sequence(packed, batch_first=True, padding_value=-7.0, total_length=6)
    assert padded.shape == (4, 6, 2) and lengths.tolist() == LENGTHS and lengths.dtype == ember.int64
    assert padded[2, 1:].eq(-7.0).all().item()
    for original, back in zip(seqs, unpad_sequence(padded, lengths, batch_first=True), strict=True):
        assert ember.equal(original, back)
    for original, back in zip(seqs, unpack_sequence(packed), strict=True):
        assert ember.equal(original, back)


def test_pack_errors():
    padded = ember.zeros(4, 3, 2)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        pack_padded_sequence(padded, [2, 4, 1])
    with pytest.raises(RuntimeError, match="greater than 0"):
        pack_padded_sequence(padded, [4, 2, 0])
    with pytest.raises(RuntimeError, match=r"equal to batch_size, but got 2 \(batch_size=3\)"):
        pack_padded_sequence(padded, [4, 2])
    with pytest.raises(RuntimeError, match="exceeds the padded length"):
        pack_padded_sequence(padded, [5, 2, 1])
    with pytest.raises(ValueError, match="total_length=2 and max sequence length being 4"):
        pad_packed_sequence(pack_padded_sequence(padded, [4, 2, 1]), total_length=2)


def test_packing_passes_gradients():
    padded = ember.tensor(np.arange(12.0).reshape(3, 4, 1), requires_grad=True)
    packed = pack_padded_sequence(padded, [1, 3, 2, 3], batch_first=False, enforce_sorted=False)
    packed.data.sum().backward()
    mask = (np.arange(3)[:, None] < np.array([1, 3, 2, 3])[None, :]).astype(float)[..., None]
    np.testing.assert_array_equal(padded.grad.numpy(), mask)


@pytest.mark.parametrize(
    "make",
    [
        lambda: nn.LSTM(2, 3, num_layers=2, bidirectional=True),
        lambda: nn.LSTM(2, 4, proj_size=2),
        lambda: nn.GRU(2, 3, bidirectional=True),
        lambda: nn.RNN(2, 3, num_layers=2, nonlinearity="relu"),
    ],
)
def test_packed_batch_equals_each_sequence_alone(make):
    ember.manual_seed(0)
    rnn = make()
    seqs = [ember.tensor(s) for s in _sequences()]
    out, state = rnn(pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = pad_packed_sequence(out)
    h_n = state[0] if isinstance(state, tuple) else state
    for b, seq in enumerate(seqs):
        alone, alone_state = rnn(seq)
        alone_h = alone_state[0] if isinstance(alone_state, tuple) else alone_state
        np.testing.assert_allclose(padded[: lengths[b], b].detach().numpy(), alone.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h_n[:, b].detach().numpy(), alone_h.detach().numpy(), rtol=1e-5, atol=1e-6)


@needs_torch
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_rnn_over_packed_matches_torch(kind, enforce_sorted, with_state):
    lengths = sorted(LENGTHS, reverse=True) if enforce_sorted else LENGTHS
    seqs = _sequences(lengths)
    extra = {"proj_size": 2} if kind == "LSTM" and with_state else {}
    ours = getattr(nn, kind)(2, 3, num_layers=2, bidirectional=True, batch_first=True, **extra)
    theirs = getattr(torch.nn, kind)(2, 3, num_layers=2, bidirectional=True, batch_first=True, **extra)
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(getattr(ours, name).detach().numpy()))
    padded = pad_sequence([ember.tensor(s) for s in seqs], batch_first=True)
    padded_t = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)
    padded.requires_grad_(True)
    padded_t.requires_grad_(True)
    hx = hx_t = None
    if with_state:
        rng = np.random.default_rng(3)
        h = rng.standard_normal((4, 4, 2 if kind == "LSTM" else 3)).astype(np.float32)
        c = rng.standard_normal((4, 4, 3)).astype(np.float32)
        hx, hx_t = (ember.tensor(h), torch.tensor(h)) if kind != "LSTM" else (
            (ember.tensor(h), ember.tensor(c)), (torch.tensor(h), torch.tensor(c)))  # fmt: skip
    out, state = ours(pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=enforce_sorted), hx)
    out_t, state_t = theirs(
        torch.nn.utils.rnn.pack_padded_sequence(padded_t, lengths, batch_first=True, enforce_sorted=enforce_sorted), hx_t
    )
    np.testing.assert_allclose(out.data.detach().numpy(), out_t.data.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert out.batch_sizes.tolist() == out_t.batch_sizes.tolist()
    states, states_t = (state, state_t) if kind == "LSTM" else ((state,), (state_t,))
    for a, b in zip(states, states_t, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    y, _ = pad_packed_sequence(out, batch_first=True)
    y_t, _ = torch.nn.utils.rnn.pad_packed_sequence(out_t, batch_first=True)
    weights = np.random.default_rng(4).standard_normal(tuple(y_t.shape)).astype(np.float32)
    ((y * ember.tensor(weights)).sum() + sum(s.sum() for s in states)).backward()
    ((y_t * torch.tensor(weights)).sum() + sum(s.sum() for s in states_t)).backward()
    np.testing.assert_allclose(padded.grad.numpy(), padded_t.grad.numpy(), rtol=1e-4, atol=1e-5)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(getattr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


@needs_torch
def test_pad_sequence_matches_torch():
    seqs = _sequences([2, 4, 3], features=3)
    for batch_first in (False, True):
        for side in ("left", "right"):
            ours = pad_sequence([ember.tensor(s) for s in seqs], batch_first, 1.5, side).numpy()
            theirs = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first, 1.5, side).numpy()
            np.testing.assert_array_equal(ours, theirs)
