"""compat.v1's math ops: values against NumPy, TensorFlow's dtypes, node names and types,
errors, and gradients against finite differences (TensorFlow itself where importable)."""

import math

import numpy as np
import pytest

import ember.compat.v1 as tf
from tests.compat._helpers import check_gradient, run

X = np.array([[1.5, -2.0, 3.0], [0.25, 0.5, -0.75]], dtype=np.float32)
POS = np.array([[0.5, 1.5, 2.0], [0.25, 3.0, 0.75]], dtype=np.float32)
UNIT = np.array([[0.5, -0.25, 0.1], [0.9, -0.6, 0.0]], dtype=np.float32)
_SCIPY_FREE = {"lgamma": np.vectorize(math.lgamma), "erf": np.vectorize(math.erf), "erfc": np.vectorize(math.erfc)}

UNARY = [  # name, TensorFlow type, NumPy reference, input
    ("abs", "Abs", np.abs, X), ("negative", "Neg", np.negative, X), ("sign", "Sign", np.sign, X),
    ("square", "Square", np.square, X), ("reciprocal", "Reciprocal", np.reciprocal, X), ("sqrt", "Sqrt", np.sqrt, POS),
    ("rsqrt", "Rsqrt", lambda a: 1 / np.sqrt(a), POS), ("exp", "Exp", np.exp, X), ("expm1", "Expm1", np.expm1, X),
    ("log", "Log", np.log, POS), ("log1p", "Log1p", np.log1p, POS), ("sin", "Sin", np.sin, X), ("cos", "Cos", np.cos, X),
    ("tan", "Tan", np.tan, UNIT), ("asin", "Asin", np.arcsin, UNIT), ("acos", "Acos", np.arccos, UNIT), ("atan", "Atan", np.arctan, X),
    ("sinh", "Sinh", np.sinh, X), ("cosh", "Cosh", np.cosh, X), ("tanh", "Tanh", np.tanh, X), ("asinh", "Asinh", np.arcsinh, X),
    ("acosh", "Acosh", np.arccosh, POS + 1), ("atanh", "Atanh", np.arctanh, UNIT), ("sigmoid", "Sigmoid", lambda a: 1 / (1 + np.exp(-a)), X),
    ("erf", "Erf", _SCIPY_FREE["erf"], X), ("erfc", "Erfc", _SCIPY_FREE["erfc"], X), ("lgamma", "Lgamma", _SCIPY_FREE["lgamma"], POS),
    ("floor", "Floor", np.floor, X), ("ceil", "Ceil", np.ceil, X), ("rint", "Rint", np.rint, X), ("round", "Round", np.round, X),
    ("log_sigmoid", "Neg", lambda a: -np.log1p(np.exp(-a)), X),
]  # fmt: skip


@pytest.mark.parametrize(("name", "op_type", "reference", "value"), UNARY, ids=[u[0] for u in UNARY])
def test_unary_functions_match_numpy_and_name_their_node(name, op_type, reference, value):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        y = getattr(tf, name)(x)
        named = getattr(tf, name)(x, name="mine")
    assert (y.op.type, y.dtype, y.shape.as_list()) == (op_type, tf.float32, [None, 3])
    assert named.op.name == "mine"
    np.testing.assert_allclose(run(y, {x: value}), reference(value.astype(np.float64)), rtol=2e-6, atol=1e-6)
    assert y.op.name == {"negative": "Neg", "log_sigmoid": "LogSigmoid"}.get(name, op_type)


def test_round_is_half_to_even_and_keeps_integers():
    with tf.Graph().as_default():
        r = tf.round([0.5, 1.5, 2.5, -0.5, -1.5])
        i = tf.round(tf.constant([3, -4]))
    assert run(r).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0]
    assert run(i).tolist() == [3, -4] and i.dtype is tf.int32


def test_digamma_and_special_values():
    with tf.Graph().as_default():
        d = tf.digamma([1.0, 2.0])
        nan, inf, fin = tf.is_nan([np.nan, 1.0]), tf.is_inf([np.inf, -np.inf, 0.0]), tf.is_finite([np.nan, 1.0])
    np.testing.assert_allclose(run(d), [-0.5772157, 0.4227843], rtol=1e-6)
    assert run(nan).tolist() == [True, False] and run(inf).tolist() == [True, True, False] and run(fin).tolist() == [False, True]


