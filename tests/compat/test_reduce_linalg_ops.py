"""compat.v1's reductions, scans, matrix products and tf.linalg: values against NumPy,
TensorFlow's argument spellings, dtypes, node names and types, errors and gradients."""

import numpy as np
import pytest

import ember.compat.v1 as tf
from tests.compat._helpers import check_gradient, run

A = np.array([[1.5, -2.0, 3.0], [0.25, 0.5, -0.75]], dtype=np.float32)


@pytest.mark.parametrize(
    ("name", "op_type", "reference"),
    [
        ("reduce_sum", "Sum", np.sum),
        ("reduce_mean", "Mean", np.mean),
        ("reduce_max", "Max", np.max),
        ("reduce_min", "Min", np.min),
        ("reduce_prod", "Prod", np.prod),
        (
            "reduce_logsumexp",
            "ReduceLogSumExp",
            lambda a, axis=None, keepdims=False: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)),
        ),
    ],
)
def test_reductions_over_every_axis_spelling(name, op_type, reference):
    fn = getattr(tf, name)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        cases = {
            "all": (fn(x), {}),
            "axis": (fn(x, 1), {"axis": 1}),
            "list": (fn(x, [0, 1], keepdims=True), {"axis": (0, 1), "keepdims": True}),
            "keep_dims": (fn(x, axis=-1, keep_dims=True), {"axis": -1, "keepdims": True}),
            "reduction_indices": (fn(x, reduction_indices=[0]), {"axis": 0}),
            "const": (fn(x, tf.constant(0)), {"axis": 0}),
        }
        with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'reduction_indices'"):
            fn(x, 0, reduction_indices=0)
        with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 dimensions"):
            fn(x, 2)
    values = run({k: t for k, (t, _) in cases.items()}, {x: A})
    for k, (t, kwargs) in cases.items():
        np.testing.assert_allclose(values[k], reference(A.astype(np.float64), **kwargs), rtol=1e-6, err_msg=k)
        assert (
            t.op.type == ("AddV2" if name == "reduce_logsumexp" else op_type) and t.dtype is tf.float32
        )  # TensorFlow's last node
    assert cases["all"][0].op.name == op_type and cases["axis"][0].shape.as_list() == [None]


def test_integer_mean_divides_toward_zero_and_bool_reductions():
    with tf.Graph().as_default():
        m = tf.reduce_mean(tf.constant([[1, 2], [-4, -3]]), axis=1)
        any_, all_ = tf.reduce_any([[True, False], [False, False]], 1), tf.reduce_all([True, True])
        empty_axis = tf.reduce_sum(tf.constant([1.0, 2.0]), axis=[])
        with pytest.raises(TypeError, match="DataType float32 not in list of allowed values: bool"):
            tf.reduce_any(tf.constant([1.0]))
    assert m.dtype is tf.int32 and run(m).tolist() == [1, -3]
    assert run(any_).tolist() == [True, False] and run(all_) == np.bool_(True)
    assert run(empty_axis).tolist() == [1.0, 2.0]


def test_count_nonzero_argmax_argmin():
    with tf.Graph().as_default():
        x = tf.constant([[0.0, 3.0, 1.0], [2.0, 0.0, 5.0]])
        c, c1 = tf.count_nonzero(x), tf.count_nonzero(x, axis=1, keepdims=True, dtype=tf.int32)
        am, am0 = tf.argmax(x, 1), tf.argmax(x)
        an = tf.argmin(x, dimension=1, output_type=tf.int32)
        with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dimension'"):
            tf.argmax(x, 0, dimension=0)
    assert (c.dtype, c1.dtype, c1.shape.as_list()) == (tf.int64, tf.int32, [2, 1])
    assert run(c) == 4 and run(c1).tolist() == [[2], [2]]
    assert (am.op.type, am.dtype, an.dtype, an.op.name) == ("ArgMax", tf.int64, tf.int32, "ArgMin")
    assert run(am).tolist() == [1, 2] and run(am0).tolist() == [1, 0, 1] and run(an).tolist() == [0, 1]


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_and_cumprod_exclusive_and_reverse(exclusive, reverse):
    a = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 3.0]])

    def reference(fn, identity):
        b = a[:, ::-1] if reverse else a
        out = fn(b, axis=1)
        if exclusive:
            out = np.concatenate([np.full((2, 1), identity), out[:, :-1]], axis=1)
        return out[:, ::-1] if reverse else out

    with tf.Graph().as_default():
        x = tf.constant(a)
        s, p = tf.cumsum(x, 1, exclusive=exclusive, reverse=reverse), tf.cumprod(x, axis=1, exclusive=exclusive, reverse=reverse)
        i = tf.cumsum(tf.constant([1, 2, 3]))
    assert (s.op.type, p.op.type, i.dtype) == ("Cumsum", "Cumprod", tf.int32)
    np.testing.assert_allclose(run(s), reference(np.cumsum, 0.0))
    np.testing.assert_allclose(run(p), reference(np.cumprod, 1.0))
    assert run(i).tolist() == [1, 3, 6]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: tf.reduce_sum(x, 1),
        lambda x: tf.reduce_mean(x, 0, keepdims=True),
        lambda x: tf.reduce_max(x, 1),
        lambda x: tf.reduce_logsumexp(x, 1),
        lambda x: tf.cumsum(x, 1, exclusive=True, reverse=True),
        lambda x: tf.norm(x),
        lambda x: tf.norm(x, ord=1, axis=1),
        lambda x: tf.norm(x, ord="fro", axis=[0, 1]),
        lambda x: tf.trace(tf.reshape(x, [3, 2])[:2]),
    ],
)
def test_reduction_gradients_match_finite_differences(fn):
    check_gradient(fn, np.array([[0.5, 1.25, -2.0], [2.0, 0.75, 1.5]]))


