"""The gamma family, the modified Bessel functions, logit/xlogy/xlog1py/entr/sinc/ndtr/ndtri and the
``ember.special`` namespace: known values and identities (no torch needed), gradcheck, and PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import needs_torch, torch
from tests.ops.elementwise._grad_helpers import unary_gradcheck
from tests.ops.elementwise._helpers import unary_matches_torch

F64 = ember.float64


def t64(values) -> ember.Tensor:
    return ember.tensor(values, dtype=F64)


# --- the namespace -------------------------------------------------------------------------------


def test_special_namespace_shows_the_schema_entries_under_torch_names():
    special = ember.special
    assert special.expit is ember.sigmoid and special.gammaln is ember.lgamma and special.psi is ember.digamma
    assert special.multigammaln is ember.mvlgamma and special.logsumexp is ember.logsumexp
    for name in (
        "erf",
        "erfc",
        "erfinv",
        "exp2",
        "expm1",
        "log1p",
        "round",
        "softmax",
        "log_softmax",
        "i0",
        "sinc",
        "logit",
        "xlogy",
        "polygamma",
    ):
        assert getattr(special, name) is getattr(ember, name), name
    for name in ("i0e", "i1", "i1e", "ndtr", "ndtri", "entr", "xlog1py"):
        assert callable(getattr(special, name)) and not hasattr(ember, name), name
    assert sorted(special.__all__) == special.__all__


@needs_torch
def test_every_name_of_ember_special_is_in_torch_special():
    assert set(ember.special.__all__) <= set(dir(torch.special))


# --- known values and identities -------------------------------------------------------------------


def test_gamma_family_known_values():
    assert ember.lgamma(t64([1.0, 2.0, 0.5, 0.0, -1.0, -2.5])).tolist() == pytest.approx(
        [0.0, 0.0, 0.5 * math.log(math.pi), math.inf, math.inf, math.lgamma(-2.5)], rel=1e-15
    )
    euler = 0.5772156649015329
    psi = ember.digamma(t64([1.0, 0.5, 2.0, 0.0, -0.0, -1.0]))
    assert psi.tolist()[:3] == pytest.approx([-euler, -euler - 2 * math.log(2), 1 - euler], rel=1e-14)
    assert psi.tolist()[3:5] == [-math.inf, math.inf] and math.isnan(psi.tolist()[5])
    assert ember.polygamma(1, t64([1.0, 0.5])).tolist() == pytest.approx([math.pi**2 / 6, math.pi**2 / 2], rel=1e-14)
    assert ember.polygamma(2, t64([1.0])).item() == pytest.approx(-2 * 1.2020569031595942, rel=1e-14)  # -2 zeta(3)
    assert ember.polygamma(0, t64([3.3])).item() == ember.digamma(t64([3.3])).item()
    assert t64([2.5]).polygamma(3).item() == ember.polygamma(3, t64([2.5])).item()
    assert ember.lgamma(ember.tensor([1, 2, 3])).dtype is ember.float32


def test_polygamma_recurrence_and_reflection():
    """psi_n(x + 1) = psi_n(x) + (-1)^n n! / x^(n+1), on both sides of 0 (the reflection's side too)."""
    x = t64([-4096.75, -7.3, -0.4, 0.3, 2.2, 17.0])
    for n in (1, 2, 3, 6):
        lhs = ember.polygamma(n, x + 1).numpy()
        rhs = ember.polygamma(n, x).numpy() + (-1) ** n * math.factorial(n) / x.numpy() ** (n + 1)
        assert np.allclose(lhs, rhs, rtol=1e-10, atol=0), n
    assert np.allclose(ember.digamma(x + 1).numpy(), ember.digamma(x).numpy() + 1 / x.numpy(), rtol=1e-12)


def test_mvlgamma_is_a_sum_of_lgammas():
    x = t64([2.5, 7.0])
    expected = sum(ember.lgamma(x - i / 2) for i in range(3)) + 3 * 2 / 4 * math.log(math.pi)
    assert np.allclose(ember.mvlgamma(x, 3).numpy(), expected.numpy(), rtol=1e-15)
    assert ember.mvlgamma(x, 1).tolist() == ember.lgamma(x).tolist()
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        ember.mvlgamma(x, 0)
    with pytest.raises(RuntimeError, match="may not be a boolean tensor"):
        ember.mvlgamma(ember.tensor([True]), 1)


def test_bessel_known_values_and_scaling():
    x = t64([0.0, 1.0, -1.0, 20.0, 20.5, 100.0])
    i0, i1 = ember.i0(x).numpy(), ember.special.i1(x).numpy()
    assert i0[:3].tolist() == pytest.approx([1.0, 1.2660658777520082, 1.2660658777520082], rel=1e-15)
    assert i1[:3].tolist() == pytest.approx([0.0, 0.5651591039924851, -0.5651591039924851], rel=1e-15)
    assert np.allclose(ember.special.i0e(x).numpy(), i0 * np.exp(-np.abs(x.numpy())), rtol=1e-14)
    assert np.allclose(ember.special.i1e(x).numpy(), i1 * np.exp(-np.abs(x.numpy())), rtol=1e-14)
    # the Wronskian-type identity I0(x) I1'(x)... simpler: I0' = I1, checked by finite differences across the series/asymptotic switch
    h = 1e-6
    for point in (5.0, 19.9999, 20.0001, 40.0):
        slope = (ember.i0(t64([point + h])).item() - ember.i0(t64([point - h])).item()) / (2 * h)
        assert slope == pytest.approx(ember.special.i1(t64([point])).item(), rel=1e-7)
    assert ember.special.i0e(t64([math.inf])).item() == 0.0 and ember.i0(t64([1e4])).item() == math.inf


def test_statistical_functions_known_values():
    assert ember.special.ndtr(t64([0.0, 1.959963984540054, -40.0])).tolist() == pytest.approx([0.5, 0.975, 0.0], abs=1e-16)
    p = t64([1e-300, 0.01, 0.5, 0.975, 1 - 1e-12, 0.0, 1.0, 1.5])
    q = ember.special.ndtri(p).tolist()
    assert q[5:7] == [-math.inf, math.inf] and math.isnan(q[7])
    assert ember.special.ndtr(t64(q[:5])).tolist() == pytest.approx(p.tolist()[:5], rel=1e-12)  # tails keep their digits
    assert ember.logit(t64([0.5, 0.25, 0.0, 1.0])).tolist() == [0.0, math.log(1 / 3), -math.inf, math.inf]
    assert ember.logit(t64([0.0, 1.0]), eps=0.25).tolist() == pytest.approx([math.log(1 / 3), math.log(3)])
    assert ember.xlogy(t64([0.0, 0.0, 2.0, 1.0]), t64([0.0, math.inf, 3.0, math.nan])).tolist()[:3] == [0.0, 0.0, 2 * math.log(3)]
    assert math.isnan(ember.xlogy(0.0, t64([math.nan])).item())
    assert ember.special.xlog1py(t64([0.0, 2.0]), t64([-1.0, 1.0])).tolist() == [0.0, 2 * math.log(2)]
    entr = ember.special.entr(t64([0.0, 0.5, -1.0, math.nan])).tolist()
    assert entr[:3] == [0.0, 0.5 * math.log(2), -math.inf] and math.isnan(entr[3])
    assert ember.sinc(t64([0.0, 0.5, 1.0, -2.0])).tolist() == pytest.approx([1.0, 2 / math.pi, 0.0, 0.0], abs=1e-16)


def test_dtype_rules_and_refusals():
    ints = ember.tensor([1, 2])
    assert ember.xlogy(ints, ints).dtype is ember.float32 and ember.xlogy(2, ints).dtype is ember.float32
    assert ember.xlogy(ember.tensor(0.5, dtype=F64), ints).dtype is F64  # a 0-d float lifts an integer tensor
    assert ember.xlogy(ember.tensor([1.0], dtype=ember.float16), 2.5).dtype is ember.float16
    assert ember.sinc(ember.tensor([1j])).dtype is ember.complex64
    for call in (
        lambda: ember.lgamma(ember.tensor([1j])),
        lambda: ember.xlogy(ember.tensor([1j]), 1.0),
        lambda: ember.logit(ember.tensor([1j])),
    ):
        with pytest.raises(TypeError, match="real floating dtype"):
            call()
    with pytest.raises(RuntimeError, match="does not support negative n"):
        ember.polygamma(-1, t64([1.0]))
    with pytest.raises(RuntimeError, match="n = 171 is over 170"):
        ember.polygamma(171, t64([1.0]))
    assert math.isfinite(ember.polygamma(170, t64([200.0])).item())


# --- derivatives -------------------------------------------------------------------------------------

test_unary_gradcheck = unary_gradcheck(
    {
        "lgamma": (ember.lgamma, 0.2, 6.0, ()),
        "digamma": (ember.digamma, 0.2, 6.0, ()),
        "i0": (ember.i0, -25.0, 25.0, ()),
        "i0e": (ember.special.i0e, -25.0, 25.0, (0.0,)),
        "i1": (ember.special.i1, -25.0, 25.0, ()),
        "i1e": (ember.special.i1e, -25.0, 25.0, (0.0,)),
        "logit": (ember.logit, 0.05, 0.95, ()),
        "entr": (ember.special.entr, 0.05, 3.0, ()),
        "sinc": (ember.sinc, -3.0, 3.0, ()),
        "ndtr": (ember.special.ndtr, -4.0, 4.0, ()),
        "ndtri": (ember.special.ndtri, 0.02, 0.98, ()),
        "polygamma2": (lambda x: ember.polygamma(2, x), 0.3, 5.0, ()),
        "mvlgamma": (lambda x: ember.mvlgamma(x, 3), 1.2, 6.0, ()),
    }
)


def test_binary_gradcheck_and_the_zero_input_edges():
    x = ember.tensor([0.5, 1.5, 2.0], dtype=F64, requires_grad=True)
    y = ember.tensor([0.7, 2.0, 3.0], dtype=F64, requires_grad=True)
    assert gradcheck(ember.xlogy, (x, y)) and gradcheck(ember.special.xlog1py, (x, y))
    zero = ember.tensor([0.0], dtype=F64, requires_grad=True)
    ember.sinc(zero).sum().backward()
    assert zero.grad.tolist() == [0.0]
    a = ember.tensor([0.0], dtype=F64, requires_grad=True)
    b = ember.tensor([2.0], dtype=F64, requires_grad=True)
    ember.xlogy(a, b).sum().backward()
    assert a.grad.tolist() == [0.0] and b.grad.tolist() == [0.0]
    s = ember.tensor([0.0, 1.0], dtype=F64, requires_grad=True)
    ember.special.i1(s).sum().backward()
    assert s.grad.tolist()[0] == 0.5


# --- against PyTorch ----------------------------------------------------------------------------------

test_unary_matches_torch = unary_matches_torch(["lgamma", "digamma", "sinc", "logit"])  # i0: torch gives nan at inf


@needs_torch
@pytest.mark.parametrize(
    "name",
    [
        "special.i0e",
        "special.i1",
        "special.i1e",
        "special.ndtr",
        "special.ndtri",
        "special.entr",
        "special.gammaln",
        "special.psi",
        "special.expit",
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_special_functions_match_torch(name, dtype):
    rng = np.random.default_rng(5)
    values = rng.uniform(0.01, 0.99, 64) if name == "special.ndtri" else rng.uniform(-30, 30, 64)
    if dtype == "int64":
        values = np.round(values)
    values = values.astype(dtype)
    ours = getattr(ember.special, name.split(".")[1])(ember.tensor(values))
    theirs = getattr(torch.special, name.split(".")[1])(torch.tensor(values))
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    finite = np.isfinite(theirs.numpy())
    atol = (1e-6 if dtype != "float64" else 1e-10) if name == "special.ndtr" else 1e-20  # torch's ndtr loses its tail
    assert np.allclose(ours.numpy()[finite], theirs.numpy()[finite], rtol=1e-5 if dtype != "float64" else 1e-12, atol=atol)


@needs_torch
@pytest.mark.parametrize("n", [0, 1, 2, 3, 7])
def test_polygamma_and_its_gradient_match_torch(n):
    values = np.concatenate([np.linspace(0.05, 30, 40), np.linspace(-9.9, -0.1, 37) + 0.013])  # no poles
    x = ember.tensor(values, requires_grad=True)
    tx = torch.tensor(values, requires_grad=True)
    ours, theirs = ember.polygamma(n, x), torch.polygamma(n, tx)
    assert np.allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9)
    ours.sum().backward()
    theirs.sum().backward()
    assert np.allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9)


@needs_torch
def test_binary_functions_and_gradients_match_torch():
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.uniform(-3, 3, 20), [0.0, 0.0, 1.0]])
    b = np.concatenate([rng.uniform(0.1, 5, 20), [0.0, math.nan, 2.0]])
    for ours_fn, theirs_fn in ((ember.xlogy, torch.xlogy), (ember.special.xlog1py, torch.special.xlog1py)):
        x, y = ember.tensor(a, requires_grad=True), ember.tensor(b, requires_grad=True)
        tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        ours, theirs = ours_fn(x, y), theirs_fn(tx, ty)
        assert np.allclose(ours.detach().numpy(), theirs.detach().numpy(), equal_nan=True)
        ours[:20].sum().backward()
        theirs[:20].sum().backward()
        assert np.allclose(x.grad.numpy()[:20], tx.grad.numpy()[:20]) and np.allclose(y.grad.numpy()[:20], ty.grad.numpy()[:20])
    assert ember.mvlgamma(ember.tensor([2.5, 3.0]), 2).tolist() == pytest.approx(
        torch.mvlgamma(torch.tensor([2.5, 3.0]), 2).tolist()
    )
