"""addmm, addmv, addr, baddbmm, addbmm: values against NumPy, beta=0/alpha=0 keeping NaNs out,
the in-place and out= forms, PyTorch's errors, and the derivatives (gradcheck; torch's)."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import check, needs_torch, to_ember, torch

from ._helpers import R, rand

# name, operand shapes, the product in NumPy
CASES = {
    "addmm": ([(4,), (2, 3), (3, 4)], lambda a, b: a @ b),
    "addmv": ([(2,), (2, 3), (3,)], lambda a, b: a @ b),
    "addr": ([(2, 1), (2,), (3,)], np.multiply.outer),
    "baddbmm": ([(1, 4), (2, 2, 3), (2, 3, 4)], lambda a, b: a @ b),
    "addbmm": ([(2, 4), (2, 2, 3), (2, 3, 4)], lambda a, b: (a @ b).sum(0)),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
def test_values_match_numpy(name, dtype):
    shapes, product = CASES[name]
    inp, a, b = (rand(s, dtype) for s in shapes)
    beta, alpha = (2, 3) if dtype == "int64" else (0.5, -1.5)
    got = getattr(ember, name)(to_ember(inp), to_ember(a), to_ember(b), beta=beta, alpha=alpha)
    want = beta * inp + alpha * product(a, b)
    assert got.dtype.name == dtype
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(want, got.shape), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", CASES)
def test_zero_beta_ignores_input_and_zero_alpha_the_product(name):
    shapes, product = CASES[name]
    inp, a, b = (rand(s) for s in shapes)
    nan_inp = np.full(shapes[0], np.nan)
    got = getattr(ember, name)(to_ember(nan_inp), to_ember(a), to_ember(b), beta=0)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(product(a, b), got.shape))
    got = getattr(ember, name)(to_ember(inp), to_ember(np.full_like(a, np.nan)), to_ember(b), alpha=0, beta=2)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(2 * inp, got.shape))


@pytest.mark.parametrize("name", CASES)
def test_method_inplace_and_out(name):
    shapes, product = CASES[name]
    _, a, b = (rand(s) for s in shapes)
    full = product(a, b)
    inp = rand(full.shape)
    x = to_ember(inp)
    assert getattr(x, name + "_")(to_ember(a), to_ember(b), beta=2) is x
    np.testing.assert_allclose(x.numpy(), 2 * inp + full)
    np.testing.assert_allclose(getattr(to_ember(inp), name)(to_ember(a), to_ember(b)).numpy(), inp + full)
    out = ember.empty(full.shape, dtype=ember.float64)
    assert getattr(ember, name)(to_ember(inp), to_ember(a), to_ember(b), out=out) is out
    np.testing.assert_allclose(out.numpy(), inp + full)
    small = to_ember(rand(shapes[0][-1:]))  # broadcasts, but cannot hold the result in place
    if small.shape != full.shape:
        with pytest.raises(RuntimeError):
            getattr(small, name + "_")(to_ember(a), to_ember(b))


def test_errors_name_the_problem():
    m1, m2 = ember.ones((2, 3)), ember.ones((3, 4))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x3\)"):
        ember.addmm(ember.ones(4), m1, m2.mT)
    with pytest.raises(RuntimeError, match="mat1 must be a matrix, got 1-D tensor"):
        ember.addmm(ember.ones(4), ember.ones(3), m2)
    with pytest.raises(RuntimeError, match="self and mat2 must have the same dtype, but got Double and Float"):
        ember.addmm(ember.ones(4, dtype=ember.float64), m1, m2)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the existing size \(3\)"):
        ember.addmm(ember.ones(3), m1, m2)
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(3\), mat \(2x3\), vec \(3\)"):
        ember.addmv(ember.ones(3), m1, ember.ones(3))
    with pytest.raises(RuntimeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        ember.addr(ember.ones((2, 3)), ember.ones((2, 1)), ember.ones(3))
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\]"):
        ember.baddbmm(ember.ones(4), ember.ones((2, 2, 3)), ember.ones((1, 3, 4)))
    with pytest.raises(RuntimeError, match="batch1 and batch2 must have same number of batches, got 2 and 3"):
        ember.addbmm(ember.ones(4), ember.ones((2, 2, 3)), ember.ones((3, 3, 4)))
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        ember.addmm(ember.ones(4), m1, m2, beta=1j)
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        ember.addmm(ember.ones(4, dtype=ember.bool), m1.bool(), m2.bool())


def test_addr_promotes_and_takes_bools():
    got = ember.addr(ember.zeros((2, 2), dtype=ember.int32), ember.tensor([1.0, 2.0]), ember.tensor([3, 4]))
    assert got.dtype == ember.float32 and got.tolist() == [[3.0, 4.0], [6.0, 8.0]]
    got = ember.addr(ember.tensor([[True, False]]), ember.tensor([True, False]), ember.tensor([False, True]))
    assert got.tolist() == [[True, True], [True, False]]  # input or (vec1 and vec2)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize(("beta", "alpha"), [(1, 1), (0.7, -1.3), (0, 2)])
def test_gradcheck(name, beta, alpha):
    shapes, _ = CASES[name]
    assert gradcheck(lambda *t: getattr(ember, name)(*t, beta=beta, alpha=alpha), [R(*s) for s in shapes])


@needs_torch
@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_matches_torch_forward_and_backward(name, dtype):
    shapes, _ = CASES[name]
    arrays = [rand(s, dtype) for s in shapes]
    beta, alpha = (0.5j, 2 - 1j) if dtype.startswith("complex") else (0.5, 2)
    check(
        lambda *t: getattr(ember, name)(*t, beta=beta, alpha=alpha),
        lambda *t: getattr(torch, name)(*t, beta=beta, alpha=alpha),
        *arrays,
        grad=not dtype.startswith("complex"),
        what=name,
    )


@needs_torch
@pytest.mark.parametrize("name", CASES)
def test_complex_gradients_match_torch(name):
    shapes, _ = CASES[name]
    arrays = [rand(s, "complex128") for s in shapes]
    ours = [to_ember(a, True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = getattr(ember, name)(*ours, beta=0.5j, alpha=2 - 1j)
    w = rand(tuple(out.shape), "complex128")
    (out * to_ember(w)).sum().real.backward()
    (getattr(torch, name)(*theirs, beta=0.5j, alpha=2 - 1j) * torch.tensor(w)).sum().real.backward()
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", CASES)
def test_matches_torch_on_empty_and_integer_operands(name):
    shapes, _ = CASES[name]
    empty = [tuple(0 if i == len(s) - 1 and k == 1 else n for i, n in enumerate(s)) for k, s in enumerate(shapes)]
    check(getattr(ember, name), getattr(torch, name), *[rand(s) for s in empty], what=name)
    ints = [rand(s, "int64") for s in shapes]
    check(
        lambda *t: getattr(ember, name)(*t, beta=2, alpha=3),
        lambda *t: getattr(torch, name)(*t, beta=2, alpha=3),
        *ints,
        what=name,
    )
