"""Derivatives of the nn primitives: gradcheck against finite differences, gradients against
PyTorch's (same inputs, ``.backward()`` on both) and gradgradcheck for a few."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops import functional as F

RNG = np.random.default_rng(0)


def t(shape, requires_grad=True, low=None, high=None, rng=RNG):
    a = rng.uniform(low, high, shape) if low is not None else rng.standard_normal(shape)
    return ember.tensor(a, dtype=ember.float64, requires_grad=requires_grad)


def idx(values):
    return ember.tensor(np.asarray(values), dtype=ember.int64)


# --- softmax, losses ---------------------------------------------------------------------


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(fn, dim):
    x = t((3, 4, 2))
    gradcheck(lambda a: getattr(F, fn)(a, dim=dim), (x,))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_gradgrad(fn):
    gradgradcheck(lambda a: getattr(F, fn)(a, dim=1), (t((2, 3)),))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
def test_nll_like_indices(op, reduction):
    x = t((4, 3))
    target = idx([0, 2, 1, 2])
    gradcheck(lambda a: getattr(F, op)(a, target, reduction=reduction), (x,))
    w = ember.tensor([0.5, 2.0, 1.5], dtype=ember.float64)
    gradcheck(lambda a: getattr(F, op)(a, target, weight=w, ignore_index=1, reduction=reduction), (x,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_options(reduction):
    x = t((3, 4, 2))  # (N, C, d)
    target = idx([[0, 3], [1, 1], [2, 0]])
    w = ember.tensor([0.5, 2.0, 1.5, 1.0], dtype=ember.float64)
    gradcheck(lambda a: F.cross_entropy(a, target, weight=w, ignore_index=3, label_smoothing=0.2, reduction=reduction), (x,))
    probs = t((3, 4, 2), low=0.0, high=1.0)
    gradcheck(lambda a, p: F.cross_entropy(a, p, weight=w, label_smoothing=0.1, reduction=reduction), (x, probs))
    gradcheck(lambda a: F.cross_entropy(a, idx(2), reduction=reduction), (t((4,)),))


def test_cross_entropy_gradgrad():
    target = idx([0, 2, 1])
    gradgradcheck(lambda a: F.cross_entropy(a, target, label_smoothing=0.1), (t((3, 3)),))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("op", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_losses(op, reduction):
    a, b = t((3, 4)), t((3, 4))
    gradcheck(lambda x, y: getattr(F, op)(x, y, reduction=reduction), (a, b))
    if op in ("mse_loss", "l1_loss", "huber_loss"):
        w = t((3, 4), low=0.5, high=2.0)
        gradcheck(lambda x, y, ww: getattr(F, op)(x, y, reduction=reduction, weight=w if ww is None else ww), (a, b, w))


def test_pointwise_loss_broadcast_and_options():
    gradcheck(lambda x, y: F.mse_loss(x, y), (t((3, 4)), t((4,))))
    gradcheck(lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), (t((3, 4)), t((3, 4))))
    gradcheck(lambda x, y: F.huber_loss(x, y, delta=0.7), (t((3, 4)), t((3, 4))))
    gradgradcheck(lambda x, y: F.mse_loss(x, y), (t((2, 3)), t((2, 3))))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy(reduction):
    x, y = t((3, 4), low=0.1, high=0.9), t((3, 4), low=0.0, high=1.0)
    w = ember.tensor(RNG.uniform(0.5, 2.0, (4,)), dtype=ember.float64)
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction), (x, y))
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b, weight=w, reduction=reduction), (x, y))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_with_logits(reduction):
    x, y = t((3, 4)), t((3, 4), low=0.0, high=1.0)
    w, pw = t((4,), low=0.5, high=2.0), t((4,), low=0.5, high=2.0)
    gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction), (x, y))
    gradcheck(lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, weight=c, pos_weight=d, reduction=reduction), (x, y, w, pw))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = t((3, 4))
    y = t((3, 4)) if log_target else t((3, 4), low=0.1, high=1.0)
    gradcheck(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target), (x, y))


# --- linear, bilinear, convolution ---------------------------------------------------------


def test_linear():
    gradcheck(lambda x, w, b: F.linear(x, w, b), (t((2, 3, 4)), t((5, 4)), t((5,))))
    gradcheck(lambda x, w: F.linear(x, w), (t((4,)), t((5, 4))))
    gradcheck(lambda x, w: F.linear(x, w), (t((3, 4)), t((4,))))
    gradgradcheck(lambda x, w: F.linear(x, w), (t((2, 4)), t((3, 4))))  # a bias gradient is constant in the inputs


def test_bilinear():
    gradcheck(lambda a, b, w, c: F.bilinear(a, b, w, c), (t((3, 2)), t((3, 4)), t((5, 2, 4)), t((5,))))


CONV_CASES = [
    # (nd, x shape, w shape, kwargs)
    (1, (2, 4, 7), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    (1, (2, 3, 8), (4, 3, 2), {"dilation": 2, "padding": "same"}),
    (2, (2, 2, 5, 6), (3, 2, 3, 2), {"stride": (2, 1), "padding": (1, 0)}),
    (2, (1, 4, 5, 5), (4, 1, 3, 3), {"groups": 4, "padding": 1}),
    (2, (2, 3, 6, 5), (2, 3, 2, 2), {"dilation": (2, 1), "stride": 2}),
]


@pytest.mark.parametrize("nd,xs,ws,kw", CONV_CASES)
def test_convolution(nd, xs, ws, kw):
    conv = getattr(F, f"conv{nd}d")
    gradcheck(lambda x, w, b: conv(x, w, b, **kw), (t(xs), t(ws), t((ws[0],))))


TRANSPOSED_CASES = [
    (1, (2, 4, 5), (4, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    (1, (1, 4, 4), (4, 1, 2), {"groups": 2, "dilation": 2}),
    (2, (2, 2, 3, 4), (2, 3, 3, 2), {"stride": (2, 1), "padding": (1, 0)}),
    (2, (1, 2, 3, 3), (2, 2, 2, 2), {"stride": 2, "dilation": 3, "output_padding": 2}),
]


@pytest.mark.parametrize("nd,xs,ws,kw", TRANSPOSED_CASES)
def test_conv_transpose(nd, xs, ws, kw):
    conv = getattr(F, f"conv_transpose{nd}d")
    groups = kw.get("groups", 1)
    gradcheck(lambda x, w, b: conv(x, w, b, **kw), (t(xs), t(ws), t((ws[1] * groups,))))


def test_convolution_unbatched_and_gradgrad():
    gradcheck(lambda x, w: F.conv1d(x, w, padding=1), (t((2, 5)), t((3, 2, 3))))
    gradgradcheck(lambda x, w: F.conv2d(x, w, stride=2, padding=1), (t((1, 2, 4, 4)), t((2, 2, 2, 2))))


# --- pooling, interpolation ------------------------------------------------------------------


def _distinct(shape):
    """Float64 values far apart (no ties inside a pooling window)."""
    a = RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.1
    return ember.tensor(a, dtype=ember.float64, requires_grad=True)


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "dilation": 2, "ceil_mode": True, "stride": 2}])
def test_max_pool(kw):
    x = _distinct((2, 2, 5, 6))
    gradcheck(lambda a: F.max_pool2d(a, **kw), (x,))
    gradcheck(lambda a: F.max_pool2d(a, return_indices=True, **kw)[0], (x,))
    gradcheck(lambda a: F.max_pool1d(a, **kw), (_distinct((2, 7)),))


def test_max_pool_gradgrad():
    # max_pool's gradient is constant in its input: square first so the first derivative depends on it
    gradgradcheck(lambda a: F.max_pool2d(a * a, 2), (_distinct((1, 2, 4, 4)),))


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True},
                                {"kernel_size": 2, "divisor_override": 3}])
def test_avg_pool(kw):
    gradcheck(lambda a: F.avg_pool2d(a, **kw), (t((2, 2, 5, 6)),))
    gradcheck(lambda a: F.avg_pool1d(a, **{k: v for k, v in kw.items() if k != "divisor_override"}), (t((2, 3, 7)),))


def test_adaptive_avg_pool():
    gradcheck(lambda a: F.adaptive_avg_pool2d(a, (3, 2)), (t((2, 2, 5, 6)),))
    gradcheck(lambda a: F.adaptive_avg_pool1d(a, 4), (t((2, 7)),))


@pytest.mark.parametrize("kw", [{"scale_factor": 2, "mode": "nearest"}, {"size": (3, 7), "mode": "nearest"},
                                {"size": (3, 7), "mode": "nearest-exact"}, {"scale_factor": 1.5, "mode": "bilinear"},
                                {"size": (5, 3), "mode": "bilinear", "align_corners": True}, {"size": (5, 6), "mode": "bicubic"}])
def test_interpolate(kw):
    gradcheck(lambda a: F.interpolate(a, **kw), (t((1, 2, 4, 5)),))


# --- normalization, dropout, embedding ---------------------------------------------------------


def test_batch_norm_training():
    x, w, b = t((4, 3, 2)), t((3,)), t((3,))
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    gradcheck(lambda a, ww, bb: F.batch_norm(a, rm.clone(), rv.clone(), ww, bb, training=True), (x, w, b))
    gradcheck(lambda a: F.batch_norm(a, None, None, training=True), (t((5, 2)),))
    gradgradcheck(lambda a, ww: F.batch_norm(a, None, None, ww, training=True), (t((4, 2)), t((2,))))
    # the running statistics are updated but take no gradient
    F.batch_norm(x, rm, rv, w, b, training=True)
    assert not rm.requires_grad and rm.grad_fn is None


def test_batch_norm_eval():
    x, w, b = t((4, 3, 2)), t((3,)), t((3,))
    rm, rv = t((3,)), t((3,), low=0.5, high=2.0)
    gradcheck(lambda a, m, v, ww, bb: F.batch_norm(a, m, v, ww, bb, training=False), (x, rm, rv, w, b))


def test_layer_norm():
    gradcheck(lambda a, w, b: F.layer_norm(a, (3, 4), w, b), (t((2, 3, 4)), t((3, 4)), t((3, 4))))
    gradcheck(lambda a: F.layer_norm(a, (4,)), (t((3, 4)),))
    gradgradcheck(lambda a, w: F.layer_norm(a, (4,), w), (t((2, 4)), t((4,))))


def test_group_norm():
    gradcheck(lambda a, w, b: F.group_norm(a, 2, w, b), (t((2, 4, 3)), t((4,)), t((4,))))
    gradcheck(lambda a: F.group_norm(a, 1), (t((2, 3, 2, 2)),))


def test_rms_norm():
    gradcheck(lambda a, w: F.rms_norm(a, (4,), w), (t((3, 4)), t((4,))))
    gradcheck(lambda a: F.rms_norm(a, (2, 3), eps=1e-5), (t((2, 2, 3)),))


def test_dropout():
    x = t((4, 5))
    gen = ember.Generator().manual_seed(3) if hasattr(ember, "Generator") else None
    y = F.dropout(x, 0.4, training=True, generator=gen)
    g = ember.tensor(RNG.standard_normal((4, 5)))
    y.backward(g)
    yn, gn = y.detach().numpy(), g.numpy()
    keep = yn != 0
    np.testing.assert_allclose(x.grad.numpy(), np.where(keep, gn / 0.6, 0))
    x2 = t((2, 3, 4, 4))
    y2 = F.dropout2d(x2, 0.5, training=True)
    y2.sum().backward()
    np.testing.assert_allclose(x2.grad.numpy(), np.where(y2.detach().numpy() != 0, 2.0, 0.0))


def test_embedding():
    w = t((5, 3))
    ids = idx([[0, 2, 4], [2, 2, 1]])
    gradcheck(lambda ww: F.embedding(ids, ww), (w,))
    out = F.embedding(ids, w, padding_idx=2)
    out.sum().backward()
    assert np.all(w.grad.numpy()[2] == 0)
    np.testing.assert_allclose(w.grad.numpy()[[0, 1, 4]], 1.0)
    np.testing.assert_allclose(w.grad.numpy()[3], 0.0)
    # scale_grad_by_freq divides each row's gradient by its index count (not the true gradient)
    w2 = t((5, 3))
    F.embedding(ids, w2, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w2.grad.numpy()[:, 0], [1.0, 1.0, 1.0, 0.0, 1.0])


# --- attention ---------------------------------------------------------------------------------


def test_sdpa():
    q, k, v = t((2, 3, 4)), t((2, 5, 4)), t((2, 5, 2))
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c), (q, k, v))
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), (q, t((2, 3, 4)), t((2, 3, 2))))
    bmask = ember.tensor(RNG.random((3, 5)) > 0.3)
    bmask[:, 0] = True
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=bmask), (q, k, v))
    fmask = t((3, 5))
    gradcheck(lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=0.3), (q, k, v, fmask))
    gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), (t((1, 4, 2, 3)), t((1, 2, 3, 3)), t((1, 2, 3, 2))))


def test_sdpa_gradgrad():
    gradgradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c), (t((1, 2, 3)), t((1, 2, 3)), t((1, 2, 2))))


# --- against PyTorch -------------------------------------------------------------------------------


def _pair(shape, low=None, high=None):
    a = RNG.uniform(low, high, shape) if low is not None else RNG.standard_normal(shape)
    return a


def _compare(torch, ember_fn, torch_fn, arrays, ints=(), atol=1e-8):
    e_in = [ember.tensor(a, dtype=ember.float64, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    e_out = ember_fn(*e_in)
    t_out = torch_fn(*t_in)
    seed = RNG.standard_normal(tuple(t_out.shape))
    e_out.backward(ember.tensor(seed, dtype=ember.float64))
    t_out.backward(torch.tensor(seed, dtype=torch.float64))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), atol=atol)
    for e, tt in zip(e_in, t_in, strict=True):
        if tt.grad is None:
            assert e.grad is None or np.allclose(e.grad.numpy(), 0)
        else:
            np.testing.assert_allclose(e.grad.numpy(), tt.grad.numpy(), atol=atol, rtol=1e-7)


def test_against_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    tgt = RNG.integers(0, 5, (6, 3))
    w5 = RNG.uniform(0.5, 2, 5)
    cases = [
        (lambda x, w, b: F.linear(x, w, b), lambda x, w, b: tf.linear(x, w, b), [_pair((2, 3, 4)), _pair((5, 4)), _pair((5,))]),
        (lambda x: F.softmax(x, dim=1), lambda x: tf.softmax(x, dim=1), [_pair((3, 4))]),
        (lambda x: F.log_softmax(x, dim=0), lambda x: tf.log_softmax(x, dim=0), [_pair((3, 4))]),
        (lambda x: F.cross_entropy(x, idx(tgt), weight=ember.tensor(w5), ignore_index=1, label_smoothing=0.15),
         lambda x: tf.cross_entropy(x, torch.tensor(tgt), weight=torch.tensor(w5), ignore_index=1, label_smoothing=0.15),
         [_pair((6, 5, 3))]),
        (lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1, reduction="sum"),
         lambda x, p: tf.cross_entropy(x, p, label_smoothing=0.1, reduction="sum"), [_pair((4, 5)), _pair((4, 5), 0, 1)]),
        (lambda x: F.nll_loss(x, idx(tgt[:, 0]), reduction="none"),
         lambda x: tf.nll_loss(x, torch.tensor(tgt[:, 0]), reduction="none"), [_pair((6, 5))]),
        (lambda x, y: F.mse_loss(x, y), lambda x, y: tf.mse_loss(x, y), [_pair((3, 4)), _pair((3, 4))]),
        (lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), lambda x, y: tf.smooth_l1_loss(x, y, beta=0.5), [_pair((3, 4)), _pair((3, 4))]),
        (lambda x, y: F.binary_cross_entropy_with_logits(x, y, pos_weight=ember.tensor(w5[:4])),
         lambda x, y: tf.binary_cross_entropy_with_logits(x, y, pos_weight=torch.tensor(w5[:4])), [_pair((3, 4)), _pair((3, 4), 0, 1)]),
        (lambda x, y: F.binary_cross_entropy(x, y), lambda x, y: tf.binary_cross_entropy(x, y), [_pair((3, 4), 0.1, 0.9), _pair((3, 4), 0, 1)]),
        (lambda x, y: F.kl_div(x, y, reduction="batchmean"), lambda x, y: tf.kl_div(x, y, reduction="batchmean"),
         [_pair((3, 4)), _pair((3, 4), 0.1, 1)]),
        (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2, dilation=(1, 2)),
         lambda x, w, b: tf.conv2d(x, w, b, stride=2, padding=1, groups=2, dilation=(1, 2)), [_pair((2, 4, 7, 8)), _pair((6, 2, 3, 3)), _pair((6,))]),
        (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
         lambda x, w, b: tf.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
         [_pair((2, 4, 3, 4)), _pair((4, 3, 3, 3)), _pair((6,))]),
        (lambda x: F.max_pool2d(x, 3, stride=2, padding=1), lambda x: tf.max_pool2d(x, 3, stride=2, padding=1), [_pair((2, 3, 7, 6))]),
        (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
         lambda x: tf.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), [_pair((2, 3, 7, 6))]),
        (lambda x: F.adaptive_avg_pool2d(x, (3, 4)), lambda x: tf.adaptive_avg_pool2d(x, (3, 4)), [_pair((2, 3, 7, 6))]),
        (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
         lambda x, w, b: tf.batch_norm(x, None, None, w, b, training=True), [_pair((4, 3, 5)), _pair((3,)), _pair((3,))]),
        (lambda x, w, b: F.layer_norm(x, (5,), w, b), lambda x, w, b: tf.layer_norm(x, (5,), w, b), [_pair((4, 3, 5)), _pair((5,)), _pair((5,))]),
        (lambda x, w, b: F.group_norm(x, 3, w, b), lambda x, w, b: tf.group_norm(x, 3, w, b), [_pair((2, 6, 5)), _pair((6,)), _pair((6,))]),
        (lambda x, w: F.rms_norm(x, (5,), w), lambda x, w: tf.rms_norm(x, (5,), w), [_pair((4, 5)), _pair((5,))]),
        (lambda w: F.embedding(idx(tgt), w, scale_grad_by_freq=True), lambda w: tf.embedding(torch.tensor(tgt), w, scale_grad_by_freq=True),
         [_pair((5, 4))]),
        (lambda w: F.embedding(idx(tgt), w, padding_idx=0), lambda w: tf.embedding(torch.tensor(tgt), w, padding_idx=0), [_pair((5, 4))]),
        (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), lambda x: tf.interpolate(x, scale_factor=2, mode="bilinear"),
         [_pair((1, 2, 3, 4))]),
        (lambda x: F.interpolate(x, size=(5, 7), mode="nearest"), lambda x: tf.interpolate(x, size=(5, 7), mode="nearest"),
         [_pair((1, 2, 3, 4))]),
        (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
         lambda q, k, v: tf.scaled_dot_product_attention(q, k, v, is_causal=True), [_pair((2, 2, 4, 3)), _pair((2, 2, 4, 3)), _pair((2, 2, 4, 5))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        _compare(torch, ember_fn, torch_fn, arrays)


# --- the fast backward paths: a few ops each, same gradients as the general formulas --------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
def test_nll_fast_path_matches_general(op, reduction):
    x = t((5, 4))
    target = idx([0, 3, 1, 1, 2])
    (fast,) = ember.autograd.grad(getattr(F, op)(x, target, reduction=reduction).sum(), x)
    # ignore_index = 2 hits a target: the general (masked) formula; check the fast one against it on the other rows
    (masked,) = ember.autograd.grad(getattr(F, op)(x, target, ignore_index=2, reduction="sum").sum(), x)
    if reduction != "mean":
        np.testing.assert_allclose(fast.numpy()[[0, 1, 2, 3]], masked.numpy()[[0, 1, 2, 3]], atol=1e-12)
    np.testing.assert_allclose(masked.numpy()[4], 0.0)
    gradgradcheck(lambda a: getattr(F, op)(a, target, reduction=reduction), (t((5, 4)),))
    gradcheck(lambda a: getattr(F, op)(a, target, ignore_index=2, reduction=reduction), (t((5, 4)),))


def test_linear_grad_shapes():
    gradcheck(lambda x, w, b: F.linear(x, w, b), (t((2, 3, 4)), t((5, 4)), t((5,))))
    gradcheck(lambda x, w, b: F.linear(x, w, b), (t((4,)), t((5, 4)), t((1,))))
    gradgradcheck(lambda x, w, b: F.linear(x, w, b) ** 2, (t((3, 4)), t((5, 4)), t((5,))))


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"groups": 2, "dilation": 2, "padding": 2}])
def test_conv_weight_grad_gradgrad(kw):
    gradgradcheck(lambda x, w: F.conv2d(x, w, **kw), (t((2, 4, 5, 5)), t((4, 4 // kw.get("groups", 1), 3, 3))))
    gradgradcheck(lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), (t((1, 2, 3, 3)), t((2, 3, 2, 2))))


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "padding": 1},
                                {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2}])
def test_max_pool_backward_matches_indices(kw):
    # ties, NaN and -inf windows: the backward primitive picks the positions the indices forward picks
    a = RNG.integers(0, 3, (2, 3, 7, 6)).astype(np.float64)
    a[0, 0, 0, :] = np.nan
    a[1, 1, :3, :3] = -np.inf
    x = ember.tensor(a, requires_grad=True)
    y = F.max_pool2d(x, **kw)
    g = ember.tensor(RNG.standard_normal(y.shape))
    (gx,) = ember.autograd.grad(y, x, g)
    _, ind = F.max_pool2d(x.detach(), return_indices=True, **kw)
    expect = np.zeros((2, 3, 42))
    np.add.at(expect, (np.arange(2)[:, None, None], np.arange(3)[None, :, None], ind.numpy().reshape(2, 3, -1)), g.numpy().reshape(2, 3, -1))
    np.testing.assert_allclose(gx.numpy().reshape(2, 3, -1), expect)
    gradgradcheck(lambda b: F.max_pool2d(b * b, **kw), (_distinct((1, 2, 5, 5)),))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(7, 5), (5,)])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_cross_entropy_backward_kernel_equals_the_composite_formula(reduction, shape, dtype):
    # without create_graph the derivative runs one cross_entropy_backward kernel; with it, the
    # composite formula (which differentiates again): both must give the same gradient
    gen = ember.Generator().manual_seed(0)
    x = ember.randn(*shape, generator=gen, dtype=dtype)
    target = ember.randint(0, shape[-1], shape[:-1], generator=gen)
    grads = []
    for create_graph in (False, True):
        xi = x.clone().requires_grad_()
        loss = ember.nn.functional.cross_entropy(xi, target, reduction=reduction)
        (g,) = ember.autograd.grad(loss.sum() * 1.5, [xi], create_graph=create_graph)
        grads.append(g.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-7)


def _count_kernel_calls(monkeypatch, op_name):
    """Wrap ``op_name``'s CPU kernel; the list it returns grows by one per call."""
    op = ember.dispatch.opexpr.OP_REGISTRY[op_name]
    calls, kernel = [], op.kernels["cpu"]

    def counted(outs, ins, attrs):
        calls.append(attrs)
        return kernel(outs, ins, attrs)

    monkeypatch.setitem(op.kernels, "cpu", counted)
    return calls


