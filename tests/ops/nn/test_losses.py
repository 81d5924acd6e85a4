"""The elementwise losses, binary cross entropy (probabilities and logits) and kl_div against
torch.nn.functional: values, integer inputs, errors and derivatives."""

from __future__ import annotations

import warnings

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
@given(shape=shapes(0, 3, 0, 4), bcast=st.booleans(), dtype=st.sampled_from(FLOATS), reduction=st.sampled_from(["mean", "sum", "none"]),
       weighted=st.booleans(), noncontig=st.booleans(), param=st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_pointwise_losses(shape, bcast, dtype, reduction, weighted, noncontig, param):
    rng = seeded(sum(shape))
    x = rng.normal(size=shape).astype(dtype)
    y = rng.normal(size=shape[1:] if bcast and shape else shape).astype(dtype)
    w = rng.random(size=shape).astype(dtype) if weighted else None
    (e, t), (ey, ty) = make(x, noncontig), make(y, noncontig)
    ew, tw = make(w) if weighted else (None, None)
    tol = dict(TOL[dtype], equal_nan=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(ember.mse_loss(e, ey, reduction=reduction, weight=ew), TF.mse_loss(t, ty, reduction=reduction, weight=tw), **tol)
        check(ember.l1_loss(e, ey, reduction=reduction, weight=ew), TF.l1_loss(t, ty, reduction=reduction, weight=tw), **tol)
        check(ember.smooth_l1_loss(e, ey, reduction=reduction, beta=param), TF.smooth_l1_loss(t, ty, reduction=reduction, beta=param), **tol)
        if param > 0:
            check(ember.huber_loss(e, ey, reduction=reduction, delta=param, weight=ew),
                  TF.huber_loss(t, ty, reduction=reduction, delta=param, weight=tw), **tol)
        lx = torch.log_softmax(t, -1) if t.ndim and t.shape[-1] else t
        el = ember.tensor(lx.numpy())
        for log_target in (False, True):
            tgt = ty if log_target else ty.abs()
            for red in (reduction, "batchmean"):
                check(ember.kl_div(el, ember.tensor(tgt.numpy()), reduction=red, log_target=log_target),
                      TF.kl_div(lx, tgt, reduction=red, log_target=log_target), **tol)


@needs_torch
@SETTINGS
@given(shape=shapes(0, 3, 0, 4), dtype=st.sampled_from(FLOATS), reduction=st.sampled_from(["mean", "sum", "none"]),
       weighted=st.booleans(), pos_weighted=st.booleans(), noncontig=st.booleans())
def test_binary_cross_entropy(shape, dtype, reduction, weighted, pos_weighted, noncontig):
    rng = seeded(len(shape) + sum(shape))
    logits = (rng.normal(size=shape) * 30).astype(dtype)
    target = rng.random(size=shape).astype(dtype)
    w = rng.random(size=shape[-1:]).astype(dtype) if weighted else None
    pw = rng.random(size=shape[-1:]).astype(dtype) * 3 if pos_weighted else None
    (e, t), (et, tt) = make(logits, noncontig), make(target)
    ew, tw = make(w) if weighted else (None, None)
    epw, tpw = make(pw) if pos_weighted else (None, None)
    tol = dict(TOL[dtype], equal_nan=True)
    check(ember.binary_cross_entropy_with_logits(e, et, weight=ew, reduction=reduction, pos_weight=epw),
          TF.binary_cross_entropy_with_logits(t, tt, weight=tw, reduction=reduction, pos_weight=tpw), **tol)
    probs = torch.sigmoid(t)  # saturates to exactly 0 and 1 for large logits: exercises the log clamp
    check(ember.binary_cross_entropy(ember.tensor(probs.numpy()), et, weight=ew, reduction=reduction),
          TF.binary_cross_entropy(probs, tt, weight=tw, reduction=reduction), **tol)


def test_regression_loss_errors():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 1"):
        ember.mse_loss(ember.zeros((3, 2)), ember.zeros(3))
    with pytest.raises(NotImplementedError, match="mse_loss"):
        ember.mse_loss(ember.tensor([1, 2]), ember.tensor([1, 2]))
    with pytest.raises(ValueError, match=r"Weights and input must have the same size\."):
        ember.l1_loss(ember.zeros(3), ember.zeros(3), weight=ember.ones(2))
    with pytest.raises(ValueError, match=r"Using a target size \(ember.Size\(\[2, 3\]\)\) that is different to the input size"):
        ember.binary_cross_entropy(ember.full((3,), 0.5), ember.full((2, 3), 0.5))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        ember.binary_cross_entropy(ember.full((3,), 2.0), ember.full((3,), 0.5))
    with pytest.raises(ValueError, match=r"Target size \(ember.Size\(\[2, 3\]\)\) must be the same as input size \(ember.Size\(\[3\]\)\)"):
        ember.binary_cross_entropy_with_logits(ember.zeros(3), ember.zeros((2, 3)))
    with pytest.raises(RuntimeError, match=r"smooth_l1_loss does not support negative values for beta\."):
        ember.smooth_l1_loss(ember.zeros(3), ember.zeros(3), beta=-1.0)
    with pytest.raises(ValueError, match="batchmean is not a valid value for reduction"):
        ember.mse_loss(ember.zeros(3), ember.zeros(3), reduction="batchmean")


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "sum"])
@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.int32, np.int64), (np.uint8, np.uint8), (np.uint8, np.int8)])
def test_l1_loss_integers(reduction, dtypes):
    a = np.array([[1, 4, 0], [2, 2, 5]], dtypes[0])
    b = np.array([[3, 1, 0], [5, 2, 1]], dtypes[1])  # uint8 differences wrap before the int64 sum, as in PyTorch
    check_exact(*both("l1_loss", a, b, reduction=reduction))
    check_exact(*both("l1_loss", a[:, :0], b[:, :0], reduction=reduction))
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        ember.l1_loss(ember.tensor(a), ember.tensor(b))


