"""ember.gradients against eager autograd, and ember.train's optimizers against their formulas."""

import numpy as np
import pytest

import ember
import ember.nn.functional as F


def _data(n=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 6)).astype(np.float32)
    y = rng.integers(0, 4, n)
    w1 = rng.standard_normal((6, 8)).astype(np.float32) * 0.5
    w2 = rng.standard_normal((8, 4)).astype(np.float32) * 0.5
    return x, y, w1, w2



def test_gradients_equal_eager_autograd():
    x, y, w1, w2 = _data()
    g = ember.Graph()
    with g.as_default():
        px = ember.placeholder(ember.float32, (None, 6))
        py = ember.placeholder(ember.int64, (None,))
        v1, v2 = ember.Variable(w1), ember.Variable(w2)
        b1 = ember.Variable(ember.zeros(8))
        h = ember.tanh(ember.matmul(px, v1) + b1)
        loss = F.cross_entropy(ember.matmul(h, v2), py) + (v1 * v1).sum() * 0.01
        grads = ember.gradients(loss, [v1, b1, v2])
        init = ember.global_variables_initializer()
    assert all(t.name.startswith("gradients/") for t in grads)
    e1 = ember.from_numpy(w1.copy()).requires_grad_()
    e2 = ember.from_numpy(w2.copy()).requires_grad_()
    eb = ember.zeros(8, requires_grad=True)
    he = ember.tanh(ember.from_numpy(x) @ e1 + eb)
    (F.cross_entropy(he @ e2, ember.from_numpy(y)) + (e1 * e1).sum() * 0.01).backward()
    with ember.Session(graph=g) as sess:
        sess.run(init)
        got = sess.run(grads, {px: x, py: y})
    for a, b in zip(got, (e1.grad, eb.grad, e2.grad), strict=True):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-5, atol=1e-6)


def test_gradients_of_broadcasts_and_reductions_with_unknown_batch():
    g = ember.Graph()
    with g.as_default():
        px = ember.placeholder(ember.float64, (None, 3))
        b = ember.Variable(ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64))
        y = ((px + b) ** 2).mean()
        (gb,) = ember.gradients(y, [b])
        (gx,) = ember.gradients(y, px)
        unused = ember.Variable(1.0)
        assert ember.gradients(y, [unused]) == [None]
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as sess:
        sess.run(init)
        for n in (2, 5):
            x = np.arange(3 * n, dtype=np.float64).reshape(n, 3)
            bb = np.array([1.0, 2.0, 3.0])
            np.testing.assert_allclose(sess.run(gb, {px: x}), (2 * (x + bb) / x.size).sum(0))
            np.testing.assert_allclose(sess.run(gx, {px: x}), 2 * (x + bb) / x.size)


def test_gradients_refuse_integer_ys_and_mixed_graphs():
    with ember.Graph().as_default():
        i = ember.constant([1, 2])
        with pytest.raises(TypeError, match="only floating and complex"):
            ember.gradients(i.sum(), [i])
    with ember.Graph().as_default():
        other = ember.constant(1.0)
    with ember.Graph().as_default():
        x = ember.constant(2.0)
        with pytest.raises(ValueError, match="same graph"):
            ember.gradients(x * x, [other])


def test_gradient_descent_takes_the_exact_step():
    g = ember.Graph()
    with g.as_default():
        w = ember.Variable([1.0, -2.0])
        loss = (w * w).sum()
        step = ember.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as sess:
        sess.run(init)
        sess.run(step)
        np.testing.assert_allclose(sess.run(w), np.array([1.0, -2.0]) * (1 - 0.2), rtol=1e-6)


def test_adam_matches_tensorflow_formula():
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
    w0 = np.array([0.5, -1.5, 2.0], dtype=np.float32)
    g = ember.Graph()
    with g.as_default():
        w = ember.Variable(w0)
        loss = ((w - 1.0) ** 3).sum()
        train = ember.train.AdamOptimizer(lr, b1, b2, eps).minimize(loss)
        init = ember.global_variables_initializer()
    w_ref, m, v = w0.astype(np.float64), 0.0, 0.0
    with ember.Session(graph=g) as sess:
        sess.run(init)
        for t in range(1, 6):
            grad = 3 * (w_ref - 1.0) ** 2
            m = b1 * m + (1 - b1) * grad
            v = b2 * v + (1 - b2) * grad * grad
            w_ref = w_ref - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), w_ref, rtol=1e-5)


