"""cholesky, qr, svd, svdvals, eigh, eigvalsh, pinv, matrix_rank: reconstructions against NumPy
(factors are defined up to signs/phases), PyTorch's errors, and the derivatives.

The derivatives are checked with well-conditioned random real matrices (distinct singular
values / eigenvalues) through gauge-invariant functions: U diag(S) Vh, S alone, U * U (the
sign of each singular vector squares away), eigenvalues, cholesky of X X^T + I. Complex inputs
are not tested here.
"""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, to_ember, to_torch, torch

from ._helpers import GRAD_RNG, R, close, grads_match_torch, rand, spd, spd_of

LA = ember.linalg


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3), (0, 3)])
def test_qr_svd_reconstruct(dtype, shape):
    A = rand(shape, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    Q, R_ = ember.linalg.qr(to_ember(A))
    assert Q.shape == (*shape[:-2], m, k) and R_.shape == (*shape[:-2], k, n)
    close(np.matmul(Q.numpy(), R_.numpy()), A, dtype)
    close(np.triu(R_.numpy()), R_.numpy(), dtype)
    Qc, _ = ember.linalg.qr(to_ember(A), mode="complete")
    assert Qc.shape == (*shape[:-2], m, m)
    close(np.matmul(np.swapaxes(Qc.numpy(), -1, -2).conj(), Qc.numpy()), np.broadcast_to(np.eye(m), Qc.shape), dtype)
    Qr, Rr = ember.linalg.qr(to_ember(A), mode="r")
    assert Qr.numel() == 0
    close(np.abs(Rr.numpy()), np.abs(R_.numpy()), dtype)
    U, S, Vh = ember.linalg.svd(to_ember(A), full_matrices=False)
    assert S.dtype.is_floating_point and S.shape == (*shape[:-2], k)
    close(np.matmul(U.numpy() * S.numpy()[..., None, :], Vh.numpy()), A, dtype)
    res = ember.linalg.svd(to_ember(A))
    assert res.U.shape == (*shape[:-2], m, m) and res.Vh.shape == (*shape[:-2], n, n)
    close(ember.linalg.svdvals(to_ember(A)).numpy(), S.numpy(), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_cholesky_eigh(dtype):
    A = spd(4, (2,), dtype).astype(dtype)
    L = ember.linalg.cholesky(to_ember(A))
    close(np.tril(L.numpy()), L.numpy(), dtype)
    close(np.matmul(L.numpy(), np.swapaxes(L.numpy(), -1, -2).conj()), A, dtype)
    U = ember.linalg.cholesky(to_ember(A), upper=True)
    close(np.matmul(np.swapaxes(U.numpy(), -1, -2).conj(), U.numpy()), A, dtype)
    w, V = ember.linalg.eigh(to_ember(A))
    assert w.dtype.is_floating_point
    close(np.matmul(V.numpy() * w.numpy()[..., None, :], np.swapaxes(V.numpy(), -1, -2).conj()), A, dtype)
    close(ember.linalg.eigvalsh(to_ember(A), UPLO="U").numpy(), np.linalg.eigvalsh(A), dtype)
    res = ember.linalg.eigh(to_ember(A))
    assert res.eigenvalues is not None and res.eigenvectors.shape == A.shape


def test_pinv_and_matrix_rank():
    A = rand((3, 5))
    close(ember.linalg.pinv(to_ember(A)).numpy(), np.linalg.pinv(A), "float64")
    low = rand((4, 2)) @ rand((2, 4))
    assert ember.linalg.matrix_rank(to_ember(low)).item() == 2
    assert ember.linalg.matrix_rank(to_ember(low), hermitian=False, atol=1e3).item() == 0
    S = spd(3)
    close(ember.linalg.pinv(to_ember(S), hermitian=True).numpy(), np.linalg.inv(S), "float64")


@needs_torch
def test_pinv_matches_torch():
    low = rand((4, 2)) @ rand((2, 4))
    close(ember.linalg.pinv(to_ember(low), hermitian=False).numpy(), torch.linalg.pinv(to_torch(low)).numpy(), "float64")


@needs_torch
def test_indefinite_errors_read_like_torch():
    cases = [
        (lambda lib, t: lib.linalg.cholesky(t), [[1.0, 2.0], [2.0, 1.0]]),
        (lambda lib, t: lib.linalg.cholesky(t), [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    ]
    for call, data in cases:
        with pytest.raises(RuntimeError) as expected:
            call(torch, torch.tensor(data))
        with pytest.raises(ember.linalg.LinAlgError) as got:
            call(ember, ember.tensor(data))
        assert str(got.value) == str(expected.value)


def test_argument_errors():
    with pytest.raises(RuntimeError, match="qr received unrecognized mode 'x'"):
        ember.linalg.qr(ember.ones(3, 2), mode="x")
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        ember.linalg.eigh(ember.ones(2, 2), UPLO="X")


def test_empty_matrices():
    U, S, Vh = ember.linalg.svd(ember.ones(0, 2))
    assert U.shape == (0, 0) and S.shape == (0,) and Vh.shape == (2, 2)


# ---------------------------------------------------------------------------------------
# derivatives


def _svd_rebuild(a):
    U, S, Vh = LA.svd(a, full_matrices=False)
    return U @ ember.diag_embed(S) @ Vh


def _svd_gauge(a):
    U, S, Vh = LA.svd(a, full_matrices=False)
    return S, U * U, Vh * Vh


def _svd_full(a):
    U, S, Vh = LA.svd(a, full_matrices=True)
    k = S.shape[-1]
    return U[..., :k] @ ember.diag_embed(S.pow(2)) @ Vh[..., :k, :]


def _eigh_gauge(a):
    L, V = LA.eigh(a + a.mT)
    return L, V * V


def _eigh_rebuild(a):
    L, V = LA.eigh(a + a.mT)
    return V @ ember.diag_embed(L.pow(3)) @ V.mT


CASES = {
    "cholesky": (lambda a: LA.cholesky(spd_of(a)), lambda: (R(2, 3, 3),)),
    "cholesky_upper": (lambda a: LA.cholesky(spd_of(a), upper=True), lambda: (R(3, 3),)),
    "qr_tall": (lambda a: tuple(LA.qr(a)), lambda: (R(4, 3),)),
    "qr_square_batched": (lambda a: tuple(LA.qr(a)), lambda: (R(2, 3, 3),)),
    "qr_wide": (lambda a: tuple(LA.qr(a)), lambda: (R(3, 5),)),
    "svd_S": (lambda a: LA.svd(a, full_matrices=False).S, lambda: (R(4, 3),)),
    "svd_rebuild": (_svd_rebuild, lambda: (R(4, 3),)),
    "svd_rebuild_wide_batched": (_svd_rebuild, lambda: (R(2, 3, 5),)),
    "svd_gauge": (_svd_gauge, lambda: (R(4, 3),)),
    "svd_full_matrices": (_svd_full, lambda: (R(3, 5),)),
    "svdvals": (lambda a: LA.svdvals(a), lambda: (R(2, 4, 3),)),
    "eigh_gauge": (_eigh_gauge, lambda: (R(2, 3, 3),)),
    "eigh_rebuild": (_eigh_rebuild, lambda: (R(3, 3),)),
    "eigvalsh": (lambda a: LA.eigvalsh(a + a.mT), lambda: (R(2, 3, 3),)),
    "pinv_tall": (lambda a: LA.pinv(a), lambda: (R(4, 3),)),
    "pinv_wide": (lambda a: LA.pinv(a), lambda: (R(2, 3, 4),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize(
    "name", ["cholesky", "qr_tall", "svdvals", "eigvalsh", "pinv_tall", "svd_rebuild", "eigh_gauge", "qr_wide"]
)
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


@needs_torch
def test_gradients_match_torch():
    a = GRAD_RNG.standard_normal((2, 4, 3))
    sq = GRAD_RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    grads_match_torch(lambda x: tuple(LA.qr(x)), lambda x: tuple(torch.linalg.qr(x)), [a])
    grads_match_torch(lambda x: LA.svdvals(x), lambda x: torch.linalg.svdvals(x), [a])
    grads_match_torch(lambda x: LA.pinv(x), lambda x: torch.linalg.pinv(x), [a])
    grads_match_torch(lambda x: LA.cholesky(spd_of(x)), lambda x: torch.linalg.cholesky(x @ x.mT + torch.eye(3, dtype=x.dtype)), [sq])
    grads_match_torch(
        lambda x: LA.eigh(x + x.mT).eigenvalues,
        lambda x: torch.linalg.eigh(x + x.mT).eigenvalues,
        [sq],
    )


def test_svd_unused_outputs_and_qr_mode_r():
    x = R(4, 3)
    LA.svd(x, full_matrices=False).S.sum().backward()  # U and Vh unused: zero gradients flow
    U, _, Vh = np.linalg.svd(x.detach().numpy(), full_matrices=False)
    np.testing.assert_allclose(x.grad.numpy(), U @ Vh, atol=1e-10)
    _, r = LA.qr(R(4, 3), mode="r")
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()
