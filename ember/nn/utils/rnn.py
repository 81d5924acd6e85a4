"""Variable-length sequences for the recurrent layers, as ``torch.nn.utils.rnn``: ``pad_sequence``,
``pack_padded_sequence``, ``pad_packed_sequence``, ``pack_sequence``, ``unpad_sequence``,
``unpack_sequence`` and ``PackedSequence``.

A packed batch stores the time steps one after another, each holding only the sequences still running
(longest first): ``batch_sizes[t]`` rows for step ``t``. Packing and unpacking are index_select, slices
and cat, so gradients flow through them.

>>> from ember.nn.utils.rnn import pack_sequence, pad_packed_sequence
>>> packed = pack_sequence([ember.tensor([1.0, 2.0, 3.0]), ember.tensor([4.0])])
>>> packed.data.tolist(), packed.batch_sizes.tolist()
([1.0, 4.0, 2.0, 3.0], [2, 1, 1])
>>> padded, lengths = pad_packed_sequence(packed, batch_first=True)
>>> padded.tolist(), lengths.tolist()
([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]], [3, 1])
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..._core import dtype as dtypes
from ..._core.tensor import Tensor, tensor
from ...ops import functional as F


class PackedSequence(NamedTuple):
    """A packed batch: ``data`` (sum of lengths, *), ``batch_sizes`` (int64, one per time step) and, for
    a batch that was not sorted by length, the permutation to sorted order and its inverse."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same packing with ``data`` converted by ``Tensor.to`` (the indices follow its device)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        indices = [None if i is None else i.to(device=device) for i in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *indices)

    def cpu(self) -> PackedSequence:
        return self.to(device="cpu")

    def double(self) -> PackedSequence:
        return self.to(dtype=dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=dtypes.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=dtypes.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=dtypes.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=dtypes.int32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    inverse = np.empty(len(permutation), dtype=np.int64)
    inverse[np.asarray(permutation.tolist(), dtype=np.int64)] = np.arange(len(permutation))
    return tensor(inverse, dtype=dtypes.int64, device=permutation.device)


def _lengths_list(lengths) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"pack_padded_sequence: 'lengths' must be a 1D tensor, got {lengths.dim()}D")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded (T, B, *) batch (``batch_first``: (B, T, *)) of sequences of the given lengths.

    With ``enforce_sorted`` the lengths must decrease; otherwise the batch is sorted here and the
    permutation kept in the result, so ``pad_packed_sequence`` and the recurrent layers restore the order."""
    sizes = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if input.dim() < 2:
        raise RuntimeError(f"pack_padded_sequence: expected a padded input of at least 2 dims, got {input.dim()}D")
    steps, batch = input.shape[1 - batch_dim], input.shape[batch_dim]
    if len(sizes) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(sizes)} (batch_size={batch})")
    if enforce_sorted:
        if any(a < b for a, b in itertools.pairwise(sizes)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        order = np.argsort(-np.asarray(sizes, dtype=np.int64), kind="stable")
        sorted_indices = tensor(order, dtype=dtypes.int64, device=input.device)
        sizes = [sizes[i] for i in order]
        input = input.index_select(batch_dim, sorted_indices)
    if sizes and sizes[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0")
    if sizes and sizes[0] > steps:
        raise RuntimeError(f"pack_padded_sequence: a length ({sizes[0]}) exceeds the padded length of the input ({steps})")
    if batch_first:
        input = input.transpose(0, 1)
    batch_sizes = [sum(1 for n in sizes if n > t) for t in range(sizes[0] if sizes else 0)]
    data = F.cat([input[t, :bs] for t, bs in enumerate(batch_sizes)]) if batch_sizes else input.reshape(0, *input.shape[2:])
    return PackedSequence(data, tensor(batch_sizes, dtype=dtypes.int64), sorted_indices, invert_permutation(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """Undoes ``pack_padded_sequence``: the padded batch, in the original order, and the int64 lengths."""
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
        steps = total_length
    data = sequence.data
    batch = batch_sizes[0] if batch_sizes else 0
    rows, offset = [], 0
    for bs in batch_sizes:
        step = data[offset : offset + bs]
        offset += bs
        if bs < batch:
            step = F.cat([step, F.full((batch - bs, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)])
        rows.append(step)
    filler = F.full((steps - len(rows), batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded = F.cat([F.stack(rows), filler]) if rows else filler
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(batch)]
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[i] for i in sequence.unsorted_indices.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, tensor(lengths, dtype=dtypes.int64)


def pad_sequence(sequences: Sequence[Tensor] | Tensor, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:  # fmt: skip
    """Stacks tensors of shapes (L_i, *) into (max L, B, *) (``batch_first``: (B, max L, *)), padding
    each with ``padding_value`` after its end (``padding_side='left'``: before its start)."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] if s.dim() else 1 for s in sequences)
    padded = []
    for seq in sequences:
        seq = seq.reshape(1) if seq.dim() == 0 else seq
        missing = longest - seq.shape[0]
        if missing:
            fill = F.full((missing, *seq.shape[1:]), padding_value, dtype=seq.dtype, device=seq.device)
            seq = F.cat([seq, fill] if padding_side == "right" else [fill, seq])
        padded.append(seq)
    return F.stack(padded, dim=0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """Splits a padded batch back into its sequences of the given lengths."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _lengths_list(lengths), strict=True)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs tensors of shapes (L_i, *): ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a ``PackedSequence`` holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]
