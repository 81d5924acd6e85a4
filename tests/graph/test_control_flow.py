"""Graph mode control flow: cond, case, while_loop and the run-time checks (gradients: test_control_flow_grad.py)."""

import numpy as np
import pytest

import ember
from ember.graph import control_flow as cf, flow_ops as fo
from ember.graph.errors import InvalidArgumentError

# -- cond -------------------------------------------------------------------------------------------


def test_cond_values_and_node_type():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=(None,))
        p = ember.placeholder(ember.bool, shape=())
        y = cf.cond(p, lambda: x * 2.0, lambda: x + 1.0)
    assert y.op.type == "If" and y.op.name == "cond"
    assert y.shape.as_list() == [None]
    s = ember.Session(graph=g)
    np.testing.assert_allclose(s.run(y, {x: [1.0, 2.0], p: True}), [2.0, 4.0])
    np.testing.assert_allclose(s.run(y, {x: [1.0, 2.0], p: False}), [2.0, 3.0])


def test_cond_runs_only_the_taken_branch():
    with ember.Graph().as_default() as g:
        v = ember.Variable(1.0)
        p = ember.placeholder(ember.bool, shape=())
        r = cf.cond(p, lambda: ember.assign(v, 5.0), lambda: ember.identity(v))
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as s:
        s.run(init)
        assert s.run(r, {p: False}) == 1.0
        assert s.run(v) == 1.0  # the untaken branch's assignment did not happen
        assert s.run(r, {p: True}) == 5.0
        assert s.run(v) == 5.0


def test_cond_assigns_an_uninitialized_variable_and_differentiates_an_assigned_value():
    with ember.Graph().as_default() as g:
        v = ember.Variable(1.0, dtype=ember.float64)
        x = ember.placeholder(ember.float64, shape=())
        p = ember.placeholder(ember.bool, shape=())
        r = cf.cond(p, lambda: ember.assign(v, x * 3.0), lambda: x * 1.0)
        (dx,) = ember.gradients(r, [x])
    with ember.Session(graph=g) as s:
        assert s.run(r, {x: 2.0, p: True}) == 6.0  # a write only: the variable is not read, so it needs no initial value
        assert s.run(v) == 6.0
        assert s.run(dx, {x: 2.0, p: True}) == 3.0 and s.run(dx, {x: 2.0, p: False}) == 1.0


def test_cond_side_effect_not_returned_still_runs_in_taken_branch(capsys):
    with ember.Graph().as_default() as g:
        v = ember.Variable(0.0)
        p = ember.placeholder(ember.bool, shape=())

        def bump():
            ember.assign_add(v, 1.0)
            fo.print_v2("taken", output_stream=__import__("sys").stdout)
            return ember.constant(1.0)

        r = cf.cond(p, bump, lambda: ember.constant(0.0))
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as s:
        s.run(init)
        s.run(r, {p: True})
        s.run(r, {p: False})
        assert s.run(v) == 1.0
    assert capsys.readouterr().out == "taken\n"


def test_cond_nested_structures_and_strict():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=())
        out = cf.cond(x > 0, lambda: {"a": x, "b": (x * 2.0, x * 3.0)}, lambda: {"a": -x, "b": (x, x)})
        single = cf.cond(x > 0, lambda: [x], lambda: [-x])
        strict = cf.cond(x > 0, lambda: [x], lambda: [-x], strict=True)
    assert isinstance(single, ember.graph.GraphTensor) and isinstance(strict, list)
    s = ember.Session(graph=g)
    got = s.run(out, {x: 2.0})
    assert got["a"] == 2.0 and got["b"] == (4.0, 6.0)
    got = s.run(out, {x: -2.0})
    assert got["a"] == 2.0 and got["b"] == (-2.0, -2.0)


def test_cond_nested_and_captured_placeholders_and_variables():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=())
        y = ember.placeholder(ember.float32, shape=())
        v = ember.Variable(10.0)
        r = cf.cond(x > 0, lambda: cf.cond(y > 0, lambda: x + y + v, lambda: x - y), lambda: v * y)
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as s:
        s.run(init)
        assert s.run(r, {x: 1.0, y: 2.0}) == 13.0
        assert s.run(r, {x: 1.0, y: -2.0}) == 3.0
        assert s.run(r, {x: -1.0, y: 2.0}) == 20.0


