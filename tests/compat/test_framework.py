"""ember.compat.v1's base: the implicit default graph, TensorFlow's operators, dtypes and names."""

import numpy as np
import pytest

import ember
import ember.compat.v1 as tf
from ember.ops.schema import SchemaError, load_schema, parse_entry, tf_op_table


def test_the_seed_transcript_runs_as_written(capsys):
    tf.disable_eager_execution()
    a = tf.constant(3.0, dtype=tf.float32)
    b = tf.constant(4.0)  # also tf.float32 implicitly
    total = a + b
    print(a)
    print(b)
    print(total)
    with tf.Session() as sess:
        result = sess.run(total)
        print(result, type(result))
    assert capsys.readouterr().out.splitlines() == [
        'Tensor("Const:0", shape=(), dtype=float32)',
        'Tensor("Const_1:0", shape=(), dtype=float32)',
        'Tensor("add:0", shape=(), dtype=float32)',
        "7.0 <class 'numpy.float32'>",
    ]
    assert (total.op.type, a.op.type) == ("AddV2", "Const") and total.graph is tf.get_default_graph()
    assert [t.name for t in total.op.inputs] == ["Const:0", "Const_1:0"]


def test_eager_execution_comes_back_and_graphs_keep_their_nodes():
    tf.disable_eager_execution()
    assert not tf.executing_eagerly()
    c = tf.constant(2.0) * 3.0
    tf.enable_eager_execution()
    assert tf.executing_eagerly()
    assert (ember.tensor([1.0, 2.0]) * 2).tolist() == [2.0, 4.0]  # runs now, records nothing
    assert tf.Session(graph=c.graph).run(c) == 6.0
    with tf.Graph().as_default():
        assert not tf.executing_eagerly()


def test_reset_default_graph_keeps_tensorflow_graphs():
    tf.disable_eager_execution()
    tf.constant(1.0)
    tf.reset_default_graph()
    g = tf.get_default_graph()
    assert isinstance(g, tf.Graph) and g.get_operations() == []
    assert tf.constant(1.0).name == "Const:0"


def test_session_run_of_an_eager_tensor_says_what_to_do():
    x = ember.tensor([1.0])
    with pytest.raises(TypeError, match=r"eager Tensor.*disable_eager_execution\(\)"):
        ember.graph.Session().run(x)


def test_constants_take_tensorflows_dtypes():
    with tf.Graph().as_default():
        cases = [(3, tf.int32), (2**40, tf.int64), (1.5, tf.float32), (True, tf.bool), ("a", tf.string), (1j, tf.complex128),
                 ((1, 2.0), tf.float32), (np.float64(1), tf.float64), (np.arange(3), tf.int64), ([[1], [2]], tf.int32)]  # fmt: skip
        for value, dtype in cases:
            assert tf.constant(value).dtype is dtype, value
        with pytest.raises(TypeError, match=r"Expected int32, but got 2\.5 of type 'float'"):
            tf.constant(2.5, dtype=tf.int32)
        with pytest.raises(TypeError, match="Expected bool"):
            tf.constant(1, dtype=tf.bool)
        assert tf.constant(0, shape=(2, 3)).shape.as_list() == [2, 3]


def test_python_numbers_become_const_nodes_named_as_tensorflow_names_them():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, shape=(2,), name="x")
        y = x * 2
        z = 3 - y
        w = -z
    names = [(op.name, op.type) for op in g.get_operations()]
    assert names == [("x", "Placeholder"), ("mul/y", "Const"), ("mul", "Mul"), ("sub/x", "Const"), ("sub", "Sub"), ("Neg", "Neg")]
    assert g.get_operation_by_name("mul/y").get_attr("value").dtype is ember.float32
    assert [t.name for t in z.op.inputs] == ["sub/x:0", "mul:0"]
    np.testing.assert_allclose(tf.Session(graph=g).run(w, {x: [1.0, 2.0]}), [-1.0, 1.0])


def test_operators_follow_tensorflow_dtypes():
    with tf.Graph().as_default() as g:
        i = tf.constant([7, -7])
        q = i / 2
        small = tf.constant([7], dtype=tf.int8) / tf.constant([2], dtype=tf.int8)
        f = i // 2, i % 3, i**2
    assert (q.dtype, small.dtype, q.op.type, q.op.name) == (tf.float64, tf.float32, "RealDiv", "truediv")
    assert [op.name for op in g.get_operations() if op.name.startswith("truediv/")] == [
        "truediv/y",
        "truediv/Cast",
        "truediv/Cast_1",
    ]
    sess = tf.Session(graph=g)
    np.testing.assert_array_equal(sess.run(q), [3.5, -3.5])
    assert [v.tolist() for v in sess.run(list(f))] == [[3, -4], [1, 2], [49, 49]]  # floor division and modulo, as Python's


