"""Gradients through graph mode's cond and while_loop, against finite differences and TensorFlow."""

import numpy as np
import pytest

import ember
from ember.graph import control_flow as cf, flow_ops as fo


def _numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central finite differences of the scalar f at x (float64)."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def test_cond_gradient_matches_finite_differences():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=(3,))
        p = ember.placeholder(ember.bool, shape=())
        w = ember.constant(np.array([0.5, -1.0, 2.0]))
        y = cf.cond(p, lambda: (x * x * w).sum(), lambda: (x * 3.0).exp().sum())
        (dx,) = ember.gradients(y, [x])
        (dw,) = ember.gradients(y, [w])
    s = ember.Session(graph=g)
    x0 = np.array([0.3, -0.2, 0.7])
    for pv in (True, False):
        expect = _numeric_grad(lambda v, pv=pv: float(s.run(y, {x: v, p: pv})), x0)
        np.testing.assert_allclose(s.run(dx, {x: x0, p: pv}), expect, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s.run(dw, {x: x0, p: True}), x0 * x0)
    np.testing.assert_allclose(s.run(dw, {x: x0, p: False}), np.zeros(3))  # the untaken branch's inputs get zeros


def test_nested_cond_gradient():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=())
        y = cf.cond(x > 0, lambda: cf.cond(x > 1, lambda: x**3, lambda: x * x), lambda: -x)
        (dx,) = ember.gradients(y, [x])
    s = ember.Session(graph=g)
    assert [float(s.run(dx, {x: v})) for v in (2.0, 0.5, -1.0)] == pytest.approx([12.0, 1.0, -1.0])


def test_while_loop_gradient_matches_finite_differences():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=(2,))
        c = ember.placeholder(ember.float64, shape=())
        n = ember.placeholder(ember.int64, shape=())
        _, out = cf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, (a * c).sin() + x), (ember.constant(0), x))
        y = (out * out).sum()
        dx, dc = ember.gradients(y, [x, c])
    s = ember.Session(graph=g)
    x0, c0 = np.array([0.4, -0.9]), np.array(1.3)
    for steps in (0, 1, 4):
        feeds = {x: x0, c: c0, n: steps}
        expect_x = _numeric_grad(lambda v, steps=steps: float(s.run(y, {x: v, c: c0, n: steps})), x0)
        expect_c = _numeric_grad(lambda v, steps=steps: float(s.run(y, {x: x0, c: v, n: steps})), c0)
        got_x, got_c = s.run([dx, dc], feeds)
        np.testing.assert_allclose(got_x, expect_x, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got_c, expect_c, rtol=1e-6, atol=1e-8)


def test_gradient_of_cond_inside_a_loop_body_and_of_a_variable_in_a_nested_cond():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=(2,))
        v = ember.Variable(np.array([0.7, -0.3]))
        body = lambda i, a: (i + 1, cf.cond(a.sum() > 0, lambda: a * a * v, lambda: (a + v).sin()))  # noqa: E731
        _, out = cf.while_loop(lambda i, a: i < 3, body, (ember.constant(0), x))
        y = cf.cond(
            out.sum() < 100.0, lambda: cf.cond(out.sum() > -100.0, lambda: (out * v).sum(), lambda: out.sum()), lambda: v.sum()
        )
        dx, dv = ember.gradients(y, [x, v])
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as s:
        s.run(init)
        v0 = s.run(v)
        x0 = np.array([0.5, 0.2])
        got_x, got_v = s.run([dx, dv], {x: x0})
        expect_x = _numeric_grad(lambda a: float(s.run(y, {x: a})), x0)

        def at(value):
            v.load(value, s)
            return float(s.run(y, {x: x0}))

        expect_v = _numeric_grad(at, v0)
    np.testing.assert_allclose(got_x, expect_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got_v, expect_v, rtol=1e-6, atol=1e-8)


def test_while_loop_gradient_refuses_what_it_cannot_recompute():
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float64, shape=(2,))
        v = ember.Variable(0.0, dtype=ember.float64)
        r = cf.while_loop(lambda a: a.sum() < 10, lambda a: a * 2.0 + ember.assign_add(v, 1.0), [x])
        with pytest.raises(NotImplementedError, match="recomputes each iteration"):
            ember.gradients(r.sum(), [x])
        noisy = lambda a: cf.cond(a.sum() > 0, lambda: a + ember.rand(2, dtype=ember.float64), lambda: a)  # noqa: E731
        r2 = cf.while_loop(lambda a: a.sum() < 10, noisy, [x])
        with pytest.raises(NotImplementedError, match="random draw nested in control flow"):
            ember.gradients(r2.sum(), [x])
        inner = lambda: cf.cond(x.sum() > 1, lambda: x * ember.rand(2, dtype=ember.float64), lambda: x)  # noqa: E731
        r3 = cf.cond(x.sum() > 0, inner, lambda: x)
        with pytest.raises(NotImplementedError, match="draws random values"):
            ember.gradients(r3.sum(), [x])


