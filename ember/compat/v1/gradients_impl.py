"""``tf.gradients`` with TensorFlow 1's full signature, ``tf.hessians`` and ``UnconnectedGradients``.

Both build on graph mode's symbolic ``gradients`` (each primitive's own derivative rule). The
arguments that steer TensorFlow's scheduling of the backward graph (``gate_gradients``,
``aggregation_method``, ``colocate_gradients_with_ops``) are accepted and change nothing: a
Session runs the nodes in one order on one device.
"""

from __future__ import annotations

import enum

import numpy as np

from ...graph.gradients import gradients as _graph_gradients
from ...graph.tensor import GraphTensor
from ...ops import functional as F
from .framework import constant, op_scope

__all__ = ["UnconnectedGradients", "gradients", "hessians"]


class UnconnectedGradients(enum.Enum):
    """What ``gradients`` gives for an x that the ys do not depend on."""

    NONE = "none"
    ZERO = "zero"


def gradients(ys, xs, grad_ys=None, name: str = "gradients", colocate_gradients_with_ops: bool = False, gate_gradients: bool = False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):  # fmt: skip
    """The symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs``.

    >>> import ember.compat.v1 as tf
    >>> with tf.Graph().as_default() as g:
    ...     x = tf.constant([1.0, 2.0])
    ...     unused = tf.constant(0.0)
    ...     dx, du = tf.gradients(x * x, [x, unused], unconnected_gradients="zero")
    >>> tf.Session(graph=g).run([dx, du])
    [array([2., 4.], dtype=float32), np.float32(0.0)]
    """
    try:
        mode = UnconnectedGradients(
            unconnected_gradients.value if isinstance(unconnected_gradients, UnconnectedGradients) else unconnected_gradients
        )
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
    result = _graph_gradients(ys, xs, grad_ys=grad_ys, name=name, stop_gradients=stop_gradients)
    if mode is UnconnectedGradients.ZERO:
        xs_list = list(xs) if isinstance(xs, list | tuple) else [xs]
        with xs_list[0].graph.as_default():
            result = [F.zeros_like(x) if g is None else g for g, x in zip(result, xs_list, strict=True)]
    return result


def hessians(
    ys,
    xs,
    gate_gradients: bool = False,
    aggregation_method=None,
    colocate_gradients_with_ops: bool = False,
    name: str = "hessians",
):
    """The Hessian of ``sum(ys)`` with respect to each of ``xs``: shape ``x.shape + x.shape``.

    Built as TensorFlow builds it, the gradient of each element of the flattened gradient; the
    xs need fully known shapes.
    """
    xs_list = list(xs) if isinstance(xs, list | tuple) else [xs]
    out = []
    with op_scope(name, "hessians", xs_list):
        for x in xs_list:
            if not isinstance(x, GraphTensor) or not x.shape.is_fully_defined():
                raise ValueError(
                    f"hessians(): {getattr(x, 'name', x)!r} needs a fully defined shape, got {getattr(x, 'shape', None)}"
                )
            (grad,) = _graph_gradients(ys, [x])
            if grad is None:
                out.append(None)
                continue
            flat = F.reshape(grad, (-1,))
            n = flat.shape[0]
            rows = []
            for i in range(n):  # d(grad[i])/dx, grad[i] picked by a one-hot weight
                pick = np.zeros(n, dtype=x.dtype.numpy_dtype)
                pick[i] = 1
                (row,) = _graph_gradients(F.sum(F.mul(flat, constant(pick))), [x])
                rows.append(F.zeros_like(x) if row is None else row)
            shape = tuple(x.shape.as_list())
            out.append(F.reshape(F.stack(rows), shape + shape))
    return out
