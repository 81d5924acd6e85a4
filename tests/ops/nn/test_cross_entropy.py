"""nll_loss and cross_entropy against torch.nn.functional: class indices and probabilities, weights,
ignore_index, label smoothing, errors, and the derivatives with their one-kernel fast paths."""

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
    count_kernel_calls,
    idx,
    leaf,
    make,
    pair,
    seeded,
    shapes,
)

pytestmark = TORCH_ADVICE


@st.composite
def classification(draw, probs=False):
    n = draw(st.integers(0, 4))
    c = draw(st.integers(1, 5))
    extra = draw(shapes(0, 2, 1, 3))
    unbatched = draw(st.booleans()) and not extra
    rng = seeded(n * 31 + c)
    dtype = draw(st.sampled_from(FLOATS))
    shape = (c,) if unbatched else (n, c, *extra)
    x = rng.normal(size=shape).astype(dtype) * 2
    if probs:
        target = rng.random(size=shape).astype(dtype)
        target /= target.sum(axis=0 if unbatched else 1, keepdims=True)
    else:
        tshape = () if unbatched else (n, *extra)
        target = rng.integers(0, c, size=tshape)
        if draw(st.booleans()) and target.size:
            target.reshape(-1)[0] = -100 if draw(st.booleans()) else 1 % c
    weight = rng.random(c).astype(dtype) + 0.1 if draw(st.booleans()) else None
    return x, target, weight, dtype


@needs_torch
@SETTINGS
@given(case=classification(), reduction=st.sampled_from(["mean", "sum", "none"]), ls=st.sampled_from([0.0, 0.1, 0.7]),
       noncontig=st.booleans())
def test_cross_entropy_class_indices(case, reduction, ls, noncontig):
    x, target, weight, dtype = case
    e, t = make(x, noncontig)
    ew, tw = make(weight) if weight is not None else (None, None)
    et, tt = make(target)
    got = ember.cross_entropy(e, et, weight=ew, reduction=reduction, label_smoothing=ls)
    check(got, TF.cross_entropy(t, tt, weight=tw, reduction=reduction, label_smoothing=ls), dtype, equal_nan=True,
          **{k: v * 10 for k, v in TOL[dtype].items()})
    # nll_loss on log-probabilities, with a custom ignore_index
    lp = TF.log_softmax(t, 0 if x.ndim == 1 else 1)
    elp = ember.tensor(lp.numpy())
    ignore = -100 if (target == -100).any() else 1
    got = ember.nll_loss(elp, et, weight=ew, reduction=reduction, ignore_index=ignore)
    check(got, TF.nll_loss(lp, tt, weight=tw, reduction=reduction, ignore_index=ignore), dtype, equal_nan=True)


@needs_torch
@SETTINGS
@given(case=classification(probs=True), reduction=st.sampled_from(["mean", "sum", "none"]), ls=st.sampled_from([0.0, 0.2]))
def test_cross_entropy_probabilities(case, reduction, ls):
    x, target, weight, dtype = case
    (e, t), (et, tt) = make(x), make(target)
    ew, tw = make(weight) if weight is not None else (None, None)
    got = ember.cross_entropy(e, et, weight=ew, reduction=reduction, label_smoothing=ls)
    check(got, TF.cross_entropy(t, tt, weight=tw, reduction=reduction, label_smoothing=ls), dtype, equal_nan=True)


@needs_torch
def test_cross_entropy_dtypes_and_legacy_args():
    x = seeded(2).normal(size=(4, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 2])
    (e, t) = make(x)
    got = ember.cross_entropy(e, ember.tensor(target.astype(np.uint8)))  # Long or Byte, as PyTorch
    check(got, TF.cross_entropy(t, torch.from_numpy(target)), np.float32)
    for tdt in (np.int32, np.int16):
        with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
            ember.cross_entropy(e, ember.tensor(target.astype(tdt)))
    check(ember.cross_entropy(e.to(ember.float16), ember.tensor(target)), TF.cross_entropy(t.half(), torch.from_numpy(target)),
          rtol=1e-2, atol=1e-2)
    got = ember.nll_loss(e, ember.tensor(target), size_average=False)
    check(got, TF.nll_loss(t, torch.from_numpy(target), reduction="sum"), np.float32)
    got = ember.cross_entropy(e, ember.tensor(target), reduce=False)
    check(got, TF.cross_entropy(t, torch.from_numpy(target), reduction="none"), np.float32)


