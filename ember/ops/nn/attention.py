"""scaled_dot_product_attention: softmax(query @ key.T * scale + mask) @ value, with a bool
or additive mask, a causal mask, dropout and grouped-query heads (``enable_gqa``).

Rows with no allowed position give zeros, as PyTorch's safe softmax. Kernel:
``ember/kernels/cpu/nn/attention.py``.

>>> import ember
>>> q = ember.ones((1, 2, 3))
>>> ember.scaled_dot_product_attention(q, q, ember.tensor([[[1.0], [3.0]]])).tolist()
[[[2.0], [2.0]]]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core.generator import default_generator
from ...dispatch import OpExpr, dispatch
from ..common import broadcast_pair, functional as _F, sum_to
from ..functor import functor
from ..schema import schema_family
from ._common import _is_int, _needs, _not_implemented

declare = schema_family("nn", namespaces=("nn.functional",))


declare(
    "scaled_dot_product_attention",
    "Tensor (Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, Float dropout_p=0.0, Bool is_causal=False, Float? scale=None, Bool enable_gqa=False, *, Generator? generator=None) => ScaledDotProductAttention",
    doc="""
    softmax(query @ key.T * scale + mask) @ value; a bool mask marks the allowed positions, a float
    mask is added; rows with no allowed position give zeros.
    """,
)
@functor("ScaledDotProductAttention")
def scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, generator):
    q, k, v = query, key, value
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise RuntimeError(
            f"Expected query, key, and value to all be at least 2 dimensional, but got query.dim: {q.ndim} key.dim: {k.ndim} "
            f"and value.dim: {v.ndim} instead."
        )
    if not (q._dtype is k._dtype is v._dtype):
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: {q._dtype.name} key.dtype: {k._dtype.name} "
            f"and value.dtype: {v._dtype.name} instead."
        )
    if q._dtype is _dt.bool_ or not (q._dtype.is_floating_point or _is_int(q._dtype)):
        raise _not_implemented("scaled_dot_product_attention", q._dtype)
    if q._shape[-1] != k._shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention(): query and key must have the same embedding size, got {q._shape[-1]} and {k._shape[-1]}")
    if k._shape[-2] != v._shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention(): key and value must have the same sequence length, got {k._shape[-2]} and {v._shape[-2]}")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    rep = 1
    if enable_gqa and q.ndim >= 3 and k.ndim >= 3:
        hq, hk, hv = q._shape[-3], k._shape[-3], v._shape[-3]
        if hk != hv or (hk == 0 and hq != 0) or (hk and hq % hk):
            raise RuntimeError(
                f"Number of heads in key and value must divide the number of heads in query, got query heads {hq}, key heads {hk}, value heads {hv}"
            )
        rep = hq // hk if hk else 1
    inputs = (q, k, v)
    if attn_mask is not None:
        if attn_mask._dtype is not _dt.bool_ and attn_mask._dtype is not q._dtype:
            raise RuntimeError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: {attn_mask._dtype.name} "
                f"and query.dtype: {q._dtype.name} instead."
            )
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        inputs = (q, k, v, attn_mask)
    if scale is None:  # with no embedding the scores are all 0 whatever the scale (PyTorch's 1/sqrt(0) included)
        scale = 1 / math.sqrt(q._shape[-1]) if q._shape[-1] else 1.0
    attrs = {"scale": float(scale), "is_causal": is_causal,
             "dropout_p": float(dropout_p), "gqa_repeat": rep, "has_mask": attn_mask is not None,
             "generator": (generator or default_generator) if dropout_p > 0 else None}
    out_shape = _sdpa_infer(attrs, q, k, v)[0][0]
    if attn_mask is not None:
        scores = (*out_shape[:-1], k._shape[-2])
        if broadcast_pair(scores, attn_mask._shape) != scores:
            raise RuntimeError(f"scaled_dot_product_attention(): attn_mask of size {list(attn_mask._shape)} cannot be broadcast to the attention scores of size {list(scores)}")
    if _is_int(q._dtype) and math.prod(out_shape) and k._shape[-2]:
        # PyTorch accepts integers only where nothing is computed: an empty output, or no keys (zeros)
        raise _not_implemented("scaled_dot_product_attention", q._dtype)
    return dispatch(_SDPA, inputs, attrs)[0]


_SDPA = OpExpr("scaled_dot_product_attention", ("query", "key", "value", "attn_mask"), ("out",))


@_SDPA.shape_rule
def _sdpa_infer(attrs, q, k, v, *mask):
    rep = attrs["gqa_repeat"]
    kb, vb = k._shape[:-2], v._shape[:-2]
    if rep != 1:
        kb = (*kb[:-1], kb[-1] * rep)
        vb = (*vb[:-1], vb[-1] * rep)
    batch = broadcast_pair(broadcast_pair(q._shape[:-2], kb), vb)
    return (((*batch, q._shape[-2], v._shape[-1]), q._dtype),)


@_SDPA.grad_rule(saves="inputs")
def _sdpa_grad(ctx, g):
    F = _F()
    attrs = ctx.attrs
    if attrs["dropout_p"] > 0:
        raise NotImplementedError("the derivative of scaled_dot_product_attention with dropout_p > 0 is not implemented (its mask is not saved)")
    q, k, v, *mask = ctx.inputs
    rep = attrs["gqa_repeat"]
    kr = k.repeat_interleave(rep, dim=-3) if rep != 1 else k
    vr = v.repeat_interleave(rep, dim=-3) if rep != 1 else v
    scale = attrs["scale"]
    s = F.matmul(q, kr.transpose(-1, -2)) * scale
    length, src_len = q._shape[-2], k._shape[-2]
    if mask:
        m = mask[0]
        s = F.where(m, s, float("-inf")) if m._dtype is _dt.bool_ else s + m
    if attrs["is_causal"]:
        s = F.where(_F().ones((length, src_len), dtype=_dt.bool_).tril(), s, float("-inf"))
    p = F.softmax(s, -1)
    p = F.where(F.isnan(p), 0.0, p)  # fully masked rows are zeros
    dp = F.matmul(g, vr.transpose(-1, -2))
    ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))

    def unrepeat(t, shape):
        if rep != 1:
            t = sum_to(t, (*t._shape[:-3], shape[-3] * rep, *t._shape[-2:]))
            t = t.reshape(*t._shape[:-3], shape[-3], rep, *t._shape[-2:]).sum(dim=-3)
        return sum_to(t, shape)

    grads = [
        sum_to(F.matmul(ds, kr) * scale, q._shape) if _needs(ctx, 0) else None,
        unrepeat(F.matmul(ds.transpose(-1, -2), q) * scale, k._shape) if _needs(ctx, 1) else None,
        unrepeat(F.matmul(p.transpose(-1, -2), g), v._shape) if _needs(ctx, 2) else None,
    ]
    if mask:
        grads.append(sum_to(ds, mask[0]._shape) if mask[0]._dtype is not _dt.bool_ and _needs(ctx, 3) else None)
    return tuple(grads)
