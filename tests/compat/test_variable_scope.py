"""TensorFlow 1's variable scopes, get_variable, tf.Variable, collections and initialisation checks
(ember.compat.v1), against TensorFlow's naming and errors (the oracle part runs where TensorFlow is
installed)."""

import numpy as np
import pytest

import ember
import ember.compat.v1 as tf
from ember.graph import constant


def _naming_script(t, const):
    """The names a TF1 program's scopes give; ``t`` is the TF1 module, ``const`` its constant."""
    names = []
    with t.variable_scope("s") as s:
        names += [t.get_variable("a", [1]).name, const(1.0).name, s.name, s.original_name_scope]
    with t.variable_scope(s):  # re-entering by object: same variable scope, a fresh name scope
        names.append(const(1.0).name)
    with t.variable_scope("s", reuse=True):
        names += [t.get_variable("a").name, const(1.0).name]
    with t.variable_scope(None, default_name="blk"):
        names.append(t.get_variable("x", [1]).name)
    with t.variable_scope(None, default_name="blk"):
        names.append(t.get_variable("x", [1]).name)
    with t.variable_scope("s"):
        with t.variable_scope(None, default_name="a") as q:
            names += [q.name, const(0).name]
        with t.variable_scope(None, default_name="a") as q:
            names += [q.name, const(0).name]
    with t.name_scope("ns"):
        with t.variable_scope("v"):
            names += [t.get_variable("w", [1]).name, const(0).name]
    with t.variable_scope("outer", reuse=True):
        with t.variable_scope(s) as by_object:
            names.append(str(by_object.reuse))
        with t.variable_scope("inner") as inner:
            names.append(str(inner.reuse))
    with t.variable_scope("aux", auxiliary_name_scope=False):
        names += [t.get_variable("u", [1]).name, const(0).name]
    return names


EXPECTED_NAMES = [
    "s/a:0", "s/Const:0", "s", "s/",
    "s_1/Const:0",
    "s/a:0", "s_2/Const:0",
    "blk/x:0", "blk_1/x:0",
    "s/a", "s_3/a/Const:0", "s/a_1", "s_3/a_1/Const:0",
    "v/w:0", "ns/v/Const:0",
    "False", "True",
    "aux/u:0", "Const:0",
]  # fmt: skip


def test_scope_naming_is_tensorflows():
    with tf.Graph().as_default():
        assert _naming_script(tf, constant) == EXPECTED_NAMES


def test_scope_naming_matches_the_oracle():
    tensorflow = pytest.importorskip("tensorflow")
    v1 = tensorflow.compat.v1
    with v1.Graph().as_default():
        assert _naming_script(v1, v1.constant) == EXPECTED_NAMES


def test_reuse_errors_have_tensorflows_texts():
    with tf.Graph().as_default():
        w = tf.get_variable("w", [2, 3])
        with pytest.raises(
            ValueError,
            match=r"^Variable w already exists, disallowed\. Did you mean to set reuse=True or reuse=tf\.AUTO_REUSE in VarScope\?",
        ):
            tf.get_variable("w", [2, 3])
        with tf.variable_scope("s", reuse=True):
            with pytest.raises(
                ValueError,
                match=r"^Variable s/b does not exist, or was not created with tf\.get_variable\(\)\. Did you mean to set reuse=tf\.AUTO_REUSE in VarScope\?$",
            ):
                tf.get_variable("b", [1])
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            assert tf.get_variable("w") is w
            with pytest.raises(
                ValueError, match=r"Trying to share variable w, but specified shape \(3, 3\) and found shape \(2, 3\)\."
            ):
                tf.get_variable("w", [3, 3])
            with pytest.raises(
                ValueError, match=r"Trying to share variable w, but specified dtype int32 and found dtype float32\."
            ):
                tf.get_variable("w", [2, 3], dtype=ember.int32)
        with pytest.raises(ValueError, match=r"If initializer is a constant, do not specify shape\."):
            tf.get_variable("c", [1], initializer=constant(1.0))
        with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
            with tf.variable_scope(None, default_name="d", reuse=True):
                pass
        with pytest.raises(TypeError, match="If default_name is None then name_or_scope is required"):
            with tf.variable_scope(None):
                pass