def test_cond_survives_the_passes_and_exports():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=(3,))
        c = ember.constant(np.ones(3, np.float32))
        y = cf.cond(x.sum() > 0, lambda: (x + c * 2.0) * 1.0, lambda: (x + c * 2.0) * 1.0) + (x + c * 2.0)
    for optimize in (True, False):
        s = ember.Session(graph=g, optimize=optimize, specialize=optimize)
        np.testing.assert_allclose(s.run(y, {x: [1.0, 2.0, 3.0]}), [6.0, 8.0, 10.0])
    nodes = {n.name: n for n in g.as_graph_def().node}
    assert nodes["cond"].op == "If" and nodes["cond"].attr["then_branch"].func.name == "cond_true"


def test_graph_def_library_holds_the_functions():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=(), name="x")
        y = cf.cond(x > 0, lambda: cf.cond(x > 1, lambda: x * 2.0, lambda: x), lambda: -x)
        i = cf.while_loop(lambda i: i < x, lambda i: i + 1.0, [ember.constant(0.0)])
    graph_def = g.as_graph_def()
    functions = {f.signature.name: f for f in graph_def.library.function}
    assert sorted(functions) == ["cond_false", "cond_false_1", "cond_true", "cond_true_1", "while_body", "while_cond"]
    nodes = {n.name: n for n in graph_def.node}
    assert nodes["while"].op == "While" and nodes["while"].attr["body"].func.name == "while_body"
    outer_true = functions[nodes[y.op.name].attr["then_branch"].func.name]
    inner = next(n for n in outer_true.node_def if n.op == "If")
    assert {inner.attr["then_branch"].func.name, inner.attr["else_branch"].func.name} == {"cond_true_1", "cond_false_1"}
    body = functions["while_body"]
    assert [a.name for a in body.signature.input_arg] == ["placeholder", "capture"]
    assert body.ret["output_0"].endswith(":output:0") and len(body.signature.output_arg) == 1
    assert i.op.type == "While"
    tf = pytest.importorskip("tensorflow")
    parsed = tf.compat.v1.GraphDef.FromString(graph_def.SerializeToString())
    assert sorted(f.signature.name for f in parsed.library.function) == sorted(functions)


def test_cond_errors():
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float32, shape=())
        p = ember.placeholder(ember.bool, shape=())
        with pytest.raises(TypeError, match="must have the same number, type, and overall structure"):
            cf.cond(p, lambda: x, lambda: (x, x))
        with pytest.raises(TypeError, match="have different types"):
            cf.cond(p, lambda: x, lambda: x.to(ember.int32))
        with pytest.raises(TypeError, match="same set of keys"):
            cf.cond(p, lambda: {"a": x}, lambda: {"b": x})
        with pytest.raises(TypeError, match="'true_fn' must be callable"):
            cf.cond(p, 1, lambda: x)
        with pytest.raises(TypeError, match="Python bool"):
            cf.cond(True, lambda: x, lambda: x)
        with pytest.raises(ValueError, match="Lengths of branch outputs"):
            cf.cond(p, lambda: None, lambda: x)
        with pytest.raises(ValueError, match="A variable cannot be created inside"):
            cf.cond(p, lambda: ember.Variable(1.0), lambda: x)


def test_cond_predicate_must_be_a_scalar_at_run_time():
    with ember.Graph().as_default() as g:
        p = ember.placeholder(ember.bool)
        y = cf.cond(p, lambda: ember.constant(1.0), lambda: ember.constant(2.0))
    with pytest.raises(InvalidArgumentError, match="must be a scalar"):
        ember.Session(graph=g).run(y, {p: [True, False]})


