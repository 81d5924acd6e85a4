"""View primitives: how a view op is made, run and differentiated.

A view op is a primitive whose rule is metadata only: a ``view_rule`` calling the layout
function in ``ember/_core/views.py`` (new shape, strides and offset over the input's storage).
It has no kernel and copies nothing; its attributes are hashable (tuples). ``view_op`` makes
one, ``simple_view`` also registers its functor, and ``run_view`` hands one to the current
interpreter. A view that reads input elements several times, or some not at all, differentiates
by adding the gradient back at the positions it read (``view_scatter_grad``).

>>> import ember
>>> x = ember.tensor([[0, 1, 2], [3, 4, 5]])
>>> run_view(VIEW_OPS["transpose"], x, {"dim0": 0, "dim1": 1})[0].tolist()
[[0, 3], [1, 4], [2, 5]]
"""

from __future__ import annotations

from ..._core.tensor import Tensor
from ...dispatch import NO_ATTRS, OpExpr, interpreter as _interp
from ..functor import FUNCTORS
from ._common import in_shape, named, positions, scatter_back

__all__ = ["VIEW_OPS", "run_view", "simple_view", "view_op", "view_scatter_grad"]

VIEW_OPS: dict[str, OpExpr] = {}

_mode = _interp._mode


def run_view(op: OpExpr, x: Tensor, attrs: dict) -> tuple:
    """Dispatch a one-input view op to the current interpreter (no ``dispatch`` hop)."""
    return _mode.interpreter.apply(op, (x,), attrs)


def _infer_from_view(op: OpExpr):
    def infer(attrs, *inputs):
        return tuple((t._shape, t._dtype) for t in op.view(attrs, *inputs))

    return infer


def view_op(name: str, core, attr_names: tuple[str, ...] = (), *, multi: bool = False) -> OpExpr:
    """A view primitive whose rule calls ``core(x, *attrs)`` (metadata only)."""
    op = OpExpr(name, ("input",), ("out",))
    op.view_rule(_rule(name, core, attr_names, multi))
    op.shape_rule(_infer_from_view(op))
    VIEW_OPS[name] = op
    return op


def _rule(name: str, core, attr_names: tuple[str, ...], multi: bool):
    n = len(attr_names)
    if multi and n == 1:  # the core returns a tuple of views
        (a,) = attr_names

        def rule(attrs, x):
            return core(x, attrs[a])
    elif multi:
        a, b = attr_names

        def rule(attrs, x):
            return core(x, attrs[a], attrs[b])
    elif n == 0:

        def rule(attrs, x):
            return (core(x),)
    elif n == 1:
        (a,) = attr_names

        def rule(attrs, x):
            return (core(x, attrs[a]),)
    elif n == 2:
        a, b = attr_names

        def rule(attrs, x):
            return (core(x, attrs[a], attrs[b]),)
    else:
        a, b, c = attr_names

        def rule(attrs, x):
            return (core(x, attrs[a], attrs[b], attrs[c]),)

    return named(rule, f"{name}_view_rule")


def simple_view(functor_name: str, name: str, core, attr_names: tuple[str, ...] = (), *, multi: bool = False) -> OpExpr:
    """A view primitive plus its functor ``Name(input, *attrs)`` (attrs in the schema's order)."""
    op = view_op(name, core, attr_names, multi=multi)
    n = len(attr_names)
    # Each arity spelled out: this is the hot path of every view.
    if n == 0:

        def run(input):
            out = _mode.interpreter.apply(op, (input,), NO_ATTRS)
            return out if multi else out[0]
    elif n == 1:
        (a,) = attr_names

        def run(input, x0):
            out = _mode.interpreter.apply(op, (input,), {a: x0})
            return out if multi else out[0]
    elif n == 2:
        a, b = attr_names

        def run(input, x0, x1):
            out = _mode.interpreter.apply(op, (input,), {a: x0, b: x1})
            return out if multi else out[0]
    else:
        a, b, c = attr_names

        def run(input, x0, x1, x2):
            out = _mode.interpreter.apply(op, (input,), {a: x0, b: x1, c: x2})
            return out if multi else out[0]

    FUNCTORS[functor_name] = named(run, functor_name)
    return op


# Derivatives are written with ember's ops (so they differentiate again). A view that keeps every
# element once undoes its layout change on the gradient (beside the op, in its module); one that
# reads elements several times or not at all adds the gradient back at the positions it read.


def view_scatter_grad(op: OpExpr) -> OpExpr:
    """Register the derivative of a view op that reads input elements once, several times
    (``index_add`` sums them) or not at all: ``g`` added back at the positions the view reads."""

    def grad(ctx, g):
        shape = in_shape(ctx)
        (pos,) = positions(op, ctx.attrs, shape)
        return (scatter_back(g, pos, shape),)

    op.grad_rule(saves="none")(named(grad, f"_{op.name}_grad"))
    return op