def test_classification_loss_errors():
    x = ember.zeros((3, 5))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)\."):
        ember.cross_entropy(x, ember.tensor([1, 2]))
    with pytest.raises(IndexError, match=r"Target 5 is out of bounds\."):
        ember.cross_entropy(x, ember.tensor([1, 5, 0]))
    with pytest.raises(IndexError, match=r"Target -3 is out of bounds\."):
        ember.nll_loss(x, ember.tensor([1, -3, 0]))
    with pytest.raises(RuntimeError, match=r"weight tensor should be defined either for all 5 classes or no classes"):
        ember.cross_entropy(x, ember.tensor([1, 2, 0]), weight=ember.ones(4))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2, 3\]"):
        ember.cross_entropy(ember.zeros((2, 5, 4)), ember.zeros((2, 3), dtype=ember.int64))
    with pytest.raises(RuntimeError, match="expected target dtype"):
        ember.cross_entropy(x, ember.tensor([1.0, 2.0, 0.0]))
    with pytest.raises(RuntimeError, match="Expected floating point type for target with class probabilities, got int64"):
        ember.cross_entropy(x, ember.zeros((3, 5), dtype=ember.int64))
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        ember.cross_entropy(x, ember.tensor([1, 2, 0]), label_smoothing=1.5)
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        ember.cross_entropy(x, ember.tensor([1, 2, 0]), reduction="foo")
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not supported"):
        ember.nll_loss(ember.zeros((2, 5)), ember.zeros((2, 3), dtype=ember.int64))
    with pytest.raises(ValueError, match=r"Expected 1 or more dimensions \(got 0\)"):
        ember.nll_loss(ember.tensor(1.0), ember.tensor(1))


