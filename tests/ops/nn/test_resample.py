"""interpolate against torch.nn.functional: every mode, sizes and scale factors, integer nearest, errors
and derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck
from ember.ops import functional as F
from tests._oracle import needs_torch, torch

from ._helpers import FLOATS, SETTINGS, TF, TOL, TORCH_ADVICE, check, compare_grads, leaf, make, pair, seeded

pytestmark = TORCH_ADVICE


@needs_torch
@SETTINGS
@given(nd=st.integers(1, 3), data=st.data(), dtype=st.sampled_from(FLOATS), noncontig=st.booleans())
def test_interpolate(nd, data, dtype, noncontig):
    mode = data.draw(st.sampled_from(["nearest", "nearest-exact", "area", {1: "linear", 2: "bilinear", 3: "trilinear"}[nd]]
                                     + (["bicubic"] if nd == 2 else [])))
    spatial = tuple(data.draw(st.integers(1, 6)) for _ in range(nd))
    x = seeded(sum(spatial)).normal(size=(2, 2, *spatial)).astype(dtype)
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
# derivatives: gradcheck against finite differences, gradients against PyTorch's


@pytest.mark.parametrize("kw", [{"scale_factor": 2, "mode": "nearest"}, {"size": (3, 7), "mode": "nearest"},
                                {"size": (3, 7), "mode": "nearest-exact"}, {"scale_factor": 1.5, "mode": "bilinear"},
                                {"size": (5, 3), "mode": "bilinear", "align_corners": True}, {"size": (5, 6), "mode": "bicubic"}])
def test_interpolate_grad(kw):
    gradcheck(lambda a: F.interpolate(a, **kw), (leaf((1, 2, 4, 5)),))


@needs_torch
def test_gradients_against_torch():
    cases = [
        (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), lambda x: TF.interpolate(x, scale_factor=2, mode="bilinear"),
         [pair((1, 2, 3, 4))]),
        (lambda x: F.interpolate(x, size=(5, 7), mode="nearest"), lambda x: TF.interpolate(x, size=(5, 7), mode="nearest"),
         [pair((1, 2, 3, 4))]),
    ]
    for ember_fn, torch_fn, arrays in cases:
        compare_grads(ember_fn, torch_fn, arrays)
