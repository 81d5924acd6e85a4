"""batch_norm, layer_norm, rms_norm and group_norm against torch.nn.functional: running statistics,
affine parameters, half inputs, empty inputs, errors and derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops import functional as F
from tests._oracle import needs_torch, torch

from ._helpers import FLOATS, SETTINGS, TF, TOL, TORCH_ADVICE, check, check_exact, compare_grads, leaf, make, pair, seeded, shapes

pytestmark = TORCH_ADVICE


@needs_torch
@SETTINGS
@given(shape=shapes(2, 4, 1, 4), dtype=st.sampled_from(FLOATS), training=st.booleans(), affine=st.booleans(), stats=st.booleans(),
       noncontig=st.booleans())
def test_batch_norm(shape, dtype, training, affine, stats, noncontig):
    if training and np.prod(shape) // shape[1] == 1:
        shape = (2, *shape[1:])
    rng = seeded(sum(shape))
    x = rng.normal(size=shape).astype(dtype) * 2 + 1
    c = shape[1]
    e, t = make(x, noncontig)
    stats = stats or not training
    rm, rv = rng.normal(size=c).astype(dtype), rng.random(c).astype(dtype) + 0.5
    (erm, trm), (erv, trv) = make(rm), make(rv)
    w, b = rng.normal(size=c).astype(dtype), rng.normal(size=c).astype(dtype)
    (ew, tw), (eb, tb) = make(w), make(b)
    args_e = (erm, erv) if stats else (None, None)
    args_t = (trm, trv) if stats else (None, None)
    got = ember.batch_norm(e, *args_e, ew if affine else None, eb if affine else None, training, 0.3, 1e-3)
    want = TF.batch_norm(t, *args_t, tw if affine else None, tb if affine else None, training, 0.3, 1e-3)
    check(got, want, **{k: v * 10 for k, v in TOL[dtype].items()})
    if stats:
        check(erm, trm, **TOL[dtype])
        check(erv, trv, **TOL[dtype])


@needs_torch
@SETTINGS
@given(shape=shapes(1, 4, 0, 4), data=st.data(), dtype=st.sampled_from(FLOATS), affine=st.booleans(), noncontig=st.booleans())
def test_layer_and_rms_norm(shape, data, dtype, affine, noncontig):
    k = data.draw(st.integers(1, len(shape)))
    ns = shape[-k:]
    rng = seeded(sum(shape))
    x = rng.normal(size=shape).astype(dtype) * 3
    w, b = rng.normal(size=ns).astype(dtype), rng.normal(size=ns).astype(dtype)
    e, t = make(x, noncontig)
    (ew, tw), (eb, tb) = make(w), make(b)
    tol = {k_: v * 10 for k_, v in TOL[dtype].items()}
    check(ember.layer_norm(e, ns, ew if affine else None, eb if affine else None, 1e-4),
          TF.layer_norm(t, ns, tw if affine else None, tb if affine else None, 1e-4), **tol)
    check(ember.rms_norm(e, ns, ew if affine else None), TF.rms_norm(t, ns, tw if affine else None), **tol)


@needs_torch
@SETTINGS
@given(n=st.integers(1, 3), groups=st.integers(1, 3), per_group=st.integers(1, 3), spatial=shapes(0, 2, 1, 4), dtype=st.sampled_from(FLOATS),
       affine=st.booleans())
def test_group_norm(n, groups, per_group, spatial, dtype, affine):
    c = groups * per_group
    rng = seeded(c + n)
    x = rng.normal(size=(n, c, *spatial)).astype(dtype)
    w, b = rng.normal(size=c).astype(dtype), rng.normal(size=c).astype(dtype)
    (e, t), (ew, tw), (eb, tb) = make(x), make(w), make(b)
    if n * per_group * np.prod(spatial) == 1:  # PyTorch refuses one value per group
        with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
            ember.group_norm(e, groups)
        return
    check(ember.group_norm(e, groups, ew if affine else None, eb if affine else None), TF.group_norm(t, groups, tw if affine else None, tb if affine else None),
          **{k: v * 10 for k, v in TOL[dtype].items()})


@needs_torch
def test_norm_half_inputs():
    x = seeded(7).normal(size=(4, 3, 5)).astype(np.float32)
    e, t = make(x)
    rm, rv = ember.zeros(3), ember.ones(3)
    trm, trv = torch.zeros(3), torch.ones(3)
    check(ember.batch_norm(e.to(ember.float16), rm, rv, training=True), TF.batch_norm(t.half(), trm, trv, training=True), rtol=1e-2, atol=1e-2)
    check(rm, trm, rtol=1e-3, atol=1e-3)
    check(ember.layer_norm(e.to(ember.bfloat16), (5,)), TF.layer_norm(t.bfloat16(), (5,)), rtol=2e-2, atol=5e-2)


def test_norm_errors():
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        ember.batch_norm(ember.zeros((2, 3, 4)), ember.zeros(4), ember.ones(4))
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, got input size ember.Size\(\[1, 3\]\)"):
        ember.batch_norm(ember.zeros((1, 3)), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        ember.batch_norm(ember.zeros((2, 3)), None, None)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], but got input of size\[2, 3\]"):
        ember.layer_norm(ember.zeros((2, 3)), (5,))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
        ember.layer_norm(ember.zeros((2, 3)), (3,), ember.ones(4))
    with pytest.raises(RuntimeError, match=r"Expected number of channels in input to be divisible by num_groups, but got input of shape \[2, 6, 4\] and num_groups=4"):
        ember.group_norm(ember.zeros((2, 6, 4)), 4)
    with pytest.raises(RuntimeError, match="Expected at least 2 dimensions for input tensor but received 1"):
        ember.group_norm(ember.zeros(6), 3)
    with pytest.raises(NotImplementedError, match="int64"):
        ember.layer_norm(ember.zeros((2, 3), dtype=ember.int64), (3,))


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


def test_norms_reject_empty_normalized_shape():
    for fn in (ember.layer_norm, ember.rms_norm):
        with pytest.raises(RuntimeError, match=r"Expected normalized_shape to be at least 1-dimensional.*normalized_shape = \[\]"):
            fn(ember.ones(3), [])


@needs_torch
@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_empty_input_of_any_dtype(dtype, training):
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    e_rm, e_rv = ember.tensor(rm), ember.tensor(rv)
    t_rm, t_rv = torch.from_numpy(rm.copy()), torch.from_numpy(rv.copy())
    x = np.zeros((0, 3), dtype)
    check_exact(ember.batch_norm(ember.tensor(x), e_rm, e_rv, training=training),
                TF.batch_norm(torch.from_numpy(x), t_rm, t_rv, training=training))
    np.testing.assert_array_equal(e_rm.numpy(), t_rm.numpy())
    np.testing.assert_array_equal(e_rv.numpy(), t_rv.numpy())


# ---------------------------------------------------------------------------------------
# derivatives: gradcheck against finite differences, gradients against PyTorch's


def test_batch_norm_training_grad():
    x, w, b = leaf((4, 3, 2)), leaf((3,)), leaf((3,))
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    gradcheck(lambda a, ww, bb: F.batch_norm(a, rm.clone(), rv.clone(), ww, bb, training=True), (x, w, b))
    gradcheck(lambda a: F.batch_norm(a, None, None, training=True), (leaf((5, 2)),))
    gradgradcheck(lambda a, ww: F.batch_norm(a, None, None, ww, training=True), (leaf((4, 2)), leaf((2,))))
    # the running statistics are updated but take no gradient
    F.batch_norm(x, rm, rv, w, b, training=True)
    assert not rm.requires_grad and rm.grad_fn is None


def test_batch_norm_eval_grad():
    x, w, b = leaf((4, 3, 2)), leaf((3,)), leaf((3,))
    rm, rv = leaf((3,)), leaf((3,), low=0.5, high=2.0)
    gradcheck(lambda a, m, v, ww, bb: F.batch_norm(a, m, v, ww, bb, training=False), (x, rm, rv, w, b))


def test_layer_norm_grad():
    gradcheck(lambda a, w, b: F.layer_norm(a, (3, 4), w, b), (leaf((2, 3, 4)), leaf((3, 4)), leaf((3, 4))))
    gradcheck(lambda a: F.layer_norm(a, (4,)), (leaf((3, 4)),))
    gradgradcheck(lambda a, w: F.layer_norm(a, (4,), w), (leaf((2, 4)), leaf((4,))))


def test_group_norm_grad():
    gradcheck(lambda a, w, b: F.group_norm(a, 2, w, b), (leaf((2, 4, 3)), leaf((4,)), leaf((4,))))
    gradcheck(lambda a: F.group_norm(a, 1), (leaf((2, 3, 2, 2)),))


def test_rms_norm_grad():
    gradcheck(lambda a, w: F.rms_norm(a, (4,), w), (leaf((3, 4)), leaf((4,))))
    gradcheck(lambda a: F.rms_norm(a, (2, 3), eps=1e-5), (leaf((2, 2, 3)),))


@needs_torch
def test_gradients_against_torch():
    cases = [
        (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
         lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True), [pair((4, 3, 5)), pair((3,)), pair((3,))]),
        (lambda x, w, b: F.layer_norm(x, (5,), w, b), lambda x, w, b: TF.layer_norm(x, (5,), w, b), [pair((4, 3, 5)), pair((5,)), pair((5,))]),
        (lambda x, w, b: F.group_norm(x, 3, w, b), lambda x, w, b: TF.group_norm(x, 3, w, b), [pair((2, 6, 5)), pair((6,)), pair((6,))]),
        (lambda x, w: F.rms_norm(x, (5,), w), lambda x, w: TF.rms_norm(x, (5,), w), [pair((4, 5)), pair((5,))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)


@pytest.mark.parametrize("arg", ["running_mean", "running_var"])
def test_batch_norm_running_statistics_are_one_dimensional(arg):
    stats = {"running_mean": ember.zeros(3), "running_var": ember.ones(3)}
    stats[arg] = stats[arg].reshape(1, 3)
    with pytest.raises(RuntimeError, match=rf"batch_norm\(\): {arg} must be 1-D with 3 elements"):
        ember.nn.functional.batch_norm(ember.ones(2, 3), stats["running_mean"], stats["running_var"])
    out = ember.nn.functional.batch_norm(ember.ones(2, 3), ember.zeros(3), ember.ones(3), weight=ember.ones(1, 3))
    assert out.shape == (2, 3)  # weight and bias only need the element count, as in torch
