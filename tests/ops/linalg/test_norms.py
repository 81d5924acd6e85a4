"""vector_norm, matrix_norm, linalg.norm, norm (torch.norm), diagonal, trace: against PyTorch and
NumPy, errors, and the derivatives of the norms."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, to_ember, to_torch, torch

from ..reduction._helpers import check_against_torch, dims, tensors
from ._helpers import GRAD_RNG, SETTINGS, R, close, grads_match_torch, rand

LA = ember.linalg


@needs_torch
@SETTINGS
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple),
    ord=st.sampled_from([2, 1, 0, 3, 0.5, -1, math.inf, -math.inf]),
    dtype=st.sampled_from(["float32", "float64", "complex64"]),
    keepdim=st.booleans(),
    dim=st.sampled_from([None, 0, -1, (0, -1)]),
)
def test_vector_norm_matches_torch(shape, ord, dtype, keepdim, dim):  # noqa: A002
    a = rand(shape, dtype)
    if isinstance(dim, tuple) and len(shape) < 2:
        dim = 0
    try:
        expected = torch.linalg.vector_norm(to_torch(a), ord, dim, keepdim)
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match=str(exc).split(" on ")[0]):
            ember.linalg.vector_norm(to_ember(a), ord, dim, keepdim)
        return
    result = ember.linalg.vector_norm(to_ember(a), ord, dim, keepdim)
    assert result.shape == tuple(expected.shape) and result.dtype.name == str(expected.dtype)[6:]
    close(result.numpy(), expected.numpy(), dtype)


@needs_torch
@pytest.mark.parametrize("ord", ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2])
@pytest.mark.parametrize(
    "shape,dim", [((3, 4), (-2, -1)), ((2, 3, 4), (-2, -1)), ((3, 2, 4), (0, 2)), ((3, 2, 4), (2, 0)), ((0, 3), (0, 1))]
)
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_matches_torch(ord, shape, dim, keepdim):  # noqa: A002
    a = rand(shape)
    try:
        expected = torch.linalg.matrix_norm(to_torch(a), ord, dim, keepdim)
    except (RuntimeError, IndexError):
        with pytest.raises(RuntimeError, match="empty"):
            ember.linalg.matrix_norm(to_ember(a), ord, dim, keepdim)
        return
    result = ember.linalg.matrix_norm(to_ember(a), ord, dim, keepdim)
    assert result.shape == tuple(expected.shape)
    close(result.numpy(), expected.numpy(), "float64")


@needs_torch
@pytest.mark.parametrize(
    "shape,ord,dim",
    [
        ((3, 4), None, None),
        ((3, 4), "fro", None),
        ((3, 4), 2, None),
        ((4,), 3, None),
        ((2, 3, 4), None, (1, 2)),
        ((2, 3, 4), 1, 1),
        ((2, 3), "nuc", None),
    ],
)
def test_linalg_norm_matches_torch(shape, ord, dim):  # noqa: A002
    a = rand(shape)
    close(ember.linalg.norm(to_ember(a), ord, dim).numpy(), torch.linalg.norm(to_torch(a), ord, dim).numpy(), "float64")


@needs_torch
@SETTINGS
@given(data=st.data())
def test_norm_matches_torch(data):
    e, t = data.draw(tensors(dtypes=("float32", "float64", "complex64", "int64")), label="input")
    p = data.draw(st.sampled_from(["fro", "nuc", 1, 2, 3, 0.5, 0, math.inf, -math.inf, -1]), label="p")
    dim = data.draw(dims(e.ndim), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    if p == "nuc" and (dim is None or isinstance(dim, int)):
        dim = None if e.ndim == 2 else (0, -1)
    check_against_torch("norm", lambda: ember.norm(e, p, dim, keepdim), lambda: torch.norm(t, p, dim, keepdim))


def test_norm_errors():
    with pytest.raises(
        RuntimeError, match=r"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."
    ):
        ember.linalg.norm(ember.ones(2, 2, 2), ord=2)
    with pytest.raises(RuntimeError, match=r"linalg.matrix_norm: Order 3 not supported."):
        ember.linalg.matrix_norm(ember.ones(2, 2), ord=3)
    with pytest.raises(RuntimeError, match=r"linalg.vector_norm cannot compute the inf norm on an empty tensor"):
        ember.linalg.vector_norm(ember.ones(0, 2), ord=math.inf)
    with pytest.raises(RuntimeError, match="should be convertible without narrowing"):
        ember.linalg.vector_norm(ember.ones(2, dtype=ember.float64), dtype=ember.float32)
    assert ember.linalg.vector_norm(ember.ones(2), dtype=ember.float64).dtype is ember.float64
    with pytest.raises(RuntimeError, match=r"linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"):
        ember.tensor([1, 2]).norm()


def test_diagonal_trace_and_matrix_transpose():
    a = rand((2, 3))
    m = rand((2, 3, 3))
    assert ember.linalg.diagonal(to_ember(m)).tolist() == np.diagonal(m, axis1=-2, axis2=-1).tolist()
    assert ember.linalg.diagonal(to_ember(m), offset=1).shape == (2, 2)
    close(ember.linalg.trace(to_ember(m)).numpy(), np.trace(m, axis1=-2, axis2=-1), "float64")
    assert ember.linalg.matrix_transpose(to_ember(m)).shape == (2, 3, 3)
    assert ember.linalg.matrix_transpose(to_ember(a)).tolist() == a.T.tolist()
    i = ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    assert i.trace().item() == 5 and ember.linalg.trace(i).dtype is ember.int64
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 3"):
        to_ember(m).trace()


# ---------------------------------------------------------------------------------------
# derivatives

CASES = {
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
    # torch.norm
    "norm": (lambda t: ember.norm(t, dim=(1,)), lambda: (R(3, 4),)),
    "norm_p3": (lambda t: ember.norm(t, p=3), lambda: (R(3, 4),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", ["vector_norm_3_keepdim", "matrix_norm_fro", "matrix_norm_nuc", "norm_p3"])
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


@needs_torch
def test_gradients_match_torch():
    a = GRAD_RNG.standard_normal((2, 4, 3))
    for order in ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf")):
        grads_match_torch(lambda x, o=order: LA.matrix_norm(x, o), lambda x, o=order: torch.linalg.matrix_norm(x, o), [a])


@pytest.mark.parametrize("p", [2, 1, 3, float("inf"), -1, -float("inf")])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_the_norm_of_one_element_is_its_magnitude(p, shape):
    # squaring 1e30 in float32 overflows; one element's norm needs no square (torch gives 1e30 too)
    x = ember.full(shape, -1e30)
    assert ember.linalg.vector_norm(x, p).item() == pytest.approx(1e30, rel=1e-6)
    assert ember.linalg.vector_norm(ember.tensor([-3.0 + 4.0j]), p).item() == pytest.approx(5.0)
    assert ember.linalg.vector_norm(ember.tensor([0.0]), 0).item() == 0.0


@pytest.mark.parametrize(
    ("fn", "x", "dtype", "message"),
    [
        (ember.linalg.vector_norm, ember.ones(3), ember.complex64, "dtype should be real for real inputs"),
        (ember.linalg.norm, ember.ones(3, 3), ember.complex64, "dtype should be real for real inputs"),
        (ember.linalg.matrix_norm, ember.ones(3, 3, dtype=ember.complex64), ember.float32, "dtype should be complex for complex inputs"),
        (ember.linalg.matrix_norm, ember.ones(3, 3), ember.int64, "dtype should be floating point or complex"),
        (ember.linalg.matrix_norm, ember.ones(3, 3), ember.float16, "convertible without narrowing"),
    ],
    ids=["vector real->complex", "norm real->complex", "matrix complex->real", "int", "narrowing"],
)
def test_norm_dtype_must_keep_the_kind_and_not_narrow(fn, x, dtype, message):
    with pytest.raises(RuntimeError, match=message):
        fn(x, dtype=dtype)
    assert ember.linalg.vector_norm(ember.ones(3, dtype=ember.complex64), dtype=ember.complex128).dtype is ember.float64
