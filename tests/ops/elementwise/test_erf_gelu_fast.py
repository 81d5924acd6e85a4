"""The fast special-function paths: float32 erf/erfc/GELU (``erf_f32``), GELU's one-kernel
backward (``gelu_backward``), and SciPy's float64 erf/erfinv next to ember's NumPy code.

References: the C library's erf/erfc in float64 (``math``) and PyTorch (when installed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.kernels.cpu.elementwise import erf_f32
from ember.kernels.cpu.elementwise.scipy_special import numpy_special, scipy_special
from ember.ops import functional as F
from tests.ops.nn._helpers import count_kernel_calls

F32 = np.float32
SPECIALS = np.array(
    [0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39, 1e-30, 10.04, -10.04, 12.0, -12.0, 1e30, np.inf, -np.inf, np.nan], F32
)
WIDE = np.concatenate([np.linspace(-11, 11, 200_001, dtype=F32), SPECIALS])


def _ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in float32 ulps of ref, where ref is a normal float32 number (else 0)."""
    normal = np.isfinite(ref) & (np.abs(ref) >= np.finfo(F32).tiny)
    got, ref = np.where(normal, got, 0.0), np.where(normal, ref, 0.0)
    spacing = np.spacing(np.abs(ref).astype(F32)).astype(np.float64)
    return np.where(normal, np.abs(got.astype(np.float64) - ref) / np.where(normal, spacing, 1.0), 0.0)


def _reference(fn, x: np.ndarray) -> np.ndarray:
    return np.array([fn(float(v)) for v in x])


@pytest.mark.parametrize(("name", "fn", "max_ulps"), [("erf", math.erf, 5), ("erfc", math.erfc, 10)])
def test_float32_erf_erfc_within_a_few_ulps_of_float64(name, fn, max_ulps):
    got = getattr(erf_f32, name)(WIDE)
    ref = _reference(fn, WIDE)
    assert got.dtype == F32
    assert _ulps(got, ref).max() <= max_ulps
    tiny = np.abs(ref) < np.finfo(F32).tiny  # subnormal results: within three steps of the smallest subnormal
    assert np.abs(got[tiny] - ref[tiny]).max() <= 3 * np.finfo(F32).smallest_subnormal
    np.testing.assert_array_equal(np.isnan(got), np.isnan(WIDE))
    specials = got[-len(SPECIALS) :]
    np.testing.assert_array_equal(np.signbit(specials[:2]), [False, name == "erf"])  # erf(-0.0) is -0.0


def test_float32_gelu_keeps_relative_accuracy_in_the_tails():
    out = erf_f32.gelu(WIDE, "none")
    x = WIDE.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ref = x * 0.5 * _reference(math.erfc, -x / math.sqrt(2))
    assert _ulps(out, ref).max() <= 12


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_ember_erf_matches_torch(dtype, name):
    torch = pytest.importorskip("torch")
    x = np.concatenate([np.linspace(-6, 6, 2001, dtype=F32), SPECIALS[np.abs(SPECIALS) < 1e20]])
    ours = getattr(ember, name)(ember.tensor(x).to(getattr(ember, dtype)))
    theirs = getattr(torch, name)(torch.tensor(x).to(getattr(torch, dtype)))
    assert ours.dtype == getattr(ember, dtype)
    tol = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 8e-3}[dtype]
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=tol, atol=tol * 1e-2)


def _gelu_pair(x: np.ndarray, g: np.ndarray, approximate: str, dtype: str, transpose: bool):
    torch = pytest.importorskip("torch")
    results = []
    for lib, fn in ((ember, F.gelu), (torch, torch.nn.functional.gelu)):
        xt = lib.tensor(x).to(getattr(lib, dtype))
        gt = lib.tensor(g).to(getattr(lib, dtype))
        if transpose:  # non-contiguous input and upstream gradient
            xt, gt = xt.mT, gt.mT
        xt = xt.detach().requires_grad_(True)
        y = fn(xt, approximate=approximate)
        y.backward(gt)
        results.append((y.detach().float().numpy(), xt.grad.float().numpy()))
    return results


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("transpose", [False, True])
def test_gelu_forward_and_backward_match_torch(approximate, dtype, transpose):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(4000) * 4, np.linspace(-12, 12, 96)]).reshape(64, 64)
    x[0, :3] = [0.0, -0.0, 1e-40]
    g = rng.standard_normal((64, 64))
    (y, gx), (ty, tgx) = _gelu_pair(x, g, approximate, dtype, transpose)
    tol = {"float32": 2e-6, "float64": 1e-13, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
    np.testing.assert_allclose(y, ty, rtol=tol, atol=tol)
    np.testing.assert_allclose(gx, tgx, rtol=tol, atol=tol * 4)


def test_gelu_of_specials_and_empty_matches_torch():
    torch = pytest.importorskip("torch")
    for approximate in ("none", "tanh"):
        # not x < -10: PyTorch's float32 kernel cancels to 0 there, ember keeps the true tiny value
        x = SPECIALS[(SPECIALS > -10) | ~np.isfinite(SPECIALS)]
        ours, theirs = (
            F.gelu(ember.tensor(x), approximate=approximate),
            torch.nn.functional.gelu(torch.tensor(x), approximate=approximate),
        )
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-40)
        np.testing.assert_array_equal(np.signbit(ours.numpy()), np.signbit(theirs.numpy()))
        empty = ember.zeros(0, 4, requires_grad=True)
        F.gelu(empty, approximate=approximate).sum().backward()
        assert empty.grad.shape == (0, 4)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16])
