"""What the shape modules share: dispatching a copying op (with ``out=``), naming the functions
a factory makes, and the derivatives' helpers that add a gradient back at the input positions
an op read (``positions`` of a view op, ``scatter_back``).

>>> import ember
>>> pos = ember.tensor([0, 0, 2])
>>> scatter_back(ember.tensor([1.0, 2.0, 3.0]), pos, (3,)).tolist()
[3.0, 0.0, 3.0]
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor, tensor
from ...dispatch import OpExpr, dispatch
from ...dispatch.interpreter import running_eagerly
from ..common import functional as _F

__all__ = ["in_shape", "named", "positions", "run", "scatter_back"]


def run(op: OpExpr, inputs: tuple, attrs: dict, out=None) -> Tensor:
    """Dispatch ``op`` and return its one output (written into ``out`` when given)."""
    return dispatch(op, inputs, attrs, None if out is None else (out,))[0]


def named(fn, name: str):
    """``fn`` under its own name and code object, so that tracebacks and ``ember.trace`` (which
    recognises functors and rules by code object) tell apart the functions one factory made."""
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    fn.__name__ = fn.__qualname__ = name
    return fn


def in_shape(ctx, i: int = 0) -> tuple:
    """The shape of a derivative's input ``i``."""
    return ctx.input_meta[i][0]


def positions(op: OpExpr, attrs: dict, shape: tuple) -> tuple:
    """The flat input positions each output element of the view op ``op`` reads: the op applied
    to an ``arange`` of ``shape`` (metadata only; nothing is recorded). While a graph is being
    built the positions are still computed now: they are constants of the graph, not nodes."""
    if not running_eagerly():
        if all(type(d) is int for d in shape):
            return op.view(attrs, tensor(np.arange(math.prod(shape)).reshape(shape)))
        # sizes known only when the graph runs: the positions are nodes (a count of ones keeps
        # the size's formula, which an arange of an unknown size would lose), viewed by a node
        F = _F()
        count = F.cumsum(F.ones(shape, dtype=_dt.int64).reshape(-1), 0)
        return dispatch(op, (F.sub(count, 1).reshape(shape),), attrs)
    base = _F().arange(math.prod(shape)).reshape(shape)
    if base.is_global:  # inside a global op's derivative (dispatch/sbp.py's AMBIENT): the global interpreter views it
        return dispatch(op, (base,), attrs)
    return op.view(attrs, base)


def scatter_back(g, pos, shape: tuple):
    """Zeros of ``shape`` with ``g`` added at the flat positions ``pos`` (``g``'s shape)."""
    F = _F()
    flat = F.zeros(math.prod(shape), dtype=g.dtype)
    return F.index_add(flat, 0, pos.reshape(-1), g.reshape(-1)).reshape(shape)
