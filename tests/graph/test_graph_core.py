"""Graph mode's core: the seed's transcript, naming, scopes, partial shapes, feeds, variables, Session."""

import collections
import contextlib
import io

import numpy as np
import pytest

import ember


def test_seed_transcript_exactly():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        with ember.Graph().as_default():
            a = ember.constant(3.0, dtype=ember.float32)
            b = ember.constant(4.0)
            total = a + b
            print(a)
            print(b)
            print(total)
        with ember.Session() as sess:
            result = sess.run(total)
            print(result, type(result))
    assert out.getvalue().splitlines() == [
        'Tensor("Const:0", shape=(), dtype=float32)',
        'Tensor("Const_1:0", shape=(), dtype=float32)',
        'Tensor("add:0", shape=(), dtype=float32)',
        "7.0 <class 'numpy.float32'>",
    ]


def test_outside_a_graph_the_same_calls_run_eagerly():
    a = ember.constant(3.0, dtype=ember.float32)
    total = a + ember.constant(4.0)
    assert type(total) is ember.Tensor and total.item() == 7.0


def test_names_are_unique_the_tensorflow_way():
    g = ember.Graph()
    with g.as_default():
        c = [ember.constant(1.0) for _ in range(3)]
        s = c[0] + c[1]
        s2 = s + c[2]
        with ember.name_scope("scope"):
            m = ember.matmul(ember.ones(2, 2), ember.ones(2, 2))
            with ember.name_scope("inner"):
                n = ember.relu(m)
        with ember.name_scope("scope"):
            m2 = ember.matmul(m, m)
        explicit = ember.identity(s, name="add")
    assert [t.name for t in c] == ["Const:0", "Const_1:0", "Const_2:0"]
    assert (s.name, s2.name) == ("add:0", "add_1:0")
    assert m.name == "scope/MatMul:0" and n.name == "scope/inner/Relu:0"
    assert m2.name == "scope_1/MatMul:0"
    assert explicit.name == "add_2:0"
    assert g.get_operation_by_name("scope/MatMul") is m.op
    assert g.get_tensor_by_name("add:0") is s
    assert s.op.type == "AddV2" and s.op.kind == "add" and [t.name for t in s.op.inputs] == ["Const:0", "Const_1:0"]
    assert s.consumers() == [s2.op, explicit.op]
    assert s.graph is g and s.value_index == 0 and s.dtype is ember.float32
    with pytest.raises(KeyError, match="does not exist"):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(ValueError, match="looks a like an Operation name"):
        g.get_tensor_by_name("add")


def test_control_dependencies_are_recorded_and_respected():
    g = ember.Graph()
    with g.as_default():
        v = ember.Variable(1.0)
        bump = v.assign_add(10.0)
        with ember.control_dependencies([bump]):
            read = ember.identity(v)
    assert read.op.control_inputs == (bump.op,)
    with ember.Session(graph=g) as sess:
        sess.run(v.initializer)
        assert sess.run(read) == 11.0
        assert sess.run(read) == 21.0  # the dependency ran again


def test_partial_shapes_flow_through_ops_and_runs_with_any_batch():
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float32, shape=(None, 3), name="x")
        y = (ember.matmul(x, ember.ones(3, 4)) + 1.0).reshape(-1, 2)
        s = y.sum(1)
        m = y.mean()
        unknown = ember.placeholder(ember.float32)
        z = unknown * 2.0
    assert str(x.shape) == "(None, 3)" and x.shape.as_list() == [None, 3]
    assert y.shape.as_list() == [None, 2] and s.shape.as_list() == [None]
    assert m.shape.as_list() == [] and z.shape.rank is None
    with ember.Session(graph=g) as sess:
        for n in (1, 5):
            feed = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
            ys, ms = sess.run([y, m], {x: feed})
            ref = (feed @ np.ones((3, 4), np.float32) + 1).reshape(-1, 2)
            np.testing.assert_allclose(ys, ref)
            np.testing.assert_allclose(ms, ref.mean(), rtol=1e-6)
        np.testing.assert_allclose(sess.run(z, {unknown: np.ones((2, 2, 2))}), np.full((2, 2, 2), 2.0))


def test_set_shape_merges_and_refuses_conflicts():
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float32, shape=(None, None))
        x.set_shape((None, 3))
        assert x.shape.as_list() == [None, 3]
        x.set_shape((4, None))
        assert x.shape.as_list() == [4, 3]
        with pytest.raises(ValueError, match="not compatible"):
            x.set_shape((5, 3))


