"""nn functional ops against torch.nn.functional: softmax, losses, linear, convolution, pooling,
normalization, dropout, embedding, one_hot, interpolate, attention, and their error messages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - torch is a test-only dependency
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")
# torch's advice about valid but unusual calls, which these tests make on purpose
pytestmark = pytest.mark.filterwarnings(
    "ignore:Implicit dimension choice", "ignore:Using padding='same'", "ignore:reduction. 'mean' divides the total loss"
)
FLOATS = [np.float32, np.float64]
TOL = {np.float32: {"rtol": 2e-4, "atol": 2e-5}, np.float64: {"rtol": 1e-9, "atol": 1e-10}}
# modest by default (the suite has a CI budget); HYPOTHESIS_PROFILE=thorough runs the profile's count
SETTINGS = settings(max_examples=25 if settings.default.max_examples <= 100 else settings.default.max_examples, deadline=None)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def make(array: np.ndarray, noncontig: bool = False):
    """An ember tensor and a torch tensor with the values of ``array``; with ``noncontig`` the
    ember one is a strided view (every other element of a wider array)."""
    array = np.asarray(array)
    t = torch.from_numpy(array.copy()) if torch is not None else None
    if not noncontig or array.ndim == 0:
        return ember.tensor(array), t
    wide = np.zeros((*array.shape[:-1], array.shape[-1] * 2), array.dtype)
    wide[..., ::2] = array
    e = ember.tensor(wide)[..., ::2]
    assert not e.is_contiguous() or array.shape[-1] <= 1
    return e, t


def check(e, t, dtype=np.float64, **tol):
    tol = {**TOL[np.dtype(dtype).type], **tol}
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert e.dtype.name == str(t.dtype).replace("torch.", ""), (e.dtype, t.dtype)
    np.testing.assert_allclose(np.asarray(e.numpy(), dtype=np.float64), t.detach().double().numpy(), **tol)


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


# ---------------------------------------------------------------------------------------
# softmax


@needs_torch
@SETTINGS
@given(shape=shapes(), data=st.data(), dtype=st.sampled_from(FLOATS), noncontig=st.booleans(), fn=st.sampled_from(["softmax", "log_softmax", "softmin"]))
def test_softmax_family(shape, data, dtype, noncontig, fn):
    x = _rng(len(shape)).normal(size=shape).astype(dtype) * 3
    ndim = len(shape)
    dim = data.draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    e, t = make(x, noncontig)
    check(getattr(ember, fn)(e, dim), getattr(TF, fn)(t, dim), dtype)


@needs_torch
@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmax_implicit_dim(ndim):
    x = _rng(0).normal(size=(2,) * ndim)
    e, t = make(x)
    with pytest.warns(UserWarning):
        expected = TF.softmax(t, dim=None)
    check(ember.softmax(e), expected)
    check(ember.log_softmax(e), TF.log_softmax(t, dim=None, _stacklevel=5))


@needs_torch
def test_softmax_dtype_and_half():
    x = _rng(1).normal(size=(3, 5)).astype(np.float32)
    e, t = make(x)
    check(ember.softmax(e, 1, dtype=ember.float64), TF.softmax(t, 1, dtype=torch.float64))
    ei = ember.tensor([1, 2, 3])
    check(ember.log_softmax(ei, 0, dtype=ember.float64), TF.log_softmax(torch.tensor([1, 2, 3]), 0, dtype=torch.float64))
    for edt, tdt in ((ember.float16, torch.float16), (ember.bfloat16, torch.bfloat16)):
        check(ember.softmax(e.to(edt), 1), TF.softmax(t.to(tdt), 1), rtol=1e-2, atol=1e-2)
    # extreme values stay finite; a row of -inf gives nan like PyTorch
    big = np.array([[1000.0, 0.0], [-np.inf, -np.inf]])
    e, t = make(big)
    check(ember.softmax(e, 1), TF.softmax(t, 1), equal_nan=True)
    check(ember.log_softmax(e, 1), TF.log_softmax(t, 1), equal_nan=True)


def test_softmax_errors():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"):
        ember.softmax(ember.ones(3), 1)
    with pytest.raises(NotImplementedError, match="not implemented for 'int64'"):
        ember.softmax(ember.tensor([1, 2]), 0)


# ---------------------------------------------------------------------------------------
# classification losses


@st.composite
def classification(draw, probs=False):
    n = draw(st.integers(0, 4))
    c = draw(st.integers(1, 5))
    extra = draw(shapes(0, 2, 1, 3))
    unbatched = draw(st.booleans()) and not extra
    rng = _rng(n * 31 + c)
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
    x = _rng(2).normal(size=(4, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 2])
    (e, t) = make(x)
    for tdt in (np.int32, np.uint8, np.int16):
        got = ember.cross_entropy(e, ember.tensor(target.astype(tdt)))
        check(got, TF.cross_entropy(t, torch.from_numpy(target)), np.float32)
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


# ---------------------------------------------------------------------------------------
# regression and binary losses


@needs_torch
@SETTINGS
@given(shape=shapes(0, 3, 0, 4), bcast=st.booleans(), dtype=st.sampled_from(FLOATS), reduction=st.sampled_from(["mean", "sum", "none"]),
       weighted=st.booleans(), noncontig=st.booleans(), param=st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_pointwise_losses(shape, bcast, dtype, reduction, weighted, noncontig, param):
    rng = _rng(sum(shape))
    x = rng.normal(size=shape).astype(dtype)
    y = rng.normal(size=shape[1:] if bcast and shape else shape).astype(dtype)
    w = rng.random(size=shape).astype(dtype) if weighted else None
    (e, t), (ey, ty) = make(x, noncontig), make(y, noncontig)
    ew, tw = make(w) if weighted else (None, None)
    tol = dict(TOL[dtype], equal_nan=True)
    import warnings

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
    rng = _rng(len(shape) + sum(shape))
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
# linear


@needs_torch
@SETTINGS
@given(lead=shapes(0, 3, 0, 3), k=st.integers(0, 5), out=st.integers(1, 4), dtype=st.sampled_from(FLOATS), bias=st.booleans(),
       noncontig=st.booleans(), vector_weight=st.booleans())
def test_linear(lead, k, out, dtype, bias, noncontig, vector_weight):
    rng = _rng(k * 7 + out)
    x = rng.normal(size=(*lead, k)).astype(dtype)
    w = rng.normal(size=(k,) if vector_weight else (out, k)).astype(dtype)
    b = rng.normal(size=() if vector_weight else (out,)).astype(dtype) if bias and not vector_weight else None
    (e, t), (ew, tw) = make(x, noncontig), make(w, noncontig)
    eb, tb = make(b) if b is not None else (None, None)
    check(ember.linear(e, ew, eb), TF.linear(t, tw, tb), **TOL[dtype])
    if k == 0:
        return  # torch's bilinear cannot reshape an empty input
    w2 = rng.normal(size=(out, k, 3)).astype(dtype)
    x2 = rng.normal(size=(*lead, 3)).astype(dtype)
    b2 = rng.normal(size=(out,)).astype(dtype)
    (ew2, tw2), (ex2, tx2), (eb2, tb2) = make(w2), make(x2), make(b2)
    check(ember.bilinear(e, ex2, ew2, eb2 if bias else None), TF.bilinear(t, tx2, tw2, tb2 if bias else None), **TOL[dtype])


@needs_torch
def test_linear_half_and_int():
    x = _rng(3).normal(size=(2, 4)).astype(np.float32)
    w = _rng(4).normal(size=(3, 4)).astype(np.float32)
    (e, t), (ew, tw) = make(x), make(w)
    check(ember.linear(e.to(ember.bfloat16), ew.to(ember.bfloat16)), TF.linear(t.bfloat16(), tw.bfloat16()), rtol=2e-2, atol=5e-2)
    xi, wi = np.arange(8).reshape(2, 4), np.arange(12).reshape(3, 4)
    check(ember.linear(ember.tensor(xi), ember.tensor(wi)), TF.linear(torch.from_numpy(xi), torch.from_numpy(wi)))


def test_linear_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 3x5\)"):
        ember.linear(ember.zeros((2, 3, 4)), ember.zeros((5, 3)))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float32 != float64"):
        ember.linear(ember.zeros((2, 4)), ember.zeros((5, 4), dtype=ember.float64))
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D, but they are 0D and 2D"):
        ember.linear(ember.tensor(1.0), ember.zeros((4, 1)))
    with pytest.raises(RuntimeError, match=r"linear\(\): bias of size \[4\] cannot be added to the output of size \[2, 5\]"):
        ember.linear(ember.zeros((2, 4)), ember.zeros((5, 4)), ember.zeros(4))
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input2 size does not match weight size: got 4 but expected 3"):
        ember.bilinear(ember.zeros((2, 3)), ember.zeros((2, 4)), ember.zeros((5, 3, 3)))


# ---------------------------------------------------------------------------------------
# convolution


@st.composite
def conv_case(draw, nd):
    groups = draw(st.integers(1, 3))
    cig = draw(st.integers(1, 2))
    cog = draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(nd))
    spatial = tuple(draw(st.integers(max(d * (k - 1) + 1 - 2 * p, 1), 7)) for k, d, p in zip(kernel, dilation, padding, strict=False))
    n = draw(st.integers(0, 2))
    batched = draw(st.booleans()) or n != 1
    return groups, cig, cog, kernel, dilation, stride, padding, spatial, n, batched


@needs_torch
@SETTINGS
@given(case=conv_case(2), dtype=st.sampled_from(FLOATS), bias=st.booleans(), noncontig=st.booleans(), string_pad=st.sampled_from([None, "same", "valid"]))
def test_conv2d(case, dtype, bias, noncontig, string_pad):
    _conv_check(2, case, dtype, bias, noncontig, string_pad)


@needs_torch
@SETTINGS
@given(case=conv_case(1), dtype=st.sampled_from(FLOATS), bias=st.booleans(), noncontig=st.booleans(), string_pad=st.sampled_from([None, "same", "valid"]))
def test_conv1d(case, dtype, bias, noncontig, string_pad):
    _conv_check(1, case, dtype, bias, noncontig, string_pad)


def _conv_check(nd, case, dtype, bias, noncontig, string_pad):
    groups, cig, cog, kernel, dilation, stride, padding, spatial, n, batched = case
    rng = _rng(sum(spatial) + groups)
    shape = ((n,) if batched else ()) + (groups * cig,) + spatial
    x = rng.normal(size=shape).astype(dtype)
    w = rng.normal(size=(groups * cog, cig, *kernel)).astype(dtype)
    b = rng.normal(size=groups * cog).astype(dtype) if bias else None
    (e, t), (ew, tw) = make(x, noncontig), make(w, noncontig)
    eb, tb = make(b) if bias else (None, None)
    pad = padding
    if string_pad == "valid":
        pad = "valid"
    elif string_pad == "same":
        pad, stride = "same", (1,) * nd
    if pad != "same" and any(s + 2 * p < d * (k - 1) + 1 for s, p, d, k in zip(spatial, padding if pad != "valid" else (0,) * nd, dilation, kernel, strict=False)):
        pad = padding  # "valid" would leave the kernel larger than the input; keep the padding
    fn = f"conv{nd}d"
    check(getattr(ember, fn)(e, ew, eb, stride, pad, dilation, groups), getattr(TF, fn)(t, tw, tb, stride, pad, dilation, groups),
          **TOL[dtype])
    # the transposed convolution with the same parameters (output_padding below stride or dilation)
    wt = rng.normal(size=(groups * cig, cog, *kernel)).astype(dtype)
    (ewt, twt) = make(wt)
    opad = tuple(min(s, d) - 1 for s, d in zip(stride, dilation, strict=False))
    out_size = [(s - 1) * st_ - 2 * p + d * (k - 1) + op + 1 for s, st_, p, d, k, op in zip(spatial, stride, padding, dilation, kernel, opad, strict=False)]
    if all(o > 0 for o in out_size):
        fn = f"conv_transpose{nd}d"
        check(getattr(ember, fn)(e, ewt, eb if cog * groups == (len(b) if b is not None else 0) else None, stride, padding, opad, groups, dilation),
              getattr(TF, fn)(t, twt, tb if cog * groups == (len(b) if b is not None else 0) else None, stride, padding, opad, groups, dilation),
              **TOL[dtype])


@needs_torch
def test_conv3d_and_special_cases():
    rng = _rng(5)
    x = rng.normal(size=(2, 4, 5, 6, 4))
    w = rng.normal(size=(6, 2, 3, 2, 3))
    (e, t), (ew, tw) = make(x), make(w)
    check(ember.conv3d(e, ew, None, (1, 2, 1), (1, 0, 1), (1, 1, 2), 2), TF.conv3d(t, tw, None, (1, 2, 1), (1, 0, 1), (1, 1, 2), 2))
    wt = rng.normal(size=(4, 3, 2, 2, 2))
    check(ember.conv_transpose3d(e, ember.tensor(wt), stride=2), TF.conv_transpose3d(t, torch.from_numpy(wt), stride=2))
    # depthwise, 1x1, even kernel with 'same' (asymmetric padding), integer dtype, half dtype
    x = rng.normal(size=(2, 6, 7, 8)).astype(np.float32)
    (e, t) = make(x)
    for w_shape, kwargs in [((6, 1, 3, 3), {"groups": 6, "padding": 1}), ((5, 6, 1, 1), {}), ((4, 6, 2, 4), {"padding": "same", "dilation": (2, 1)})]:
        w = rng.normal(size=w_shape).astype(np.float32)
        check(ember.conv2d(e, ember.tensor(w), **kwargs), TF.conv2d(t, torch.from_numpy(w), **kwargs), np.float32)
    xi, wi = np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4), np.ones((2, 3, 2, 2), np.int64)
    check(ember.conv2d(ember.tensor(xi), ember.tensor(wi)), TF.conv2d(torch.from_numpy(xi), torch.from_numpy(wi)))
    w = rng.normal(size=(4, 6, 3, 3)).astype(np.float32)
    check(ember.conv2d(e.to(ember.float16), ember.tensor(w).to(ember.float16)), TF.conv2d(t.half(), torch.from_numpy(w).half()),
          rtol=2e-2, atol=5e-2)
    # channels-last input (a permuted view)
    xl = rng.normal(size=(2, 7, 8, 6)).astype(np.float32)
    el = ember.tensor(xl).permute(0, 3, 1, 2)
    check(ember.conv2d(el, ember.tensor(w), padding=1), TF.conv2d(torch.from_numpy(xl).permute(0, 3, 1, 2), torch.from_numpy(w), padding=1), np.float32)


def test_conv_errors():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[2, 3\]"):
        ember.conv2d(ember.zeros((2, 3)), ember.zeros((4, 3, 3, 3)))
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[8, 3, 3, 3\], expected input\[2, 4, 5, 5\] to have 3 channels, but got 4 channels instead"):
        ember.conv2d(ember.zeros((2, 4, 5, 5)), ember.zeros((8, 3, 3, 3)))
    with pytest.raises(RuntimeError, match="Given groups=2, expected weight to be divisible by 2 at dimension 0"):
        ember.conv2d(ember.zeros((2, 4, 5, 5)), ember.zeros((3, 2, 3, 3)), groups=2)
    with pytest.raises(RuntimeError, match=r"expected bias to be 1-dimensional with 8 elements, but got bias of size \[4\] instead"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), ember.zeros(4))
    with pytest.raises(RuntimeError, match=r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\)"):
        ember.conv2d(ember.zeros((2, 3, 2, 2)), ember.zeros((8, 3, 3, 3)))
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), stride=0)
    with pytest.raises(RuntimeError, match="negative padding is not supported"):
        ember.conv1d(ember.zeros((2, 3, 5)), ember.zeros((8, 3, 3)), padding=-1)
    with pytest.raises(RuntimeError, match="non-positive groups is not supported"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), groups=0)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="Invalid padding string: 'foo'"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), padding="foo")
    with pytest.raises(RuntimeError, match=r"Input type \(float32\) and weight type \(float64\) should be the same"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3), dtype=ember.float64))
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a list of 2 values"):
        ember.conv2d(ember.zeros((2, 3, 5, 5)), ember.zeros((8, 3, 3, 3)), stride=(1, 2, 3))
    with pytest.raises(RuntimeError, match="Given transposed=1, weight of size"):
        ember.conv_transpose2d(ember.zeros((2, 4, 5, 5)), ember.zeros((3, 2, 3, 3)))
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        ember.conv_transpose2d(ember.zeros((2, 3, 5, 5)), ember.zeros((3, 2, 3, 3)), stride=2, output_padding=2)


# ---------------------------------------------------------------------------------------
# pooling


@st.composite
def pool_case(draw, nd, dilation=True):
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dil = tuple(draw(st.integers(1, 2)) for _ in range(nd)) if dilation else (1,) * nd
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd)) if draw(st.booleans()) else None
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    spatial = tuple(draw(st.integers(max(d * (k - 1) + 1 - 2 * p, 1), 7)) for k, d, p in zip(kernel, dil, padding, strict=False))
    batched = draw(st.booleans())
    shape = ((2,) if batched else ()) + (draw(st.integers(1, 3)),) + spatial
    return shape, kernel, stride, padding, dil, draw(st.booleans())


@needs_torch
@SETTINGS
@given(case=pool_case(2), dtype=st.sampled_from(FLOATS), noncontig=st.booleans())
def test_max_pool2d(case, dtype, noncontig):
    shape, kernel, stride, padding, dil, ceil = case
    x = _rng(sum(shape)).permutation(np.prod(shape)).reshape(shape).astype(dtype)  # distinct values: unique argmax
    e, t = make(x, noncontig)
    check(ember.max_pool2d(e, kernel, stride, padding, dil, ceil), TF.max_pool2d(t, kernel, stride, padding, dil, ceil))
    ev, ei = ember.max_pool2d(e, kernel, stride, padding, dil, ceil, return_indices=True)
    tv, ti = TF.max_pool2d(t, kernel, stride, padding, dil, ceil, return_indices=True)
    check(ev, tv)
    check(ei, ti)


@needs_torch
@SETTINGS
@given(case=pool_case(1), dtype=st.sampled_from(FLOATS))
def test_max_pool1d(case, dtype):
    shape, kernel, stride, padding, dil, ceil = case
    x = _rng(sum(shape)).permutation(np.prod(shape)).reshape(shape).astype(dtype)
    e, t = make(x)
    ev, ei = ember.max_pool1d(e, kernel, stride, padding, dil, ceil, return_indices=True)
    tv, ti = TF.max_pool1d(t, kernel, stride, padding, dil, ceil, return_indices=True)
    check(ev, tv)
    check(ei, ti)


@needs_torch
@SETTINGS
@given(case=pool_case(2, dilation=False), dtype=st.sampled_from(FLOATS), include=st.booleans(), divisor=st.sampled_from([None, 3]),
       noncontig=st.booleans())
def test_avg_pool2d(case, dtype, include, divisor, noncontig):
    shape, kernel, stride, padding, _, ceil = case
    x = _rng(sum(shape)).normal(size=shape).astype(dtype)
    e, t = make(x, noncontig)
    check(ember.avg_pool2d(e, kernel, stride, padding, ceil, include, divisor), TF.avg_pool2d(t, kernel, stride, padding, ceil, include, divisor),
          **TOL[dtype])
    e1, t1 = make(x.reshape((*x.shape[:-2], -1)))
    check(ember.avg_pool1d(e1, kernel[:1], stride and stride[:1], padding[:1], ceil, include),
          TF.avg_pool1d(t1, kernel[:1], stride and stride[:1], padding[:1], ceil, include), **TOL[dtype])


@needs_torch
@SETTINGS
@given(shape=shapes(3, 4, 1, 9), out=st.tuples(st.sampled_from([None, 1, 2, 3, 5]), st.integers(1, 6)), dtype=st.sampled_from(FLOATS),
       noncontig=st.booleans())
def test_adaptive_avg_pool(shape, out, dtype, noncontig):
    x = _rng(sum(shape)).normal(size=shape).astype(dtype)
    e, t = make(x, noncontig)
    check(ember.adaptive_avg_pool2d(e, out), TF.adaptive_avg_pool2d(t, out), **TOL[dtype])
    e1, t1 = make(x.reshape((*x.shape[:-2], -1)))
    check(ember.adaptive_avg_pool1d(e1, out[1]), TF.adaptive_avg_pool1d(t1, out[1]), **TOL[dtype])


@needs_torch
def test_pool_other_dtypes_and_3d():
    x = _rng(6).normal(size=(2, 3, 6, 5, 4)).astype(np.float32)
    e, t = make(x)
    check(ember.max_pool3d(e, 2, 1, 1), TF.max_pool3d(t, 2, 1, 1), np.float32)
    check(ember.avg_pool3d(e, (2, 3, 2), ceil_mode=True), TF.avg_pool3d(t, (2, 3, 2), ceil_mode=True), np.float32)
    check(ember.adaptive_avg_pool3d(e, (3, None, 2)), TF.adaptive_avg_pool3d(t, (3, None, 2)), np.float32)
    xi = np.arange(2 * 16).reshape(2, 4, 4) - 10
    check(ember.max_pool2d(ember.tensor(xi), 2, padding=1), TF.max_pool2d(torch.from_numpy(xi), 2, padding=1))
    check(ember.avg_pool2d(ember.tensor(xi), 3, 1, 1), TF.avg_pool2d(torch.from_numpy(xi), 3, 1, 1))
    check(ember.max_pool2d(e[0].to(ember.bfloat16), 2), TF.max_pool2d(t[0].bfloat16(), 2))


def test_pool_errors():
    x = ember.zeros((1, 3, 5, 5))
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"):
        ember.max_pool2d(x, 3, padding=2)
    with pytest.raises(RuntimeError, match=r"Given input size: \(3x2x2\). Calculated output size: \(3x0x0\). Output size is too small"):
        ember.max_pool2d(ember.zeros((1, 3, 2, 2)), 3)
    with pytest.raises(RuntimeError, match=r"non-empty 3D or 4D \(batch mode\) tensor expected for input"):
        ember.avg_pool2d(ember.zeros((5, 5)), 3)
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        ember.max_pool2d(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        ember.avg_pool2d(x, 3, divisor_override=0)
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[5, 5\]"):
        ember.adaptive_avg_pool2d(ember.zeros((5, 5)), 3)
    with pytest.raises(NotImplementedError, match="adaptive_avg_pool2d"):
        ember.adaptive_avg_pool2d(ember.zeros((1, 4, 4), dtype=ember.int64), 2)


# ---------------------------------------------------------------------------------------
# normalization


@needs_torch
@SETTINGS
@given(shape=shapes(2, 4, 1, 4), dtype=st.sampled_from(FLOATS), training=st.booleans(), affine=st.booleans(), stats=st.booleans(),
       noncontig=st.booleans())
def test_batch_norm(shape, dtype, training, affine, stats, noncontig):
    if training and np.prod(shape) // shape[1] == 1:
        shape = (2, *shape[1:])
    rng = _rng(sum(shape))
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
    rng = _rng(sum(shape))
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
    rng = _rng(c + n)
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
    x = _rng(7).normal(size=(4, 3, 5)).astype(np.float32)
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
# dropout


def test_dropout():
    x = ember.ones((200, 100))
    ember.manual_seed(0)
    y = ember.dropout(x, 0.3).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    ember.manual_seed(0)
    np.testing.assert_array_equal(ember.dropout(x, 0.3).numpy(), y)  # the default generator drives it
    g = ember.Generator().manual_seed(5)
    a = ember.dropout(x, 0.5, generator=g).numpy()
    g.manual_seed(5)
    np.testing.assert_array_equal(ember.dropout(x, 0.5, generator=g).numpy(), a)
    assert ember.dropout(x, 0.5, training=False) is x
    assert ember.dropout(x, 0.0) is x
    assert (ember.dropout(x, 1.0).numpy() == 0).all()
    # in place: the input is overwritten and returned
    z = ember.ones((10, 10), dtype=ember.float64)
    out = ember.dropout(z, 0.5, inplace=True)
    assert out is z and set(np.unique(z.numpy())) <= {0.0, 2.0}
    # non-contiguous input and half dtypes
    xt = ember.ones((50, 40)).t()
    assert set(np.unique(ember.dropout(xt, 0.5).numpy())) <= {0.0, 2.0}
    assert ember.dropout(ember.ones(100, dtype=ember.bfloat16), 0.5).dtype is ember.bfloat16


def test_feature_dropout():
    ember.manual_seed(1)
    y = ember.dropout2d(ember.ones((8, 16, 3, 3)), 0.5).numpy()
    per_channel = y.reshape(8, 16, 9)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    assert 0 < (per_channel == 0).all(-1).mean() < 1
    y = ember.dropout1d(ember.ones((16, 5)), 0.5).numpy()  # unbatched (C, L)
    assert ((y == 0).all(-1) | (y == 2).all(-1)).all()
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        ember.dropout1d(ember.ones((2, 2, 2, 2)))


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got 1\.5"):
        ember.dropout(ember.ones(3), 1.5)
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got -0\.1"):
        ember.dropout(ember.ones(3), -0.1)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.dropout(ember.tensor([1, 2]), 0.5)


# ---------------------------------------------------------------------------------------
# embedding, one_hot


@needs_torch
@SETTINGS
@given(idx_shape=shapes(0, 3, 0, 4), v=st.integers(1, 6), d=st.integers(0, 4), dtype=st.sampled_from(FLOATS),
       idx_dtype=st.sampled_from([np.int64, np.int32]), noncontig=st.booleans())
def test_embedding(idx_shape, v, d, dtype, idx_dtype, noncontig):
    rng = _rng(v * 10 + d)
    idx = rng.integers(0, v, size=idx_shape).astype(idx_dtype)
    w = rng.normal(size=(v, d)).astype(dtype)
    (ei, ti), (ew, tw) = make(idx, noncontig), make(w, noncontig)
    check(ember.embedding(ei, ew), TF.embedding(ti, tw))
    check(ember.one_hot(ember.tensor(idx.astype(np.int64)), v), TF.one_hot(torch.from_numpy(idx.astype(np.int64)), v))
    if idx.size:
        check(ember.one_hot(ember.tensor(idx.astype(np.int64))), TF.one_hot(torch.from_numpy(idx.astype(np.int64))))


@needs_torch
def test_embedding_max_norm():
    w = _rng(8).normal(size=(6, 4)) * 3
    ew, tw = make(w)
    idx = np.array([[0, 2], [2, 5]])
    check(ember.embedding(ember.tensor(idx), ew, max_norm=1.5), TF.embedding(torch.from_numpy(idx), tw, max_norm=1.5))
    check(ew, tw)  # the used rows were renormalized in place, the others untouched


def test_embedding_and_one_hot_errors():
    w = ember.zeros((5, 3))
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.embedding(ember.tensor([5]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.embedding(ember.tensor([-1]), w)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have an integer dtype"):
        ember.embedding(ember.tensor([1.0]), w)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        ember.embedding(ember.tensor([1]), ember.zeros(5))
    with pytest.raises(ValueError, match="Padding_idx must be within num_embeddings"):
        ember.embedding(ember.tensor([1]), w, padding_idx=5)
    with pytest.raises(RuntimeError, match=r"Class values must be non-negative\."):
        ember.one_hot(ember.tensor([-1]))
    with pytest.raises(RuntimeError, match=r"Class values must be smaller than num_classes\."):
        ember.one_hot(ember.tensor([3]), 3)
    with pytest.raises(RuntimeError, match=r"Can not infer total number of classes from empty tensor\."):
        ember.one_hot(ember.zeros(0, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        ember.one_hot(ember.tensor([1.0]))
    assert ember.one_hot(ember.tensor(1, dtype=ember.int32), 3).dtype is ember.int64


# ---------------------------------------------------------------------------------------
# interpolate


@needs_torch
@SETTINGS
@given(nd=st.integers(1, 3), data=st.data(), dtype=st.sampled_from(FLOATS), noncontig=st.booleans())
def test_interpolate(nd, data, dtype, noncontig):
    mode = data.draw(st.sampled_from(["nearest", "nearest-exact", "area", {1: "linear", 2: "bilinear", 3: "trilinear"}[nd]]
                                     + (["bicubic"] if nd == 2 else [])))
    spatial = tuple(data.draw(st.integers(1, 6)) for _ in range(nd))
    x = _rng(sum(spatial)).normal(size=(2, 2, *spatial)).astype(dtype)
    e, t = make(x, noncontig)
    kwargs = {}
    if data.draw(st.booleans()):
        kwargs["size"] = tuple(data.draw(st.integers(1, 9)) for _ in range(nd))
    else:
        kwargs["scale_factor"] = tuple(data.draw(st.sampled_from([0.5, 0.7, 1.0, 1.5, 2.0, 3.0])) for _ in range(nd))
        if any(int(s * f) < 1 for s, f in zip(spatial, kwargs["scale_factor"], strict=False)):
            kwargs["scale_factor"] = 2.0
        if data.draw(st.booleans()):
            kwargs["recompute_scale_factor"] = True
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        kwargs["align_corners"] = data.draw(st.booleans())
    check(ember.interpolate(e, mode=mode, **kwargs), TF.interpolate(t, mode=mode, **kwargs), **TOL[dtype])


@needs_torch
def test_interpolate_integer_nearest():
    x = np.arange(24, dtype=np.uint8).reshape(1, 2, 3, 4)
    check(ember.interpolate(ember.tensor(x), scale_factor=(1.7, 2.5)), TF.interpolate(torch.from_numpy(x), scale_factor=(1.7, 2.5)))


def test_interpolate_errors():
    with pytest.raises(NotImplementedError, match=r"Input Error: Only 3D, 4D and 5D input Tensors supported \(got 2D\)"):
        ember.interpolate(ember.zeros((3, 4)), size=3)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        ember.interpolate(ember.zeros((1, 3, 4)))
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        ember.interpolate(ember.zeros((1, 3, 4)), size=2, scale_factor=2.0)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        ember.interpolate(ember.zeros((1, 3, 4)), size=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D input"):
        ember.interpolate(ember.zeros((1, 3, 4)), size=2, mode="bilinear")
    with pytest.raises(ValueError, match="Input and output must have the same number of spatial dimensions"):
        ember.interpolate(ember.zeros((1, 1, 3, 4)), size=(2, 3, 4))
    with pytest.raises(ValueError, match=r"recompute_scale_factor is not meaningful with an explicit size\."):
        ember.interpolate(ember.zeros((1, 1, 3, 4)), size=2, recompute_scale_factor=True)
    with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
        ember.interpolate(ember.zeros((1, 1, 3, 4)), size=0)


# ---------------------------------------------------------------------------------------
# attention


@needs_torch
@SETTINGS
@given(batch=shapes(0, 2, 1, 3), lq=st.integers(1, 4), ls=st.integers(1, 4), e=st.integers(1, 4), ev=st.integers(1, 3),
       mask=st.sampled_from([None, "bool", "float", "causal"]), scale=st.sampled_from([None, 0.3]), dtype=st.sampled_from(FLOATS),
       noncontig=st.booleans())
def test_scaled_dot_product_attention(batch, lq, ls, e, ev, mask, scale, dtype, noncontig):
    rng = _rng(lq * 100 + ls * 10 + e)
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
    rng = _rng(9)
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


def test_meta_device_inference():
    x = ember.empty((2, 3, 8, 8), device="meta")
    w = ember.empty((4, 3, 3, 3), device="meta")
    assert ember.conv2d(x, w, stride=2, padding=1).shape == (2, 4, 4, 4)
    assert ember.max_pool2d(x, 2, ceil_mode=True).shape == (2, 3, 4, 4)
    assert ember.softmax(x, 1).shape == x.shape
    assert ember.cross_entropy(ember.empty((5, 3), device="meta"), ember.empty(5, dtype=ember.int64, device="meta")).shape == ()


# ---------------------------------------------------------------------------------------
# regressions from the schema sweep against torch (empty and zero-size inputs, integer dtypes)


def _both(fn, *arrays, **kwargs):
    """ember.fn and TF.fn on the same arguments (NumPy arrays become tensors, the rest passes through)."""
    es = [ember.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
    ts = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in arrays]
    expected = getattr(TF, fn)(*ts, **kwargs)  # torch must accept these inputs: that is the point of each case
    return getattr(ember, fn)(*es, **kwargs), expected


def check_exact(e, t):
    """Shape, dtype and values, nan included (integer and empty results too)."""
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert e.dtype.name == str(t.dtype).removeprefix("torch."), (e.dtype, t.dtype)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-7, equal_nan=True)


@needs_torch
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_softmax_family_empty_integer_input(fn, dtype, shape):
    # PyTorch checks the dtype in its kernel, so an empty integer tensor passes and keeps its dtype
    check_exact(*_both(fn, np.zeros(shape, dtype), 0))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        getattr(ember, fn)(ember.ones((2, 3), dtype=ember.int32), 0)


@needs_torch
def test_softmin_negates_before_the_dtype_cast():
    x = np.arange(6, dtype=np.uint8).reshape(2, 3)  # -x wraps in uint8 first, as in PyTorch
    e = ember.softmin(ember.tensor(x), 1, dtype=ember.float64)
    t = TF.softmin(torch.from_numpy(x), 1, dtype=torch.float64)
    check_exact(e, t)
    check_exact(ember.softmin(ember.zeros((0, 3), dtype=ember.int32), 1, dtype=ember.float32),
                TF.softmin(torch.zeros((0, 3), dtype=torch.int32), 1, dtype=torch.float32))


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ls", [0.0, 0.2])
@pytest.mark.parametrize("shapes_", [((0,), (0,)), ((3, 0), (3, 0)), ((0, 0), (0, 0)), ((1, 0, 3), (1, 0, 3)), ((0, 3), (0, 3))])
def test_cross_entropy_empty_probabilities(reduction, ls, shapes_):
    # an empty input gives nan for 'mean' (PyTorch divides by input.numel() / C), never a reshape error
    x, target = (np.zeros(s, np.float32) for s in shapes_)
    check_exact(*_both("cross_entropy", x, target, reduction=reduction, label_smoothing=ls))


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ls", [0.0, 0.2])
@pytest.mark.parametrize("x_shape, target", [((2, 0), [-100, -100]), ((0, 3), []), ((2, 3, 0), np.zeros((2, 0), np.int64))])
def test_cross_entropy_no_classes_or_no_targets(reduction, ls, x_shape, target):
    x, target = np.zeros(x_shape, np.float32), np.asarray(target, np.int64)
    check_exact(*_both("cross_entropy", x, target, reduction=reduction, label_smoothing=ls))
    if ls == 0.0:
        check_exact(*_both("nll_loss", x, target, reduction=reduction))
    with pytest.raises(IndexError, match="Target 0 is out of bounds"):
        ember.cross_entropy(ember.zeros((2, 0)), ember.zeros(2, dtype=ember.int64))


@needs_torch
@pytest.mark.parametrize("x_shape, w_shape", [((0, 0), (0, 0)), ((2, 3), (0, 3)), ((0, 3), (2, 3)), ((2, 0), (3, 0)), ((0,), (0,)),
                                              ((2, 0, 3), (4, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("transpose", [False, True])
def test_linear_empty_dims(x_shape, w_shape, dtype, transpose):
    x, w = np.ones(x_shape, dtype), np.ones(w_shape, dtype)
    if transpose and x.ndim == 2 and w.ndim == 2:  # non-contiguous operands
        e = ember.linear(ember.tensor(x.T.copy()).t(), ember.tensor(w.T.copy()).t())
        check_exact(e, TF.linear(torch.from_numpy(x), torch.from_numpy(w)))
    check_exact(*_both("linear", x, w))
    if len(w_shape) == 2:
        check_exact(*_both("linear", x, w, np.ones(w_shape[0], dtype)))


@needs_torch
@pytest.mark.parametrize("shapes_", [((2, 3), (2, 4), (0, 3, 4)), ((0, 3), (0, 4), (2, 3, 4)), ((0, 3, 3), (0, 3, 3), (0, 3, 3)),
                                     ((0, 2, 3), (0, 2, 4), (5, 3, 4))])
def test_bilinear_empty_dims(shapes_):
    a, b, w = (np.ones(s, np.float32) for s in shapes_)
    check_exact(*_both("bilinear", a, b, w))
    check_exact(*_both("bilinear", a, b, w, np.ones(w.shape[0], np.float32)))


@needs_torch
@pytest.mark.parametrize("fn, x_shape, w_shape, kwargs", [
    ("conv1d", (1, 0, 4), (1, 0, 4), {}),
    ("conv1d", (2, 0, 4), (3, 0, 2), {"stride": 2, "padding": 1}),
    ("conv1d", (1, 0, 7), (2, 0, 2), {"padding": "same"}),
    ("conv1d", (1, 0, 4), (2, 0, 2), {"groups": 2}),
    ("conv1d", (0, 4), (3, 0, 2), {}),
    ("conv1d", (1, 0, 0), (3, 0, 0), {}),  # no channels: a zero-size kernel is allowed
    ("conv1d", (0, 2, 4), (3, 2, 2), {}),
    ("conv2d", (2, 0, 4, 5), (3, 0, 2, 3), {}),
    ("conv3d", (2, 0, 4, 4, 4), (3, 0, 2, 2, 2), {}),
    ("conv_transpose1d", (0, 1, 4), (1, 2, 2), {}),
])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_conv_zero_channel_and_zero_batch_inputs(fn, x_shape, w_shape, kwargs, dtype):
    # PyTorch: an input with no channels gives an output with no channels (and ignores the bias)
    x, w = np.zeros(x_shape, dtype), np.ones(w_shape, dtype)
    check_exact(*_both(fn, x, w, **kwargs))
    c_out = w_shape[1] * kwargs.get("groups", 1) if "transpose" in fn else w_shape[0]
    check_exact(*_both(fn, x, w, np.ones(c_out, dtype), **kwargs))


def test_conv_zero_size_weight_errors():
    with pytest.raises(RuntimeError, match=r"Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size \[0, 2, 2\]"):
        ember.conv1d(ember.zeros((1, 2, 4)), ember.zeros((0, 2, 2)))
    with pytest.raises(RuntimeError, match="expected weight to be at least 4 at dimension 0"):
        ember.conv1d(ember.zeros((1, 4, 4)), ember.zeros((2, 1, 2)), groups=4)
    with pytest.raises(RuntimeError, match=r"conv1d\(\): kernel size should be greater than zero, but got weight of size \[1, 2, 0\]"):
        ember.conv1d(ember.zeros((1, 2, 3)), ember.zeros((1, 2, 0)))
    with pytest.raises(RuntimeError, match=r"kernel size should be greater than zero"):
        ember.conv_transpose1d(ember.zeros((1, 2, 3)), ember.zeros((2, 1, 0)))
    with pytest.raises(RuntimeError, match=r"conv_transpose1d\(\): non-empty weight tensor expected"):
        ember.conv_transpose1d(ember.zeros((1, 1, 4)), ember.zeros((1, 0, 2)))


@needs_torch
@pytest.mark.parametrize("q, k, v", [((2, 0), (4, 0), (4, 5)), ((0, 0), (0, 0), (0, 0)), ((2, 3), (0, 3), (0, 5)), ((0, 3), (4, 3), (4, 5)),
                                     ((2, 0, 3), (4, 3), (4, 5))])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_zero_sizes(q, k, v, causal):
    # no embedding: all scores 0 (PyTorch's scale 1/sqrt(0) does not make them nan), a uniform average of the values
    rng = _rng(7)
    arrays = [rng.normal(size=s).astype(np.float32) for s in (q, k, v)]
    check_exact(*_both("scaled_dot_product_attention", *arrays, is_causal=causal))


@needs_torch
@pytest.mark.parametrize("q, k, v", [((0, 3), (4, 3), (4, 5)), ((2, 3), (0, 3), (0, 5)), ((2, 3), (4, 3), (4, 0))])
def test_attention_integer_inputs_where_nothing_is_computed(q, k, v):
    arrays = [np.ones(s, np.int32) for s in (q, k, v)]
    check_exact(*_both("scaled_dot_product_attention", *arrays))
    with pytest.raises(NotImplementedError, match="not implemented for 'int32'"):
        ember.scaled_dot_product_attention(*(ember.ones((2, 3), dtype=ember.int32),) * 3)


@needs_torch
@pytest.mark.parametrize("q, k", [((1, 0, 2, 3), (1, 2, 4, 3)), ((1, 0, 2, 3), (1, 0, 4, 3))])
def test_attention_gqa_zero_query_heads(q, k):
    rng = _rng(8)
    arrays = [rng.normal(size=s).astype(np.float32) for s in (q, k, (*k[:-1], 5))]
    check_exact(*_both("scaled_dot_product_attention", *arrays, enable_gqa=True))


@needs_torch
@pytest.mark.parametrize("fn, shape, out", [("adaptive_avg_pool1d", (2, 0, 4), 2), ("adaptive_avg_pool1d", (0, 4), 2),
                                            ("adaptive_avg_pool1d", (0, 2, 4), 3), ("adaptive_avg_pool2d", (2, 0, 4, 4), 2),
                                            ("adaptive_avg_pool2d", (0, 4, 4), (2, None)), ("adaptive_avg_pool3d", (0, 4, 4, 4), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_adaptive_avg_pool_empty_batch_and_channels(fn, shape, out, dtype):
    if fn.endswith("3d") and dtype is np.int32:
        with pytest.raises(NotImplementedError, match="not implemented for 'int32'"):  # PyTorch's 3-D pool checks the dtype first
            getattr(ember, fn)(ember.zeros(shape, dtype=ember.int32), out)
        return
    check_exact(*_both(fn, np.zeros(shape, dtype), out))
    check_exact(*_both("adaptive_avg_pool1d", np.ones((1, 4), np.int32), 0))  # an empty output: no dtype check
    with pytest.raises(RuntimeError, match="with dimension 1 being empty"):
        ember.adaptive_avg_pool3d(ember.zeros((2, 0, 4, 4, 4)), 2)


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


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "sum"])
@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.int32, np.int64), (np.uint8, np.uint8), (np.uint8, np.int8)])
def test_l1_loss_integers(reduction, dtypes):
    a = np.array([[1, 4, 0], [2, 2, 5]], dtypes[0])
    b = np.array([[3, 1, 0], [5, 2, 1]], dtypes[1])  # uint8 differences wrap before the int64 sum, as in PyTorch
    check_exact(*_both("l1_loss", a, b, reduction=reduction))
    check_exact(*_both("l1_loss", a[:, :0], b[:, :0], reduction=reduction))
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
    x = _rng(1).random(shape).astype(np.float32)
    e, t = _both(fn, x, x)
    assert e.shape == ()
    check_exact(e, t)