def test_operand_dtypes_are_checked_not_promoted():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        with pytest.raises(
            TypeError, match="Input 'y' of 'AddV2' Op has type float64 that does not match type float32 of argument 'x'"
        ):
            a + tf.constant(1.0, dtype=tf.float64)
        with pytest.raises(TypeError, match=r"Expected int32 passed to parameter 'y' of op 'Mul', got 2.5"):
            tf.constant(1) * 2.5
        with pytest.raises(TypeError, match=r"parameter 'x' of op 'Sub'"):
            2.5 - tf.constant(1)


def test_equality_is_identity_and_tensors_hash():
    with tf.Graph().as_default():
        a, b = tf.constant(1.0), tf.constant(1.0)
    assert (a == a, a == b, a != b) == (True, False, True)
    assert len({a, b, a}) == 2


def test_logical_and_comparison_operators():
    with tf.Graph().as_default() as g:
        t, f = tf.constant([True, True]), tf.constant([True, False])
        x = tf.constant([1, 2])
        ops = [t & f, t | f, t ^ f, ~f, x < 2, x >= 2, x & 3]
    assert [op.op.type for op in ops] == [
        "LogicalAnd",
        "LogicalOr",
        "LogicalXor",
        "LogicalNot",
        "Less",
        "GreaterEqual",
        "BitwiseAnd",
    ]
    assert [op.name for op in ops[:5]] == ["and:0", "or:0", "xor:0", "LogicalNot:0", "Less:0"]
    values = tf.Session(graph=g).run(ops)
    assert [v.tolist() for v in values] == [
        [True, False],
        [True, True],
        [False, True],
        [False, True],
        [True, False],
        [False, True],
        [1, 2],
    ]


def test_printing_follows_the_behaviour_switch():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=(None, 3), name="x")
        u = tf.placeholder(tf.float32, name="u")
        v = tf.Variable([1, 2], name="v")
    assert (str(x), repr(x)) == (
        'Tensor("x:0", shape=(None, 3), dtype=float32)',
        "<tf.Tensor 'x:0' shape=(None, 3) dtype=float32>",
    )
    assert (str(u), repr(u)) == ('Tensor("u:0", dtype=float32)', "<tf.Tensor 'u:0' shape=<unknown> dtype=float32>")
    assert repr(x[0]) == "<tf.Tensor 'strided_slice:0' shape=(3,) dtype=float32>" and x[0].op.type == "StridedSlice"
    assert repr(v) == "<tf.Variable 'v:0' shape=(2,) dtype=int32>"
    tf.disable_v2_behavior()
    assert str(x) == 'Tensor("x:0", shape=(?, 3), dtype=float32)' and repr(v).endswith("dtype=int32_ref>")


def test_variables_take_tensorflows_dtypes_and_collections():
    with tf.Graph().as_default() as g:
        v = tf.Variable(3)
        w = tf.Variable(lambda: [1.5, 2.5], name="w")
        local = tf.Variable(0, collections=["local_variables"], name="local")
        total = w * 2
    assert (v.dtype, w.dtype) == (tf.int32, tf.float32)
    assert g.get_collection("variables") == [v, w] and g.get_collection("trainable_variables") == [v, w, local]  # as TensorFlow
    assert g.get_collection("local_variables") == [local]
    with tf.Session(graph=g) as sess:
        sess.run(tf.variables_initializer([v, w]))
        assert sess.run(v + 1) == 4
        np.testing.assert_allclose(sess.run(total), [3.0, 5.0])


def test_graph_def_carries_tensorflows_op_types():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, shape=(2, 2), name="x")
        y = ember.matmul(x, x).relu().sum()
    nodes = {n.name: n.op for n in g.as_graph_def().node}
    assert nodes == {"x": "Placeholder", "MatMul": "MatMul", "Relu": "Relu", "Sum": "Sum"}
    assert y.op.kind == "sum" and y.op.type == "Sum"


def test_the_tf_key_is_part_of_the_schema_entry():
    table = tf_op_table()
    assert (
        table["add"] == ("AddV2", "add")
        and table["div_scalar"] == ("RealDiv", "truediv")
        and table["floor_divide"] == ("FloorDiv", "floordiv")
    )
    entries = {e.name: e for e in load_schema()}
    assert entries["matmul"].tf == "MatMul" and entries["matmul"].to_dict()["tf"] == "MatMul"
    assert parse_entry(entries["div"].to_dict()) == entries["div"]  # the dict form round-trips
    with pytest.raises(SchemaError, match="does not dispatch"):
        parse_entry({"name": "relu", "signature": "Tensor (Tensor input) => Relu", "tf": {"gelu": "Gelu"}})
