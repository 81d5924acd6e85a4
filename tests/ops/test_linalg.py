"""Linear algebra against torch.matmul / torch.linalg (shapes, dtypes, errors) and NumPy.

Decompositions are checked by reconstruction (Q R == A, U diag(S) Vh == A, ...) since their
factors are only defined up to signs/phases.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember

torch = pytest.importorskip("torch")

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG = np.random.default_rng(1234)


def E(a):
    """An ember tensor with a copy of the array's values."""
    return ember.from_numpy(np.array(a, copy=True))


def N(t):
    if t.dtype is ember.bfloat16:
        return t.numpy().astype(np.float32)
    return t.numpy()


def T(a, dtype=None):
    t = torch.from_numpy(np.ascontiguousarray(a))
    return t if dtype is None else t.to(getattr(torch, dtype))


def rand(shape, dtype="float64"):
    if dtype.startswith(("int", "uint")):
        return RNG.integers(-3 if dtype.startswith("int") else 0, 4, size=shape).astype(dtype)
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def close(got, want, dtype, name=""):
    tol = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-4, "complex64": 1e-4}.get(dtype, 1e-9)
    np.testing.assert_allclose(
        np.asarray(got, dtype=np.result_type(got, np.float32)), np.asarray(want), rtol=tol, atol=tol, err_msg=name
    )


# ---------------------------------------------------------------------------------------
# matmul and friends


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
    expected = torch.matmul(T(a, dtype), T(b, dtype))
    result = ea @ eb
    assert result.shape == tuple(expected.shape) and result.dtype.name == dtype
    want = expected.float().numpy() if dtype == "bfloat16" else expected.numpy()
    close(N(result), want, dtype)
    out = ember.empty(*result.shape, dtype=result.dtype)
    assert ember.matmul(ea, eb, out=out) is out
    close(N(out), want, dtype)


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


def test_products_against_torch():
    a, b, v = rand((3, 4)), rand((4, 2)), rand(4)
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