def test_shape_errors_surface_when_the_node_is_built():
    with ember.Graph().as_default():
        a = ember.placeholder(ember.float32, shape=(2, 3))
        b = ember.placeholder(ember.float32, shape=(4, 3))
        with pytest.raises(RuntimeError, match="must match the size"):
            a + b
        with pytest.raises(RuntimeError):
            ember.matmul(a, b)
        c = ember.placeholder(ember.float32, shape=(None, 3))
        assert (c + ember.ones(5, 3)).shape.as_list() == [5, 3]  # unknown meets known: broadcasts


def test_feed_validation_messages():
    g = ember.Graph()
    with g.as_default():
        p = ember.placeholder(ember.float32, shape=(2,))
        q = ember.placeholder(ember.int32, shape=(None, 2), name="q")
        out = p * 2.0
        out2 = q + 1
    with ember.Session(graph=g) as sess:
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor 'Placeholder:0', which has shape \(2,\)"):
            sess.run(out, {p: [1.0, 2.0, 3.0]})
        with pytest.raises(ValueError, match=r"You must feed a value for placeholder tensor 'Placeholder' with dtype float32 and shape \[2\]"):
            sess.run(out)
        with pytest.raises(ValueError, match=r"You must feed a value for placeholder tensor 'q' with dtype int32 and shape \[\?,2\]"):
            sess.run(out2)
        r = sess.run(out2, {"q:0": [[1, 2]]})
        assert r.dtype == np.int32 and r.tolist() == [[2, 3]]
        np.testing.assert_array_equal(sess.run(out, {p: np.array([1, 2])}), [2.0, 4.0])  # converted to the dtype


def test_nested_fetches_operations_names_and_scalars():
    Pair = collections.namedtuple("Pair", "a b")
    g = ember.Graph()
    with g.as_default():
        a = ember.constant([1.0, 2.0])
        b = a * 3.0
        noop = ember.no_op()
    with ember.Session(graph=g) as sess:
        out = sess.run({"x": [a, (b, noop)], "p": Pair(a, "mul:0"), "s": b.sum()})
    assert out["x"][0].tolist() == [1.0, 2.0]
    assert out["x"][1][0].tolist() == [3.0, 6.0] and out["x"][1][1] is None
    assert isinstance(out["p"], Pair) and out["p"].b.tolist() == [3.0, 6.0]
    assert isinstance(out["s"], np.float32) and out["s"] == 9.0


def test_constant_results_are_copies():
    g = ember.Graph()
    with g.as_default():
        a = ember.constant([1.0, 2.0])
    with ember.Session(graph=g) as sess:
        first = sess.run(a)
        first[0] = 100.0
        assert sess.run(a).tolist() == [1.0, 2.0]


def test_only_the_needed_subgraph_runs():
    g = ember.Graph()
    with g.as_default():
        p = ember.placeholder(ember.float32, shape=())
        needs_feed = p + 1.0
        free = ember.constant(2.0) * 3.0
    with ember.Session(graph=g) as sess:
        assert sess.run(free) == 6.0  # the placeholder branch is not needed: no feed asked for
        assert sess.run(needs_feed, {p: 1.0}) == 2.0
        assert sess.run(needs_feed, {needs_feed: 5.0}) == 5.0  # any tensor can be fed


def test_session_errors():
    g1, g2 = ember.Graph(), ember.Graph()
    with g1.as_default():
        a = ember.constant(1.0) + ember.constant(2.0)
    with g2.as_default():
        ember.constant(0.0)
    sess = ember.Session(graph=g2)
    with pytest.raises(ValueError, match=r'Tensor Tensor\("add:0", shape=\(\), dtype=float32\) is not an element of this graph\.'):
        sess.run(a)
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
        sess.run(a)
    with pytest.raises(RuntimeError, match="has no value until a Session runs it"):
        a.numpy()
    with pytest.raises(TypeError, match="as a Python bool is not allowed"):
        bool(a)


def test_variables_initialise_persist_and_assign():
    g = ember.Graph()
    with g.as_default():
        v = ember.Variable([1.0, 2.0], name="v")
        w = ember.Variable(ember.zeros(2), trainable=False)
        inc = v.assign_add([1.0, 1.0])
        set_w = w.assign(v * 10.0)
        init = ember.global_variables_initializer()
    assert [op.name for op in g.get_operations()][:4] == ["v/initial_value", "v", "v/Assign", "v/read"]
    assert ember.trainable_variables(g) == [v] and len(ember.global_variables(g)) == 2
    assert v.value().name == "v/read:0" and v.initializer.name == "v/Assign"
    with ember.Session(graph=g) as sess:
        with pytest.raises(ember.graph.FailedPreconditionError, match="Attempting to use uninitialized value v"):
            sess.run(v)
        sess.run(init)
        sess.run(inc)
        sess.run(inc)
        assert sess.run(v).tolist() == [3.0, 4.0]
        sess.run(set_w)
        assert sess.run(w).tolist() == [30.0, 40.0]
        assert v.eval().tolist() == [3.0, 4.0]  # the default session
    with ember.Session(graph=g) as other:  # a new session starts uninitialised
        other.run(init)
        assert other.run(v).tolist() == [1.0, 2.0]


