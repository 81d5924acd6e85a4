"""linalg.matrix_rank and linalg.pinv with tensor tolerances (one per matrix, broadcasting
against the batch), the legacy positional tol/rcond, and pinverse: against NumPy's SVD,
PyTorch's rules for the defaults, errors, and the pseudo-inverse's derivative."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import check, needs_torch, to_ember, torch

from ._helpers import R, close, rand

LA = ember.linalg


def numpy_rank(A, atol, rtol):
    S = np.linalg.svd(A, compute_uv=False)
    cut = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * S.max(-1, keepdims=True))
    return (cut < S).sum(-1)


def test_matrix_rank_tensor_tolerances():
    A = rand((2, 5, 4))
    S = np.linalg.svd(A, compute_uv=False)
    atol = (S[:, 1] + S[:, 2]) / 2  # between the 2nd and 3rd singular values: rank 2 each
    assert LA.matrix_rank(to_ember(A), atol=to_ember(atol)).tolist() == [2, 2]
    rtol = np.array([0.0, 2.0])
    assert LA.matrix_rank(to_ember(A), rtol=to_ember(rtol)).tolist() == [4, 0]
    rtol = np.array([[0.0], [2.0]])  # broadcasts against the batch: (2, 1) with (2,) gives (2, 2)
    assert LA.matrix_rank(to_ember(A), rtol=to_ember(rtol)).tolist() == [[4, 4], [0, 0]]
    both = LA.matrix_rank(to_ember(A), atol=to_ember(atol), rtol=ember.tensor(0.5, dtype=ember.float64))
    assert both.tolist() == numpy_rank(A, atol, 0.5).tolist()
    assert LA.matrix_rank(to_ember(A), ember.tensor([100.0, 0.0])).tolist() == [0, 4]  # positional tol is atol
    assert LA.matrix_rank(to_ember(A), 100.0).tolist() == [0, 0]
    assert LA.matrix_rank(to_ember(A), atol=ember.tensor([0, 100])).tolist() == [4, 0]  # integer tolerances too


def test_matrix_rank_defaults_per_matrix():
    # atol > 0 zeroes rtol for that matrix only; atol = 0 keeps the default eps * max(m, n)
    A = np.stack([np.diag([1.0, 1e-17]), np.diag([1.0, 1e-17])])
    assert LA.matrix_rank(to_ember(A), atol=ember.tensor([0.0, 1e-20], dtype=ember.float64)).tolist() == [1, 2]
    out = ember.empty(2, dtype=ember.int64)
    assert LA.matrix_rank(to_ember(A), rtol=ember.tensor(0.5), out=out) is out
    assert out.tolist() == [1, 1]
    H = A + np.swapaxes(A, -1, -2)
    assert LA.matrix_rank(to_ember(H), atol=ember.tensor(1e-20), hermitian=True).tolist() == [2, 2]
    assert LA.matrix_rank(ember.zeros((0, 2, 2)), rtol=ember.zeros(0)).shape == (0,)


def test_tolerance_errors():
    A = ember.ones((2, 3, 3))
    with pytest.raises(TypeError):  # a tensor beside a float: no overload, as torch
        LA.matrix_rank(A, atol=ember.tensor([1.0, 2.0]), rtol=0.1)
    with pytest.raises(RuntimeError):
        LA.matrix_rank(A, atol=ember.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="complex type is not supported"):
        LA.pinv(A, rtol=ember.tensor(1j))


@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_tensor_tolerances(hermitian):
    A = rand((2, 4, 4))
    if hermitian:
        A = A + np.swapaxes(A, -1, -2)
    rtol = np.array([0.0, 0.5])
    got = LA.pinv(to_ember(A), rtol=to_ember(rtol), hermitian=hermitian).numpy()
    close(got[0], np.linalg.pinv(A[0]), "float64")
    close(got[1], np.linalg.pinv(A[1], rcond=0.5, hermitian=hermitian), "float64")
    close(
        LA.pinv(to_ember(A), to_ember(rtol)).numpy(),
        got if not hermitian else LA.pinv(to_ember(A), to_ember(rtol)).numpy(),
        "float64",
    )
    close(LA.pinv(to_ember(A), 0.5).numpy(), np.linalg.pinv(A, rcond=0.5), "float64")


def test_pinverse():
    A = rand((3, 5, 2))
    close(ember.pinverse(to_ember(A)).numpy(), np.linalg.pinv(A), "float64")
    close(to_ember(A).pinverse(rcond=0.9).numpy(), np.linalg.pinv(A, rcond=0.9), "float64")
    assert ember.pinverse(ember.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist() == [[0.5, 0.0], [0.0, 0.0]]


def test_gradcheck():
    assert gradcheck(lambda a: LA.pinv(a, atol=ember.tensor(1e-3, dtype=ember.float64)), (R(2, 4, 3),))
    assert gradcheck(ember.pinverse, (R(3, 4),))


@needs_torch
@pytest.mark.parametrize(
    "kwargs", [{"atol": [0.5, 100.0]}, {"rtol": [[0.5], [1.0]]}, {"atol": 0.5}, {"atol": [0.5], "rtol": 0.1}]
)
@pytest.mark.parametrize("hermitian", [False, True])
def test_matches_torch(kwargs, hermitian):
    A = rand((2, 4, 4))
    if hermitian:
        A = A + np.swapaxes(A, -1, -2)
    arrays = {k: np.asarray(v, dtype=np.float64) for k, v in kwargs.items()}

    def call(lib, fn):
        return lambda a: getattr(lib.linalg, fn)(a, hermitian=hermitian, **{k: lib.tensor(v) for k, v in arrays.items()})

    check(call(ember, "matrix_rank"), call(torch, "matrix_rank"), A)
    check(call(ember, "pinv"), call(torch, "pinv"), A, grad=not hermitian)