def test_case():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.int64, shape=())
        y = cf.case([(x < 0, lambda: ember.constant(-1)), (x > 0, lambda: ember.constant(1))], default=lambda: ember.constant(0))
        z = cf.case(
            [(x < 5, lambda: ember.constant(1)), (x < 10, lambda: ember.constant(2))],
            default=lambda: ember.constant(3),
            exclusive=True,
        )
    s = ember.Session(graph=g)
    assert [int(s.run(y, {x: v})) for v in (-3, 0, 4)] == [-1, 0, 1]
    assert int(s.run(z, {x: 7})) == 2
    with pytest.raises(InvalidArgumentError, match="more than 1 conditions were true"):
        s.run(z, {x: 1})


# -- while_loop ---------------------------------------------------------------------------------------


def test_while_loop_values_structure_and_node_type():
    with ember.Graph().as_default() as g:
        n = ember.placeholder(ember.int64, shape=())
        w = ember.constant(3.0)
        i, total = cf.while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t + w), (ember.constant(0), ember.constant(0.0)))
        single = cf.while_loop(lambda a: a < 100.0, lambda a: a * 2.0, [ember.constant(1.0)])
        same = cf.while_loop(lambda a: a < 100.0, lambda a: [a * 2.0], [ember.constant(1.0)], return_same_structure=True)
        nested = cf.while_loop(
            lambda d: d["k"] < 3,
            lambda d: {"k": d["k"] + 1, "v": d["v"] * 2.0},
            {"k": ember.constant(0), "v": ember.constant(1.0)},
        )
    assert i.op.type == "While"
    s = ember.Session(graph=g)
    assert [float(v) for v in s.run([i, total], {n: 4})] == [4.0, 12.0]
    assert s.run(single) == 128.0 and s.run(same) == [128.0]
    assert s.run(nested) == {"k": 3, "v": 8.0}


def test_while_loop_maximum_iterations_and_captured_variable():
    with ember.Graph().as_default() as g:
        v = ember.Variable(2.0)
        r = cf.while_loop(lambda a: a < 1e9, lambda a: a * v, [ember.constant(1.0)], maximum_iterations=5)
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as s:
        s.run(init)
        assert s.run(r) == 32.0


def test_while_loop_shape_invariants():
    with ember.Graph().as_default() as g:
        a0 = ember.constant(np.array([1.0], np.float32))
        with pytest.raises(ValueError, match=r"enters the loop with shape \(1,\), but has shape \(2,\) after one iteration"):
            cf.while_loop(lambda a: a.sum() < 10, lambda a: ember.cat([a, a], 0), [a0])
        grown = cf.while_loop(
            lambda a: a.sum() < 10, lambda a: ember.cat([a, a], 0), [a0], shape_invariants=[ember.TensorShape([None])]
        )
        with pytest.raises(TypeError, match="enters the loop with type <dtype: 'float32'> but has type <dtype: 'int32'>"):
            cf.while_loop(lambda a: a.sum() < 10, lambda a: a.to(ember.int32), [a0])
        with pytest.raises(ValueError, match=r"same nested structure"):
            cf.while_loop(lambda a: a.sum() < 10, lambda a: (a, a), [a0])
        with pytest.raises(ValueError, match="not compatible with the initial shape"):
            cf.while_loop(lambda a: a.sum() < 10, lambda a: a, [a0], shape_invariants=[ember.TensorShape([3])])
        pair = cf.while_loop(
            lambda d: d["k"] < 3, lambda d: [{"k": d["k"] + 1, "v": ember.cat([d["v"], d["v"]])}],
            [{"k": ember.constant(0), "v": a0}], shape_invariants=[{"k": ember.TensorShape([]), "v": ember.TensorShape([None])}],
        )  # fmt: skip
        one = cf.while_loop(lambda d: d["k"] < 3, lambda d: [{"k": d["k"] + 1}], [{"k": ember.constant(0)}])
    assert (
        pair[0]["v"].shape.as_list() == [None] and one.op.type == "While"
    )  # one loop variable: returned bare, as TensorFlow does
    assert grown.shape.as_list() == [None]
    np.testing.assert_allclose(ember.Session(graph=g).run(grown), np.ones(16))
    np.testing.assert_allclose(ember.Session(graph=g).run(pair)[0]["v"], np.ones(8))
    assert ember.Session(graph=g).run(one) == 3


