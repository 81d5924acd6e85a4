"""Derivatives of the reduction primitives: gradcheck, gradgradcheck and torch's gradients."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def T(a):
    return ember.tensor(np.asarray(a, dtype=np.float64), dtype=ember.float64, requires_grad=True)


def R(*shape):
    return T(RNG.standard_normal(shape))


ZEROS = [[1.0, 0.0, 2.0, 3.0], [0.0, 0.0, 1.5, 2.0], [1.0, 2.0, 3.0, 0.5]]

CASES = {
    "sum_dim": (lambda t: t.sum(1), (3, 4)),
    "sum_all": (lambda t: t.sum(), (3, 4)),
    "sum_keepdim": (lambda t: t.sum((0, 2), keepdim=True), (2, 3, 2)),
    "mean": (lambda t: t.mean(0), (3, 4)),
    "mean_multi": (lambda t: t.mean((0, 2)), (2, 3, 2)),
    "prod_dim": (lambda t: t.prod(1), (3, 4)),
    "prod_all": (lambda t: t.prod(), (2, 3)),
    "amax": (lambda t: ember.amax(t, 1), (3, 4)),
    "amin_multi": (lambda t: ember.amin(t, (0, 1)), (3, 4)),
    "max_full": (lambda t: t.max(), (3, 4)),
    "max_dim": (lambda t: t.max(1).values, (3, 4)),
    "min_dim_keepdim": (lambda t: t.min(0, keepdim=True).values, (3, 4)),
    "var": (lambda t: t.var(1), (3, 4)),
    "var_correction": (lambda t: t.var((0, 1), correction=2), (3, 4)),
    "std": (lambda t: t.std(0, correction=0), (3, 4)),
    "std_keepdim": (lambda t: t.std(1, keepdim=True), (3, 4)),
    "logsumexp": (lambda t: ember.logsumexp(t, 1), (3, 4)),
    "logsumexp_all": (lambda t: ember.logsumexp(t, (0, 1), keepdim=True), (3, 4)),
    "cumsum": (lambda t: t.cumsum(1), (3, 4)),
    "cumsum0": (lambda t: t.cumsum(0), (3, 4)),
    "cumprod": (lambda t: t.cumprod(1), (3, 4)),
    "cumprod0": (lambda t: t.cumprod(0), (3, 4)),
    "norm": (lambda t: ember.norm(t, dim=(1,)), (3, 4)),
    "norm_p3": (lambda t: ember.norm(t, p=3), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, shape = CASES[name]
    assert gradcheck(fn, (R(*shape),))


@pytest.mark.parametrize("name", ["prod_dim", "prod_all", "cumprod", "cumprod0"])
def test_gradcheck_with_zeros(name):
    fn, _ = CASES[name]
    assert gradcheck(fn, (T(ZEROS),))


def test_prod_zeros_matches_torch():
    torch = pytest.importorskip("torch")
    for dim in (None, 0, 1):
        x = T(ZEROS)
        t = torch.tensor(ZEROS, dtype=torch.float64, requires_grad=True)
        (x.prod() if dim is None else x.prod(dim)).sum().backward()
        (t.prod() if dim is None else t.prod(dim)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    x = T(ZEROS)
    t = torch.tensor(ZEROS, dtype=torch.float64, requires_grad=True)
    w = RNG.standard_normal((3, 4))
    (x.cumprod(1) * ember.tensor(w)).sum().backward()
    (t.cumprod(1) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())


def test_ties_split_like_torch():
    torch = pytest.importorskip("torch")
    data = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]
    for name in ("amax", "amin"):
        x = T(data)
        t = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        getattr(ember, name)(x, 1).sum().backward()
        getattr(torch, name)(t, 1).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    x = T(data)
    x.max().backward()  # max() of all: amax, ties shared evenly
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [0, 0, 0]])


def test_dtype_argument_grad_has_input_dtype():
    x = ember.tensor(np.ones((2, 3)), dtype=ember.float32, requires_grad=True)
    ember.sum(x, 0, dtype=ember.float64).sum().backward()
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 3)))
    x.grad = None
    ember.cumsum(x, 1, dtype=ember.float64).sum().backward()
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(x.grad.numpy(), [[3, 2, 1], [3, 2, 1]])


def test_max_dim_grad_goes_to_index():
    x = T([[1.0, 5.0, 5.0], [4.0, 2.0, 0.0]])
    values, indices = x.max(1)
    assert not indices.requires_grad
    values.sum().backward()
    expected = np.zeros((2, 3))
    expected[np.arange(2), indices.numpy()] = 1
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_integer_input_gets_no_grad_edge():
    x = R(3)
    idx = ember.tensor([1, 2, 3])
    y = (x * idx.sum()).sum()  # an int reduction in a graph with a float leaf
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0, 6.0])


@pytest.mark.parametrize(
    "name, torch_fn",
    [
        ("sum_keepdim", lambda t: t.sum((0, 2), keepdim=True)),
        ("mean_multi", lambda t: t.mean((0, 2))),
        ("prod_dim", lambda t: t.prod(1)),
        ("var_correction", lambda t: t.var((0, 1), correction=2)),
        ("std_keepdim", lambda t: t.std(1, keepdim=True)),
        ("logsumexp", lambda t: t.logsumexp(1)),
        ("cumsum", lambda t: t.cumsum(1)),
        ("cumprod0", lambda t: t.cumprod(0)),
        ("max_dim", lambda t: t.max(1).values),
    ],
)
def test_matches_torch(name, torch_fn):
    torch = pytest.importorskip("torch")
    fn, shape = CASES[name]
    a = RNG.standard_normal(shape)
    x = T(a)
    t = torch.tensor(a, requires_grad=True)
    y, ty = fn(x), torch_fn(t)
    w = RNG.standard_normal(tuple(ty.shape))
    (y * ember.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


# Linear reductions (sum, mean, cumsum) and the selections (amax, max_dim) have a first derivative
# that does not depend on the input: ember's gradgradcheck does not take grad_outputs as inputs,
# so it cannot check them (their graph has no grad_fn); the nonlinear ones are checked here.
@pytest.mark.parametrize("name", ["prod_dim", "cumprod", "var", "std", "logsumexp", "norm_p3"])
def test_gradgradcheck(name):
    fn, shape = CASES[name]
    assert gradgradcheck(fn, (R(*shape),))


@pytest.mark.parametrize("name", ["prod_dim", "cumprod"])
def test_gradgradcheck_with_zeros(name):
    fn, _ = CASES[name]
    assert gradgradcheck(fn, (T([[1.0, 0.0, 2.0], [3.0, 1.0, 2.0]]),))