def test_training_converges_in_graph_mode():
    x, y, w1, w2 = _data(128, seed=1)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    g = ember.Graph()
    with g.as_default():
        px = ember.placeholder(ember.float32, (None, 6))
        py = ember.placeholder(ember.int64, (None,))
        v1 = ember.Variable(w1)
        v2 = ember.Variable(w2[:, :2].copy())
        logits = ember.matmul(ember.relu(ember.matmul(px, v1)), v2)
        loss = F.cross_entropy(logits, py)
        train = ember.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as sess:
        sess.run(init)
        first = sess.run(loss, {px: x, py: y})
        for _ in range(60):
            sess.run(train, {px: x, py: y})
        last, out = sess.run([loss, logits], {px: x, py: y})
    assert last < first * 0.5
    assert (out.argmax(1) == y).mean() > 0.9


@pytest.mark.parametrize("make_opt", [
    lambda: ember.train.AdamOptimizer(0.05),
    lambda: ember.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    lambda: ember.train.GradientDescentOptimizer(0.1),
])
def test_specialised_static_plans_train_exactly_like_the_general_executor(make_opt):
    x, y, w1, w2 = _data(48, seed=2)
    results = []
    for specialize in (False, True):
        g = ember.Graph()
        with g.as_default():
            px = ember.placeholder(ember.float32, (None, 6))
            py = ember.placeholder(ember.int64, (None,))
            v1, v2 = ember.Variable(w1), ember.Variable(w2)
            loss = F.cross_entropy(ember.matmul(ember.relu(ember.matmul(px, v1)), v2), py)
            train = make_opt().minimize(loss)
            init = ember.global_variables_initializer()
        with ember.Session(graph=g, specialize=specialize) as sess:
            sess.run(init)
            losses = [sess.run([loss, train], {px: x[i : i + 16], py: y[i : i + 16]})[0] for i in (0, 16, 32, 0, 16)]
            losses.append(sess.run(loss, {px: x[:5], py: y[:5]}))  # another batch size: another specialisation
            results.append((losses, sess.run([v1, v2])))
            runners = [r for _, _, plan in sess._plans.values() for r in plan.specialised.values()]
            assert (any(r is not None for r in runners)) == specialize  # the static path really ran
    (l0, p0), (l1, p1) = results
    np.testing.assert_allclose(l1, l0, rtol=1e-6)
    for a, b in zip(p0, p1, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def test_gradients_through_indexing_of_a_fully_known_graph_tensor():
    # the positions a view's derivative scatters back to are constants of the graph, computed when it is built
    with ember.Graph().as_default() as g:
        x = ember.placeholder(ember.float32, shape=(3,))
        (d,) = ember.gradients(x.reshape(-1)[1] * 2 + x[0:2].sum() + x.t()[2], [x])
    assert ember.Session(graph=g).run(d, {x: [1.0, 2.0, 3.0]}).tolist() == [1.0, 3.0, 1.0]


def test_gradients_through_indexing_and_diagonal_views_in_a_graph():
    # the derivative of a view that reads some elements adds the gradient back at the positions
    # it read: computed when the graph is built, as a constant, not recorded
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float64, (3, 2))
        (gx,) = ember.gradients((x[:2] * x[:2]).sum() + x.diagonal().sum(), [x])
        value = ember.Session().run(gx, {x: np.arange(6.0).reshape(3, 2)})
    assert value.tolist() == [[1.0, 2.0], [4.0, 7.0], [0.0, 0.0]]


def test_arange_up_to_an_unknown_size_keeps_its_formula():
    # int() of the unknown size would keep only its placeholder value (a silent 720720 elements)
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float32, (None, 3))
        n = x.size(0)
        ranges = [ember.arange(n), ember.arange(1, n, 2), ember.arange(n, 0, -1)]
        with pytest.raises(NotImplementedError, match="float range"):
            ember.arange(0.5, n)
        with ember.Session() as sess:
            for rows in (5, 2):
                got = sess.run(ranges, {x: np.ones((rows, 3), np.float32)})
                assert [g.tolist() for g in got] == [list(range(rows)), list(range(1, rows, 2)), list(range(rows, 0, -1))]
