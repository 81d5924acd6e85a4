"""Symbolic gradients: ``ember.gradients(ys, xs)`` adds the backward nodes to the graph.

It walks the operations between ``xs`` and ``ys`` latest first and calls each primitive's
derivative, the same function eager autograd calls, on the graph tensors; the formula's ember
ops are recorded as nodes like any others. Contributions to one tensor are summed.
"""

from __future__ import annotations

import contextlib

from ..ops import functional as F
from .graph import Graph
from .run.plan import data_inputs
from .tensor import GraphTensor

__all__ = ["gradients"]

# Graph-only operations gradients pass through (the value is the input's) or stop at.
_PASS_THROUGH = {"Identity", "PlaceholderWithDefault"}


class _Edges:
    """What a derivative may ask of its node: the op and which inputs want a gradient."""

    __slots__ = ("next_functions", "op")

    def __init__(self, op, needs: tuple) -> None:
        self.op = op
        self.next_functions = tuple((True if n else None, 0) for n in needs)


class _GraphContext:
    """The eager ``Context`` for a graph node: inputs and outputs are graph tensors."""

    __slots__ = ("_node", "attrs", "input_meta", "inputs", "output_meta", "outputs")

    def __init__(self, op, needs: tuple) -> None:
        self._node = _Edges(op.op_expr, needs)
        self.attrs = op.attrs
        self.inputs = op.inputs
        self.outputs = op.outputs
        self.input_meta = tuple((t._shape, t._dtype) for t in op.inputs)
        self.output_meta = tuple((t._shape, t._dtype) for t in op.outputs)


def _differentiable(t) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


def _between(ys: list, xs: list) -> set:
    """Operations on a path from an x to a y (data edges)."""
    backward: set = set()
    stack = [y._op for y in ys]
    while stack:
        op = stack.pop()
        if op in backward:
            continue
        backward.add(op)
        stack.extend(t._op for t in data_inputs(op))
    x_ids = {id(x) for x in xs}
    forward: set = set()
    # forward reach from the xs, inside the backward set, in creation order
    for op in sorted(backward, key=lambda o: o._id):
        if any(id(t) in x_ids or t._op in forward for t in data_inputs(op)) or any(id(t) in x_ids for t in op.outputs):
            forward.add(op)
    return forward


def _ember_class(t) -> type:
    """The graph-mode class under ``t``'s (a subclass may give the operators another meaning:
    TensorFlow's ``==`` is identity, and it refuses ``float * bool``)."""
    return next(c for c in type(t).__mro__ if c.__module__.startswith("ember.graph."))


@contextlib.contextmanager
def _ember_operators(tensors):
    """Derivative formulas are written with ember's operators: ``tensors`` (a node's inputs,
    outputs and incoming gradients) have graph mode's own class while one runs."""
    changed = [(t, type(t)) for t in tensors if t is not None and type(t) is not _ember_class(t)]
    for t, _ in changed:
        t.__class__ = _ember_class(t)
    try:
        yield
    finally:
        for t, cls in changed:
            t.__class__ = cls


def gradients(ys, xs, grad_ys=None, name: str = "gradients", stop_gradients=None):
    """The symbolic gradients of ``sum(ys)`` with respect to each of ``xs`` (None where a
    y does not depend on an x).

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     x = ember.placeholder(ember.float32, shape=(2,))
    ...     (dx,) = ember.gradients((x * x).sum(), [x])
    >>> ember.Session(graph=g).run(dx, {x: [1.0, 3.0]}).tolist()
    [2.0, 6.0]
    """
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    for t in ys + xs:
        if not isinstance(t, GraphTensor):
            raise TypeError(f"gradients(): ys and xs must be graph tensors, got {type(t).__name__}")
    graph: Graph = ys[0].graph
    if any(t.graph is not graph for t in ys + xs):
        raise ValueError("gradients(): all ys and xs must be from the same graph")
    if grad_ys is not None:
        grad_ys = list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        if len(grad_ys) != len(ys):
            raise ValueError(f"gradients(): passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    stops = {id(t) for t in (stop_gradients or ())}
    first = len(graph._ops)
    tensor_class, graph.tensor_class = graph.tensor_class, GraphTensor  # the backward nodes compute with ember's operators
    try:
        return _backward(graph, ys, xs, grad_ys, stops, name)
    finally:
        graph.tensor_class = tensor_class
        for op in graph._ops[first:]:  # what the caller sees has the graph's own tensor class
            for t in op.outputs:
                if type(t) is GraphTensor and tensor_class is not GraphTensor:
                    t.__class__ = tensor_class


def _backward(graph, ys, xs, grad_ys, stops, name):
    grads: dict = {}  # id(tensor) -> list of gradient tensors

    def add(t, g) -> None:
        if g is not None:
            grads.setdefault(id(t), []).append(g)

    with graph.as_default(), graph.name_scope(name):
        for i, y in enumerate(ys):
            g = grad_ys[i] if grad_ys is not None and grad_ys[i] is not None else None
            if g is None:
                if not _differentiable(y):
                    raise TypeError(f"gradients(): y {y.name} has dtype {y.dtype.name}; only floating and complex tensors have gradients")
                g = F.ones_like(y)
            add(y, g)
        between = _between(ys, xs)
        x_ids = {id(x) for x in xs}
        for op in sorted(between, key=lambda o: o._id, reverse=True):
            outs = [_total(grads.get(id(t))) for t in op.outputs]
            if all(g is None for g in outs) or (all(id(t) in x_ids for t in op.outputs) and op.op_expr is None):
                continue
            if any(id(t) in stops for t in op.outputs):
                continue
            if op.kind in _PASS_THROUGH:
                add(op.inputs[0], outs[0])
                continue
            if op.op_expr is None:
                continue  # Const, Placeholder, VariableV2, assignments: where gradients end
            expr = op.op_expr
            if not expr.differentiable:
                continue
            if expr.derivative is None:
                raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type})")
            needs = tuple(_differentiable(t) and (t._op in between or id(t) in x_ids) for t in op.inputs)
            if not any(needs):
                continue
            if None in outs:
                outs = [F.zeros(t._shape, dtype=t._dtype) if g is None else g for g, t in zip(outs, op.outputs, strict=True)]
            with graph.name_scope(f"{op.name.rsplit('/', 1)[-1]}_grad"), _ember_operators((*op.inputs, *op.outputs, *outs)):
                result = expr.derivative(_GraphContext(op, needs), *outs)
            result = result if isinstance(result, tuple) else (result,)
            for t, g, need in zip(op.inputs, result, needs, strict=False):
                if need and g is not None:
                    add(t, g if g._dtype is t._dtype else g.to(t._dtype))
        return [_total(grads.get(id(x))) for x in xs]


def _total(parts):
    if not parts:
        return None
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    if len(parts) > 1:
        parts[:] = [total]
    return total