def test_cond_gradient_uses_the_values_random_ops_drew():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=(4,))
        r = cf.cond(x.sum() > 0, lambda: x * ember.rand(4, dtype=ember.float64), lambda: x)
        (dx,) = ember.gradients(r.sum(), [x])
    s = ember.Session(graph=g)
    x0 = np.array([1.0, 2.0, 3.0, 4.0])
    rv, gv = s.run([r, dx], {x: x0})
    np.testing.assert_allclose(gv, rv / x0)


def test_training_loop_with_cond_in_the_loss():
    with ember.Graph().as_default() as g:
        w = ember.Variable(np.array([1.0, -2.0]))
        x = ember.placeholder(ember.float64, shape=(2,))
        p = ember.placeholder(ember.bool, shape=())
        loss = cf.cond(p, lambda: ((w * x).sum() - 1.0) ** 2, lambda: (w * w).sum() * 0.01)
        step = ember.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as s:
        s.run(init)
        first = s.run(loss, {x: [1.0, 2.0], p: True})
        for k in range(40):
            s.run(step, {x: [1.0, 2.0], p: k % 4 != 0})
        assert s.run(loss, {x: [1.0, 2.0], p: True}) < first * 1e-2


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float64, shape=(2,))
        _, out = v1.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.sin(a * 1.3) + x), (tf.constant(0), x))
        y = v1.cond(tf.reduce_sum(out) > 0, lambda: tf.reduce_sum(out * out), lambda: tf.reduce_sum(out))
        (dx,) = v1.gradients(y, [x])
    x0 = np.array([0.4, -0.9])
    with v1.Session(graph=graph) as sess:
        expect = sess.run([y, dx], {x: x0})
    with ember.Graph().as_default() as g:
        ex = ember.placeholder(ember.float64, shape=(2,))
        _, eout = cf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, (a * 1.3).sin() + ex), (ember.constant(0), ex))
        ey = cf.cond(eout.sum() > 0, lambda: (eout * eout).sum(), lambda: eout.sum())
        (edx,) = ember.gradients(ey, [ex])
    got = ember.Session(graph=g).run([ey, edx], {ex: x0})
    np.testing.assert_allclose(got[0], expect[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], expect[1], rtol=1e-10)


def test_cond_gradient_through_dropout_uses_the_forward_mask():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=(8,))
        p = ember.placeholder(ember.bool, shape=())
        d = cf.cond(p, lambda: ember.nn.functional.dropout(x, 0.5, training=True), lambda: x * 1.0)
        (dx,) = ember.gradients((d * d).sum(), [x])
    s = ember.Session(graph=g)
    x0 = np.arange(1.0, 9.0)
    for _ in range(3):  # y = sum(d^2), d = x * mask * 2: dy/dx = 2 d * 2 mask = 4 d, with the mask of the same run
        dv, gv = s.run([d, dx], {x: x0, p: True})
        np.testing.assert_allclose(gv, 4.0 * dv)
    dv, gv = s.run([d, dx], {x: x0, p: False})
    np.testing.assert_allclose(gv, 2.0 * x0)


def test_while_loop_gradient_with_maximum_iterations():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=(2,))
        n = ember.placeholder(ember.int64, shape=())
        r = cf.while_loop(lambda a: a.sum() < 100.0, lambda a: a * 1.5 + 1.0, [x], maximum_iterations=n)
        y = (r * r).sum()
        (dx,) = ember.gradients(y, [x])
    s = ember.Session(graph=g)
    x0 = np.array([0.5, 1.0])
    for steps in (0, 2, 50):  # 50: the condition stops it first
        expect = _numeric_grad(lambda v, steps=steps: float(s.run(y, {x: v, n: steps})), x0)
        np.testing.assert_allclose(s.run(dx, {x: x0, n: steps}), expect, rtol=1e-6)


def test_while_loop_gradient_uses_the_recorded_iterations(capsys):
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=())
        r = cf.while_loop(lambda a: a < 10.0, lambda a: fo.Print(a * 2.0, ["step"]), [x])
        (dx,) = ember.gradients(r, [x])
    assert ember.Session(graph=g).run(dx, {x: 3.0}) == 4.0  # 3 -> 6 -> 12: two doublings
    assert capsys.readouterr().err == "[step]\n[step]\n"  # the forward loop ran once: the gradient ran no loop of its own
    assert r.op.outputs[1] in g.get_operation_by_name("gradients/while_grad/WhileGrad").inputs


def test_while_loop_gradient_uses_the_values_random_ops_drew():
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float64, shape=(64,))

        def body(i, a):
            mask = (ember.rand(64, dtype=ember.float64) > 0.3).to(ember.float64)
            return i + 1, a * mask * 0.7 + ember.nn.functional.dropout(a, 0.5, training=True)

        _, out = cf.while_loop(lambda i, a: i < 3, body, (ember.constant(0), x))
        (dx,) = ember.gradients(out.sum(), [x])
    s = ember.Session(graph=g)
    x0 = np.linspace(1.0, 2.0, 64)
    for _ in range(2):  # out is x times the product of each iteration's random factors: dout/dx = out / x, same run
        ov, gv = s.run([out, dx], {x: x0})
        np.testing.assert_allclose(gv, ov / x0)
        assert 0 < np.count_nonzero(gv) < 64
