"""linalg.eig and linalg.eigvals: A V = V diag(L) against NumPy's eigenvalues, complex dtypes,
eigenvectors of unit norm with their largest component real, PyTorch's errors, and the
derivatives (gradcheck through phase-invariant functions; torch's gradients)."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import check, needs_torch, to_ember, torch

from ._helpers import GRAD_RNG, R, close, leaf, rand

LA = ember.linalg


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("batch", [(), (3,), (2, 1), (0,)])
def test_decomposition_reconstructs(dtype, batch):
    A = rand((*batch, 4, 4), dtype)
    L, V = LA.eig(to_ember(A))
    complex_dtype = {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype)
    assert L.dtype.name == complex_dtype and V.dtype.name == complex_dtype
    assert L.shape == (*batch, 4) and V.shape == (*batch, 4, 4)
    L, V = L.numpy(), V.numpy()
    close(A @ V, V * L[..., None, :], complex_dtype)
    close(np.linalg.norm(V, axis=-2), np.ones((*batch, 4)), complex_dtype)
    want = np.sort_complex(np.linalg.eigvals(A).reshape(-1, 4)) if A.size else np.zeros((0, 4))
    close(np.sort_complex(L.reshape(-1, 4)), want, complex_dtype)
    close(np.sort_complex(LA.eigvals(to_ember(A)).numpy().reshape(-1, 4)), want, complex_dtype)


def test_known_values_and_out():
    rotation = ember.tensor([[0.0, -1.0], [1.0, 0.0]])
    assert LA.eigvals(rotation).tolist() == [1j, -1j]
    out = ember.empty(2, dtype=ember.complex64)
    assert LA.eigvals(ember.tensor([[2.0, 1.0], [0.0, 3.0]]), out=out) is out
    assert out.tolist() == [2, 3]
    assert LA.eig(ember.zeros((0, 0)))[1].shape == (0, 0)


def test_errors():
    with pytest.raises(RuntimeError, match=r"linalg\.eig: A must be batches of square matrices, but they are 2 by 3"):
        LA.eig(ember.ones((2, 3)))
    with pytest.raises(RuntimeError, match=r"linalg\.eigvals: Expected a floating point or complex tensor as input\. Got Long"):
        LA.eigvals(ember.ones((2, 2), dtype=ember.int64))
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        LA.eig(ember.ones((2, 2), dtype=ember.float16))
    with pytest.raises(RuntimeError, match="input tensor should not contain infs or NaNs"):
        LA.eig(ember.tensor([[1.0, float("nan")], [0.0, 1.0]]))
    assert np.isnan(LA.eigvals(ember.tensor([[1.0, float("inf")], [0.0, 1.0]])).numpy()).all()


def test_gradcheck():
    A = R(4, 4)
    assert gradcheck(lambda a: LA.eigvals(a).abs(), (A,))
    assert gradcheck(lambda a: (LA.eigvals(a) ** 2).real, (A,))
    assert gradcheck(lambda a: LA.eig(a).eigenvectors.abs(), (A,))  # |V| does not depend on the phases
    assert gradcheck(lambda a: LA.eig(a).eigenvalues.imag, (R(2, 3, 3),))


def test_a_loss_that_depends_on_the_phases_is_refused():
    _, V = LA.eig(leaf([[0.0, -1.0, 0.5], [1.0, 0.0, 0.0], [0.0, 0.3, 2.0]]))  # a complex pair
    with pytest.raises(RuntimeError, match="eigenvectors in the complex case are specified up to multiplication"):
        V.real.sum().backward()


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eigenvalues_match_torch(dtype):
    A = rand((2, 5, 5), dtype)
    check(LA.eigvals, torch.linalg.eigvals, A, what="eigvals")
    check(lambda a: LA.eig(a)[0], lambda a: torch.linalg.eig(a)[0], A, what="eig")
    check(lambda a: LA.eig(a)[1].abs(), lambda a: torch.linalg.eig(a)[1].abs(), A, what="|V|")


@needs_torch
def test_gradients_match_torch():
    A = GRAD_RNG.standard_normal((2, 4, 4))
    weights = GRAD_RNG.standard_normal(4)

    def loss(lib, a):
        L, V = lib.linalg.eig(a)
        return L.abs().sum() + (V.abs() * lib.tensor(weights)).sum()

    x, t = leaf(A), torch.tensor(A, requires_grad=True)
    loss(ember, x).backward()
    loss(torch, t).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