def test_inplace_ops_rebind_and_immutable_nodes_refuse():
    with ember.Graph().as_default():
        p = ember.placeholder(ember.float32, shape=(2,))
        y = p * 1.0
        y.add_(1.0)
        with pytest.raises(RuntimeError, match="cannot modify Placeholder:0 in place"):
            p.add_(1.0)
    with ember.Session() as sess:
        assert sess.run(y, {p: [1.0, 2.0]}).tolist() == [2.0, 3.0]


def test_finalized_graph_refuses_new_ops():
    g = ember.Graph()
    with g.as_default():
        ember.constant(1.0)
    g.finalize()
    with g.as_default(), pytest.raises(RuntimeError, match="finalized"):
        ember.constant(2.0)


def test_placeholder_with_default_and_eval():
    g = ember.Graph()
    with g.as_default():
        p = ember.placeholder_with_default(ember.constant([1.0, 2.0]), shape=(None,))
        y = p * 2.0
        with ember.Session():
            assert y.eval().tolist() == [2.0, 4.0]
            assert y.eval(feed_dict={p: [5.0]}).tolist() == [10.0]


def test_placeholder_needs_a_graph():
    with pytest.raises(RuntimeError, match="needs a graph"):
        ember.placeholder(ember.float32)


def test_sizes_computed_from_unknown_dims_keep_their_formula():
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float32, (None, None))
        by_three = x.reshape(-1, 3)
        same = x.view(x.size(0), x.size(1))
        half = x.reshape(x.size(0) * x.size(1) // 2, 2)
    assert by_three.shape.as_list() == [None, 3] and same.shape.as_list() == [None, None]
    feed = np.arange(12, dtype=np.float32).reshape(2, 6)
    with ember.Session(graph=g) as sess:
        a, b, c = sess.run([by_three, same, half], {x: feed})
    np.testing.assert_array_equal(a, feed.reshape(-1, 3))
    np.testing.assert_array_equal(b, feed)
    np.testing.assert_array_equal(c, feed.reshape(6, 2))


def test_a_lost_formula_is_refused_not_baked_in():
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float32, (None, 4))
        n = int(np.int64(x.size(0)))  # through NumPy: the formula is gone, only the probe value is left
        with pytest.raises(NotImplementedError, match="computed from an unknown dimension"):
            x.reshape(n, 4)


def test_slices_computed_from_unknown_sizes_are_evaluated_per_run():
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float32, (None, 2))
        first_half = x[: x.size(0) // 2]
    with ember.Session(graph=g) as sess:
        for n in (2, 6):
            feed = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
            np.testing.assert_array_equal(sess.run(first_half, {x: feed}), feed[: n // 2])


class _Triple:
    """A composite of three graph tensors, registered with Session.run by the test below."""

    def __init__(self, a, b, c):
        self.parts = (a, b, c)


def test_session_run_conversion_registry_fetches_and_feeds_composites():
    ember.graph.register_session_run_conversion_functions(
        _Triple, lambda t: (list(t.parts), lambda values: sum(values)), lambda t, value: list(zip(t.parts, value, strict=True))
    )
    with ember.Graph().as_default() as g:
        trip = _Triple(*(ember.placeholder(ember.float32, shape=(2,)) for _ in range(3)))
        doubled = trip.parts[0] * 2.0
    # a session without a graph adopts the graph of the composite's components
    sess = ember.Session()
    got = sess.run({"sum": trip, "pair": [doubled]}, feed_dict={trip: ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0])})
    assert got["sum"].tolist() == [9.0, 12.0] and got["pair"][0].tolist() == [2.0, 4.0]
    assert sess.graph is g


def test_session_run_conversion_registry_refuses_bad_and_repeated_registrations():
    register = ember.graph.register_session_run_conversion_functions
    with pytest.raises(ValueError, match="SparseTensor is already registered"):
        register(ember.sparse.SparseTensor, lambda sp: ([], list))
    with pytest.raises(ValueError, match="object is already registered"):  # a base of a registered type
        register(object, lambda x: ([], list))
    with pytest.raises(TypeError, match="tensor_type must be a class"):
        register("SparseTensor", lambda sp: ([], list))
    with pytest.raises(TypeError, match="must be callable"):
        register(type("Fresh", (), {}), None)
