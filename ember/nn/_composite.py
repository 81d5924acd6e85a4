"""``torch.nn.functional`` functions that ember's op library has no schema entry for, composed from ops.

>>> from ember.nn._composite import relu6
>>> relu6(ember.tensor([-1.0, 3.0, 9.0])).tolist()
[0.0, 3.0, 6.0]
"""

from __future__ import annotations

import math
import warnings

from .. import linalg
from .._core import dtype as dtypes
from .._core.tensor import Tensor
from ..ops import functional as F

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return F.hardtanh(input, 0.0, 6.0, inplace=inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return relu6(input + 3.0) / 6.0


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    if input.dtype in (dtypes.float16, dtypes.bfloat16):  # in float32, as PyTorch: x * 6 overflows float16 from 10923 up
        return hardswish(input.float()).to(input.dtype)
    if not input.requires_grad:
        return input * relu6(input + 3.0) / 6.0
    # PyTorch's derivative is 1 from 3 up and 0 from -3 down, inf included; differentiating the
    # product above gives inf * 0 = NaN there, so each side is its own branch of a where, the
    # middle computed from a copy with the outside zeroed (NaN stays in it: NaN gives NaN)
    above, below = input >= 3.0, input <= -3.0
    middle = F.where(above.logical_or(below), 0.0, input)
    # (x * 6 / 6 and x * 0, not x and 0: the values of the product above, rounding and -0.0 included)
    return F.where(above, input * 6.0 / 6.0, F.where(below, input * 0.0, middle * (middle + 3.0) / 6.0))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return input * F.tanh(F.softplus(input))


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed as -softplus(-x) so large negative inputs stay finite (0 - rather
    than a negation, so +inf gives 0.0 as PyTorch, not -0.0)."""
    return 0.0 - F.softplus(-input)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _SELU_SCALE * F.elu(input, _SELU_ALPHA)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    # the positive side is x itself: x / alpha would overflow to inf for large x and small alpha
    return F.where(input > 0, input, alpha * F.elu(input / alpha))


def softsign(input: Tensor) -> Tensor:
    return input / (1 + input.abs())


def tanhshrink(input: Tensor) -> Tensor:
    return input - F.tanh(input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The first half of ``input`` along ``dim`` gated by the sigmoid of the second half."""
    if input.size(dim) % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {input.size(dim)}")
    a, b = input.chunk(2, dim)
    return a * F.sigmoid(b)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``).

    >>> [round(v, 4) for v in normalize(ember.tensor([[3.0, 4.0]]))[0].tolist()]
    [0.6, 0.8]
    """
    norm = linalg.vector_norm(input, p, dim=dim, keepdim=True).clamp(min=eps)
    return input / norm


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    n1 = linalg.vector_norm(x1, 2, dim=dim, keepdim=True).clamp(min=eps)
    n2 = linalg.vector_norm(x2, 2, dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    return linalg.vector_norm(x1 - x2 + eps, p, dim=-1, keepdim=keepdim)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` holds one slope or one per channel (dim 1).

    >>> prelu(ember.tensor([-2.0, 3.0]), ember.tensor([0.25])).tolist()
    [-0.5, 3.0]
    """
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if weight.numel() != 1:
        channels = input.size(1) if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. "
                f"Found parameter numbers = {weight.numel()} and channel size = {channels}."
            )
        weight = weight.reshape(weight.numel(), *([1] * (input.dim() - 2)))
    return F.where(input > 0, input, weight * input)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the ``p``-norm distance;
    ``swap`` takes the smaller of d(anchor, negative) and d(positive, negative).

    >>> a, pos, neg = ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]]), ember.tensor([[0.0, 1.0]])
    >>> round(triplet_margin_loss(a, pos, neg, eps=0.0).item(), 4)
    5.0
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D inputs"
        )
    positive_distance = pairwise_distance(anchor, positive, p, eps)
    negative_distance = pairwise_distance(anchor, negative, p, eps)
    if swap:
        negative_distance = F.minimum(negative_distance, pairwise_distance(positive, negative, p, eps))
    losses = (margin + positive_distance - negative_distance).clamp(min=0)
    if reduction == "mean":
        return losses.mean()
    return losses.sum() if reduction == "sum" else losses


def _legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """PyTorch's reading of the deprecated (size_average, reduce) flags as a ``reduction``."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.", stacklevel=3)
    return reduction


def _additive_mask(mask: Tensor | None, dtype) -> Tensor | None:
    """A boolean mask (True = may not attend) as 0 / -inf to add to scores; float masks pass through."""
    if mask is None or mask.dtype is not dtypes.bool_:
        return mask
    return F.zeros(tuple(mask.size()), dtype=dtype).masked_fill(mask, -math.inf)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """PyTorch's multi-head attention on sequence-first inputs (L, N, E), or unbatched (L, E).

    Returns (output (L, N, E), weights (N, L, S) averaged over heads, or (N, H, L, S), or None).
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k / static_v are not supported")
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.size()  # size(), not shape: graph mode's unknown sizes keep their formula
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")

    b_q, b_k, b_v = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
    if use_separate_proj_weight:
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    q = F.linear(query, w_q, b_q)
    k = F.linear(key, w_k, b_k)
    v = F.linear(value, w_v, b_v)

    if is_causal and attn_mask is None:
        attn_mask = F.triu(F.ones(tgt_len, key.size(0), dtype=dtypes.bool_), diagonal=1)
    attn_mask = _additive_mask(attn_mask, q.dtype)
    key_padding_mask = _additive_mask(key_padding_mask, q.dtype)
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)  # one (L, S) mask for every batch element and head

    if bias_k is not None and bias_v is not None:
        k = F.cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = F.cat([v, bias_v.expand(1, bsz, embed_dim)])
        attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))

    # (seq, N, E) -> (N * heads, seq, head_dim): heads become batch entries for bmm
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zeros = F.zeros(bsz * num_heads, 1, head_dim, dtype=q.dtype)
        k, v = F.cat([k, zeros], dim=1), F.cat([v, zeros], dim=1)
        attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]

    if key_padding_mask is not None:
        expanded = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        expanded = expanded.reshape(bsz * num_heads, 1, src_len)
        attn_mask = expanded if attn_mask is None else attn_mask + expanded

    scores = F.bmm(q * (1.0 / math.sqrt(head_dim)), k.transpose(1, 2))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = F.softmax(scores, dim=-1)
    if dropout_p > 0.0 and training:
        weights = F.dropout(weights, p=dropout_p)
    out = F.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)

    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights
