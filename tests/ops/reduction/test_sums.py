"""sum, prod, mean, cumsum, cumprod: against PyTorch (values, result dtypes, refusals), their
derivatives (gradcheck, gradgradcheck, torch's gradients, inputs with zeros)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, torch

from ._helpers import RNG, SETTINGS, R, check_against_torch, check_dim_reduction, dims, grad_matches_torch, leaf, tensors


@needs_torch
@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
@SETTINGS
@given(data=st.data())
def test_dim_reductions_match_torch(name, data):
    check_dim_reduction(name, data)


@needs_torch
@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
@SETTINGS
@given(data=st.data())
def test_dtype_argument_matches_torch(name, data):
    e, t = data.draw(tensors(dtypes=("bool", "int32", "int64", "float16", "float32", "float64")), label="input")
    dtype = data.draw(st.sampled_from(["int64", "float32", "float64", "complex64"]), label="dtype")
    dim = data.draw(dims(e.ndim), label="dim")
    if name == "prod":
        dim = dim[0] if isinstance(dim, tuple) else dim
        if dim is None:
            check_against_torch(
                name, lambda: ember.prod(e, dtype=getattr(ember, dtype)), lambda: torch.prod(t, dtype=getattr(torch, dtype))
            )
            return
    check_against_torch(
        name,
        lambda: getattr(ember, name)(e, dim, dtype=getattr(ember, dtype)),
        lambda: getattr(torch, name)(t, dim, dtype=getattr(torch, dtype)),
    )


@needs_torch
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.filterwarnings("ignore:Casting complex values")  # dtype=float64 of a complex input: both warn
@SETTINGS
@given(data=st.data())
def test_scans_match_torch(name, data):
    e, t = data.draw(
        tensors(dtypes=("bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64")), label="input"
    )
    dim = data.draw(st.integers(-max(e.ndim, 1), max(e.ndim, 1) - 1), label="dim")
    dtype = data.draw(st.sampled_from([None, "float64", "int64"]), label="dtype")
    kw_e = {} if dtype is None else {"dtype": getattr(ember, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    check_against_torch(name, lambda: getattr(ember, name)(e, dim, **kw_e), lambda: getattr(torch, name)(t, dim, **kw_t))


def test_half_precision_accumulates_in_float32():
    # accumulating in the half type stalls at 256 (bfloat16) / 2048 (float16)
    assert ember.ones(4096, dtype=ember.bfloat16).sum().item() == 4096.0
    assert ember.ones(10000, dtype=ember.float16).sum().item() == 10000.0
    assert ember.ones(10000, dtype=ember.float16).mean().item() == 1.0
    assert ember.ones(4096, dtype=ember.bfloat16).cumsum(0)[-1].item() == 4096.0


# ---------------------------------------------------------------------------------------
# derivatives

ZEROS = [[1.0, 0.0, 2.0, 3.0], [0.0, 0.0, 1.5, 2.0], [1.0, 2.0, 3.0, 0.5]]

CASES = {
    "sum_dim": (lambda t: t.sum(1), (3, 4)),
    "sum_all": (lambda t: t.sum(), (3, 4)),
    "sum_keepdim": (lambda t: t.sum((0, 2), keepdim=True), (2, 3, 2)),
    "mean": (lambda t: t.mean(0), (3, 4)),
    "mean_multi": (lambda t: t.mean((0, 2)), (2, 3, 2)),
    "prod_dim": (lambda t: t.prod(1), (3, 4)),
    "prod_all": (lambda t: t.prod(), (2, 3)),
    "cumsum": (lambda t: t.cumsum(1), (3, 4)),
    "cumsum0": (lambda t: t.cumsum(0), (3, 4)),
    "cumprod": (lambda t: t.cumprod(1), (3, 4)),
    "cumprod0": (lambda t: t.cumprod(0), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, shape = CASES[name]
    assert gradcheck(fn, (R(*shape),))


@pytest.mark.parametrize("name", ["prod_dim", "prod_all", "cumprod", "cumprod0"])
def test_gradcheck_with_zeros(name):
    fn, _ = CASES[name]
    assert gradcheck(fn, (leaf(ZEROS),))


@needs_torch
def test_prod_zeros_matches_torch():
    for dim in (None, 0, 1):
        x = leaf(ZEROS)
        t = torch.tensor(ZEROS, dtype=torch.float64, requires_grad=True)
        (x.prod() if dim is None else x.prod(dim)).sum().backward()
        (t.prod() if dim is None else t.prod(dim)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    x = leaf(ZEROS)
    t = torch.tensor(ZEROS, dtype=torch.float64, requires_grad=True)
    w = RNG.standard_normal((3, 4))
    (x.cumprod(1) * ember.tensor(w)).sum().backward()
    (t.cumprod(1) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())


def test_dtype_argument_grad_has_input_dtype():
    x = ember.tensor(np.ones((2, 3)), dtype=ember.float32, requires_grad=True)
    ember.sum(x, 0, dtype=ember.float64).sum().backward()
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 3)))
    x.grad = None
    ember.cumsum(x, 1, dtype=ember.float64).sum().backward()
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(x.grad.numpy(), [[3, 2, 1], [3, 2, 1]])


def test_integer_input_gets_no_grad_edge():
    x = R(3)
    idx = ember.tensor([1, 2, 3])
    y = (x * idx.sum()).sum()  # an int reduction in a graph with a float leaf
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0, 6.0])


@needs_torch
@pytest.mark.parametrize(
    "name, torch_fn",
    [
        ("sum_keepdim", lambda t: t.sum((0, 2), keepdim=True)),
        ("mean_multi", lambda t: t.mean((0, 2))),
        ("prod_dim", lambda t: t.prod(1)),
        ("cumsum", lambda t: t.cumsum(1)),
        ("cumprod0", lambda t: t.cumprod(0)),
    ],
)
def test_matches_torch(name, torch_fn):
    fn, shape = CASES[name]
    grad_matches_torch(fn, torch_fn, shape)


# Linear reductions (sum, mean, cumsum) have a first derivative that does not depend on the input:
# ember's gradgradcheck does not take grad_outputs as inputs, so it cannot check them (their graph
# has no grad_fn); the nonlinear ones are checked here.
@pytest.mark.parametrize("name", ["prod_dim", "cumprod"])
def test_gradgradcheck(name):
    fn, shape = CASES[name]
    assert gradgradcheck(fn, (R(*shape),))


@pytest.mark.parametrize("name", ["prod_dim", "cumprod"])
def test_gradgradcheck_with_zeros(name):
    fn, _ = CASES[name]
    assert gradgradcheck(fn, (leaf([[1.0, 0.0, 2.0], [3.0, 1.0, 2.0]]),))
