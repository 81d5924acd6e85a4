"""``tf.random.gamma`` / ``tf.random_gamma``: Gamma(alpha, beta) draws as a ``RandomGamma`` node.

ember has no gamma sampler primitive, so the node is a graph-only one whose kernel draws with
NumPy's generator, one stream per node seeded by TensorFlow's (graph seed, op seed) rule, as the
other random ops of this namespace. The output shape is ``shape + alpha.shape``; ``beta`` divides
the draws (a second node, as in TensorFlow). TensorFlow differentiates the draws with respect to
``alpha``; here that gradient is refused with a clear error rather than left out.
"""

from __future__ import annotations

import secrets

import numpy as np

from ..._core import dtype as _dt
from ...graph.gradients import register_gradient
from ...graph.lazy import LazyInterpreter
from ...graph.run.plan import register_graph_kernel
from ...graph.symbolic import TensorShape
from ...interop.numpy import from_numpy
from ...ops import functional as F
from .framework import convert_to_tensor, op_scope
from .random_ops import _dtype, _static_shape, get_seed

__all__ = ["random_gamma"]


def random_gamma(shape, alpha, beta=None, dtype=_dt.float32, seed=None, name=None):
    """Draws of Gamma(``alpha``, ``beta``) (shape ``shape + alpha.shape``; ``beta`` the rate, 1
    when left out).

    >>> import ember.compat.v1 as tf
    >>> with tf.Graph().as_default() as g:
    ...     draws = tf.random.gamma([1000], alpha=[1.0, 9.0], seed=3)
    >>> values = tf.Session(graph=g).run(draws)
    >>> values.shape, bool(abs(values[:, 1].mean() - 9.0) < 0.6)
    ((1000, 2), True)
    """
    dims = _static_shape(shape, "random_gamma")
    dtype = _dtype(dtype, "random_gamma", ("float16", "float32", "float64"))
    with op_scope(name, "random_gamma") as scope:
        a = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        graph = scope.graph
        a = LazyInterpreter(graph).capture(a)
        if not a.shape.is_fully_defined():
            raise ValueError(f"random_gamma(): alpha's shape must be known when the graph is built, got {a.shape}")
        seed1, seed2 = get_seed(seed)
        entropy = secrets.randbits(63) if seed1 is None and seed2 is None else ((int(seed1 or 0) << 32) | int(seed2 or 0))
        out_shape = dims + tuple(a.shape.as_list())
        attrs = {"shape": dims, "dtype": dtype, "seed": seed1 or 0, "seed2": seed2 or 0,
                 "generator": np.random.Generator(np.random.PCG64(entropy))}  # fmt: skip
        if seed1 is not None or seed2 is not None:  # a new session replays a seeded stream, as TensorFlow's
            rng, start = attrs["generator"], attrs["generator"].bit_generator.state
            graph.session_start_hooks.append(lambda: setattr(rng.bit_generator, "state", start))
        draws = graph.create_op(
            "RandomGamma", (a,), attrs, [(out_shape, TensorShape(out_shape), dtype)], name="RandomGamma"
        ).outputs[0]
        if beta is not None:
            draws = F.div(draws, convert_to_tensor(beta, dtype=dtype, name="beta"))
        return scope.out(draws)


def _draw(op, inputs) -> tuple:
    alpha = inputs[0].numpy()
    dims = tuple(op.attrs["shape"]) + alpha.shape
    values = op.attrs["generator"].standard_gamma(alpha.astype(np.float64), size=dims)
    return (from_numpy(np.ascontiguousarray(values.astype(op.attrs["dtype"].numpy_dtype))),)


def _no_gradient(op, grads, needs):
    raise LookupError(
        f"No gradient defined for operation '{op.name}' (op type: {op.type}): ember does not differentiate gamma draws"
    )


register_graph_kernel("RandomGamma", _draw)
register_gradient("RandomGamma")(_no_gradient)
