"""``torch.nn.functional.embedding_bag``: sums, means or maxima of bags of embedding rows, without
materialising the (bags, bag length, dim) lookup; composed from ``embedding``, ``index_add`` and
``gather`` (the bag bookkeeping is integer data, worked out in NumPy).

>>> from ember.nn._embedding_bag import embedding_bag
>>> weight = ember.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
>>> embedding_bag(ember.tensor([0, 1, 2, 2]), weight, ember.tensor([0, 2]), mode="sum").tolist()
[[1.0, 1.0], [4.0, 4.0]]
"""

from __future__ import annotations

import numpy as np

from .._core import dtype as dtypes
from .._core.tensor import Tensor, tensor
from ..ops import functional as F

_INTEGER = (dtypes.int32, dtypes.int64)


def _bags(input: Tensor, offsets: Tensor | None, include_last_offset: bool) -> tuple[Tensor, np.ndarray, int]:
    """The flat indices, the bag of each position (-1: in no bag) and the number of bags."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type {type(offsets)}"
            )
        bags, length = input.shape
        return input.reshape(-1), np.repeat(np.arange(bags), length), bags
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if not isinstance(offsets, Tensor) or offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if offsets.dtype not in _INTEGER:
        raise RuntimeError(f"embedding_bag: expected offsets to be an int32 or int64 tensor, got {offsets.dtype}")
    starts = np.asarray(offsets.tolist(), dtype=np.int64)
    n = input.shape[0]
    if starts.size == 0:
        raise RuntimeError("embedding_bag: offsets must hold at least one entry")
    if starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {starts[0]}"
        )
    if starts[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {starts[-1]}")
    if (np.diff(starts) < 0).any():
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got {starts.tolist()}")
    bags = starts.size - 1 if include_last_offset else starts.size
    bag_of = np.searchsorted(starts, np.arange(n), side="right") - 1
    bag_of[bag_of >= bags] = -1  # past the last offset when it only closes the last bag
    return input, bag_of, bags


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:  # fmt: skip
    """One row per bag: the ``mode`` ('sum', 'mean' or 'max') of the ``weight`` rows its indices pick.

    A 2D ``input`` is a batch of equal-length bags; a 1D one is split at ``offsets``. Indices equal to
    ``padding_idx`` are left out of their bag (and of its mean); an empty bag gives zeros.
    ``per_sample_weights`` (``mode='sum'`` only) scales each picked row."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if input.dtype not in _INTEGER:
        raise RuntimeError(f"embedding_bag: expected input to be an int32 or int64 tensor of indices, got {input.dtype}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
                f"(got mode='{mode}'). Please open a feature request on GitHub."
            )
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have "
                f"the same shape as the input ({input.shape})"
            )
    if weight.dim() != 2:
        raise RuntimeError(f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    num_embeddings = weight.shape[0]
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num_embeddings
    flat, bag_of, bags = _bags(input, offsets, include_last_offset)
    values = np.asarray(flat.tolist(), dtype=np.int64)
    bad = (values < 0) | (values >= num_embeddings)
    if bad.any():
        i = int(np.argmax(bad))
        raise RuntimeError(f"Index {i} of input takes value {values[i]} which is not in the valid range [0, {num_embeddings})")
    kept = np.flatnonzero((bag_of >= 0) & (values != (-1 if padding_idx is None else padding_idx)))
    keep = tensor(kept, dtype=dtypes.int64, device=weight.device)
    # embedding does max_norm's in-place renorm and scale_grad_by_freq over every index, as torch counts them
    rows = F.embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse).index_select(0, keep)
    owner = bag_of[kept]
    dim = weight.shape[1]
    if mode == "max":
        return _bag_max(rows, owner, bags, dim, weight)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1).index_select(0, keep).unsqueeze(1).to(rows.dtype)
    out = F.zeros(bags, dim, dtype=weight.dtype, device=weight.device)
    out = out.index_add(0, tensor(owner, dtype=dtypes.int64, device=weight.device), rows)
    if mode == "mean":
        counts = np.maximum(np.bincount(owner, minlength=bags), 1).astype(np.float64)
        out = out / tensor(counts, dtype=weight.dtype, device=weight.device).unsqueeze(1)
    return out


def _bag_max(rows: Tensor, owner: np.ndarray, bags: int, dim: int, weight: Tensor) -> Tensor:
    """Each bag's element-wise maximum (the first one on ties, whose row takes the gradient); 0 for an
    empty bag."""
    if rows.shape[0] == 0:
        return F.zeros(bags, dim, dtype=weight.dtype, device=weight.device)
    values = rows.detach().numpy()
    # the kept positions are in bag order, so each non-empty bag is one contiguous segment
    present, starts = np.unique(owner, return_index=True)
    segment_max = np.maximum.reduceat(values, starts, axis=0)
    positions = np.arange(values.shape[0])[:, None]
    is_max = values == segment_max[np.searchsorted(present, owner)]
    first = np.minimum.reduceat(np.where(is_max, positions, values.shape[0]), starts, axis=0)
    first = np.where(first == values.shape[0], starts[:, None], first)  # a NaN segment: its first row
    winner = np.zeros((bags, dim), dtype=np.int64)
    winner[present] = first
    picked = rows.gather(0, tensor(winner, dtype=dtypes.int64, device=weight.device))
    empty = np.bincount(owner, minlength=bags) == 0
    if empty.any():
        picked = F.where(tensor(empty[:, None], device=weight.device), 0.0, picked)
    return picked
