
"""``TransformerEncoderLayer`` and ``TransformerEncoder`` (PyTorch's post-/pre-norm encoder block).

>>> import ember.nn as nn
>>> layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
>>> layer(ember.randn(2, 5, 8)).shape
ember.Size([2, 5, 8])
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ..._core.tensor import Tensor
from ...ops import functional as F
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _activation(activation: str | Callable) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with dropout, a residual and LayerNorm
    (after the residual by default, before the sublayer with ``norm_first``)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        # a Module activation is registered (and printed) as a child, a function is a plain attribute
        self.activation = _activation(activation)

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:  # fmt: skip
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` applied in turn, then an optional ``norm``."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:  # fmt: skip
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        if self.norm is not None:
            output = self.norm(output)
        return output
