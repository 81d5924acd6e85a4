"""The ``linalg`` extension."""

from __future__ import annotations

import numpy as np

import ember.array_api as xp

from ._reference import E, check


def test_linalg_adapters():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 3))
    check(xp.linalg.vector_norm(E(a)), np.linalg.vector_norm(a), rtol=1e-12)
    for kw in ({"axis": 1}, {"axis": (0, 2), "keepdims": True, "ord": 1}, {"ord": np.inf}, {"ord": 0}, {"axis": -1, "ord": 3}):
        check(xp.linalg.vector_norm(E(a), **kw), np.linalg.vector_norm(a, **kw), rtol=1e-12)
    for kw in ({}, {"keepdims": True}, {"ord": "nuc"}, {"ord": 1}, {"ord": -np.inf}, {"ord": 2, "keepdims": True}):
        check(xp.linalg.matrix_norm(E(a), **kw), np.linalg.matrix_norm(a, **kw), rtol=1e-10)
    i = np.arange(9, dtype=np.uint8).reshape(3, 3)
    check(xp.linalg.trace(E(i)), np.linalg.trace(i))
    check(xp.linalg.trace(E(a), offset=1), np.linalg.trace(a, offset=1), rtol=1e-12)
    check(xp.linalg.trace(E(a), offset=-2, dtype=xp.float32), np.linalg.trace(a, offset=-2, dtype=np.float32), rtol=1e-6)
    check(xp.linalg.diagonal(E(a), offset=-1), np.linalg.diagonal(a, offset=-1))
    b1 = rng.standard_normal(3)
    check(xp.linalg.solve(E(a), E(b1)), np.linalg.solve(a, b1), rtol=1e-10)
    b2 = rng.standard_normal((3, 2))
    check(xp.linalg.solve(E(a), E(b2)), np.linalg.solve(a, b2), rtol=1e-10)
    # PyTorch would read a (3, 3) x2 beside a (3, 3, 3) x1 as a batch of vectors; the standard as a matrix
    a3, b3 = rng.standard_normal((3, 3, 3)), rng.standard_normal((3, 3))
    check(xp.linalg.solve(E(a3), E(b3)), np.linalg.solve(a3, b3), rtol=1e-10)
    check(xp.linalg.pinv(E(a)), np.linalg.pinv(a), rtol=1e-8, atol=1e-10)
    s = np.diag([4.0, 1.0, 0.01])[None].repeat(2, 0)
    check(xp.linalg.pinv(E(s), rtol=0.1), np.linalg.pinv(s, rtol=0.1), rtol=1e-10)
    rt = np.array([0.1, 0.001])
    check(xp.linalg.pinv(E(s), rtol=E(rt)), np.linalg.pinv(s, rtol=rt), rtol=1e-10)
    check(xp.linalg.matrix_rank(E(s), rtol=0.1), np.linalg.matrix_rank(s, rtol=0.1))
    check(xp.linalg.cross(E(a[0]), E(a[1]), axis=0), np.linalg.cross(a[0], a[1], axis=0), rtol=1e-12)
    check(xp.linalg.det(E(a)), np.linalg.det(a), rtol=1e-10)
    check(xp.linalg.inv(E(a)), np.linalg.inv(a), rtol=1e-8)
    check(xp.linalg.outer(E(b1), E(b1)), np.linalg.outer(b1, b1), rtol=1e-12)
    check(xp.linalg.matrix_power(E(a), 3), np.linalg.matrix_power(a, 3), rtol=1e-10)
    sign, logdet = xp.linalg.slogdet(E(a))
    want = np.linalg.slogdet(a)
    check(sign, want.sign)
    check(logdet, want.logabsdet, rtol=1e-10)
    spd = a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)
    check(xp.linalg.cholesky(E(spd)), np.linalg.cholesky(spd), rtol=1e-10)
    check(xp.linalg.cholesky(E(spd), upper=True), np.linalg.cholesky(spd, upper=True), rtol=1e-10)
    check(xp.linalg.eigvalsh(E(spd)), np.linalg.eigvalsh(spd), rtol=1e-10)
    check(xp.linalg.svdvals(E(a)), np.linalg.svdvals(a), rtol=1e-10)
    q, r = xp.linalg.qr(E(a[0]))
    np.testing.assert_allclose((q @ r).numpy(), a[0], rtol=1e-10, atol=1e-12)
    u, sv, vh = xp.linalg.svd(E(a), full_matrices=False)
    np.testing.assert_allclose(((u * sv[..., None, :]) @ vh).numpy(), a, rtol=1e-10, atol=1e-12)
    w, v = xp.linalg.eigh(E(spd))
    np.testing.assert_allclose((v @ (w[..., :, None] * v.mT)).numpy(), spd, rtol=1e-10)


def test_linalg_eig_cross_and_array_rtol():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 4, 4))
    w, v = xp.linalg.eig(E(a))
    assert w.dtype == xp.complex128 and v.dtype == xp.complex128
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy()[..., None, :], atol=1e-10)
    check(xp.linalg.eigvals(E(a)), w.numpy(), rtol=1e-12)
    assert xp.linalg.eigvals(E(a.astype(np.float32))).dtype == xp.complex64
    # cross: the other axes broadcast across different numbers of dimensions
    x1, x2 = rng.standard_normal((2, 4, 3)), rng.standard_normal(3)
    check(xp.linalg.cross(E(x1), E(x2)), np.cross(x1, x2), rtol=1e-12)
    assert xp.linalg.cross(xp.zeros((0, 3), dtype=xp.uint8), xp.asarray([0, 0, 0], dtype=xp.uint8)).shape == (0, 3)
    s = np.diag([4.0, 1.0, 0.01])[None].repeat(2, 0)
    check(xp.linalg.matrix_rank(E(s), rtol=E(np.array([0.1, 0.001]))), np.array([2, 3]))