BINARY = [  # name, node name, type, NumPy reference
    ("add", "Add", "AddV2", np.add), ("subtract", "Sub", "Sub", np.subtract), ("multiply", "Mul", "Mul", np.multiply),
    ("divide", "truediv", "RealDiv", np.divide), ("truediv", "truediv", "RealDiv", np.divide), ("realdiv", "RealDiv", "RealDiv", np.divide),
    ("floordiv", "floordiv", "FloorDiv", np.floor_divide), ("floormod", "FloorMod", "FloorMod", np.mod), ("mod", "FloorMod", "FloorMod", np.mod),
    ("pow", "Pow", "Pow", np.power), ("maximum", "Maximum", "Maximum", np.maximum), ("minimum", "Minimum", "Minimum", np.minimum),
    ("squared_difference", "SquaredDifference", "SquaredDifference", lambda a, b: (a - b) ** 2), ("atan2", "Atan2", "Atan2", np.arctan2),
]  # fmt: skip


@pytest.mark.parametrize(("name", "node", "op_type", "reference"), BINARY, ids=[b[0] for b in BINARY])
def test_binary_functions_broadcast_match_numpy_and_name_their_node(name, node, op_type, reference):
    b = np.array([0.5, 1.25, -2.0], dtype=np.float32)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (None, 3))
        y = getattr(tf, name)(x, b)
    assert (y.op.name, y.op.type, y.dtype, y.shape.as_list()) == (node, op_type, tf.float32, [None, 3])
    converted = "x" if name == "atan2" else "y"  # atan2(y, x)
    assert [op.name for op in g.get_operations() if op.type == "Const"] == [f"{node}/{converted}"]  # TensorFlow names the operand
    a = POS if name == "pow" else X
    np.testing.assert_allclose(run(y, {x: a}), reference(a.astype(np.float64), b.astype(np.float64)), rtol=2e-6, atol=1e-6)


def test_python_operands_take_the_tensors_dtype_and_mixed_dtypes_are_refused():
    with tf.Graph().as_default():
        i = tf.constant([7, -7])
        assert tf.add(i, 1).dtype is tf.int32 and tf.multiply(2.0, tf.constant(1.5)).dtype is tf.float32
        with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not match type int32"):
            tf.add(i, tf.constant(1.0))
        with pytest.raises(TypeError, match=r"Expected int32 passed to parameter 'y' of op 'AddV2', got 1\.5 of type 'float'"):
            tf.add(i, 1.5)
        assert run(tf.floordiv(i, 2)).tolist() == [3, -4] and run(tf.floormod(i, 3)).tolist() == [1, 2]
        assert run(tf.truncatediv(i, 2)).tolist() == [3, -3] and run(tf.truncatemod(i, 3)).tolist() == [1, -1]
        assert run(tf.realdiv(i, 2)).tolist() == [3, -3]


def test_divide_of_integers_is_true_division_in_float64():
    with tf.Graph().as_default() as g:
        d = tf.divide(tf.constant([1, 2]), 4)
        small = tf.truediv(tf.constant([1], dtype=tf.int16), tf.constant([4], dtype=tf.int16))
    assert d.dtype is tf.float64 and small.dtype is tf.float32
    assert run(d).tolist() == [0.25, 0.5]
    assert [op.type for op in g.get_operations()].count("Cast") == 4


def test_float_only_functions_refuse_integers_as_tensorflow_does():
    with tf.Graph().as_default():
        with pytest.raises(
            TypeError, match="Value passed to parameter 'x' has DataType int32 not in list of allowed values: bfloat16, half"
        ):
            tf.sqrt(tf.constant([4]))
        with pytest.raises(TypeError, match="DataType float32 not in list of allowed values: bool"):
            tf.logical_and(tf.constant([1.0]), tf.constant([1.0]))


