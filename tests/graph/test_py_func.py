"""py_func / numpy_function: Python functions as graph nodes."""

import numpy as np
import pytest

import ember
from ember.graph import errors
from ember.graph.py_func import numpy_function, py_func


def _graph(fn, tout=ember.float32, shape=(3,), **kwargs):
    with ember.Graph().as_default() as g:
        x = ember.graph.placeholder(ember.float32, shape=shape)
        y = py_func(fn, [x], tout, **kwargs)
    return g, x, y


def test_runs_the_function_on_numpy_values_each_run():
    calls = []

    def f(a):
        calls.append(type(a))
        return np.cumsum(a).astype(np.float32)

    g, x, y = _graph(f)
    sess = ember.Session(graph=g)
    assert sess.run(y, {x: [1.0, 2.0, 3.0]}).tolist() == [1.0, 3.0, 6.0]
    assert sess.run(y, {x: [0.0, 0.0, 1.0]}).tolist() == [0.0, 0.0, 1.0]
    assert calls == [np.ndarray, np.ndarray]
    assert (y.op.type, y.shape.rank) == ("PyFunc", None)


def test_several_outputs_strings_and_set_shape_before_use():
    with ember.Graph().as_default() as g:
        x = ember.graph.constant([3, 1, 2])
        lo, hi = numpy_function(lambda a: (a.min(), a.max()), [x], [ember.int64, ember.int64])
        words = py_func(lambda a: np.array([f"n{v}" for v in a], dtype=object), [x], ember.string)
        hi.set_shape(())
        doubled = hi * 2
    assert ember.Session(graph=g).run([lo, doubled, words])[:2] == [1, 6]
    assert ember.Session(graph=g).run(words).tolist() == [b"n3", b"n1", b"n2"]
    with g.as_default():
        lo + 1
    with pytest.raises(ValueError, match="already used by"):
        lo.set_shape(())


def test_the_promised_dtype_is_checked_and_errors_become_op_errors():
    g, x, y = _graph(lambda a: a.astype(np.float64))
    with pytest.raises(errors.InvalidArgumentError, match=r"0-th value returned by pyfunc_\d+ is double, but expects float"):
        ember.Session(graph=g).run(y, {x: [1.0, 2.0, 3.0]})

    def bad(a):
        raise ValueError("no negatives")

    g, x, y = _graph(bad)
    with pytest.raises(errors.InvalidArgumentError, match="ValueError: no negatives") as info:
        ember.Session(graph=g).run(y, {x: [1.0, 2.0, 3.0]})
    assert isinstance(info.value.__cause__, ValueError) and info.value.op.type == "PyFunc"
    g, x, y = _graph(lambda a: 1 / 0)
    with pytest.raises(errors.UnknownError, match="ZeroDivisionError"):
        ember.Session(graph=g).run(y, {x: [1.0, 2.0, 3.0]})


def test_stateless_nodes_and_the_graph_def():
    g, _, y = _graph(lambda a: a, stateful=False)
    node = {n.name: n for n in g.as_graph_def().node}[y.op.name]
    assert node.op == "PyFuncStateless" and node.attr["token"].s.startswith(b"pyfunc_")
    assert list(node.attr["Tout"].list.type) == [1]
    with pytest.raises(TypeError, match="func must be callable"):
        py_func(3, [], ember.float32)


def test_gradients_through_a_py_func_are_refused_as_tensorflow_refuses_them():
    with ember.Graph().as_default():
        x = ember.graph.placeholder(ember.float32, shape=(3,))
        y = py_func(lambda a: a * 2, [x], ember.float32)
        y.set_shape((3,))
        with pytest.raises(LookupError, match=r"No gradient defined for operation 'PyFunc' \(op type: PyFunc\)"):
            ember.graph.gradients(y.sum(), [x])