# -- stop_gradient, tuple, Print, Assert -------------------------------------------------------------------


def test_stop_gradient_and_tuple():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=())
        y = x * fo.stop_gradient(x * x)
        (dx,) = ember.gradients(y, [x])
        a, none, b = fo.tuple_([x * 2.0, None, x + 1.0])
    assert y.op.inputs[1].op.type == "StopGradient"
    s = ember.Session(graph=g)
    assert float(s.run(dx, {x: 3.0})) == 9.0
    assert none is None and s.run([a, b], {x: 1.0}) == [2.0, 2.0]
    assert a.op.control_inputs and a.op.control_inputs[0].type == "NoOp"


def test_print_and_print_v2(capsys):
    import sys

    with ember.Graph().as_default() as g:
        x = ember.constant(np.array([1.5, 2.0, 3.0, 4.0, 5.0], np.float32))
        m = ember.constant(np.array([[1, 2], [3, 4]], np.int32))
        p = fo.Print(x, [x, m, "str"], "msg: ")
        q = fo.print_v2("hello", x, m, output_stream=sys.stdout)
    assert q.type == "PrintV2"
    s = ember.Session(graph=g)
    np.testing.assert_allclose(s.run(p), [1.5, 2.0, 3.0, 4.0, 5.0])
    s.run(q)
    captured = capsys.readouterr()
    assert captured.err == "msg: [1.5 2 3...][[1 2][3...]...][str]\n"
    assert captured.out == "hello [1.5 2 3 4 5] [[1 2]\n [3 4]]\n"


def test_assert_ops():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=(None,))
        a = fo.Assert((x < 0).all(), [x, "text"], name="chk")
        b = fo.assert_equal(x, x + 1.0)
        c = fo.assert_positive(x, message="pos!")
        with ember.control_dependencies([c]):
            guarded = x * 2.0
    s = ember.Session(graph=g)
    with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[1.5 2 3\.\.\.\] \[text\]"):
        s.run(a, {x: [1.5, 2.0, 3.0, 4.0]})
    s.run(a, {x: [-1.0]})
    with pytest.raises(InvalidArgumentError, match=r"Condition x == y did not hold element-wise:"):
        s.run(b, {x: [1.0]})
    with pytest.raises(InvalidArgumentError, match=r"\[pos!\] \[Condition x > 0 did not hold element-wise:\]"):
        s.run(guarded, {x: [-1.0]})
    np.testing.assert_allclose(s.run(guarded, {x: [1.0]}), [2.0])
    assert isinstance(InvalidArgumentError(None, None, "x"), ValueError)


def test_cond_branches_returning_operations():
    with ember.Graph().as_default() as g:
        v = ember.Variable(1.0)
        p = ember.placeholder(ember.bool, shape=())
        r = cf.cond(p, lambda: ember.assign_add(v, 1.0).op, ember.no_op)
        init = ember.global_variables_initializer()
    assert r.dtype == ember.bool
    with ember.Session(graph=g) as s:
        s.run(init)
        assert s.run(r, {p: True}) and s.run(v) == 2.0
        s.run(r, {p: False})
        assert s.run(v) == 2.0


def test_control_dependency_on_an_outer_op_inside_a_branch_is_hoisted():
    with ember.Graph().as_default() as g:
        v = ember.Variable(0.0)
        p = ember.placeholder(ember.bool, shape=())
        bump = ember.assign_add(v, 1.0)

        def branch():
            with ember.control_dependencies([bump]):
                return ember.constant(2.0)

        r = cf.cond(p, branch, lambda: ember.constant(3.0))
        init = ember.global_variables_initializer()
    assert bump.op in r.op.control_inputs
    with ember.Session(graph=g) as s:
        s.run(init)
        assert s.run(r, {p: False}) == 3.0 and s.run(v) == 1.0  # the node depends on it, whichever branch runs
