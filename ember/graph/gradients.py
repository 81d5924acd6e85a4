"""Symbolic gradients: ``ember.gradients(ys, xs)`` adds the backward nodes to the graph.

It walks the operations between ``xs`` and ``ys`` latest first and calls each primitive's
derivative, the same function eager autograd calls, on the graph tensors; the formula's ember
ops are recorded as nodes like any others. Contributions to one tensor are summed.
"""

from __future__ import annotations

from ..ops import functional as F
from .graph import Graph
from .run.plan import data_inputs
from .tensor import GraphTensor, ember_operators

__all__ = ["GRADIENTS", "gradients", "register_gradient"]

# Graph-only operations gradients pass through (the value is the input's) or stop at.
_PASS_THROUGH = {"Identity", "PlaceholderWithDefault"}

# Gradients of graph-only op types defined above this floor (If, While, StopGradient, Print):
# type -> fn(op, output_grads, needs) -> one gradient (or None) per input; an output's gradient
# is None where no y depends on it, ``needs[k]`` says whether input k wants one.
GRADIENTS: dict = {}


def register_gradient(op_type: str):
    """Decorator (TensorFlow's ``RegisterGradient``): the gradient function of graph-only nodes of
    ``op_type``."""

    def register(fn):
        if op_type in GRADIENTS:
            raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous registration was in {GRADIENTS[op_type].__module__})")
        GRADIENTS[op_type] = fn
        return fn

    return register


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
    with ember_operators():  # the derivative rules are ember code, whatever the graph's tensors
        return _gradients(ys, xs, grad_ys, name, stop_gradients)


def _gradients(ys, xs, grad_ys, name: str, stop_gradients):
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
                rule = GRADIENTS.get(op.type)
                if rule is not None:
                    needs = tuple(_differentiable(t) and (t._op in between or id(t) in x_ids) for t in op.inputs)
                    if any(needs):
                        with graph.name_scope(f"{op.name.rsplit('/', 1)[-1]}_grad"):
                            result = rule(op, outs, needs)
                        for t, g, need in zip(op.inputs, result, needs, strict=False):
                            if need and g is not None:
                                add(t, g)
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
            with graph.name_scope(f"{op.name.rsplit('/', 1)[-1]}_grad"):
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
