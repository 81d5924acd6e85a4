"""String tensors in graph mode: constants, feeds and variables through Session.run, compared
and selected in the graph, exported as TensorFlow writes them."""

import numpy as np
import pytest

import ember

A = [b"a", b"bc", b""]


def as_list(value):
    assert isinstance(value, (np.ndarray, bytes))
    return value.tolist() if isinstance(value, np.ndarray) else value


def test_session_runs_string_constants():
    with ember.Graph().as_default():
        c = ember.constant(["a", "bc", ""])
        s = ember.constant("x")
        with ember.Session() as sess:
            values = sess.run([c, c[1], s, ember.cat([c, c]), c.reshape(3, 1)])
            assert values[0].dtype == object and values[0].tolist() == A
            assert values[1] == b"bc" and values[2] == b"x"
            assert values[3].tolist() == A + A and values[4].tolist() == [[b"a"], [b"bc"], [b""]]
            assert c.eval().tolist() == A
            values[0][0] = b"changed"  # the caller's copy: the constant keeps its value
            assert sess.run(c).tolist() == A


@pytest.mark.parametrize(
    "fed",
    [["x", "yz"], [b"x", b"yz"], np.array(["x", "yz"]), np.array([b"x", b"yz"], dtype=object), ember.tensor(["x", "yz"])],
    ids=["str", "bytes", "unicode array", "object array", "tensor"],
)
def test_feeding_strings(fed):
    with ember.Graph().as_default():
        p = ember.placeholder(ember.string, shape=[None])
        with ember.Session() as sess:
            assert sess.run(p, {p: fed}).tolist() == [b"x", b"yz"]
            assert sess.run(p[1:], {p: fed}).tolist() == [b"yz"]


def test_feeding_strings_refuses_numbers_and_wrong_shapes():
    with ember.Graph().as_default():
        p = ember.placeholder(ember.string, shape=[2], name="p")
        with ember.Session() as sess:
            with pytest.raises(TypeError, match=r"Cannot feed value \[1, 2\] for Tensor 'p:0' of dtype string"):
                sess.run(p, {p: [1, 2]})
            with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor 'p:0', which has shape \(2,\)"):
                sess.run(p, {p: ["a", "b", "c"]})


def test_string_variables():
    with ember.Graph().as_default():
        v = ember.Variable(["a", "b"])
        update = ember.assign(v, ember.where(v == "a", ember.constant(["A", "A"]), v))
        with ember.Session() as sess:
            sess.run(ember.global_variables_initializer())
            assert sess.run(v).tolist() == [b"a", b"b"]
            sess.run(update)
            assert sess.run(v).tolist() == [b"A", b"b"]


def test_compare_and_select_in_a_graph():
    with ember.Graph().as_default() as g:
        c = ember.constant(["a", "bc", ""])
        p = ember.placeholder(ember.string, shape=[3])
        eq, ne, to_str = c == "a", ember.ne(c, p), c != b""
        picked = ember.where(eq, c, p)
        assert repr(eq) == 'Tensor("Equal:0", shape=(3,), dtype=bool)' and picked.dtype is ember.string
        with ember.Session() as sess:
            values = sess.run([eq, ne, to_str, picked], {p: ["a", "x", ""]})
        assert [as_list(v) for v in values] == [
            [True, False, False],
            [False, True, False],
            [True, True, False],
            [b"a", b"x", b""],
        ]
        consts = [n for n in g.as_graph_def().node if n.op == "Const"]
        assert [list(n.attr["value"].tensor.string_val) for n in consts] == [A, [b"a"], [b""]]


def test_refusals_in_a_graph():
    with ember.Graph().as_default():
        c = ember.constant(["a", "b"])
        for call, message in [
            (lambda: c + c, r"^add\(\): argument 'input' must have a bool or numeric"),
            (lambda: c < "a", r"^lt\(\): argument 'input' must have"),
            (lambda: ember.sort(c), r"^sort\(\): argument 'input' has dtype ember.string"),
        ]:
            with pytest.raises(TypeError, match=message):
                call()


def test_against_tensorflow():
    """The same graph in TensorFlow 1 (tf.equal, tf.not_equal, tf.where on strings, a fed placeholder)."""
    fed = ["a", "x", ""]
    with ember.Graph().as_default():
        c = ember.constant(["a", "bc", ""])
        p = ember.placeholder(ember.string, shape=[3])
        with ember.Session() as sess:
            ours = sess.run([c, ember.eq(c, p), c != "a", ember.where(ember.eq(c, p), c, p)], {p: fed})
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        c = tf.constant(["a", "bc", ""])
        p = tf.placeholder(tf.string, shape=[3])
        with tf.Session() as sess:
            theirs = sess.run([c, tf.equal(c, p), tf.not_equal(c, "a"), tf.where(tf.equal(c, p), c, p)], {p: fed})
    assert [v.tolist() for v in ours] == [v.tolist() for v in theirs]
    assert [v.dtype for v in ours] == [v.dtype for v in theirs]
