"""NaN, infinities, singular matrices and empty batches through the decompositions and solvers
give PyTorch's result or its error (type and words).

NumPy's LAPACK lets a NaN pivot through ``cholesky``, leaves rows of an inverse finite and says
"SVD did not converge"; these tests pin PyTorch's behaviour, with a NumPy reference where one
exists so the suite without torch still checks it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

INF, NAN = math.inf, math.nan
LA = ember.linalg

MATRICES = {
    "nan": [[NAN, 0.0], [0.0, 1.0]],
    "inf": [[INF, 0.0], [0.0, 1.0]],
    "nan_below": [[1.0, 0.0], [NAN, 1.0]],
    "nan_above": [[1.0, NAN], [0.0, 1.0]],
    "nan_last": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, NAN]],
    "inf_off": [[1.0, INF], [INF, 1.0]],
    "singular": [[1.0, 2.0], [2.0, 4.0]],
    "zero": [[0.0, 0.0], [0.0, 0.0]],
    "indefinite": [[1.0, 2.0], [2.0, 1.0]],
    "ok": [[2.0, 1.0], [1.0, 2.0]],
}
EMPTY = {"0x0": np.zeros((0, 0)), "batch0": np.zeros((0, 2, 2)), "batch0x0": np.zeros((3, 0, 0))}


@pytest.mark.parametrize(
    ("name", "order"),
    [("nan", 1), ("nan_below", 2), ("nan_last", 3), ("inf_off", 2), ("singular", 2), ("zero", 1), ("indefinite", 2)],
)
def test_cholesky_refuses_nan_pivots_with_pytorchs_error(name, order):
    words = (
        "linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
        f"(the leading minor of order {order} is not positive-definite)."
    )
    with pytest.raises(LA.LinAlgError) as info:
        LA.cholesky(ember.tensor(MATRICES[name], dtype=ember.float64))
    assert str(info.value) == words
    assert isinstance(info.value, RuntimeError)
    if torch is not None:
        with pytest.raises(RuntimeError) as expected:
            torch.linalg.cholesky(torch.tensor(MATRICES[name], dtype=torch.float64))
        assert str(expected.value) == words


def test_cholesky_reads_one_triangle_and_names_the_batch_element():
    L = LA.cholesky(ember.tensor(MATRICES["nan_above"]))  # the upper triangle is not read
    np.testing.assert_array_equal(L.numpy(), np.eye(2))
    batch = ember.tensor([MATRICES["ok"], MATRICES["nan_below"]])
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\): .* leading minor of order 2 "):
        LA.cholesky(batch)
    with pytest.raises(LA.LinAlgError, match=r"leading minor of order 2 "):
        LA.cholesky(ember.tensor(MATRICES["nan_above"]), upper=True)
    np.testing.assert_array_equal(LA.cholesky(ember.tensor(MATRICES["nan_below"]), upper=True).numpy(), np.eye(2))


@pytest.mark.parametrize("name", ["nan", "nan_below", "nan_above", "nan_last"])
def test_a_nan_spreads_over_the_whole_inverse_and_solution(name):
    A = ember.tensor(MATRICES[name], dtype=ember.float64)
    n = A.shape[-1]
    assert np.isnan(LA.inv(A).numpy()).all()
    assert np.isnan(LA.solve(A, ember.ones(n, dtype=ember.float64)).numpy()).all()
    assert np.isnan(LA.solve(A, ember.ones(2, n, dtype=ember.float64), left=False).numpy()).all()
    sign, logabsdet = LA.slogdet(A)
    assert sign.item() == 0.0 and math.isnan(logabsdet.item())
    batch = ember.stack([ember.eye(n, dtype=ember.float64), A])  # only the matrix holding the NaN
    np.testing.assert_array_equal(LA.inv(batch)[0].numpy(), np.eye(n))
    assert np.isnan(LA.inv(batch)[1].numpy()).all()


SVD_USERS = {
    "svd": lambda la, A: la.svd(A),
    "svdvals": lambda la, A: la.svdvals(A),
    "pinv": lambda la, A: la.pinv(A),
    "matrix_rank": lambda la, A: la.matrix_rank(A),
    "matrix_norm_2": lambda la, A: la.matrix_norm(A, 2),
    "matrix_norm_nuc": lambda la, A: la.matrix_norm(A, "nuc"),
}


@pytest.mark.parametrize("name", sorted(SVD_USERS))
def test_svd_of_a_nan_raises_pytorchs_linalg_error(name):
    batch = np.stack([np.eye(2), np.eye(2), np.eye(2)])
    batch[1, 0, 0] = NAN
    words = (
        "linalg.svd: (Batch element 1): The algorithm failed to converge because the input matrix contained non-finite values."
    )
    with pytest.raises(LA.LinAlgError) as info:
        SVD_USERS[name](LA, ember.tensor(batch))
    assert str(info.value) == words
    if torch is not None:
        with pytest.raises(RuntimeError) as expected:
            SVD_USERS[name](torch.linalg, torch.tensor(batch))
        assert str(expected.value) == words


OPS = {
    "cholesky": lambda la, m, A: la.cholesky(A),
    "inv": lambda la, m, A: la.inv(A),
    "solve": lambda la, m, A: la.solve(A, m.ones(A.shape[:-1], dtype=A.dtype)),
    "det": lambda la, m, A: la.det(A),
    "slogdet": lambda la, m, A: la.slogdet(A),
    "eigh": lambda la, m, A: la.eigh(A),
    "eigvalsh": lambda la, m, A: la.eigvalsh(A),
    "svd": lambda la, m, A: la.svd(A),
    "svdvals": lambda la, m, A: la.svdvals(A),
    "qr": lambda la, m, A: la.qr(A),
    "pinv": lambda la, m, A: la.pinv(A),
    "matrix_rank": lambda la, m, A: la.matrix_rank(A),
    "matrix_norm": lambda la, m, A: la.matrix_norm(A, 2),
}


SVD_BASED = {"svdvals", "pinv", "matrix_rank", "matrix_norm"}


def _outcome(lib, name, data):
    la, m = (LA, ember) if lib == "ember" else (torch.linalg, torch)
    try:
        result = OPS[name](la, m, m.tensor(data, dtype=m.float64))
    except RuntimeError as error:  # LinAlgError included
        return "error", str(error)
    parts = result if isinstance(result, tuple) else (result,)
    return "ok", [np.asarray(p.numpy(), np.float64) for p in parts]


@needs_torch
@pytest.mark.parametrize("matrix", sorted(MATRICES) + sorted(EMPTY))
@pytest.mark.parametrize("name", sorted(OPS))
def test_decompositions_and_solvers_match_torch(name, matrix):
    data = np.asarray(MATRICES[matrix] if matrix in MATRICES else EMPTY[matrix], np.float64)
    if name in ("eigh", "eigvalsh", "qr", "svd") and matrix in ("nan", "inf", "nan_below", "nan_above", "nan_last", "inf_off"):
        pytest.skip("LAPACK's vectors of a non-finite matrix are implementation-defined")
    got, expected = _outcome("ember", name, data), _outcome("torch", name, data)
    if name in SVD_BASED and matrix in ("inf", "inf_off"):
        # LAPACK's SVD may never end on an inf, so ember does not call it there: NaN, torch's is unspecified
        assert got[0] == "ok" and expected[0] == "ok"
        assert all(np.isnan(a).all() for a in got[1]) or name == "matrix_rank"
        return
    assert got[0] == expected[0], (got, expected)
    if got[0] == "error":
        assert got[1] == expected[1]
        return
    for a, b in zip(got[1], expected[1], strict=True):
        assert a.shape == b.shape
        if name in ("svd", "qr", "eigh") and a.ndim >= 2:
            continue  # vectors are defined up to sign
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("op", ["svdvals", "pinv", "matrix_norm", "eigvalsh"])
def test_lapack_never_sees_a_matrix_holding_an_inf(op, monkeypatch):
    # LAPACK's SVD may loop forever on one; a batch's finite matrices keep their own values
    calls = []
    real_svd, real_eigvalsh = np.linalg.svd, np.linalg.eigvalsh
    monkeypatch.setattr(np.linalg, "svd", lambda a, **k: calls.append(np.isfinite(a).all()) or real_svd(a, **k))
    monkeypatch.setattr(np.linalg, "eigvalsh", lambda a, **k: calls.append(np.isfinite(a).all()) or real_eigvalsh(a, **k))
    batch = ember.tensor([[[INF, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 1.0]]], dtype=ember.float64)
    result = OPS[op](LA, ember, batch).numpy()
    assert calls and all(calls)
    assert np.isnan(result[0]).all() and np.isfinite(result[1]).all()


def test_eigh_of_a_batch_with_a_non_finite_matrix_is_nan_there_only():
    a = np.array([[[np.nan, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 1.0]]])
    w, v = ember.linalg.eigh(ember.tensor(a))
    assert w.shape == (2, 2) and v.shape == (2, 2, 2)
    np.testing.assert_allclose(w[1].numpy(), [1.0, 2.0])  # the finite matrix keeps its own
    values = ember.linalg.eigvalsh(ember.tensor(a))
    np.testing.assert_allclose(values[1].numpy(), [1.0, 2.0])


def test_hermitian_matrix_rank_needs_square_matrices():
    with pytest.raises(RuntimeError, match=r"linalg\.eigh: A must be batches of square matrices, but they are 1 by 3 matrices"):
        ember.linalg.matrix_rank(ember.ones(1, 3), hermitian=True)
