"""inv, det, slogdet, solve, matrix_power: reconstructions against NumPy, PyTorch's errors for
singular inputs and bad arguments, and the derivatives (gradcheck, gradgradcheck, torch's
gradients, the cofactor matrix of a singular det)."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, to_ember, to_torch, torch

from ._helpers import GRAD_RNG, WC, R, close, grads_match_torch, leaf, rand, spd

LA = ember.linalg


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("batch", [(), (3,), (2, 1)])
def test_inv_det_slogdet_solve(dtype, batch):
    A = (rand((*batch, 4, 4), dtype) + 4 * np.eye(4)).astype(dtype)
    Ae = to_ember(A)
    inv = ember.linalg.inv(Ae)
    close(np.matmul(A, inv.numpy()), np.broadcast_to(np.eye(4), A.shape), dtype)
    close(ember.linalg.det(Ae).numpy(), np.linalg.det(A), dtype)
    sign, logabsdet = ember.linalg.slogdet(Ae)
    close(sign.numpy() * np.exp(logabsdet.numpy()), np.linalg.det(A), dtype)
    B = rand((*batch, 4, 2), dtype)
    X = ember.linalg.solve(Ae, to_ember(B))
    close(np.matmul(A, X.numpy()), B, dtype)
    b = rand((*batch, 4), dtype)  # a batch of vectors: B has A's shape without the last dim
    x = ember.linalg.solve(Ae, to_ember(b))
    assert x.shape == (*batch, 4)
    close(np.einsum("...ij,...j->...i", A, x.numpy()), b, dtype)
    XL = ember.linalg.solve(Ae, to_ember(np.swapaxes(B, -1, -2)), left=False)
    close(np.matmul(XL.numpy(), A), np.swapaxes(B, -1, -2), dtype)


@needs_torch
def test_solve_broadcasts_a_vector():
    A = rand((3, 2, 2)) + 2 * np.eye(2)
    b = rand(2)
    x = ember.linalg.solve(to_ember(A), to_ember(b))
    expected = torch.linalg.solve(to_torch(A), to_torch(b))
    assert x.shape == tuple(expected.shape)
    close(x.numpy(), expected.numpy(), "float64")


def test_matrix_power():
    S = spd(3)
    M = np.arange(8).reshape(2, 2, 2)
    assert ember.linalg.matrix_power(to_ember(M), 3).tolist() == np.linalg.matrix_power(M, 3).tolist()
    assert ember.matrix_power(to_ember(M), 0).tolist() == [np.eye(2, dtype=int).tolist()] * 2
    close(to_ember(S).matrix_power(-2).numpy(), np.linalg.matrix_power(S, -2), "float64")


@needs_torch
def test_singular_errors_read_like_torch():
    cases = [
        (lambda lib, t: lib.linalg.inv(t), [[1.0, 2.0], [2.0, 4.0]]),
        (lambda lib, t: lib.linalg.inv(t), [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]),
        (lambda lib, t: lib.linalg.matrix_power(t, -1), [[1.0, 2.0], [2.0, 4.0]]),
    ]
    for call, data in cases:
        with pytest.raises(RuntimeError) as expected:
            call(torch, torch.tensor(data))
        with pytest.raises(ember.linalg.LinAlgError) as got:
            call(ember, ember.tensor(data))
        assert str(got.value) == str(expected.value)


def test_solve_singular_error():
    with pytest.raises(RuntimeError, match=r"torch.linalg.solve: The solver failed because the input matrix is singular."):
        ember.linalg.solve(ember.ones(2, 2), ember.ones(2))


def test_argument_errors():
    with pytest.raises(RuntimeError, match=r"linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"):
        ember.linalg.inv(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"linalg.inv: The input tensor A must have at least 2 dimensions."):
        ember.linalg.inv(ember.ones(2))
    with pytest.raises(RuntimeError, match=r"linalg.det: Expected a floating point or complex tensor as input. Got Long"):
        ember.linalg.det(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match=r"linalg.inv: Low precision dtypes not supported. Got Half"):
        ember.linalg.inv(ember.ones(2, 2, dtype=ember.float16))
    with pytest.raises(
        RuntimeError, match=r"linalg.solve: Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x1\)"
    ):
        ember.linalg.solve(ember.eye(2), ember.ones(3))
    with pytest.raises(RuntimeError, match=r"linalg.solve: Expected A and B to have the same dtype"):
        ember.linalg.solve(ember.eye(2), ember.ones(2, dtype=ember.float64))


def test_empty_matrices():
    assert ember.linalg.inv(ember.ones(0, 0)).shape == (0, 0)
    assert ember.linalg.det(ember.ones(3, 0, 0)).tolist() == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------------------------------
# derivatives

CASES = {
    "inv": (lambda a: LA.inv(a), lambda: (WC(2, 3, 3),)),
    "det": (lambda a: LA.det(a), lambda: (WC(2, 3, 3),)),
    "det_singular": (lambda a: LA.det(a), lambda: (leaf([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),)),
    "slogdet": (lambda a: LA.slogdet(a).logabsdet, lambda: (WC(2, 3, 3),)),
    "solve": (lambda a, b: LA.solve(a, b), lambda: (WC(3, 3), R(2, 3, 2))),
    "solve_vector": (lambda a, b: LA.solve(a, b), lambda: (WC(2, 3, 3), R(3))),
    "solve_right": (lambda a, b: LA.solve(a, b, left=False), lambda: (WC(3, 3), R(2, 3))),
    "matrix_power_3": (lambda a: LA.matrix_power(a, 3), lambda: (R(3, 3),)),
    "matrix_power_1": (lambda a: LA.matrix_power(a, 1), lambda: (R(3, 3),)),
    "matrix_power_0": (lambda a: LA.matrix_power(a, 0), lambda: (R(3, 3),)),
    "matrix_power_neg": (lambda a: LA.matrix_power(a, -2), lambda: (WC(2, 3, 3),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "solve", "matrix_power_neg"])
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


@needs_torch
def test_gradients_match_torch():
    sq = GRAD_RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    grads_match_torch(lambda x: LA.inv(x), lambda x: torch.linalg.inv(x), [sq])
    grads_match_torch(lambda x: LA.det(x), lambda x: torch.linalg.det(x), [sq])
    grads_match_torch(lambda x, b: LA.solve(x, b), lambda x, b: torch.linalg.solve(x, b), [sq, GRAD_RNG.standard_normal((3, 2))])
    grads_match_torch(lambda x: LA.matrix_power(x, -3), lambda x: torch.linalg.matrix_power(x, -3), [sq])


def test_det_singular_is_the_cofactor_matrix():
    # torch 2.x returns zeros here (and fails its own gradcheck); the derivative of det is the cofactor matrix
    s = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    x = leaf(s)
    LA.det(x).backward()
    cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(s, i, 0), j, 1)) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(x.grad.numpy(), cof, atol=1e-10)