def test_auto_reuse_shares_or_creates_and_is_inherited():
    with tf.Graph().as_default():
        with tf.variable_scope("m", reuse=tf.AUTO_REUSE):
            a = tf.get_variable("a", [2])
            assert tf.get_variable("a", [2]) is a
            assert tf.get_variable_scope().reuse is tf.AUTO_REUSE
            with tf.variable_scope("sub") as sub:
                assert sub.reuse is tf.AUTO_REUSE
        assert tf.get_variable_scope().reuse is False
        with tf.variable_scope("m") as m:
            m.reuse_variables()
            assert tf.get_variable("a") is a
        assert len(tf.global_variables()) == 1


def test_scope_settings_reach_get_variable():
    with tf.Graph().as_default() as g:
        with tf.variable_scope(
            "layer", initializer=tf.constant_initializer(0.5), regularizer=lambda v: ember.sum(v * v), dtype=ember.float64
        ):
            w = tf.get_variable("w", [2, 2])
            with tf.variable_scope("inner"):
                b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        init = tf.global_variables_initializer()
    assert (w.dtype, b.dtype) == (ember.float64, ember.float64)
    assert len(losses) == 2 and losses[0].name.startswith("layer/w/Regularizer/")
    with tf.Session(graph=g) as sess:
        sess.run(init)
        np.testing.assert_array_equal(sess.run(w), np.full((2, 2), 0.5))
        np.testing.assert_array_equal(sess.run(b), np.zeros(3))
        assert sess.run(losses[0]) == pytest.approx(1.0)


def test_custom_getters_compose_outer_first():
    calls = []

    def getter_named(tag):
        def custom(getter, name, *args, **kwargs):
            calls.append((tag, name))
            return getter(name, *args, **kwargs)

        return custom

    with tf.Graph().as_default():
        with tf.variable_scope("a", custom_getter=getter_named("outer")):
            with tf.variable_scope("b", custom_getter=getter_named("inner")):
                v = tf.get_variable("v", [1])
    assert v.name == "a/b/v:0"
    assert calls == [("inner", "a/b/v"), ("outer", "a/b/v")]


def test_default_initializers_glorot_for_floats_zeros_for_ints():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        w = tf.get_variable("w", [200, 300])
        i = tf.get_variable("i", [4], dtype=ember.int32)
        flag = tf.get_variable("flag", [2], dtype=ember.bool)
        init = tf.global_variables_initializer()
    assert "w/Initializer/random_uniform/RandomUniform" in [op.name for op in g.get_operations()]
    with tf.Session(graph=g) as sess:
        sess.run(init)
        values, ints, flags = sess.run([w, i, flag])
    limit = np.sqrt(6.0 / 500)
    assert values.min() >= -limit and values.max() < limit and values.std() == pytest.approx(limit / np.sqrt(3), rel=0.05)
    np.testing.assert_array_equal(ints, [0, 0, 0, 0])
    np.testing.assert_array_equal(flags, [False, False])


def test_variable_takes_tensorflows_dtypes_and_methods():
    with tf.Graph().as_default() as g:
        n = tf.Variable(3, name="n")
        f = tf.Variable(1.5)
        ints = tf.Variable([1, 2])
        big = tf.Variable(2**40)
        v64 = tf.Variable(np.zeros(2))
        twice = tf.Variable(lambda: constant([1.0, 2.0]) * 2.0, name="twice")
        add = n.assign_add(2)
        tf_add = tf.assign_add(n, 1, use_locking=True)
        reset = tf.assign(n, 7, validate_shape=True, name="reset")
        init = tf.global_variables_initializer()
    assert isinstance(n, tf.Variable) and isinstance(n, ember.Variable)
    assert (n.dtype, f.dtype, ints.dtype, big.dtype, v64.dtype) == (
        ember.int32,
        ember.float32,
        ember.int32,
        ember.int64,
        ember.float64,
    )
    assert (n.name, n.op.name, n.op.type, n.get_shape().as_list()) == ("n:0", "n", "VariableV2", [])
    assert [op.name for op in g.get_operations() if op.name.startswith("twice/")][:1] == ["twice/Initializer/Const"]
    with tf.Session(graph=g) as sess:
        sess.run(init)
        assert sess.run(add) == 5
        assert sess.run(tf_add) == 6
        assert sess.run(reset) == 7 and reset.op.name == "reset"
        sess.run(add)
        with sess.as_default():
            assert n.eval() == 9
            n.load(11)
            assert sess.run(n.read_value()) == 11
            np.testing.assert_array_equal(twice.eval(), [2.0, 4.0])


