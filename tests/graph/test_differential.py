"""Random programs of ember ops: eager == graph (Session) == compiled (ember.compile)."""

import numpy as np
import pytest

import ember

UNARY = [ember.relu, ember.tanh, ember.sigmoid, ember.exp, ember.neg, ember.abs, lambda x: x * 0.5, lambda x: x + 1.0, lambda x: x.square()]
BINARY = [ember.add, ember.sub, ember.mul, ember.maximum, lambda a, b: a / (b.abs() + 1.0)]


def _program(rng: np.random.Generator, n_ops: int):
    """A function of two (R, C) inputs built from a random sequence of ops (each op's shape rule
    decides what follows), and its description for failure messages."""
    choices = []
    for _ in range(n_ops):
        kind = rng.choice(["unary", "binary", "matmul", "reduce", "reshape", "transpose", "softmax"])
        choices.append((kind, int(rng.integers(0, 1000))))

    def fn(x, y):
        values = [x, y]
        for kind, k in choices:
            a = values[k % len(values)]
            b = values[(k // 7) % len(values)]
            if kind == "unary":
                out = UNARY[k % len(UNARY)](a)
            elif kind == "binary":
                out = BINARY[k % len(BINARY)](a, b) if a.shape == b.shape or b.ndim == 0 else UNARY[k % len(UNARY)](a)
            elif kind == "matmul" and a.ndim == 2:
                out = ember.matmul(a, a.T) * 0.1
            elif kind == "reduce" and a.ndim >= 1:
                out = a.sum(-1, keepdim=bool(k % 2)) if k % 3 else a.mean()
            elif kind == "reshape":
                out = a.reshape(-1)
            elif kind == "transpose" and a.ndim == 2:
                out = a.T
            elif kind == "softmax" and a.ndim >= 1:
                out = ember.softmax(a, dim=-1)
            else:
                out = a * 2.0
            values.append(out)
        return values[-1], values[len(values) // 2]

    return fn, choices


@pytest.mark.parametrize("seed", range(25))
def test_random_programs_agree_in_every_mode(seed):
    rng = np.random.default_rng(seed)
    fn, choices = _program(rng, int(rng.integers(3, 12)))
    rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    y = rng.standard_normal((rows, cols)).astype(np.float32)
    eager = [t.numpy() for t in fn(ember.from_numpy(x), ember.from_numpy(y))]

    g = ember.Graph()
    with g.as_default():
        px = ember.placeholder(ember.float32, (None, cols))
        py = ember.placeholder(ember.float32, (None, cols))
        outs = fn(px, py)
    with ember.Session(graph=g) as sess:
        graph = sess.run(list(outs), {px: x, py: y})

    compiled_fn = ember.compile(fn)
    for _ in range(3):  # eager first, then the trace, then the cached plan
        compiled = [t.numpy() for t in compiled_fn(ember.from_numpy(x), ember.from_numpy(y))]

    for e, gr, c in zip(eager, graph, compiled, strict=True):
        np.testing.assert_allclose(np.asarray(gr), e, rtol=1e-5, atol=1e-6, err_msg=f"graph vs eager: {choices}")
        np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-6, err_msg=f"compiled vs eager: {choices}")
