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

from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ...dispatch.interpreter import eager_default_interpreter, interpreter_scope, running_eagerly
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
    to an ``arange`` of ``shape`` (metadata only; nothing is recorded)."""
    if not running_eagerly() and all(type(d) is int for d in shape) and not has_symbols(attrs):
        # a graph's derivative: the positions are metadata, computed now (a Const where used), not recorded
        with interpreter_scope(eager_default_interpreter()):
            return positions(op, attrs, shape)
    base = _F().arange(math.prod(shape)).reshape(shape)
    if base.is_global:  # inside a global op's derivative (dispatch/sbp.py's AMBIENT): the global interpreter views it
        return dispatch(op, (base,), attrs)
    return op.view(attrs, base)


def has_symbols(attrs: dict) -> bool:
    """Whether an attribute holds a size known only when a graph runs (an ``int`` subclass)."""

    def symbolic(v) -> bool:
        if isinstance(v, tuple | list):
            return any(symbolic(x) for x in v)
        if isinstance(v, slice):
            return symbolic((v.start, v.stop, v.step))
        if isinstance(getattr(v, "items", None), tuple):  # an indexing key
            return symbolic(v.items)
        return isinstance(v, int | float) and type(v) not in (int, bool, float)

    return any(symbolic(v) for v in attrs.values())


def scatter_back(g, pos, shape: tuple):
    """Zeros of ``shape`` with ``g`` added at the flat positions ``pos`` (``g``'s shape)."""
    F = _F()
    flat = F.zeros(math.prod(shape), dtype=g.dtype)
    return F.index_add(flat, 0, pos.reshape(-1), g.reshape(-1)).reshape(shape)
