"""scaled_dot_product_attention against torch.nn.functional: masks, causal, scale, grouped-query heads,
dropout, zero sizes, integer inputs, errors and derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops import functional as F
from tests._oracle import needs_torch, torch

from ._helpers import (
    FLOATS,
    RNG,
    SETTINGS,
    TF,
    TOL,
    TORCH_ADVICE,
    both,
    check,
    check_exact,
    compare_grads,
    leaf,
    make,
    pair,
    seeded,
    shapes,
)

pytestmark = TORCH_ADVICE


@needs_torch
@SETTINGS
@given(batch=shapes(0, 2, 1, 3), lq=st.integers(1, 4), ls=st.integers(1, 4), e=st.integers(1, 4), ev=st.integers(1, 3),
       mask=st.sampled_from([None, "bool", "float", "causal"]), scale=st.sampled_from([None, 0.3]), dtype=st.sampled_from(FLOATS),
       noncontig=st.booleans())
def test_scaled_dot_product_attention(batch, lq, ls, e, ev, mask, scale, dtype, noncontig):
    rng = seeded(lq * 100 + ls * 10 + e)
    q = rng.normal(size=(*batch, lq, e)).astype(dtype)
    k = rng.normal(size=(*batch, ls, e)).astype(dtype)
    v = rng.normal(size=(*batch, ls, ev)).astype(dtype)
    (eq, tq), (ek, tk), (evv, tv) = make(q, noncontig), make(k, noncontig), make(v)
    kwargs_e, kwargs_t = {"scale": scale}, {"scale": scale}
    if mask == "bool":
        m = rng.random((lq, ls)) > 0.4
        m[0] = False  # a fully masked row: zeros, like PyTorch
        kwargs_e["attn_mask"], kwargs_t["attn_mask"] = ember.tensor(m), torch.from_numpy(m)
    elif mask == "float":
        m = rng.normal(size=(lq, ls)).astype(dtype)
        kwargs_e["attn_mask"], kwargs_t["attn_mask"] = ember.tensor(m), torch.from_numpy(m)
    elif mask == "causal":
        kwargs_e["is_causal"] = kwargs_t["is_causal"] = True
    check(ember.scaled_dot_product_attention(eq, ek, evv, **kwargs_e), TF.scaled_dot_product_attention(tq, tk, tv, **kwargs_t), **TOL[dtype])


@needs_torch
def test_attention_gqa_and_dropout():
    rng = seeded(9)
    q, k, v = rng.normal(size=(2, 4, 3, 5)), rng.normal(size=(2, 2, 6, 5)), rng.normal(size=(2, 2, 6, 3))
    (eq, tq), (ek, tk), (ev, tv) = make(q), make(k), make(v)
    check(ember.scaled_dot_product_attention(eq, ek, ev, enable_gqa=True), TF.scaled_dot_product_attention(tq, tk, tv, enable_gqa=True))
    ember.manual_seed(3)
    a = ember.scaled_dot_product_attention(eq, ek, ev, dropout_p=0.5, enable_gqa=True).numpy()
    ember.manual_seed(3)
    np.testing.assert_array_equal(ember.scaled_dot_product_attention(eq, ek, ev, dropout_p=0.5, enable_gqa=True).numpy(), a)
    assert not np.allclose(a, TF.scaled_dot_product_attention(tq, tk, tv, enable_gqa=True).numpy())


def test_attention_errors():
    x = ember.zeros((2, 3, 4))
    with pytest.raises(RuntimeError, match="Expected query, key, and value to have the same dtype"):
        ember.scaled_dot_product_attention(x, x.to(ember.float64), x)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        ember.scaled_dot_product_attention(x, x, x, attn_mask=ember.ones((3, 3), dtype=ember.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="Expected attn_mask dtype to be bool or float or to match query dtype"):
        ember.scaled_dot_product_attention(x, x, x, attn_mask=ember.ones((3, 3), dtype=ember.int64))
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        ember.scaled_dot_product_attention(ember.zeros(4), ember.zeros(4), ember.zeros(4))
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide the number of heads in query"):
        ember.scaled_dot_product_attention(ember.zeros((1, 4, 3, 4)), ember.zeros((1, 3, 3, 4)), ember.zeros((1, 3, 3, 4)), enable_gqa=True)


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


@needs_torch
@pytest.mark.parametrize("q, k, v", [((2, 0), (4, 0), (4, 5)), ((0, 0), (0, 0), (0, 0)), ((2, 3), (0, 3), (0, 5)), ((0, 3), (4, 3), (4, 5)),
                                     ((2, 0, 3), (4, 3), (4, 5))])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_zero_sizes(q, k, v, causal):
    # no embedding: all scores 0 (PyTorch's scale 1/sqrt(0) does not make them nan), a uniform average of the values
    rng = seeded(7)
    arrays = [rng.normal(size=s).astype(np.float32) for s in (q, k, v)]
    check_exact(*both("scaled_dot_product_attention", *arrays, is_causal=causal))


@needs_torch
@pytest.mark.parametrize("q, k, v", [((0, 3), (4, 3), (4, 5)), ((2, 3), (0, 3), (0, 5)), ((2, 3), (4, 3), (4, 0))])
def test_attention_integer_inputs_where_nothing_is_computed(q, k, v):
    arrays = [np.ones(s, np.int32) for s in (q, k, v)]
    check_exact(*both("scaled_dot_product_attention", *arrays))
    with pytest.raises(NotImplementedError, match="not implemented for 'int32'"):
        ember.scaled_dot_product_attention(*(ember.ones((2, 3), dtype=ember.int32),) * 3)


@needs_torch
@pytest.mark.parametrize("q, k", [((1, 0, 2, 3), (1, 2, 4, 3)), ((1, 0, 2, 3), (1, 0, 4, 3))])
def test_attention_gqa_zero_query_heads(q, k):
    rng = seeded(8)
    arrays = [rng.normal(size=s).astype(np.float32) for s in (q, k, (*k[:-1], 5))]
    check_exact(*both("scaled_dot_product_attention", *arrays, enable_gqa=True))


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


def test_sdpa_grad():
    q, k, v = leaf((2, 3, 4)), leaf((2, 5, 4)), leaf((2, 5, 2))
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c), (q, k, v))
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), (q, leaf((2, 3, 4)), leaf((2, 3, 2))))
    bmask = ember.tensor(RNG.random((3, 5)) > 0.3)
    bmask[:, 0] = True
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=bmask), (q, k, v))
    fmask = leaf((3, 5))
    gradcheck(lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=0.3), (q, k, v, fmask))
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), (leaf((1, 4, 2, 3)), leaf((1, 2, 3, 3)), leaf((1, 2, 3, 2))))


def test_sdpa_gradgrad():
    gradgradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c), (leaf((1, 2, 3)), leaf((1, 2, 3)), leaf((1, 2, 2))))


@needs_torch
def test_gradients_against_torch():
    cases = [
        (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
         lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, is_causal=True), [pair((2, 2, 4, 3)), pair((2, 2, 4, 3)), pair((2, 2, 4, 5))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)
