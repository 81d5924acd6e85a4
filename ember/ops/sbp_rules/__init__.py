"""SBP rules of the op families: what layout each input of an op must have on one mesh
dimension, and what layout its outputs get, for global tensors (``ember/dispatch/sbp.py``).

A rule is ``fn(attrs, metas, sbps) -> Signature | None``: ``metas`` are the inputs' logical
(shape, dtype), ``sbps`` their current layouts on the mesh dimension. It answers with the
signature that needs the least boxing of what the inputs have; None means "no rule": the
interpreter boxes every input to broadcast and runs the op whole, which is always right. A rule
marked ``needs_ranks`` is also given the mesh dimension's size (uneven splits). A primitive
names its rule with ``OpExpr.tag(sbp=...)`` beside its registration.

One file per family: ``elementwise`` (with the partial-keeping rules of linear and monotone
ops), ``linalg`` (matmul, linear, embedding), ``reduction``, ``shape`` (views, cat), ``nn``
(softmax, norms, cross entropy).

>>> from ember.dispatch.sbp import split, broadcast, partial_sum
>>> elementwise({}, (((4, 3), None), ((3,), None)), (split(0), broadcast))
(S(0), B) -> (S(0))
>>> matmul({}, (((4, 3), None), ((3, 5), None)), (split(1), split(0)))
(S(1), S(0)) -> (P(sum))
"""

from __future__ import annotations

from . import nn, reduction, shape
from .elementwise import (
    add_alpha,
    add_like,
    clamp_like,
    div_like,
    elementwise,
    lerp,
    linear_unary,
    maximum_like,
    minimum_like,
    monotone_unary,
    mul_like,
    negate,
    shift_unary,
    sub_like,
    threshold_backward,
    where,
)  # fmt: skip
from .linalg import embedding, linear, linear_backward, matmul

__all__ = [
    "add_alpha", "add_like", "clamp_like", "div_like", "elementwise", "embedding", "lerp", "linear", "linear_backward",
    "linear_unary", "matmul", "maximum_like", "minimum_like", "monotone_unary", "mul_like", "negate", "nn", "reduction",
    "shape", "shift_unary", "sub_like", "threshold_backward", "where",
]  # fmt: skip