def test_meta_device_inference():
    assert ember.cross_entropy(ember.empty((5, 3), device="meta"), ember.empty(5, dtype=ember.int64, device="meta")).shape == ()


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ls", [0.0, 0.2])
@pytest.mark.parametrize("shapes_", [((0,), (0,)), ((3, 0), (3, 0)), ((0, 0), (0, 0)), ((1, 0, 3), (1, 0, 3)), ((0, 3), (0, 3))])
def test_cross_entropy_empty_probabilities(reduction, ls, shapes_):
    # an empty input gives nan for 'mean' (PyTorch divides by input.numel() / C), never a reshape error
    x, target = (np.zeros(s, np.float32) for s in shapes_)
    check_exact(*both("cross_entropy", x, target, reduction=reduction, label_smoothing=ls))


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ls", [0.0, 0.2])
@pytest.mark.parametrize("x_shape, target", [((2, 0), [-100, -100]), ((0, 3), []), ((2, 3, 0), np.zeros((2, 0), np.int64))])
def test_cross_entropy_no_classes_or_no_targets(reduction, ls, x_shape, target):
    x, target = np.zeros(x_shape, np.float32), np.asarray(target, np.int64)
    check_exact(*both("cross_entropy", x, target, reduction=reduction, label_smoothing=ls))
    if ls == 0.0:
        check_exact(*both("nll_loss", x, target, reduction=reduction))
    with pytest.raises(IndexError, match="Target 0 is out of bounds"):
        ember.cross_entropy(ember.zeros((2, 0)), ember.zeros(2, dtype=ember.int64))


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
def test_nll_like_indices_grad(op, reduction):
    x = leaf((4, 3))
    target = idx([0, 2, 1, 2])
    gradcheck(lambda a: getattr(F, op)(a, target, reduction=reduction), (x,))
    w = ember.tensor([0.5, 2.0, 1.5], dtype=ember.float64)
    gradcheck(lambda a: getattr(F, op)(a, target, weight=w, ignore_index=1, reduction=reduction), (x,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_options_grad(reduction):
    x = leaf((3, 4, 2))  # (N, C, d)
    target = idx([[0, 3], [1, 1], [2, 0]])
    w = ember.tensor([0.5, 2.0, 1.5, 1.0], dtype=ember.float64)
    gradcheck(lambda a: F.cross_entropy(a, target, weight=w, ignore_index=3, label_smoothing=0.2, reduction=reduction), (x,))
    probs = leaf((3, 4, 2), low=0.0, high=1.0)
    gradcheck(lambda a, p: F.cross_entropy(a, p, weight=w, label_smoothing=0.1, reduction=reduction), (x, probs))
    gradcheck(lambda a: F.cross_entropy(a, idx(2), reduction=reduction), (leaf((4,)),))


def test_cross_entropy_gradgrad():
    target = idx([0, 2, 1])
    gradgradcheck(lambda a: F.cross_entropy(a, target, label_smoothing=0.1), (leaf((3, 3)),))


@needs_torch
def test_gradients_against_torch():
    tgt = RNG.integers(0, 5, (6, 3))
    w5 = RNG.uniform(0.5, 2, 5)
    cases = [
        (lambda x: F.cross_entropy(x, idx(tgt), weight=ember.tensor(w5), ignore_index=1, label_smoothing=0.15),
         lambda x: TF.cross_entropy(x, torch.tensor(tgt), weight=torch.tensor(w5), ignore_index=1, label_smoothing=0.15),
         [pair((6, 5, 3))]),
        (lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1, reduction="sum"),
         lambda x, p: TF.cross_entropy(x, p, label_smoothing=0.1, reduction="sum"), [pair((4, 5)), pair((4, 5), 0, 1)]),
        (lambda x: F.nll_loss(x, idx(tgt[:, 0]), reduction="none"),
         lambda x: TF.nll_loss(x, torch.tensor(tgt[:, 0]), reduction="none"), [pair((6, 5))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)


# the fast backward paths: a few ops or one kernel each, same gradients as the general formulas


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
def test_padding_targets_of_the_default_ignore_index(op, reduction):
    """-100 (the default ignore_index, outside the classes) marks padding: the fused forward and
    the fast backward paths must not index with it, and the mean counts only the others."""
    x = RNG.standard_normal((5, 4))
    target = [0, -100, 3, -100, 1]
    a = ember.tensor(x, requires_grad=True)
    out = getattr(F, op)(a, idx(target), reduction=reduction)
    out.sum().backward()
    t = torch.tensor(x, requires_grad=True)
    expected = getattr(TF, op)(t, torch.tensor(target), reduction=reduction)
    expected.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)



# every sibling of padding targets: K-dim inputs, a 1-D input whose one target is ignored, weights,
# label smoothing, a custom ignore_index, every reduction, and a batch whose targets are all ignored
_PADDED_TARGETS = {
    "2d": ((5, 4), [0, -100, 3, 1, -100]),
    "2d_all_ignored": ((3, 4), [-100, -100, -100]),
    "k_dim": ((2, 3, 2, 2), [[[0, -100], [2, 1]], [[-100, -100], [1, 0]]]),
    "1d": ((4,), -100),
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", sorted(_PADDED_TARGETS))
@pytest.mark.parametrize("options", ["plain", "weight", "smoothing", "weight_smoothing", "ignore_1", "nll", "nll_weight"])
def test_ignored_targets_in_every_form(case, reduction, options):
    shape, target = _PADDED_TARGETS[case]
    if options.startswith("nll") and len(shape) == 1:
        return  # (nll_loss on a 1-D input is covered above; the log_softmax below needs a class dim)
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    kwargs = {"reduction": reduction}
    if "weight" in options:
        kwargs["weight"] = np.linspace(0.5, 2.0, n_classes)
    if "smoothing" in options:
        kwargs["label_smoothing"] = 0.2
    if options == "ignore_1":
        kwargs["ignore_index"] = 1
    x = RNG.standard_normal(shape)
    projection = RNG.standard_normal(shape[:1] + shape[2:] if reduction == "none" and len(shape) > 1 else ())

    def run(lib, functional):
        a = lib.tensor(x, requires_grad=True)
        args = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        if options.startswith("nll"):
            loss = functional.nll_loss(a.log_softmax(1), lib.tensor(target), **args)
        else:
            loss = functional.cross_entropy(a, lib.tensor(target), **args)
        (loss * lib.tensor(projection)).sum().backward()
        return loss.detach().numpy(), a.grad.numpy()

    if options == "ignore_1" and (np.asarray(target) == -100).any():  # -100 is then a class index, out of range
        for lib, functional in ((ember, F), (torch, TF)) if torch is not None else ((ember, F),):
            with pytest.raises(IndexError, match="Target -100 is out of bounds"):
                run(lib, functional)
        return
    loss, grad = run(ember, F)
    ignored = np.asarray(target) == kwargs.get("ignore_index", -100)
    class_dim_last = np.moveaxis(grad, 1, -1) if grad.ndim > 1 else grad[None]
    # an ignored target takes no gradient; every row's gradient sums to zero (softmax)
    np.testing.assert_allclose(class_dim_last[np.broadcast_to(ignored, class_dim_last.shape[:-1])], 0.0)
    np.testing.assert_allclose(class_dim_last.sum(-1), 0.0, atol=1e-12)
    assert np.isfinite(grad).all()  # all targets ignored under "mean": the loss is NaN, its gradient zero
    if torch is not None:
        expected_loss, expected_grad = run(torch, TF)
        np.testing.assert_allclose(loss, expected_loss, rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(grad, expected_grad, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
def test_nll_fast_path_matches_general(op, reduction):
    x = leaf((5, 4))
    target = idx([0, 3, 1, 1, 2])
    (fast,) = ember.autograd.grad(getattr(F, op)(x, target, reduction=reduction).sum(), x)
    # ignore_index = 2 hits a target: the general (masked) formula; check the fast one against it on the other rows
    (masked,) = ember.autograd.grad(getattr(F, op)(x, target, ignore_index=2, reduction="sum").sum(), x)
    if reduction != "mean":
        np.testing.assert_allclose(fast.numpy()[[0, 1, 2, 3]], masked.numpy()[[0, 1, 2, 3]], atol=1e-12)
    np.testing.assert_allclose(masked.numpy()[4], 0.0)
    gradgradcheck(lambda a: getattr(F, op)(a, target, reduction=reduction), (leaf((5, 4)),))
    gradcheck(lambda a: getattr(F, op)(a, target, ignore_index=2, reduction=reduction), (leaf((5, 4)),))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(7, 5), (5,)])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_cross_entropy_backward_kernel_equals_the_composite_formula(reduction, shape, dtype):
    # without create_graph the derivative runs one cross_entropy_backward kernel; with it, the
    # composite formula (which differentiates again): both must give the same gradient
    gen = ember.Generator().manual_seed(0)
    x = ember.randn(shape, generator=gen, dtype=dtype)
    target = ember.randint(0, shape[-1], shape[:-1], generator=gen)
    grads = []
    for create_graph in (False, True):
        xi = x.clone().requires_grad_()
        loss = ember.nn.functional.cross_entropy(xi, target, reduction=reduction)
        (g,) = ember.autograd.grad(loss.sum() * 1.5, [xi], create_graph=create_graph)
        grads.append(g.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-7)


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
    calls = count_kernel_calls(monkeypatch, "cross_entropy_probs_backward")
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
