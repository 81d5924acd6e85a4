"""matmul (and mm, bmm, mv, dot), vdot, outer, vecdot, cross: against torch.matmul / torch.linalg
(shapes, dtypes, errors) and NumPy, and their derivatives (gradcheck, gradgradcheck, torch's
gradients)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import check, needs_torch, to_ember, to_torch, torch

from ._helpers import GRAD_RNG, RNG, SETTINGS, R, close, grads_match_torch, rand

LA = ember.linalg


@st.composite
def matmul_shapes(draw):
    """Operand shapes covering every torch.matmul case: 1-D/2-D/batched, broadcasting batches."""
    n, k, m = (draw(st.integers(0, 4)) for _ in range(3))
    case = draw(st.sampled_from(["1-1", "2-1", "1-2", "2-2", "N-1", "1-N", "N-N", "N-2", "2-N"]))
    batch = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    other = tuple(1 if draw(st.booleans()) else b for b in batch)[draw(st.integers(0, len(batch))) :]
    left = {"1": (k,), "2": (n, k), "N": (*batch, n, k)}[case[0]]
    right = {"1": (k,), "2": (k, m), "N": (*other, k, m)}[case[2]]
    return left, right


def _layout(a, transposed):
    """A transposed view with the same logical values when asked (non-contiguous input)."""
    if transposed and a.ndim >= 2:
        return np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)
    return a


def _numpy(t):
    """An ember tensor's values (bfloat16 as float32, which NumPy computes with)."""
    if t.dtype is ember.bfloat16:
        return t.numpy().astype(np.float32)
    return t.numpy()


@needs_torch
@SETTINGS
@given(
    shapes=matmul_shapes(),
    dtype=st.sampled_from(["float32", "float64", "int32", "int64", "float16", "bfloat16", "complex64"]),
    tr=st.booleans(),
)
def test_matmul_matches_torch(shapes, dtype, tr):
    sa, sb = shapes
    np_dtype = "float32" if dtype == "bfloat16" else dtype
    a, b = rand(sa, np_dtype), rand(sb, np_dtype)
    ea, eb = ember.from_numpy(_layout(a, tr)), ember.from_numpy(_layout(b, tr))
    if dtype == "bfloat16":
        ea, eb = ea.to(ember.bfloat16), eb.to(ember.bfloat16)
    expected = torch.matmul(to_torch(a).to(getattr(torch, dtype)), to_torch(b).to(getattr(torch, dtype)))
    result = ea @ eb
    assert result.shape == tuple(expected.shape) and result.dtype.name == dtype
    want = expected.float().numpy() if dtype == "bfloat16" else expected.numpy()
    close(_numpy(result), want, dtype)
    out = ember.empty(result.shape, dtype=result.dtype)
    assert ember.matmul(ea, eb, out=out) is out
    close(_numpy(out), want, dtype)


MATMUL_ERRORS = [
    ((2, 3), (4, 5)),
    ((3,), (4,)),
    ((3,), (4, 5)),
    ((2, 3), (4,)),
    ((2, 2, 3), (2, 4, 5)),
    ((2, 2, 3), (3, 3, 5)),
    ((), (3,)),
    ((2, 3), (5, 4, 2)),
    ((5, 2, 3), (4, 2)),
    ((3,), (5, 4, 2)),
    ((5, 2, 3), (4,)),
    ((2, 1, 2, 3), (5, 4, 2)),
    ((5, 2, 3), (2, 3, 3, 2)),
]


@needs_torch
@pytest.mark.parametrize("sa,sb", MATMUL_ERRORS)
def test_matmul_errors_read_like_torch(sa, sb):
    with pytest.raises(RuntimeError) as expected:
        torch.matmul(torch.ones(sa), torch.ones(sb))
    with pytest.raises(RuntimeError) as got:
        ember.matmul(ember.ones(sa), ember.ones(sb))
    assert str(got.value) == str(expected.value).split("\n")[0]