def test_collections_scopes_and_references():
    with tf.Graph().as_default() as g:
        with tf.variable_scope("enc"):
            a = tf.get_variable("a", [1])
        with tf.variable_scope("dec"):
            b = tf.get_variable("b", [1], trainable=False)
            m = tf.get_variable("m", [1], collections=[tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.MODEL_VARIABLES])
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, a.op)
        tf.get_collection_ref("mine").append(1)
        tf.add_to_collections(["x", "y"], 2)
    with g.as_default():
        assert tf.global_variables() == [a, b, m]
        assert tf.global_variables("dec") == [b, m] and tf.trainable_variables("dec") == [m]
        assert tf.trainable_variables() == [a, m] and tf.model_variables() == [m]
        assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == [a.op]
        assert tf.get_collection("mine") == [1] and g.get_collection("x") == g.get_collection("y") == [2]
        assert tf.get_collection("missing") == []
    assert tf.GraphKeys.GLOBAL_VARIABLES == "variables" and tf.GraphKeys.GLOBAL_STEP == "global_step"
    assert tf.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables" and tf.GraphKeys.UPDATE_OPS == "update_ops"


def test_graph_keys_match_the_oracle():
    tensorflow = pytest.importorskip("tensorflow")
    keys = tensorflow.compat.v1.GraphKeys
    for name in dir(tf.GraphKeys):
        if name.isupper():
            assert getattr(tf.GraphKeys, name) == getattr(keys, name), name


def test_local_variables_and_initialisation_reports():
    with tf.Graph().as_default() as g:
        w = tf.get_variable("w", [2])
        count = tf.get_local_variable("count", [], dtype=ember.int32)
        report = tf.report_uninitialized_variables()
        ready = tf.is_variable_initialized(w)
        init_global, init_local = tf.global_variables_initializer(), tf.local_variables_initializer()
        legacy = tf.initialize_all_variables()
    assert [v.name for v in g.get_collection("variables")] == ["w:0"] and g.get_collection("local_variables") == [count]
    assert ready.dtype == ember.bool and report.dtype == ember.string
    with tf.Session(graph=g) as sess:
        assert [s.decode() for s in sess.run(report)] == ["w", "count"]
        assert not sess.run(ready)
        sess.run(init_global)
        assert [s.decode() for s in sess.run(report)] == ["count"] and sess.run(ready)
        sess.run(init_local)
        assert sess.run(report).shape == (0,)
        assert sess.run(count) == 0
    with tf.Session(graph=g) as sess:
        sess.run(legacy)
        assert [s.decode() for s in sess.run(report)] == ["count"]


def test_initialized_value_reads_the_initial_value_until_the_variable_holds_one():
    with tf.Graph().as_default() as g:
        w = tf.Variable([1.0, 2.0], name="w")
        twice = tf.Variable(w.initialized_value() * 2, name="twice")
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(twice.initializer)  # w has no value yet: its initial value is read
        np.testing.assert_array_equal(sess.run(twice), [2.0, 4.0])
        sess.run(w.initializer)
        sess.run(w.assign([5.0, 6.0]))
        np.testing.assert_array_equal(sess.run(w.initialized_value()), [5.0, 6.0])
    with tf.Session(graph=g) as sess:
        sess.run(init)
        np.testing.assert_array_equal(sess.run(twice), [2.0, 4.0])
