"""var, std, logsumexp: against PyTorch (correction/unbiased, result dtypes, refusals) and their
derivatives (gradcheck, gradgradcheck, torch's gradients)."""

import math
import warnings

import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, torch

from ._helpers import SETTINGS, R, check_against_torch, check_dim_reduction, dims, grad_matches_torch, tensors


@needs_torch
@pytest.mark.parametrize("name", ["logsumexp"])
@SETTINGS
@given(data=st.data())
def test_dim_reductions_match_torch(name, data):
    check_dim_reduction(name, data)


@needs_torch
@pytest.mark.parametrize("name", ["var", "std"])
@SETTINGS
@given(data=st.data())
def test_var_std_match_torch(name, data):
    e, t = data.draw(tensors(dtypes=("float16", "float32", "float64", "complex64", "complex128", "int32")), label="input")
    dim = data.draw(dims(e.ndim), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    style = data.draw(st.sampled_from(["default", "correction", "unbiased"]), label="style")
    if style == "correction":
        kwargs = {"correction": data.draw(st.sampled_from([0, 1, 2, 0.5]), label="correction")}
    elif style == "unbiased":
        kwargs = {"unbiased": data.draw(st.booleans(), label="unbiased")}
    else:
        kwargs = {}
    positional = style == "unbiased"  # the legacy var(input, dim, unbiased, keepdim) form
    dim_arg = dim if dim is not None or not positional else tuple(range(e.ndim))

    def call(lib, x):
        if positional:
            return getattr(lib, name)(x, dim_arg, kwargs["unbiased"], keepdim)
        return getattr(lib, name)(x, dim, keepdim=keepdim, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about dof <= 0
        check_against_torch(name, lambda: call(ember, e), lambda: call(torch, t))


def test_var_arguments():
    x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    assert x.var(unbiased=False).item() == x.var(correction=0).item() == 1.25
    with pytest.raises(TypeError, match="either 'unbiased' or 'correction'"):
        x.var(unbiased=True, correction=1)


# ---------------------------------------------------------------------------------------
# derivatives

CASES = {
    "var": (lambda t: t.var(1), (3, 4)),
    "var_correction": (lambda t: t.var((0, 1), correction=2), (3, 4)),
    "std": (lambda t: t.std(0, correction=0), (3, 4)),
    "std_keepdim": (lambda t: t.std(1, keepdim=True), (3, 4)),
    "logsumexp": (lambda t: ember.logsumexp(t, 1), (3, 4)),
    "logsumexp_all": (lambda t: ember.logsumexp(t, (0, 1), keepdim=True), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, shape = CASES[name]
    assert gradcheck(fn, (R(*shape),))


@needs_torch
@pytest.mark.parametrize(
    "name, torch_fn",
    [
        ("var_correction", lambda t: t.var((0, 1), correction=2)),
        ("std_keepdim", lambda t: t.std(1, keepdim=True)),
        ("logsumexp", lambda t: t.logsumexp(1)),
    ],
)
def test_matches_torch(name, torch_fn):
    fn, shape = CASES[name]
    grad_matches_torch(fn, torch_fn, shape)


@pytest.mark.parametrize("name", ["var", "std", "logsumexp"])
def test_gradgradcheck(name):
    fn, shape = CASES[name]
    assert gradgradcheck(fn, (R(*shape),))


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("correction", [-2.5, 0, 1, 3])
def test_var_and_std_of_no_elements_are_nan_whatever_the_correction(name, correction):
    fn = getattr(ember, name)
    assert math.isnan(fn(ember.zeros(2, 0), correction=correction).item())
    row = fn(ember.zeros(2, 0), dim=1, correction=correction)
    assert row.shape == (2,) and all(math.isnan(v) for v in row.tolist())
    assert fn(ember.zeros(2, 0), dim=0, correction=correction).shape == (0,)