def test_gelu_backward_kernel_equals_the_composite_formula(monkeypatch, approximate, dtype):
    calls = count_kernel_calls(monkeypatch, "gelu_backward")
    x = ember.tensor(np.linspace(-9, 9, 40).reshape(5, 8), dtype=dtype)
    g = ember.arange(40, dtype=dtype).reshape(8, 5).mT / 10  # a non-contiguous upstream gradient
    results = []
    for create_graph in (False, True):  # with a graph recorded, the composite formula runs
        xi = x.clone().requires_grad_()
        (gx,) = ember.autograd.grad(F.gelu(xi, approximate=approximate), [xi], g, create_graph=create_graph)
        results.append(gx.detach().float().numpy())
    assert len(calls) == 1
    tol = {ember.float32: 3e-6, ember.float64: 1e-14, ember.float16: 2e-3}[dtype]
    np.testing.assert_allclose(results[0], results[1], rtol=tol, atol=tol)


def test_gelu_double_backward_differentiates_the_formula():
    x = ember.tensor([-2.0, -0.5, 0.0, 0.7, 3.0], dtype=ember.float64, requires_grad=True)
    (gx,) = ember.autograd.grad(F.gelu(x).sum(), [x], create_graph=True)
    (ggx,) = ember.autograd.grad(gx.sum(), [x])
    v = x.detach().numpy()
    pdf = np.exp(-0.5 * v * v) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(ggx.numpy(), pdf * (2 - v * v), rtol=1e-12)  # d2/dx2 x Phi(x) = phi(x)(2 - x^2)


# --- SciPy's float64 path and ember's NumPy one ---------------------------------------------


def _both_paths(fn, x):
    with numpy_special():
        assert scipy_special() is None
        numpy_result = fn(ember.tensor(x, dtype=ember.float64)).numpy()
    return numpy_result, fn(ember.tensor(x, dtype=ember.float64)).numpy()


def test_float64_erf_both_paths_at_float64_rounding():
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, -0.0, 5e-324, -1e-310, 30.0, -30.0, np.inf, -np.inf, np.nan]])
    ref = _reference(math.erf, x)
    for result in _both_paths(ember.erf, x):
        np.testing.assert_allclose(result, ref, rtol=1e-15, atol=0)
        np.testing.assert_array_equal(np.signbit(result[np.isfinite(x)]), np.signbit(ref[np.isfinite(x)]))


def test_float64_erfinv_both_paths_agree_and_invert_erf():
    y = np.concatenate([np.linspace(-1, 1, 20001), 1 - np.logspace(-16, -1, 200), [0.0, -0.0, 1e-310, 1.5, -np.inf, np.nan]])
    numpy_result, default_result = _both_paths(ember.erfinv, y)
    np.testing.assert_allclose(default_result, numpy_result, rtol=2e-15, atol=0)
    np.testing.assert_array_equal(np.signbit(default_result), np.signbit(numpy_result))  # -0.0 keeps its sign
    inner = np.abs(y) < 0.999
    np.testing.assert_allclose(_reference(math.erf, default_result[inner]), y[inner], rtol=1e-15, atol=1e-300)


def test_float32_erfinv_both_paths_match_torch():
    torch = pytest.importorskip("torch")
    y = np.linspace(-1, 1, 4001, dtype=F32)
    theirs = torch.erfinv(torch.tensor(y)).numpy()
    with numpy_special():
        numpy_result = ember.erfinv(ember.tensor(y)).numpy()
    for result in (numpy_result, ember.erfinv(ember.tensor(y)).numpy()):
        np.testing.assert_allclose(result, theirs, rtol=2e-6, atol=0)