@pytest.mark.parametrize("x_shape", [(6, 4), (2, 3, 4), (0, 4)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_grad", [True, False])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_linear_backward_kernel_equals_the_composite_formula(monkeypatch, x_shape, bias, x_grad, dtype):
    # without create_graph linear's derivative is one linear_backward kernel computing only the
    # gradients asked for; with it, the composite of matmuls and a sum: both must agree
    calls = _count_kernel_calls(monkeypatch, "linear_backward")
    gen = ember.Generator().manual_seed(1)
    x = ember.randn(*x_shape, generator=gen, dtype=dtype)
    w = ember.randn(5, 4, generator=gen, dtype=dtype)
    b = ember.randn(5, generator=gen, dtype=dtype) if bias else None
    upstream = ember.randn(5, *x_shape[:-1], generator=gen, dtype=dtype).mT if len(x_shape) == 2 else None  # non-contiguous
    results = []
    for create_graph in (False, True):
        leaves = [x.clone().requires_grad_(x_grad), w.clone().requires_grad_(), *([b.clone().requires_grad_()] if bias else [])]
        y = F.linear(leaves[0], leaves[1], leaves[2] if bias else None)
        wanted = [t for t in leaves if t.requires_grad]
        grads = ember.autograd.grad(y, wanted, upstream if upstream is not None else ember.ones_like(y), create_graph=create_graph)
        results.append([g.detach().numpy() for g in grads])
    assert len(calls) == 1 and calls[0]["output_mask"] == (x_grad, True, bias)
    for fast, composite in zip(*results, strict=True):
        np.testing.assert_allclose(fast, composite, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_relu_backward_kernel_equals_the_composite_formula(monkeypatch, dtype):
    calls = _count_kernel_calls(monkeypatch, "threshold_backward")
    x = ember.tensor([[-1.0, 0.0, 2.0, float("nan")], [3.0, -0.0, float("inf"), -float("inf")]], dtype=dtype)
    g = ember.arange(8, dtype=dtype).reshape(4, 2).mT  # a non-contiguous upstream gradient
    results = []
    for create_graph in (False, True):
        xi = x.clone().requires_grad_()
        (gx,) = ember.autograd.grad(F.relu(xi), [xi], g, create_graph=create_graph)
        results.append(gx.detach().numpy())
    assert len(calls) == 1
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], np.where(x.numpy() > 0, g.numpy(), 0))


@pytest.mark.parametrize("case", ["plain", "ignored", "infinite row", "nan"])
def test_cross_entropy_mean_fast_kernel_equals_the_general_path(case):
    # the mean over (N, C) rows with class indices has its own kernel; the sum divided by the
    # number of counted targets takes the general one: both must agree, special values included
    gen = ember.Generator().manual_seed(2)
    x = ember.randn(6, 4, generator=gen, dtype=ember.float64)
    target = ember.tensor([0, 3, 1, 2, 3, 0])
    if case == "ignored":
        kwargs = {"ignore_index": 1}  # one target is 1
        counted = 5
    else:
        kwargs, counted = {}, 6
    if case == "infinite row":
        x[1, 2] = float("inf")
    elif case == "nan":
        x[4, 0] = float("nan")
    mean = F.cross_entropy(x, target, **kwargs).item()
    total = F.cross_entropy(x, target, reduction="sum", **kwargs).item()
    np.testing.assert_allclose(mean, total / counted, rtol=1e-12, equal_nan=True)
    if case in ("plain", "ignored"):
        logp = x.numpy() - np.log(np.exp(x.numpy()).sum(1, keepdims=True))
        keep = target.numpy() != kwargs.get("ignore_index", -100)
        np.testing.assert_allclose(mean, -logp[np.arange(6), target.numpy()][keep].mean(), rtol=1e-12)


def test_cross_entropy_mean_fast_kernel_refuses_out_of_range_targets():
    x = ember.zeros(3, 4)
    for bad in (4, -1):
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
            F.cross_entropy(x, ember.tensor([0, bad, 1]))


@pytest.mark.parametrize("case", ["plain", "infinite row", "nan"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_cross_entropy_keeps_its_probabilities_for_backward(monkeypatch, case, dtype):
    # a recorded (N, C) mean cross entropy saves the softmax its forward computed; backward without
    # create_graph scales and scatters it (one kernel), with create_graph it runs the composite:
    # the loss, its node's name and both gradients must match the plain op's
    calls = _count_kernel_calls(monkeypatch, "cross_entropy_probs_backward")
    gen = ember.Generator().manual_seed(6)
    x = ember.randn(7, 5, generator=gen, dtype=dtype)
    if case == "infinite row":
        x[2, 1] = float("inf")
    elif case == "nan":
        x[4, 3] = float("nan")
    target = ember.randint(0, 5, (7,), generator=gen)
    xi = x.clone().requires_grad_()
    loss = F.cross_entropy(xi, target)
    assert loss.grad_fn.name() == "CrossEntropyBackward0"
    np.testing.assert_allclose(loss.item(), F.cross_entropy(x, target).item(), rtol=1e-6, equal_nan=True)
    (fast,) = ember.autograd.grad(loss, [xi], retain_graph=True)
    (composite,) = ember.autograd.grad(loss, [xi], create_graph=True)
    assert len(calls) == 1
    np.testing.assert_allclose(fast.numpy(), composite.detach().numpy(), rtol=1e-5, atol=1e-7, equal_nan=True)


def test_cross_entropy_with_probabilities_refuses_bad_targets_like_the_plain_op():
    x = ember.zeros(3, 4, requires_grad=True)
    for bad in (4, -1):
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
            F.cross_entropy(x, ember.tensor([0, bad, 1]))