def test_matmul_transposes_batches_and_names():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        m = tf.matmul(x, b)
        t = tf.matmul(b, x, transpose_a=True, transpose_b=True)
        batched = tf.matmul(np.ones((2, 2, 3), np.float32), np.ones((3, 4), np.float32))
        complex_ = tf.matmul(tf.constant([[1j, 2]]), tf.constant([[1j, 2]]), adjoint_b=True)
        with pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a"):
            tf.matmul(x, b, transpose_a=True, adjoint_a=True)
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tf.matmul(x, np.ones((4, 3), np.float32))
        with pytest.raises(ValueError, match="rank >= 2"):
            tf.matmul(tf.constant([1.0]), tf.constant([[1.0]]))
        with pytest.raises(TypeError, match="Input 'b' of 'MatMul' Op has type int32"):
            tf.matmul(x, tf.constant([[1], [2], [3]]))
    assert (m.op.name, m.op.type, m.shape.as_list(), t.shape.as_list()) == ("MatMul", "MatMul", [None, 4], [4, None])
    assert (batched.op.type, batched.shape.as_list()) == ("BatchMatMulV2", [2, 2, 4])
    values = run([m, t, batched, complex_], {x: a})
    np.testing.assert_allclose(values[0], a @ b)
    np.testing.assert_allclose(values[1], b.T @ a.T)
    np.testing.assert_allclose(values[2], np.full((2, 2, 4), 3.0))
    np.testing.assert_allclose(values[3], [[5.0 + 0j]])


def test_tensordot_and_einsum():
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    b = np.arange(12, dtype=np.float64).reshape(4, 3)
    with tf.Graph().as_default():
        td = tf.tensordot(a, b, axes=[[1, 2], [1, 0]])
        td1 = tf.tensordot(a, b, 1)
        es = tf.einsum("ijk,kj->i", a, b)
        with pytest.raises(ValueError, match="Different number of contraction axes"):
            tf.tensordot(a, b, [[1], [0, 1]])
    assert (td.op.name, es.op.name, es.op.type) == ("Tensordot", "einsum/Einsum", "Einsum")
    values = run([td, td1, es])
    np.testing.assert_allclose(values[0], np.tensordot(a, b, axes=[[1, 2], [1, 0]]))
    np.testing.assert_allclose(values[1], np.tensordot(a, b, 1))
    np.testing.assert_allclose(values[2], np.einsum("ijk,kj->i", a, b))


def test_matmul_tensordot_einsum_gradients():
    a, b = np.array([[0.5, 1.0], [2.0, -1.0], [0.25, 3.0]]), np.array([[1.5, -0.5, 2.0], [0.75, 1.0, -1.0]])
    check_gradient(lambda x, y: tf.matmul(x, y, transpose_a=True, transpose_b=True), a, b)
    check_gradient(lambda x, y: tf.tensordot(x, y, 1), a, b)
    check_gradient(lambda x, y: tf.einsum("ij,ji->i", x, y), a, b)


def test_norms():
    a = np.array([[3.0, -4.0], [1.0, 2.0]])
    with tf.Graph().as_default():
        x = tf.constant(a)
        got = [tf.norm(x), tf.norm(x, axis=1), tf.norm(x, ord=1, axis=0), tf.norm(x, ord=np.inf, axis=1, keepdims=True),
               tf.norm(x, ord=3, axis=1), tf.norm(x, ord=1, axis=[0, 1]), tf.norm(x, ord=np.inf, axis=(-2, -1)), tf.linalg.norm(x, "fro", [0, 1])]  # fmt: skip
        with pytest.raises(ValueError, match="'ord' must be a supported vector norm"):
            tf.norm(x, ord="nuc")
    expected = [np.linalg.norm(a), np.linalg.norm(a, axis=1), np.abs(a).sum(0), np.abs(a).max(1, keepdims=True),
                np.linalg.norm(a, 3, axis=1), np.linalg.norm(a, 1), np.linalg.norm(a, np.inf), np.linalg.norm(a, "fro")]  # fmt: skip
    for g, e in zip(run(got), expected, strict=True):
        np.testing.assert_allclose(g, e)
    assert got[0].op.name == "norm" and got[3].shape.as_list() == [2, 1]