def test_mm_bmm_mv_dot_errors():
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)$"):
        ember.mm(ember.ones(2, 3), ember.ones(4, 5))
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        ember.mm(ember.ones(3), ember.ones(3, 3))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        ember.bmm(ember.ones(3, 3), ember.ones(1, 3, 3))
    with pytest.raises(
        RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[1, 3\]."
    ):
        ember.bmm(ember.ones(2, 3, 3), ember.ones(1, 3, 3))
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"):
        ember.mv(ember.ones(2, 3), ember.ones(4))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        ember.dot(ember.ones(3, 1), ember.ones(3))
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, but found Float and Double"):
        ember.dot(ember.ones(3), ember.ones(3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        ember.ones(2, 2) @ ember.ones(2, 2, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument self, but got 2-D"):
        ember.outer(ember.ones(3, 1), ember.ones(2))


@needs_torch
def test_products_against_torch():
    a, b, v = rand((3, 4)), rand((4, 2)), rand(4)
    E, T = to_ember, to_torch
    close(ember.mm(E(a), E(b)).numpy(), (T(a) @ T(b)).numpy(), "float64")
    x, y = rand((5, 3, 4)), rand((5, 4, 2))
    close(ember.bmm(E(x), E(y)).numpy(), torch.bmm(T(x), T(y)).numpy(), "float64")
    close(ember.mv(E(a), E(v)).numpy(), torch.mv(T(a), T(v)).numpy(), "float64")
    close(ember.dot(E(v), E(v)).numpy(), torch.dot(T(v), T(v)).numpy(), "float64")
    c = rand(3, "complex128")
    assert ember.vdot(E(c), E(c)).item() == pytest.approx(torch.vdot(T(c), T(c)).item())
    i, f = np.arange(3), rand(2, "float32")
    r = ember.outer(E(i), E(f))
    assert r.dtype is ember.float32 and r.shape == (3, 2)
    close(r.numpy(), torch.outer(T(i), T(f)).numpy(), "float32")
    assert ember.ger(E(i), E(i)).tolist() == np.outer(i, i).tolist()
    assert E(a).matmul(E(b)).shape == (3, 2)
    assert E(np.ones(3, "int64")).dot(E(np.arange(3))).item() == 3


def test_rmatmul_and_integer_matmul():
    a = ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    r = a @ a
    assert r.dtype is ember.int32 and r.tolist() == [[7, 10], [15, 22]]
    with pytest.raises(RuntimeError, match="need to be at least 1D"):
        2 @ a  # a Python scalar is a 0-d operand


def test_linalg_matmul_and_outer():
    a, b = rand((2, 3)), rand(3)
    close(ember.linalg.matmul(to_ember(a), to_ember(b)).numpy(), a @ b, "float64")
    assert ember.linalg.outer(to_ember(b), to_ember(b)).shape == (3, 3)


# matmul goes straight to BLAS: one output allocation, transposed views not copied (speed
# itself is measured in benchmarks/, never asserted here)


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_matmul_allocates_only_its_output(layout):
    a = RNG.standard_normal((8, 16)).astype("float32")
    b = RNG.standard_normal((16, 4)).astype("float32")
    if layout == "transposed":
        b = np.ascontiguousarray(b.T).T
    with ember.trace() as t:
        out = ember.matmul(ember.from_numpy(a), ember.from_numpy(b))
    assert [alloc for j in t.journeys for alloc in j.allocations] == [(8 * 4 * 4, "CPUAllocator")]
    close(out.numpy(), a @ b, "float32")


# --- vecdot, cross (the array API's) ---------------------------------------------------------


@needs_torch
def test_cross_and_vecdot_match_torch():
    a, b = rand((2, 3)), rand(3)
    b2 = b[None]
    close(ember.linalg.cross(to_ember(a), to_ember(b2)).numpy(), torch.linalg.cross(to_torch(a), to_torch(b2)).numpy(), "float64")
    c = rand((4, 3), "complex128")
    close(ember.linalg.vecdot(to_ember(c), to_ember(c)).numpy(), torch.linalg.vecdot(to_torch(c), to_torch(c)).numpy(), "complex128")


def test_cross_and_vecdot():
    a, b = rand((2, 3)), rand(3)
    b2 = b[None]
    close(ember.linalg.cross(to_ember(a.T), to_ember(b2.T), dim=0).numpy(), np.cross(a.T, b2.T, axis=0), "float64")
    close(ember.vecdot(to_ember(a), to_ember(b)).numpy(), a @ b, "float64")
    close(ember.linalg.vecdot(to_ember(a), to_ember(a), dim=0).numpy(), (a * a).sum(0), "float64")
    with pytest.raises(RuntimeError, match=r"linalg.cross: inputs must have the same number of dimensions."):
        ember.linalg.cross(ember.ones(3), ember.ones(1, 3))


# ---------------------------------------------------------------------------------------
# derivatives

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
    "vecdot": (lambda a, b: LA.vecdot(a, b), lambda: (R(2, 3), R(3))),
    "vecdot_dim0": (lambda a, b: LA.vecdot(a, b, dim=0), lambda: (R(3, 2), R(3, 1))),
    "cross": (lambda a, b: LA.cross(a, b), lambda: (R(2, 3), R(1, 3))),
    "cross_dim0": (lambda a, b: LA.cross(a, b, dim=0), lambda: (R(3, 2), R(3, 2))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", ["matmul_batched_broadcast", "matmul_vec_batch", "vecdot", "cross", "outer"])
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


@needs_torch
def test_matmul_broadcast_matches_torch():
    r = GRAD_RNG.standard_normal
    grads_match_torch(lambda a, b: a @ b, lambda a, b: a @ b, [r((2, 1, 3, 4)), r((3, 4, 2))])
    grads_match_torch(lambda a, b: a @ b, lambda a, b: a @ b, [r(4), r((2, 4, 3))])


# --- torch.cross: the top-level spelling, with its deprecated default dim ---------------------


def test_cross_top_level_and_method():
    a, b = rand((2, 3, 4)), rand((1, 3, 4))
    want = np.cross(a, b, axis=1)
    np.testing.assert_allclose(ember.cross(to_ember(a), to_ember(b), dim=1).numpy(), want)
    np.testing.assert_allclose(to_ember(a).cross(to_ember(b), dim=-2).numpy(), want)
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        got = ember.cross(to_ember(a), to_ember(b))  # the first dim of size 3
    np.testing.assert_allclose(got.numpy(), want)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="no dimension of size 3 in input"):
        ember.cross(ember.ones((2, 4)), ember.ones((2, 4)))
    with pytest.raises(RuntimeError, match="inputs must have the same number of dimensions"):
        ember.cross(ember.ones(3), ember.ones((2, 3)), dim=-1)


@needs_torch
@pytest.mark.parametrize(("sa", "sb", "dim"), [((2, 1, 3), (1, 4, 3), -1), ((3, 1, 2), (3, 4, 1), 0), ((2, 3, 4), (1, 3, 1), 1)])
def test_cross_broadcasts_like_torch(sa, sb, dim):
    a, b = rand(sa), rand(sb)
    check(lambda x, y: ember.linalg.cross(x, y, dim=dim), lambda x, y: torch.linalg.cross(x, y, dim=dim), a, b, grad=True)
    check(lambda x, y: ember.cross(x, y, dim=dim), lambda x, y: torch.cross(x, y, dim=dim), a, b, grad=True)
