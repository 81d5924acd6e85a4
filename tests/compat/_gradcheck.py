"""Finite-difference checks of graph-mode gradients for the TensorFlow-semantics namespace."""

from __future__ import annotations

import numpy as np

from ember.graph import Graph, Session, constant, gradients, placeholder
from ember.ops import functional as F


def graph_gradients(fn, arrays: list[np.ndarray], seed: int = 0) -> tuple[list[np.ndarray], float]:
    """d sum(fn(*inputs) * r) / d inputs from graph-mode ``gradients``, and the value, in one Session.run."""
    with Graph().as_default():
        inputs = [placeholder(a.dtype, a.shape) for a in arrays]
        y = fn(*inputs)
        r = np.random.default_rng(seed).standard_normal(tuple(y.shape.as_list())).astype(arrays[0].dtype)
        loss = F.sum(F.mul(y, constant(r)))
        grads = gradients(loss, inputs)
        assert all(g is not None for g in grads)
        with Session() as session:
            *values, value = session.run([*grads, loss], dict(zip(inputs, arrays, strict=True)))
    return values, float(value)


def numeric_gradients(fn, arrays: list[np.ndarray], seed: int = 0, eps: float = 1e-6) -> list[np.ndarray]:
    """Central differences of sum(fn(*arrays) * r), evaluated eagerly."""

    def total(args):
        y = np.asarray(fn(*args))
        r = np.random.default_rng(seed).standard_normal(y.shape).astype(y.dtype)
        return float((y * r).sum())

    out = []
    for i, a in enumerate(arrays):
        grad = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i][j] += eps
            minus[i][j] -= eps
            grad[j] = (total(plus) - total(minus)) / (2 * eps)
        out.append(grad)
    return out


def check_gradients(fn, arrays: list[np.ndarray], atol: float = 1e-6, eps: float = 1e-6, rtol: float = 1e-5) -> None:
    """Graph-mode gradients of ``fn`` equal finite differences (float64 inputs; a function that
    computes in float32 needs a larger ``eps`` and tolerances)."""
    symbolic, _ = graph_gradients(fn, arrays)
    numeric = numeric_gradients(fn, arrays, eps=eps)
    for got, want in zip(symbolic, numeric, strict=True):
        np.testing.assert_allclose(got, want, atol=atol, rtol=rtol)