def test_add_n_sums_a_list_and_returns_a_single_input_itself():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (2,))
        s = tf.add_n([x, x, [1.0, 2.0]])
        assert tf.add_n([x]) is x
        with pytest.raises(ValueError, match="at least one Tensor"):
            tf.add_n([])
        with pytest.raises(ValueError, match="one shape"):
            tf.add_n([tf.zeros([2]), tf.zeros([3])])
    assert (s.op.name, s.op.type) == ("AddN", "AddN")
    assert run(s, {x: [1.0, 1.0]}).tolist() == [3.0, 4.0]


def test_comparisons_and_logic_are_elementwise_and_broadcast():
    with tf.Graph().as_default():
        x = tf.constant([[1, 2, 3]])
        col = tf.constant([[2], [3]])
        cases = {
            "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
            "greater": np.greater, "greater_equal": np.greater_equal,
        }  # fmt: skip
        got = {k: getattr(tf, k)(x, col) for k in cases}
        p, q = tf.constant([True, True, False, False]), tf.constant([True, False, True, False])
        logic = [tf.logical_and(p, q), tf.logical_or(p, q), tf.logical_xor(p, q), tf.logical_not(p)]
        strings = [tf.equal(tf.constant(["a", "b"]), "a"), tf.not_equal(tf.constant(["a", "b"]), tf.constant(["a", "c"]))]
    values = run(got)
    for k, fn in cases.items():
        assert got[k].dtype is tf.bool and got[k].shape.as_list() == [2, 3]
        assert values[k].tolist() == fn([[1, 2, 3]], [[2], [3]]).tolist(), k
    assert got["equal"].op.type == "Equal" and logic[2].op.type == "LogicalXor"
    assert [v.tolist() for v in run(strings)] == [[True, False], [False, True]]
    assert [v.tolist() for v in run(logic)] == [[True, False, False, False], [True, True, True, False], [False, True, True, False],
                                                [False, False, True, True]]  # fmt: skip


def test_cast_and_its_spellings():
    with tf.Graph().as_default():
        x = tf.constant([1.7, -1.7, 2.5])
        c = tf.cast(x, tf.int32)
        assert tf.cast(x, tf.float32) is x
        spelled = [tf.to_float(tf.constant([1])), tf.to_double(x), tf.to_int32(x), tf.to_int64(x)]
        sat = tf.saturate_cast([-5.0, 300.0, 3e10], tf.uint8)
        sat32 = tf.saturate_cast([3e10, -3e10], tf.int32)
        real = tf.cast(tf.constant([1 + 2j]), tf.float32)
    assert (c.op.name, c.op.type, c.dtype) == ("Cast", "Cast", tf.int32)
    assert run(c).tolist() == [1, -1, 2]
    assert [t.op.name for t in spelled] == ["ToFloat", "ToDouble", "ToInt32", "ToInt64"]
    assert [t.dtype for t in spelled] == [tf.float32, tf.float64, tf.int32, tf.int64]
    assert run(sat).tolist() == [0, 255, 255] and sat.op.name == "saturate_cast"
    assert run(sat32).tolist() == [2147483520, -2147483648]
    assert run(real).tolist() == [1.0]


@pytest.mark.parametrize(
    "name",
    [
        "square",
        "sqrt",
        "exp",
        "log",
        "sin",
        "tanh",
        "sigmoid",
        "rsqrt",
        "reciprocal",
        "log1p",
        "expm1",
        "atan",
        "erf",
        "abs",
        "lgamma",
    ],
)
def test_unary_gradients_match_finite_differences(name):
    check_gradient(getattr(tf, name), np.array([[0.5, 1.25], [2.0, 0.75]]))