def test_kl_div_rejects_integral_inputs():
    for x, t in ((ember.ones(2, dtype=ember.int32), ember.ones(2)), (ember.ones(2), ember.ones(2, dtype=ember.int64))):
        with pytest.raises(RuntimeError, match=r"kl_div: Integral inputs not supported\."):
            ember.kl_div(x, t)


@needs_torch
@pytest.mark.parametrize("fn", ["kl_div", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("shape", [(0,), (3, 0), (2, 3)])
def test_loss_default_reduction_is_torch_nn_functional_mean(fn, shape):
    # the public API reduces with 'mean' (0-d, nan when empty); torch.kl_div / torch.binary_cross_entropy_with_logits
    # (aten bindings) parse their default reduction=Mean as 'none' and return the unreduced loss
    x = seeded(1).random(shape).astype(np.float32)
    e, t = both(fn, x, x)
    assert e.shape == ()
    check_exact(e, t)


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("op", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_losses_grad(op, reduction):
    a, b = leaf((3, 4)), leaf((3, 4))
    gradcheck(lambda x, y: getattr(F, op)(x, y, reduction=reduction), (a, b))
    if op in ("mse_loss", "l1_loss", "huber_loss"):
        w = leaf((3, 4), low=0.5, high=2.0)
        gradcheck(lambda x, y, ww: getattr(F, op)(x, y, reduction=reduction, weight=w if ww is None else ww), (a, b, w))


def test_pointwise_loss_broadcast_and_options_grad():
    gradcheck(lambda x, y: F.mse_loss(x, y), (leaf((3, 4)), leaf((4,))))
    gradcheck(lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), (leaf((3, 4)), leaf((3, 4))))
    gradcheck(lambda x, y: F.huber_loss(x, y, delta=0.7), (leaf((3, 4)), leaf((3, 4))))
    gradgradcheck(lambda x, y: F.mse_loss(x, y), (leaf((2, 3)), leaf((2, 3))))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_grad(reduction):
    x, y = leaf((3, 4), low=0.1, high=0.9), leaf((3, 4), low=0.0, high=1.0)
    w = ember.tensor(RNG.uniform(0.5, 2.0, (4,)), dtype=ember.float64)
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction), (x, y))
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b, weight=w, reduction=reduction), (x, y))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_with_logits_grad(reduction):
    x, y = leaf((3, 4)), leaf((3, 4), low=0.0, high=1.0)
    w, pw = leaf((4,), low=0.5, high=2.0), leaf((4,), low=0.5, high=2.0)
    gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction), (x, y))
    gradcheck(lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, weight=c, pos_weight=d, reduction=reduction), (x, y, w, pw))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_grad(reduction, log_target):
    x = leaf((3, 4))
    y = leaf((3, 4)) if log_target else leaf((3, 4), low=0.1, high=1.0)
    gradcheck(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target), (x, y))


@needs_torch
def test_gradients_against_torch():
    w4 = RNG.uniform(0.5, 2, 4)
    cases = [
        (lambda x, y: F.mse_loss(x, y), lambda x, y: TF.mse_loss(x, y), [pair((3, 4)), pair((3, 4))]),
        (lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), lambda x, y: TF.smooth_l1_loss(x, y, beta=0.5), [pair((3, 4)), pair((3, 4))]),
        (lambda x, y: F.binary_cross_entropy_with_logits(x, y, pos_weight=ember.tensor(w4)),
         lambda x, y: TF.binary_cross_entropy_with_logits(x, y, pos_weight=torch.tensor(w4)), [pair((3, 4)), pair((3, 4), 0, 1)]),
        (lambda x, y: F.binary_cross_entropy(x, y), lambda x, y: TF.binary_cross_entropy(x, y), [pair((3, 4), 0.1, 0.9), pair((3, 4), 0, 1)]),
        (lambda x, y: F.kl_div(x, y, reduction="batchmean"), lambda x, y: TF.kl_div(x, y, reduction="batchmean"),
         [pair((3, 4)), pair((3, 4), 0.1, 1)]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("pair", [("bfloat16", "int64"), ("float16", "bfloat16"), ("bfloat16", "bool")])
def test_pointwise_losses_promote_as_ember_does(name, pair):
    # NumPy has no common type for bfloat16 and an integer: the kernel promotes by ember's table
    a, b = (ember.tensor([[1.5, -2.0], [0.25, 3.0]]).to(getattr(ember, d)) for d in pair)
    if pair[1] == "bool":
        b = ember.tensor([[True, False], [False, True]])
    if name == "l1_loss" and pair[1] == "bool":
        with pytest.raises(RuntimeError, match="bool"):
            getattr(F, name)(a, b)
        return
    got = getattr(F, name)(a, b, reduction="none")
    want = getattr(F, name)(a.double(), b.double(), reduction="none")
    assert got.dtype is ember.promote_types(a.dtype, b.dtype)
    np.testing.assert_allclose(got.double().numpy(), want.numpy(), rtol=2e-2)


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_bce_with_logits_refuses_a_target_that_is_not_floating(dtype):
    target = ember.tensor([1, 0]).to(getattr(ember, dtype))
    with pytest.raises(RuntimeError, match=r"binary_cross_entropy_with_logits.*target"):
        F.binary_cross_entropy_with_logits(ember.zeros(2), target)
