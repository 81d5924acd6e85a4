"""Derivatives of the linalg primitives: gradcheck, gradgradcheck and torch's gradients.

The decompositions are checked with well-conditioned random real matrices (distinct singular
values / eigenvalues) through gauge-invariant functions: U diag(S) Vh, S alone, U * U (the
sign of each singular vector squares away), eigenvalues, cholesky of X X^T + I. Complex inputs
are not tested here.
"""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

LA = ember.linalg
RNG = np.random.default_rng(0)


def T(a):
    return ember.tensor(np.asarray(a, dtype=np.float64), dtype=ember.float64, requires_grad=True)


def R(*shape):
    return T(RNG.standard_normal(shape))


def WC(*shape):
    """Well-conditioned square matrices."""
    return T(RNG.standard_normal(shape) + 3 * np.eye(shape[-1]))


def _spd(a):
    return a @ a.mT + ember.eye(a.shape[-1], dtype=ember.float64)


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
    # matmul: every 1-D / 2-D / batched case, broadcast batch dims reduced with sum_to
    "matmul_mm": (lambda a, b: a @ b, lambda: (R(3, 4), R(4, 2))),
    "matmul_mv": (lambda a, b: a @ b, lambda: (R(3, 4), R(4))),
    "matmul_vm": (lambda a, b: a @ b, lambda: (R(4), R(4, 2))),
    "matmul_dot": (lambda a, b: a @ b, lambda: (R(4), R(4))),
    "matmul_batched_broadcast": (lambda a, b: a @ b, lambda: (R(2, 1, 3, 4), R(3, 4, 2))),
    "matmul_batch_vec": (lambda a, b: a @ b, lambda: (R(2, 3, 4), R(4))),
    "matmul_vec_batch": (lambda a, b: a @ b, lambda: (R(4), R(2, 4, 3))),
    "matmul_batch_mat": (lambda a, b: a @ b, lambda: (R(2, 3, 4), R(4, 2))),
    "matmul_mat_batch": (lambda a, b: a @ b, lambda: (R(3, 4), R(2, 4, 2))),
    "outer": (lambda a, b: ember.outer(a, b), lambda: (R(3), R(4))),
    "vdot": (lambda a, b: ember.vdot(a, b), lambda: (R(3), R(3))),
    "tensordot_int": (lambda a, b: ember.tensordot(a, b, 1), lambda: (R(3, 4), R(4, 2))),
    "tensordot_lists": (lambda a, b: ember.tensordot(a, b, dims=([1, 0], [0, 2])), lambda: (R(3, 4, 2), R(4, 5, 3))),
    "einsum_mm": (lambda a, b: ember.einsum("ij,jk->ik", a, b), lambda: (R(3, 4), R(4, 2))),
    "einsum_diag": (lambda a: ember.einsum("ii->i", a), lambda: (R(3, 3),)),
    "einsum_trace_and_sum": (lambda a, b: ember.einsum("iij,k->j", a, b), lambda: (R(3, 3, 2), R(4))),
    "einsum_ellipsis_broadcast": (lambda a, b: ember.einsum("...ij,...jk", a, b), lambda: (R(2, 3, 4), R(1, 4, 2))),
    "einsum_three": (lambda a, b, c: ember.einsum("ij,jk,kl->il", a, b, c), lambda: (R(2, 3), R(3, 4), R(4, 2))),
    "inv": (lambda a: LA.inv(a), lambda: (WC(2, 3, 3),)),
    "det": (lambda a: LA.det(a), lambda: (WC(2, 3, 3),)),
    "det_singular": (lambda a: LA.det(a), lambda: (T([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),)),
    "slogdet": (lambda a: LA.slogdet(a).logabsdet, lambda: (WC(2, 3, 3),)),
    "solve": (lambda a, b: LA.solve(a, b), lambda: (WC(3, 3), R(2, 3, 2))),
    "solve_vector": (lambda a, b: LA.solve(a, b), lambda: (WC(2, 3, 3), R(3))),
    "solve_right": (lambda a, b: LA.solve(a, b, left=False), lambda: (WC(3, 3), R(2, 3))),
    "cholesky": (lambda a: LA.cholesky(_spd(a)), lambda: (R(2, 3, 3),)),
    "cholesky_upper": (lambda a: LA.cholesky(_spd(a), upper=True), lambda: (R(3, 3),)),
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
    "matrix_power_3": (lambda a: LA.matrix_power(a, 3), lambda: (R(3, 3),)),
    "matrix_power_1": (lambda a: LA.matrix_power(a, 1), lambda: (R(3, 3),)),
    "matrix_power_0": (lambda a: LA.matrix_power(a, 0), lambda: (R(3, 3),)),
    "matrix_power_neg": (lambda a: LA.matrix_power(a, -2), lambda: (WC(2, 3, 3),)),
    "vector_norm_2": (lambda a: LA.vector_norm(a, dim=1), lambda: (R(3, 4),)),
    "vector_norm_1": (lambda a: LA.vector_norm(a, 1), lambda: (R(3, 4),)),
    "vector_norm_3_keepdim": (lambda a: LA.vector_norm(a, 3, dim=(0,), keepdim=True), lambda: (R(3, 4),)),
    "vector_norm_half": (lambda a: LA.vector_norm(a, 0.5, dim=1), lambda: (R(3, 4),)),
    "vector_norm_inf": (lambda a: LA.vector_norm(a, float("inf"), dim=1), lambda: (R(3, 4),)),
    "vector_norm_neg_inf": (lambda a: LA.vector_norm(a, float("-inf")), lambda: (R(3, 4),)),
    "matrix_norm_fro": (lambda a: LA.matrix_norm(a), lambda: (R(2, 3, 4),)),
    "matrix_norm_nuc": (lambda a: LA.matrix_norm(a, "nuc"), lambda: (R(2, 3, 4),)),
    "matrix_norm_2": (lambda a: LA.matrix_norm(a, 2), lambda: (R(3, 4),)),
    "matrix_norm_neg2_keepdim": (lambda a: LA.matrix_norm(a, -2, keepdim=True), lambda: (R(2, 3, 4),)),
    "matrix_norm_1_dims": (lambda a: LA.matrix_norm(a, 1, dim=(0, 2)), lambda: (R(3, 2, 4),)),
    "matrix_norm_neg1": (lambda a: LA.matrix_norm(a, -1), lambda: (R(3, 4),)),
    "matrix_norm_inf_dims": (lambda a: LA.matrix_norm(a, float("inf"), dim=(2, 0), keepdim=True), lambda: (R(3, 2, 4),)),
    "matrix_norm_neg_inf": (lambda a: LA.matrix_norm(a, float("-inf")), lambda: (R(3, 4),)),
    "vecdot": (lambda a, b: LA.vecdot(a, b), lambda: (R(2, 3), R(3))),
    "vecdot_dim0": (lambda a, b: LA.vecdot(a, b, dim=0), lambda: (R(3, 2), R(3, 1))),
    "cross": (lambda a, b: LA.cross(a, b), lambda: (R(2, 3), R(1, 3))),
    "cross_dim0": (lambda a, b: LA.cross(a, b, dim=0), lambda: (R(3, 2), R(3, 2))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize(
    "name",
    ["matmul_batched_broadcast", "matmul_vec_batch", "einsum_three", "tensordot_lists", "inv", "det", "slogdet", "solve",
     "cholesky", "qr_tall", "svdvals", "eigvalsh", "pinv_tall", "matrix_power_neg", "vector_norm_3_keepdim",
     "matrix_norm_fro", "matrix_norm_nuc", "vecdot", "cross", "outer", "svd_rebuild", "eigh_gauge", "qr_wide"],
)  # fmt: skip
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


def _compare(fn, torch_fn, arrays):
    torch = pytest.importorskip("torch")
    xs = [T(a) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = fn(*xs)
    touts = torch_fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    touts = touts if isinstance(touts, tuple) else (touts,)
    loss, tloss = 0, 0
    for o, to in zip(outs, touts, strict=True):
        w = RNG.standard_normal(tuple(to.shape))
        loss = loss + (o * ember.tensor(w)).sum()
        tloss = tloss + (to * torch.tensor(w)).sum()
    loss.backward()
    tloss.backward()
    for x, t in zip(xs, ts, strict=True):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_matmul_broadcast_matches_torch():
    _compare(lambda a, b: a @ b, lambda a, b: a @ b, [RNG.standard_normal((2, 1, 3, 4)), RNG.standard_normal((3, 4, 2))])
    _compare(lambda a, b: a @ b, lambda a, b: a @ b, [RNG.standard_normal(4), RNG.standard_normal((2, 4, 3))])


def test_einsum_matches_torch():
    torch = pytest.importorskip("torch")
    _compare(
        lambda a, b: ember.einsum("bii,bj->bj", a, b),
        lambda a, b: torch.einsum("bii,bj->bj", a, b),
        [RNG.standard_normal((2, 3, 3)), RNG.standard_normal((2, 4))],
    )


def test_decompositions_match_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((2, 4, 3))
    sq = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    _compare(lambda x: LA.inv(x), lambda x: torch.linalg.inv(x), [sq])
    _compare(lambda x: LA.det(x), lambda x: torch.linalg.det(x), [sq])
    _compare(lambda x, b: LA.solve(x, b), lambda x, b: torch.linalg.solve(x, b), [sq, RNG.standard_normal((3, 2))])
    _compare(lambda x: tuple(LA.qr(x)), lambda x: tuple(torch.linalg.qr(x)), [a])
    _compare(lambda x: LA.svdvals(x), lambda x: torch.linalg.svdvals(x), [a])
    _compare(lambda x: LA.pinv(x), lambda x: torch.linalg.pinv(x), [a])
    _compare(lambda x: LA.cholesky(_spd(x)), lambda x: torch.linalg.cholesky(x @ x.mT + torch.eye(3, dtype=x.dtype)), [sq])
    _compare(
        lambda x: LA.eigh(x + x.mT).eigenvalues,
        lambda x: torch.linalg.eigh(x + x.mT).eigenvalues,
        [sq],
    )
    _compare(lambda x: LA.matrix_power(x, -3), lambda x: torch.linalg.matrix_power(x, -3), [sq])
    for order in ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf")):
        _compare(lambda x, o=order: LA.matrix_norm(x, o), lambda x, o=order: torch.linalg.matrix_norm(x, o), [a])


def test_det_singular_is_the_cofactor_matrix():
    # torch 2.x returns zeros here (and fails its own gradcheck); the derivative of det is the cofactor matrix
    s = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    x = T(s)
    LA.det(x).backward()
    cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(s, i, 0), j, 1)) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(x.grad.numpy(), cof, atol=1e-10)


def test_svd_unused_outputs_and_qr_mode_r():
    x = R(4, 3)
    LA.svd(x, full_matrices=False).S.sum().backward()  # U and Vh unused: zero gradients flow
    U, _, Vh = np.linalg.svd(x.detach().numpy(), full_matrices=False)
    np.testing.assert_allclose(x.grad.numpy(), U @ Vh, atol=1e-10)
    _, r = LA.qr(R(4, 3), mode="r")
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()
