
"""``MultiheadAttention``, PyTorch's parameters (in_proj_weight, out_proj...) and semantics.

>>> import ember.nn as nn
>>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
>>> out, weights = mha(ember.randn(3, 5, 8), ember.randn(3, 4, 8), ember.randn(3, 4, 8))
>>> out.shape, weights.shape
(ember.Size([3, 5, 8]), ember.Size([3, 5, 4]))
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...ops import functional as F
from .. import init
from .._composite import multi_head_attention_forward
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads of size embed_dim / num_heads.

    ``key_padding_mask`` (N, S) and ``attn_mask`` (L, S) or (N * num_heads, L, S) are boolean
    (True = may not attend) or float (added to the scores). Returns (output, weights): the weights
    are averaged over heads unless ``average_attn_weights=False``, and None without ``need_weights``.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True, add_bias_kv: bool = False,
                 add_zero_attn: bool = False, kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device=None, dtype=None) -> None:  # fmt: skip
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def empty(*shape):
            return Parameter(F.empty(shape, device=device, dtype=dtype))

        if self._qkv_same_embed_dim:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = empty(1, 1, embed_dim)
            self.bias_v = empty(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False):  # fmt: skip
        if self.batch_first and query.dim() == 3:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        out, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and query.dim() == 3:
            out = out.transpose(0, 1)
        return out, weights