@pytest.mark.parametrize(
    "name", ["add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "squared_difference", "atan2"]
)
def test_binary_gradients_match_finite_differences(name):
    check_gradient(getattr(tf, name), np.array([[0.5, 1.25], [2.0, 0.75]]), np.array([[1.5, 0.25], [0.5, 1.75]]))


def test_add_n_gradient():
    check_gradient(lambda a, b: tf.add_n([a, b, a]), np.array([1.0, 2.0]), np.array([3.0, 4.0]))


def test_against_tensorflow_where_importable():
    tf_real = pytest.importorskip("tensorflow").compat.v1
    with tf_real.Graph().as_default():
        t = tf_real.constant(X)
        expected = tf_real.Session().run(
            [tf_real.floormod(t, 0.7), tf_real.round(t), tf_real.sign(t), tf_real.rsqrt(tf_real.abs(t))]
        )
        names = [tf_real.add(t, t).op.name, tf_real.divide(t, t).op.name]
    with tf.Graph().as_default():
        t = tf.constant(X)
        got = run([tf.floormod(t, 0.7), tf.round(t), tf.sign(t), tf.rsqrt(tf.abs(t))])
        assert [tf.add(t, t).op.name, tf.divide(t, t).op.name] == names
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_gradient_nodes_compute_with_embers_operators_and_come_back_as_tensorflow_tensors():
    # maximum's and pow's derivatives compare (==) and multiply by masks: with TensorFlow's
    # operators (== is identity, float * bool refused) they would not build
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (3,))
        p = tf.constant([2.0, 0.0, 3.0])
        (gx,) = tf.gradients(tf.reduce_sum(tf.maximum(x, 0.0) + tf.pow(x, p)), [x])
        assert type(gx) is tf.Tensor and type(x) is tf.Tensor
        assert gx + 1.0 is not None and (gx == gx) is True  # TensorFlow's operators again
        value = run(gx, {x: [-1.0, 2.0, 0.5]})
    np.testing.assert_allclose(value, [0.0 + 2 * -1.0, 1.0 + 0.0, 1.0 + 3 * 0.25])


def test_submodule_namespaces():
    assert tf.math.reduce_sum is tf.reduce_sum and tf.math.log is tf.log and tf.math.mod is tf.floormod
    assert tf.linalg.matmul is tf.matmul and tf.linalg.inv is tf.matrix_inverse and tf.linalg.transpose is tf.matrix_transpose
    assert tf.sparse.to_dense is tf.sparse_tensor_to_dense and tf.math.top_k is tf.nn.top_k
    assert (
        tf.dtypes.as_dtype("float32") is tf.float32 and tf.dtypes.as_dtype(np.int64) is tf.int64 and tf.as_dtype(bool) is tf.bool
    )
    assert tf.dtypes.as_dtype(1) is tf.float32  # TensorFlow's DataType enum: DT_FLOAT = 1
    assert isinstance(tf.float32, tf.DType) and tf.dtypes.float64 is tf.double
    with pytest.raises(TypeError, match="Cannot convert value 'no' to a TensorFlow DType"):
        tf.dtypes.as_dtype("no")
    with tf.Graph().as_default():
        a, b = tf.constant([12, 10]), tf.constant([10, 6])
        bits = [tf.bitwise.bitwise_and(a, b), tf.bitwise.bitwise_or(a, b), tf.bitwise.bitwise_xor(a, b), tf.bitwise.invert(a),
                tf.bitwise.left_shift(a, 1), tf.bitwise.right_shift(a, 2)]  # fmt: skip
        with pytest.raises(TypeError, match="not in list of allowed values"):
            tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([1.0]))
        adj = tf.linalg.adjoint(tf.constant([[1 + 1j, 2]]))
    assert [v.tolist() for v in run(bits)] == [[8, 2], [14, 14], [6, 12], [-13, -11], [24, 20], [3, 2]]
    assert bits[0].op.type == "BitwiseAnd" and run(adj).tolist() == [[1 - 1j], [2 + 0j]]


def test_dtypes_have_tensorflows_attributes():
    assert tf.float32.base_dtype is tf.float32 and tf.int32.as_numpy_dtype is np.int32 and tf.complex64.real_dtype is tf.float32
    assert (tf.uint8.min, tf.uint8.max, tf.int8.min, tf.bool.max) == (0, 255, -128, True)
    assert tf.float16.max == 65504.0 and tf.bfloat16.max > 3e38
    assert (tf.float64.as_datatype_enum, tf.int64.size) == (2, 8)
    assert (
        tf.float32.is_floating and tf.int64.is_integer and tf.uint16.is_unsigned and tf.bool.is_bool and not tf.int32.is_floating
    )
    with pytest.raises(TypeError, match="Cannot find minimum value"):
        tf.string.min