# ---------------------------------------------------------------------------------------
# einsum, tensordot


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("...ij->...", [(2, 3, 4)]),
    ("i...->i", [(2, 3, 4)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,i->", [(3,), (3,)]),
    ("i,i->i", [(3,), (1,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("b i d, b j d -> b i j", [(2, 3, 4), (2, 5, 4)]),
    ("Aa,aB->AB", [(2, 3), (3, 2)]),
    ("i...,i...->...", [(2, 3), (2, 1)]),
    ("ij,jk->ik", [(0, 3), (3, 2)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_einsum_matches_torch(equation, shapes, dtype):
    arrays = [rand(s, dtype) for s in shapes]
    expected = torch.einsum(equation, *[T(a) for a in arrays])
    result = ember.einsum(equation, [E(a) for a in arrays])
    assert result.shape == tuple(expected.shape) and result.dtype.name == dtype
    close(result.numpy(), expected.numpy(), dtype, equation)


def test_einsum_noncontiguous_out_and_half():
    a = rand((4, 3))
    e = E(a).t()
    out = ember.empty(3, 3, dtype=ember.float64)
    assert ember.einsum("ij,jk->ik", [e, E(a)], out=out) is out
    close(out.numpy(), a.T @ a, "float64")
    h = ember.einsum("ij,jk->ik", [E(a.astype("float16")), E(a.T.astype("float16"))])
    assert h.dtype is ember.float16
    close(h.numpy(), a @ a.T, "float16")


def test_einsum_errors():
    with pytest.raises(
        RuntimeError,
        match="einsum\\(\\): subscript j has size 3 for operand 1 which does not broadcast with previously seen size 2",
    ):
        ember.einsum("ij,jk", [ember.ones(2, 2), ember.ones(3, 2)])
    with pytest.raises(RuntimeError, match="fewer operands were provided than specified in the equation"):
        ember.einsum("ij,jk", [ember.ones(2, 2)])
    with pytest.raises(
        RuntimeError,
        match=r"the number of subscripts in the equation \(3\) does not match the number of dimensions \(2\) for operand 0",
    ):
        ember.einsum("ijk,jk", [ember.ones(2, 2), ember.ones(2, 2)])
    with pytest.raises(RuntimeError, match="output subscript k does not appear"):
        ember.einsum("ij->k", [ember.ones(2, 2)])
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.einsum("i,i", [ember.ones(2), ember.ones(2, dtype=ember.float64)])


@pytest.mark.parametrize(
    "sa,sb,dims",
    [
        ((2, 3, 4), (3, 4, 5), 2),
        ((2, 3), (3, 4), 1),
        ((2, 3), (4, 5), 0),
        ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
        ((2, 3), (3,), ([1], [0])),
        ((2, 3), (1, 4), ([1], [0])),
    ],
)
def test_tensordot_matches_torch(sa, sb, dims):
    a, b = rand(sa), rand(sb)
    expected = torch.tensordot(T(a), T(b), dims=dims)
    result = ember.tensordot(E(a), E(b), dims=dims)
    assert result.shape == tuple(expected.shape)
    close(result.numpy(), expected.numpy(), "float64")


def test_tensordot_errors():
    with pytest.raises(
        RuntimeError, match="contracted dimensions need to match, but first has size 4 in dim 2 and second has size 5 in dim 1"
    ):
        ember.tensordot(ember.ones(2, 3, 4), ember.ones(3, 5, 5), dims=([1, 2], [0, 1]))
    with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
        ember.tensordot(ember.ones(2, 3), ember.ones(3, dtype=ember.float64), 1)


# ---------------------------------------------------------------------------------------
# decompositions and solvers: reconstructions


def _spd(n, batch=(), dtype="float64"):
    a = rand((*batch, n, n), dtype)
    return a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("batch", [(), (3,), (2, 1)])
def test_inv_det_slogdet_solve(dtype, batch):
    A = (rand((*batch, 4, 4), dtype) + 4 * np.eye(4)).astype(dtype)
    Ae = E(A)
    inv = ember.linalg.inv(Ae)
    close(np.matmul(A, inv.numpy()), np.broadcast_to(np.eye(4), A.shape), dtype)
    close(ember.linalg.det(Ae).numpy(), np.linalg.det(A), dtype)
    sign, logabsdet = ember.linalg.slogdet(Ae)
    close(sign.numpy() * np.exp(logabsdet.numpy()), np.linalg.det(A), dtype)
    B = rand((*batch, 4, 2), dtype)
    X = ember.linalg.solve(Ae, E(B))
    close(np.matmul(A, X.numpy()), B, dtype)
    b = rand((*batch, 4), dtype)  # a batch of vectors: B has A's shape without the last dim
    x = ember.linalg.solve(Ae, E(b))
    assert x.shape == (*batch, 4)
    close(np.einsum("...ij,...j->...i", A, x.numpy()), b, dtype)
    XL = ember.linalg.solve(Ae, E(np.swapaxes(B, -1, -2)), left=False)
    close(np.matmul(XL.numpy(), A), np.swapaxes(B, -1, -2), dtype)


def test_solve_broadcasts_a_vector():
    A = rand((3, 2, 2)) + 2 * np.eye(2)
    b = rand(2)
    x = ember.linalg.solve(E(A), E(b))
    expected = torch.linalg.solve(T(A), T(b))
    assert x.shape == tuple(expected.shape)
    close(x.numpy(), expected.numpy(), "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3), (0, 3)])
def test_qr_svd_reconstruct(dtype, shape):
    A = rand(shape, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    Q, R = ember.linalg.qr(E(A))
    assert Q.shape == (*shape[:-2], m, k) and R.shape == (*shape[:-2], k, n)
    close(np.matmul(Q.numpy(), R.numpy()), A, dtype)
    close(np.triu(R.numpy()), R.numpy(), dtype)
    Qc, _ = ember.linalg.qr(E(A), mode="complete")
    assert Qc.shape == (*shape[:-2], m, m)
    close(np.matmul(np.swapaxes(Qc.numpy(), -1, -2).conj(), Qc.numpy()), np.broadcast_to(np.eye(m), Qc.shape), dtype)
    Qr, Rr = ember.linalg.qr(E(A), mode="r")
    assert Qr.numel() == 0
    close(np.abs(Rr.numpy()), np.abs(R.numpy()), dtype)
    U, S, Vh = ember.linalg.svd(E(A), full_matrices=False)
    assert S.dtype.is_floating_point and S.shape == (*shape[:-2], k)
    close(np.matmul(U.numpy() * S.numpy()[..., None, :], Vh.numpy()), A, dtype)
    res = ember.linalg.svd(E(A))
    assert res.U.shape == (*shape[:-2], m, m) and res.Vh.shape == (*shape[:-2], n, n)
    close(ember.linalg.svdvals(E(A)).numpy(), S.numpy(), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_cholesky_eigh(dtype):
    A = _spd(4, (2,), dtype).astype(dtype)
    L = ember.linalg.cholesky(E(A))
    close(np.tril(L.numpy()), L.numpy(), dtype)
    close(np.matmul(L.numpy(), np.swapaxes(L.numpy(), -1, -2).conj()), A, dtype)
    U = ember.linalg.cholesky(E(A), upper=True)
    close(np.matmul(np.swapaxes(U.numpy(), -1, -2).conj(), U.numpy()), A, dtype)
    w, V = ember.linalg.eigh(E(A))
    assert w.dtype.is_floating_point
    close(np.matmul(V.numpy() * w.numpy()[..., None, :], np.swapaxes(V.numpy(), -1, -2).conj()), A, dtype)
    close(ember.linalg.eigvalsh(E(A), UPLO="U").numpy(), np.linalg.eigvalsh(A), dtype)
    res = ember.linalg.eigh(E(A))
    assert res.eigenvalues is not None and res.eigenvectors.shape == A.shape


def test_pinv_matrix_rank_matrix_power():
    A = rand((3, 5))
    close(ember.linalg.pinv(E(A)).numpy(), np.linalg.pinv(A), "float64")
    low = rand((4, 2)) @ rand((2, 4))
    assert ember.linalg.matrix_rank(E(low)).item() == 2
    assert ember.linalg.matrix_rank(E(low), hermitian=False, atol=1e3).item() == 0
    close(ember.linalg.pinv(E(low), hermitian=False).numpy(), torch.linalg.pinv(T(low)).numpy(), "float64")
    S = _spd(3)
    close(ember.linalg.pinv(E(S), hermitian=True).numpy(), np.linalg.inv(S), "float64")
    M = np.arange(8).reshape(2, 2, 2)
    assert ember.linalg.matrix_power(E(M), 3).tolist() == np.linalg.matrix_power(M, 3).tolist()
    assert ember.matrix_power(E(M), 0).tolist() == [np.eye(2, dtype=int).tolist()] * 2
    close(E(S).matrix_power(-2).numpy(), np.linalg.matrix_power(S, -2), "float64")


def test_singular_and_indefinite_errors_read_like_torch():
    cases = [
        (lambda lib, t: lib.linalg.inv(t), [[1.0, 2.0], [2.0, 4.0]]),
        (lambda lib, t: lib.linalg.inv(t), [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]),
        (lambda lib, t: lib.linalg.cholesky(t), [[1.0, 2.0], [2.0, 1.0]]),
        (lambda lib, t: lib.linalg.cholesky(t), [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
        (lambda lib, t: lib.linalg.matrix_power(t, -1), [[1.0, 2.0], [2.0, 4.0]]),
    ]
    for call, data in cases:
        with pytest.raises(RuntimeError) as expected:
            call(torch, torch.tensor(data))
        with pytest.raises(ember.ops.linalg.LinAlgError) as got:
            call(ember, ember.tensor(data))
        assert str(got.value) == str(expected.value)
    with pytest.raises(RuntimeError, match=r"linalg.solve: The solver failed because the input matrix is singular."):
        ember.linalg.solve(ember.ones(2, 2), ember.ones(2))


def test_linalg_argument_errors():
    with pytest.raises(RuntimeError, match=r"linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"):
        ember.linalg.inv(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"linalg.inv: The input tensor A must have at least 2 dimensions."):
        ember.linalg.inv(ember.ones(2))
    with pytest.raises(RuntimeError, match=r"linalg.det: Expected a floating point or complex tensor as input. Got Long"):
        ember.linalg.det(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match=r"linalg.inv: Low precision dtypes not supported. Got Half"):
        ember.linalg.inv(ember.ones(2, 2, dtype=ember.float16))
    with pytest.raises(RuntimeError, match="qr received unrecognized mode 'x'"):
        ember.linalg.qr(ember.ones(3, 2), mode="x")
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        ember.linalg.eigh(ember.ones(2, 2), UPLO="X")
    with pytest.raises(
        RuntimeError, match=r"linalg.solve: Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x1\)"
    ):
        ember.linalg.solve(ember.eye(2), ember.ones(3))
    with pytest.raises(RuntimeError, match=r"linalg.solve: Expected A and B to have the same dtype"):
        ember.linalg.solve(ember.eye(2), ember.ones(2, dtype=ember.float64))


def test_empty_matrices():
    assert ember.linalg.inv(ember.ones(0, 0)).shape == (0, 0)
    assert ember.linalg.det(ember.ones(3, 0, 0)).tolist() == [1.0, 1.0, 1.0]
    U, S, Vh = ember.linalg.svd(ember.ones(0, 2))
    assert U.shape == (0, 0) and S.shape == (0,) and Vh.shape == (2, 2)


# ---------------------------------------------------------------------------------------
# norms


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
        expected = torch.linalg.vector_norm(T(a), ord, dim, keepdim)
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match=str(exc).split(" on ")[0]):
            ember.linalg.vector_norm(E(a), ord, dim, keepdim)
        return
    result = ember.linalg.vector_norm(E(a), ord, dim, keepdim)
    assert result.shape == tuple(expected.shape) and result.dtype.name == str(expected.dtype)[6:]
    close(result.numpy(), expected.numpy(), dtype)


@pytest.mark.parametrize("ord", ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2])
@pytest.mark.parametrize(
    "shape,dim", [((3, 4), (-2, -1)), ((2, 3, 4), (-2, -1)), ((3, 2, 4), (0, 2)), ((3, 2, 4), (2, 0)), ((0, 3), (0, 1))]
)
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_matches_torch(ord, shape, dim, keepdim):  # noqa: A002
    a = rand(shape)
    try:
        expected = torch.linalg.matrix_norm(T(a), ord, dim, keepdim)
    except (RuntimeError, IndexError):
        with pytest.raises(RuntimeError, match="empty"):
            ember.linalg.matrix_norm(E(a), ord, dim, keepdim)
        return
    result = ember.linalg.matrix_norm(E(a), ord, dim, keepdim)
    assert result.shape == tuple(expected.shape)
    close(result.numpy(), expected.numpy(), "float64")


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
    close(ember.linalg.norm(E(a), ord, dim).numpy(), torch.linalg.norm(T(a), ord, dim).numpy(), "float64")


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


# ---------------------------------------------------------------------------------------
# array API extras


def test_array_api_extras():
    a, b = rand((2, 3)), rand(3)
    b2 = b[None]
    close(ember.linalg.cross(E(a), E(b2)).numpy(), torch.linalg.cross(T(a), T(b2)).numpy(), "float64")
    close(ember.linalg.cross(E(a.T), E(b2.T), dim=0).numpy(), np.cross(a.T, b2.T, axis=0), "float64")
    c = rand((4, 3), "complex128")
    close(ember.linalg.vecdot(E(c), E(c)).numpy(), torch.linalg.vecdot(T(c), T(c)).numpy(), "complex128")
    close(ember.vecdot(E(a), E(b)).numpy(), a @ b, "float64")
    close(ember.linalg.vecdot(E(a), E(a), dim=0).numpy(), (a * a).sum(0), "float64")
    m = rand((2, 3, 3))
    assert ember.linalg.diagonal(E(m)).tolist() == np.diagonal(m, axis1=-2, axis2=-1).tolist()
    assert ember.linalg.diagonal(E(m), offset=1).shape == (2, 2)
    close(ember.linalg.trace(E(m)).numpy(), np.trace(m, axis1=-2, axis2=-1), "float64")
    assert ember.linalg.matrix_transpose(E(m)).shape == (2, 3, 3)
    assert ember.linalg.matrix_transpose(E(a)).tolist() == a.T.tolist()
    i = ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    assert i.trace().item() == 5 and ember.linalg.trace(i).dtype is ember.int64
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 3"):
        E(m).trace()
    close(ember.linalg.matmul(E(a), E(b)).numpy(), a @ b, "float64")
    assert ember.linalg.outer(E(b), E(b)).shape == (3, 3)
    with pytest.raises(RuntimeError, match=r"linalg.cross: inputs must have the same number of dimensions."):
        ember.linalg.cross(ember.ones(3), ember.ones(1, 3))


# ---------------------------------------------------------------------------------------
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

