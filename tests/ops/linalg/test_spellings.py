"""torch's top-level spellings (inverse, svd, qr, cholesky) and the composites inner, kron,
multi_dot/chain_matmul, vander and solve_triangular: values against NumPy, errors, gradients."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import check, needs_torch, to_ember, torch

from ._helpers import WC, R, close, rand, spd

LA = ember.linalg


def test_inverse_svd_qr_cholesky():
    A = rand((2, 4, 3))
    U, S, V = ember.svd(to_ember(A))
    assert type(ember.svd(to_ember(A))).__name__ == "svd"
    close(U.numpy() @ (S.numpy()[..., None] * np.swapaxes(V.numpy(), -1, -2)), A, "float64")
    U, S, V = to_ember(A).svd(some=False)
    assert U.shape == (2, 4, 4) and V.shape == (2, 3, 3)
    U, S, V = ember.svd(to_ember(A), compute_uv=False)
    assert not U.numpy().any() and not V.numpy().any() and U.shape == (2, 4, 4)
    close(S.numpy(), np.linalg.svd(A, compute_uv=False), "float64")
    Q, R_ = ember.qr(to_ember(A))
    close(Q.numpy() @ R_.numpy(), A, "float64")
    assert to_ember(A).qr(some=False).Q.shape == (2, 4, 4)
    P = spd(3, (2,))
    L = ember.cholesky(to_ember(P))
    close(L.numpy() @ np.swapaxes(L.numpy(), -1, -2), P, "float64")
    close(to_ember(P).cholesky(upper=True).numpy(), np.swapaxes(L.numpy(), -1, -2), "float64")
    close(to_ember(P).inverse().numpy(), np.linalg.inv(P), "float64")
    with pytest.raises(RuntimeError, match=r"linalg\.inv: A must be batches of square matrices"):
        ember.inverse(to_ember(A))


def test_inner_kron():
    a, b = rand((2, 3)), rand((4, 3))
    close(ember.inner(to_ember(a), to_ember(b)).numpy(), np.inner(a, b), "float64")
    close(to_ember(a).inner(ember.tensor(2.0, dtype=ember.float64)).numpy(), 2 * a, "float64")
    with pytest.raises(RuntimeError, match="the last dimension must match"):
        ember.inner(to_ember(a), to_ember(rand((4, 2))))
    for sa, sb in [((2, 3), (4,)), ((2, 3), (2, 1, 2)), ((), (3,))]:
        x, y = rand(sa), rand(sb)
        close(ember.kron(to_ember(x), to_ember(y)).numpy(), np.kron(x, y), "float64")
    assert ember.kron(ember.tensor([1, 2]), ember.tensor([1.0, 10.0])).dtype == ember.float32


def test_multi_dot_chain_matmul():
    mats = [rand(3), rand((3, 4)), rand((4, 2)), rand(2)]
    close(LA.multi_dot([to_ember(m) for m in mats]).numpy(), np.linalg.multi_dot(mats), "float64")
    mats = [rand((2, 3)), rand((3, 4))]
    close(ember.chain_matmul(*[to_ember(m) for m in mats]).numpy(), mats[0] @ mats[1], "float64")
    with pytest.raises(RuntimeError, match="expected at least 2 tensors but got 1"):
        LA.multi_dot([ember.ones((2, 2))])
    with pytest.raises(RuntimeError, match="tensor 1 must be 2D but got 1D"):
        LA.multi_dot([ember.ones((2, 3)), ember.ones(3), ember.ones(3)])
    with pytest.raises(RuntimeError, match=r"tensors 0 and 1 with shapes \[2, 3\] and \[4, 5\] cannot be multiplied"):
        LA.multi_dot([ember.ones((2, 3)), ember.ones((4, 5))])


def test_vander():
    x = rand((2, 3))
    close(LA.vander(to_ember(x), N=4).numpy(), np.stack([np.vander(v, 4, increasing=True) for v in x]), "float64")
    assert LA.vander(ember.tensor([1, 2, 3])).tolist() == [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    with pytest.raises(RuntimeError, match="N must be greater than 1"):
        LA.vander(ember.tensor([1.0]), N=1)


@pytest.mark.parametrize(
    ("upper", "left", "unit"), [(True, True, False), (False, True, True), (True, False, False), (False, False, True)]
)
def test_solve_triangular(upper, left, unit):
    A = rand((2, 3, 3)) + 3 * np.eye(3)
    B = rand((2, 3, 2)) if left else rand((2, 2, 3))
    T = np.triu(A) if upper else np.tril(A)
    if unit:
        T = T - np.eye(3) * T + np.eye(3)
    X = LA.solve_triangular(to_ember(A), to_ember(B), upper=upper, left=left, unitriangular=unit).numpy()
    close(T @ X if left else X @ T, B, "float64")
    assert gradcheck(
        lambda a, b: LA.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit), (WC(3, 3), R(*B.shape[1:]))
    )


def test_gradcheck():
    assert gradcheck(lambda a: ember.svd(a).S, (R(4, 3),))
    assert gradcheck(ember.inverse, (WC(3, 3),))
    assert gradcheck(ember.inner, (R(2, 3), R(4, 3)))
    assert gradcheck(ember.kron, (R(2, 3), R(2, 1)))
    assert gradcheck(lambda *t: LA.multi_dot(list(t)), (R(3), R(3, 4), R(4, 2)))
    assert gradcheck(lambda x: LA.vander(x, N=4), (R(2, 3),))


@needs_torch
def test_matches_torch():
    A = rand((2, 4, 3))
    check(lambda a: ember.svd(a)[1], lambda a: torch.svd(a)[1], A)
    check(lambda a: ember.qr(a, some=False).R.abs(), lambda a: torch.linalg.qr(a, mode="complete").R.abs(), A)
    check(ember.inner, torch.inner, rand((2, 3)), rand((4, 3)), grad=True)
    check(ember.kron, torch.kron, rand((2, 3)), rand((2, 1, 2)), grad=True)
    check(lambda *t: LA.multi_dot(t), lambda *t: torch.linalg.multi_dot(t), rand(3), rand((3, 4)), rand(4), grad=True)
    check(lambda x: LA.vander(x, N=3), lambda x: torch.linalg.vander(x, N=3), rand((2, 4)), grad=True)
    T = rand((2, 3, 3)) + 3 * np.eye(3)
    check(
        lambda a, b: LA.solve_triangular(a, b, upper=False),
        lambda a, b: torch.linalg.solve_triangular(a, b, upper=False),
        T,
        rand((3, 2)),
        grad=True,
    )


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    P = spd(3, (2,))
    L = np.linalg.cholesky(P)
    F = np.swapaxes(L, -1, -2) if upper else L
    B = rand((2, 3, 2))
    close(ember.cholesky_solve(to_ember(B), to_ember(F), upper=upper).numpy(), np.linalg.solve(P, B), "float64")
    close(to_ember(F).cholesky_inverse(upper=upper).numpy(), np.linalg.inv(P), "float64")
    with pytest.raises(RuntimeError, match="b should have at least 2 dimensions"):
        ember.cholesky_solve(ember.ones(3, dtype=ember.float64), to_ember(F[0]))
    assert gradcheck(lambda b, f: ember.cholesky_solve(b, f.tril() + 3 * ember.eye(3, dtype=ember.float64)), (R(3, 2), R(3, 3)))


def test_matrix_exp():
    theta = 0.7  # a rotation generator
    G = ember.tensor([[0.0, -theta], [theta, 0.0]], dtype=ember.float64)
    close(ember.matrix_exp(G).numpy(), [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]], "float64")
    D = rand(4)
    close(LA.matrix_exp(to_ember(np.diag(D))).numpy(), np.diag(np.exp(D)), "float64")
    A = 5 * rand((2, 3, 3))  # large norms: scaling and squaring; exp(A) exp(-A) = I
    E, Einv = ember.matrix_exp(to_ember(A)).numpy(), ember.matrix_exp(to_ember(-A)).numpy()
    # the product's rounding grows with the factors' norms (exp(A) may reach e^15): bound it by them
    scale = np.linalg.norm(E, axis=(-2, -1)).max() * np.linalg.norm(Einv, axis=(-2, -1)).max()
    np.testing.assert_allclose(E @ Einv, np.broadcast_to(np.eye(3), A.shape), atol=1e-14 * scale)
    assert gradcheck(ember.matrix_exp, (R(3, 3),))
    with pytest.raises(RuntimeError, match=r"Expected a floating point or complex tensor as input\. Got Long"):
        ember.matrix_exp(ember.ones((2, 2), dtype=ember.int64))


def test_tensorinv_tensorsolve():
    A = rand((4, 2, 2))
    inv = LA.tensorinv(to_ember(A), ind=1).numpy()
    close(inv, np.linalg.tensorinv(A, ind=1), "float64")
    A, B = rand((2, 3, 6)), rand((2, 3))
    close(LA.tensorsolve(to_ember(A), to_ember(B)).numpy(), np.linalg.tensorsolve(A, B), "float64")
    A, B = rand((6, 2, 3)), rand((2, 3))
    close(LA.tensorsolve(to_ember(A), to_ember(B), dims=(0,)).numpy(), np.linalg.tensorsolve(A, B, axes=(0,)), "float64")
    with pytest.raises(RuntimeError, match=r"prod\(self\.shape\[ind:\]\) == prod\(self.shape\[:ind\]\), but got 6 != 4"):
        LA.tensorinv(ember.ones((4, 2, 3)), ind=1)


@needs_torch
def test_composites_match_torch():
    P = spd(3)
    L = np.linalg.cholesky(P)
    check(ember.cholesky_solve, torch.cholesky_solve, rand((3, 2)), L, grad=True)
    check(ember.cholesky_inverse, torch.cholesky_inverse, L, grad=True)
    check(ember.matrix_exp, torch.matrix_exp, rand((2, 3, 3)), grad=True)
    check(lambda a: LA.tensorinv(a, ind=1), lambda a: torch.linalg.tensorinv(a, ind=1), rand((4, 2, 2)), grad=True)
    check(LA.tensorsolve, torch.linalg.tensorsolve, rand((2, 3, 6)), rand((2, 3)), grad=True)
