"""linalg.lstsq: solutions against NumPy's lstsq (the minimum-norm one), which fields each driver
fills, batching and vectors, rank-deficient inputs and rcond, PyTorch's errors, and the
solution's derivative (gradcheck; torch's)."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import check, needs_torch, to_ember, torch

from ._helpers import R, close, rand

LA = ember.linalg
DRIVERS = ["gelsy", "gels", "gelsd", "gelss"]


def numpy_lstsq(A, B):
    """NumPy's minimum-norm solution, one matrix at a time over a broadcast batch."""
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A, B = np.broadcast_to(A, (*batch, *A.shape[-2:])), np.broadcast_to(B, (*batch, *B.shape[-2:]))
    X = np.zeros((*batch, A.shape[-1], B.shape[-1]), dtype=np.result_type(A, B))
    for idx in np.ndindex(batch):
        X[idx] = np.linalg.lstsq(A[idx], B[idx], rcond=None)[0]
    return X


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize(
    ("a_shape", "b_shape"), [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 5, 3), (1, 5, 2)), ((1, 4, 4), (3, 4, 1))]
)
def test_solution_and_fields(driver, dtype, a_shape, b_shape):
    A, B = rand(a_shape, dtype), rand(b_shape, dtype)
    r = LA.lstsq(to_ember(A), to_ember(B), driver=driver)
    assert type(r).__name__ == "linalg_lstsq"
    close(r.solution.numpy(), numpy_lstsq(A, B), dtype)
    m, n = a_shape[-2:]
    real = "float32" if dtype == "float32" else "float64"
    assert r.residuals.dtype.name == real and r.singular_values.dtype.name == real and r.rank.dtype == ember.int64
    if driver != "gelsy" and m > n:
        close(r.residuals.numpy(), (np.abs(A @ r.solution.numpy() - B) ** 2).sum(-2), dtype)
    else:
        assert r.residuals.shape == (0,)
    if driver == "gels":
        assert r.rank.shape == (0,)
    else:
        assert r.rank.tolist() == np.full(a_shape[:-2], min(m, n)).tolist()
    if driver in ("gelsd", "gelss"):
        close(r.singular_values.numpy(), np.linalg.svd(A, compute_uv=False), dtype)
    else:
        assert r.singular_values.shape == (0,)


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
def test_rank_deficient_gives_the_minimum_norm_solution(driver):
    A = rand((2, 5, 3))
    A[1, :, 2] = A[1, :, 0]  # the second matrix has rank 2
    B = rand((2, 5, 2))
    r = LA.lstsq(to_ember(A), to_ember(B), driver=driver)
    assert r.rank.tolist() == [3, 2]
    close(r.solution.numpy(), numpy_lstsq(A, B), "float64")
    assert r.residuals.shape == (0,)  # not every matrix has full rank
    # rcond sets the effective rank: a large one keeps only the dominant direction
    assert LA.lstsq(to_ember(A), to_ember(B), rcond=0.99, driver=driver).rank.tolist() == [1, 1]
    assert LA.lstsq(ember.zeros((3, 2)), ember.ones((3, 1)), driver=driver).solution.tolist() == [[0.0], [0.0]]


def test_vector_right_hand_side_and_empty():
    A, b = rand((4, 3)), rand(4)
    r = LA.lstsq(to_ember(A), to_ember(b), driver="gelsd")
    assert r.solution.shape == (3,) and r.residuals.shape == (1,) and r.rank.shape == ()
    close(r.solution.numpy(), np.linalg.lstsq(A, b, rcond=None)[0], "float64")
    r = LA.lstsq(to_ember(rand((2, 4, 3))), to_ember(rand((2, 4))))
    assert r.solution.shape == (2, 3)
    r = LA.lstsq(ember.zeros((2, 4, 0)), ember.ones((2, 4, 2)), driver="gelsd")
    assert r.solution.shape == (2, 0, 2) and r.residuals.tolist() == [[4.0, 4.0]] * 2
    assert LA.lstsq(ember.zeros((0, 4, 3)), ember.ones((0, 4, 2))).solution.shape == (0, 3, 2)


def test_errors():
    A = ember.ones((2, 4, 3))
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        LA.lstsq(A, ember.ones((2, 4, 2)), driver="foo")
    with pytest.raises(RuntimeError, match="Expected input and other to have the same dtype"):
        LA.lstsq(A, ember.ones((2, 4, 2), dtype=ember.float64))
    with pytest.raises(RuntimeError, match=r"input.size\(-2\) should match other.size\(-2\)"):
        LA.lstsq(A, ember.ones((2, 3, 2)))
    with pytest.raises(RuntimeError, match="input must have at least 2 dimensions"):
        LA.lstsq(ember.ones(3), ember.ones(3))
    with pytest.raises(RuntimeError, match=r"input.dim\(\) must be greater or equal to other.dim\(\)"):
        LA.lstsq(ember.ones((4, 3)), ember.ones((2, 4, 2)))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        LA.lstsq(ember.ones((4, 3), dtype=ember.int32), ember.ones((4, 2), dtype=ember.int32))


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(("a_shape", "b_shape"), [((4, 3), (4, 2)), ((3, 4), (3,)), ((1, 4, 3), (2, 4, 2))])
def test_gradcheck(driver, a_shape, b_shape):
    assert gradcheck(lambda a, b: LA.lstsq(a, b, driver=driver).solution, (R(*a_shape), R(*b_shape)))


def test_only_the_solution_is_differentiable():
    r = LA.lstsq(R(4, 3), R(4, 2), driver="gelsd")
    assert r.solution.requires_grad
    assert not (r.residuals.requires_grad or r.rank.requires_grad or r.singular_values.requires_grad)


@needs_torch
@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((2, 5, 3), (2, 5, 2)), ((3, 5), (3,)), ((1, 2, 4, 3), (2, 1, 4)), ((1, 2, 4, 3), (1, 2, 4)), ((2, 4, 3), (1, 4))],
)
def test_matches_torch(driver, a_shape, b_shape):
    A, B = rand(a_shape), rand(b_shape)
    check(lambda a, b: LA.lstsq(a, b, driver=driver), lambda a, b: torch.linalg.lstsq(a, b, driver=driver), A, B, what=driver)
    check(
        lambda a, b: LA.lstsq(a, b, driver=driver).solution,
        lambda a, b: torch.linalg.lstsq(a, b, driver=driver).solution,
        A,
        B,
        grad=True,
    )
    A[..., 1] = A[..., 0]  # rank-deficient: torch's gelsy rank varies from call to call there (SciPy's test below)
    if driver in ("gelsd", "gelss"):
        check(lambda a, b: LA.lstsq(a, b, driver=driver)[0::2], lambda a, b: torch.linalg.lstsq(a, b, driver=driver)[0::2], A, B)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5)])
def test_gelsy_matches_scipy_on_rank_deficient_input(shape):
    scipy_linalg = pytest.importorskip("scipy.linalg")
    A, B = rand(shape), rand((shape[0], 2))
    A[:, 1] = A[:, 0]
    A[:, -1] = 2 * A[:, 0] - A[:, 2]  # rank min(m, n) - 2
    for rcond in (None, 1e-3, 0.5):
        want, _, rank, _ = scipy_linalg.lstsq(A, B, cond=rcond, lapack_driver="gelsy")
        r = LA.lstsq(to_ember(A), to_ember(B), rcond=rcond, driver="gelsy")
        assert r.rank.item() == rank
        close(r.solution.numpy(), want, "float64")