def test_linalg_functions_match_numpy_and_tensorflows_result_order():
    m = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
    r = np.array([[1.0], [2.0], [3.0]])
    with tf.Graph().as_default():
        x = tf.constant(m)
        inv, det, (sign, logdet), chol = tf.linalg.inv(x), tf.linalg.det(x), tf.linalg.slogdet(x), tf.cholesky(x)
        q, rr = tf.qr(x)
        s, u, v = tf.svd(x)
        s_only = tf.linalg.svd(x, compute_uv=False)
        e, ev = tf.self_adjoint_eig(x)
        solve, solve_adj = tf.matrix_solve(x, r), tf.linalg.solve(x + tf.constant(np.triu(m, 1)), r, adjoint=True)
        t = tf.linalg.transpose(tf.constant(np.ones((2, 3, 4))))
        band = tf.matrix_band_part(tf.constant(np.ones((4, 4))), 1, 0)
        diag, part = tf.linalg.diag([[1.0, 2.0]]), tf.linalg.diag_part(x)
        eye = tf.eye(2, 3, batch_shape=[2], dtype=tf.int32)
        logdet_pd = tf.linalg.logdet(x)
        with pytest.raises(ValueError, match="at least rank 2"):
            tf.linalg.inv(tf.constant([1.0]))
    names = [(inv.op.name, inv.op.type), (det.op.type,), (sign.op.type,), (chol.op.type,), (solve.op.name,), (band.op.type,)]
    assert names == [("MatrixInverse", "MatrixInverse"), ("MatrixDeterminant",), ("LogMatrixDeterminant",), ("Cholesky",), ("MatrixSolve",),
                     ("MatrixBandPart",)]  # fmt: skip
    values = run(
        [inv, det, sign, logdet, chol, q, rr, s, u, v, s_only, e, ev, solve, solve_adj, t, band, diag, part, eye, logdet_pd]
    )
    (
        inv_,
        det_,
        sign_,
        logdet_,
        chol_,
        q_,
        r_,
        s_,
        u_,
        v_,
        s_only_,
        e_,
        ev_,
        solve_,
        solve_adj_,
        t_,
        band_,
        diag_,
        part_,
        eye_,
        lpd_,
    ) = values
    np.testing.assert_allclose(inv_, np.linalg.inv(m))
    np.testing.assert_allclose([det_, sign_, logdet_], [np.linalg.det(m), 1.0, np.log(np.linalg.det(m))])
    np.testing.assert_allclose(chol_, np.linalg.cholesky(m))
    np.testing.assert_allclose(q_ @ r_, m, atol=1e-12)
    np.testing.assert_allclose(u_ @ np.diag(s_) @ v_.T, m, atol=1e-12)  # v itself, not its adjoint
    np.testing.assert_allclose(s_only_, np.linalg.svd(m, compute_uv=False))
    np.testing.assert_allclose(m @ ev_, ev_ * e_, atol=1e-12)
    np.testing.assert_allclose(solve_, np.linalg.solve(m, r))
    np.testing.assert_allclose(solve_adj_, np.linalg.solve((m + np.triu(m, 1)).T, r))
    assert t_.shape == (2, 4, 3) and band_.tolist() == np.tril(np.triu(np.ones((4, 4)), -1)).tolist()
    assert diag_.tolist() == [[[1.0, 0.0], [0.0, 2.0]]] and part_.tolist() == [4.0, 3.0, 2.0]
    assert eye_.tolist() == [[[1, 0, 0], [0, 1, 0]]] * 2 and eye.dtype is tf.int32
    np.testing.assert_allclose(lpd_, np.log(np.linalg.det(m)))


def test_linalg_gradients():
    m = np.array([[4.0, 1.0], [0.5, 3.0]])
    check_gradient(tf.linalg.inv, m)
    check_gradient(lambda x: tf.linalg.solve(x, tf.constant([[1.0], [2.0]], dtype=tf.float64)), m)
    check_gradient(lambda x: tf.matrix_band_part(x, 0, -1), m)


def test_an_unknown_rank_is_refused_naming_the_function():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        for fn, name in [(lambda: tf.matmul(x, tf.ones([2, 2])), "matmul"), (lambda: tf.reduce_sum(x, 1), "reduce_sum"),
                         (lambda: tf.squeeze(x), "squeeze"), (lambda: tf.argmax(x), "argmax")]:  # fmt: skip
            with pytest.raises(ValueError, match=rf"{name}\(\): .*unknown rank; ember's graph mode needs it"):
                fn()
