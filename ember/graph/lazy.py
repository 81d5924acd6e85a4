"""The lazy interpreter: the op system's dispatch, recording graph nodes instead of running.

Inside ``graph.as_default()`` every primitive an ember function dispatches arrives here. The
op's own inference rule (or view rule) runs on the inputs' concrete stand-in shapes, so shape
and dtype errors surface when the node is built; the outputs become ``GraphTensor``s of a new
``Operation``. Eager tensors used as inputs are captured as ``Const`` nodes, once each.

An in-place op (``relu_``, ``out=``) on a graph tensor is recorded as a new node whose output
the Python object is rebound to: graphs are dataflow, so "in place" means "the name now refers
to the new value". Writes into views of graph tensors and into placeholders, constants and
variables are refused (use ``Variable.assign``).

The interpreter asks of its graph only ``create_op`` and the table of captured tensors, so this
module sits below ``graph.py`` (whose ``Graph.as_default`` installs it) and imports only the
values of the IR (``tensor.py``).
"""

from __future__ import annotations

from .._core.tensor import Tensor
from ..dispatch.interpreter import EAGER, Interpreter, current_interpreter, eager_default_interpreter, interpreter_scope
from ..dispatch.opexpr import OpExpr, get_op
from ..ops import functional as F
from .elementwise import is_elementwise
from .symbolic import PROBE, SymInt, TensorShape, looks_derived, static_of, unknown_dim
from .tensor import GraphTensor, symbolic_storage

__all__ = ["LazyInterpreter", "const_node", "is_tracing"]

_IMMUTABLE = {"Placeholder", "PlaceholderWithDefault", "Const", "VariableV2"}


def refuse_global(where: str, t) -> None:
    """Graph mode has no global tensors yet: say so rather than bake one rank's view into a plan."""
    raise NotImplementedError(
        f"{where} does not support global tensors yet (got one of shape {list(t._shape)} on {t.placement!r} with sbp {t.sbp}): "
        "run global tensors eagerly, or give the graph local tensors (x.to_local())"
    )


class LazyInterpreter(Interpreter):
    """Records each primitive as an Operation of ``graph``."""

    name = "lazy"

    def __init__(self, graph) -> None:
        self.graph = graph

    def apply(self, op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        graph = self.graph
        if (outputs is not None or (op.view is not None and inputs)) and not any(isinstance(t, GraphTensor) for t in (*(outputs or ()), *inputs)):
            # an in-place write of eager values into an eager tensor, or a view of an eager tensor
            # (a module creating and initialising its parameters inside a graph scope): nothing of
            # the graph is involved, so it runs now (a view captured later is the same constant)
            return eager_default_interpreter().apply(op, inputs, attrs, outputs)
        inputs = tuple([self.capture(t) for t in inputs])
        if outputs is not None:
            for out in outputs:
                _check_rebindable(op, out, graph)
            # the written objects will name the new values: the old values get objects of their own
            olds = {id(out): _split_binding(out) for out in outputs}
            inputs = tuple([olds.get(id(t), t) for t in inputs])
        specs = _infer(op, inputs, attrs)
        if any(_unknown_rank(t) for t in inputs):
            specs = _unknown_rank_outputs(op, inputs, specs)
        if attrs and any(_has_unknown(t) for t in inputs):
            _check_attrs(op, attrs)
        node = graph.create_op(op.name, inputs, dict(attrs), specs, op_expr=op)
        if outputs is None:
            if op.view is not None and inputs:
                _keep_view_layouts(op, inputs, attrs, node.outputs)
            return node.outputs
        # in place: the written tensors now name the new values
        for out, new in zip(outputs, node.outputs, strict=True):
            if out._dtype is not new._dtype:
                new = _cast_node(graph, new, out._dtype)
            out._bind(new._op, new._index, new._shape, new._static, new._dtype)
            new._op.outputs = tuple(out if t is new else t for t in new._op.outputs)
        return outputs

    def capture(self, t):
        """An input as a tensor of this graph: an eager tensor becomes a Const node (once)."""
        if isinstance(t, GraphTensor):
            if t._op.graph is not self.graph:
                raise ValueError(f"Tensor {t!r} must be from the same graph as the operation it feeds ({self.graph!r}); it is from another graph.")
            if type(t).reads_snapshot:  # TensorFlow 1's variables: an op reads the "read" identity made with them
                read = getattr(t, "_read", None)
                return t if read is None else read  # (the identity itself reads the variable)
            return t
        if t.is_global:
            refuse_global("a graph", t)
        graph = self.graph
        hit = graph._captured.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        with interpreter_scope(EAGER):  # a constant is the value now: later writes to t don't reach the graph
            value = t.detach().clone()
        const = const_node(graph, value, None)
        graph._captured[id(t)] = (t, const)
        return const


def const_node(graph, value: Tensor, name: str | None) -> GraphTensor:
    """A ``Const`` operation of ``graph`` holding the eager tensor ``value``; its output."""
    shape = tuple(value._shape)
    op = graph.create_op("Const", (), {"value": value, "dtype": value._dtype}, [(shape, TensorShape(shape), value._dtype)], name=name or "Const")
    return op.outputs[0]


def is_tracing() -> bool:
    """Whether ops on this thread are being recorded into a graph (directly or under autograd)."""
    interp = current_interpreter()
    while interp is not None:
        if isinstance(interp, LazyInterpreter):
            return True
        interp = getattr(interp, "inner", None)
    return False


def _infer(op: OpExpr, inputs: tuple, attrs: dict) -> list:
    """(probe shape, static shape, dtype) per output, from the op's own rule."""
    try:
        if op.infer is not None:
            pairs = op.infer(attrs, *inputs)
        else:
            pairs = tuple((t._shape, t._dtype) for t in op.view(attrs, *inputs))
    except (RuntimeError, ValueError, IndexError) as error:
        if not any(_has_unknown(t) for t in inputs):
            raise
        # An unknown size met a known one (None vs 5 where broadcasting needs them equal):
        # try the sizes as 1, which broadcasts; sizes that come out 1 stay unknown.
        pairs = _infer_with_ones(op, inputs, attrs, error)
        return [(shape, TensorShape([None if d == 1 and _came_from_unknown(inputs) else d for d in shape]), dtype) for shape, dtype in pairs]
    out = []
    for shape, dtype in pairs:
        shape = tuple(shape)
        lost = [i for i, d in enumerate(shape) if not isinstance(d, SymInt) and d and d % PROBE == 0]
        if lost:  # a size computed from an unknown one without keeping its expression: unknown now
            shape = tuple(unknown_dim() if i in lost else d for i, d in enumerate(shape))
        out.append((shape, static_of(shape), dtype))
    return out


def _infer_with_ones(op: OpExpr, inputs: tuple, attrs: dict, error: Exception) -> tuple:
    stand_ins = tuple(
        F.empty(tuple(1 if isinstance(d, SymInt) else d for d in t._shape), dtype=t._dtype, device="meta") if _has_unknown(t) else t for t in inputs
    )
    try:
        if op.infer is not None:
            return op.infer(attrs, *stand_ins)
        return tuple((t._shape, t._dtype) for t in op.view(attrs, *stand_ins))
    except Exception:
        raise error from None


def _came_from_unknown(inputs: tuple) -> bool:
    return any(_has_unknown(t) for t in inputs)


def _has_unknown(t) -> bool:
    return isinstance(t, GraphTensor) and not t._static.is_fully_defined()


def _unknown_rank(t) -> bool:
    return isinstance(t, GraphTensor) and t._static.rank is None


def _unknown_rank_outputs(op: OpExpr, inputs: tuple, specs: list) -> list:
    """Only elementwise ops are defined on a tensor of unknown rank: their attributes cannot
    depend on a rank the functor never saw."""
    if not is_elementwise(op):
        names = ", ".join(t.name for t in inputs if _unknown_rank(t))
        raise ValueError(
            f"{op.name}: input {names} has an unknown rank; only elementwise ops accept it in graph mode "
            f"(give the placeholder a shape, or call set_shape())"
        )
    return [((), TensorShape(None), dtype) for _, _, dtype in specs]


def _check_attrs(op: OpExpr, attrs: dict) -> None:
    for key, value in attrs.items():
        if looks_derived(value):
            raise NotImplementedError(
                f"{op.name}: attribute '{key}' was computed from an unknown dimension and its formula was lost on the way; "
                f"this op cannot take partially known shapes in graph mode yet (give the placeholder a full shape)"
            )


def _keep_view_layouts(op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple) -> None:
    """A view's outputs get the strides and offset eager mode would give them (over a storage
    as large as their base's), so functors decide view-or-copy on a graph tensor exactly as they
    will at run time (``reshape`` of a transposed tensor copies)."""
    if any(_has_unknown(t) for t in inputs):
        return  # unknown sizes: layouts are only known at run time; the plan copies where a view fails
    views = op.view(attrs, *inputs)
    base = inputs[0]._storage
    for out, v in zip(outputs, views, strict=True):
        out._stride = tuple(v._stride)
        out._offset = v._offset
        storage = symbolic_storage((base._nbytes // max(out._dtype.itemsize, 1),), out._dtype, out.name)
        out._storage = storage


def _split_binding(t: GraphTensor) -> GraphTensor:
    """A new object for the value ``t`` names now, put in ``t``'s place in the graph, so that
    ``t`` itself can be rebound to a later value."""
    op = t._op
    old = op.graph.tensor_class._make(op, t._index, t._shape, t._static, t._dtype)
    op.outputs = tuple(old if o is t else o for o in op.outputs)
    for user in op._consumers:
        if any(i is t for i in user.inputs):
            user.inputs = tuple(old if i is t else i for i in user.inputs)
    return old


def _check_rebindable(op: OpExpr, out, graph) -> None:
    if not isinstance(out, GraphTensor):
        raise RuntimeError(
            f"{op.name}: cannot write into an eager tensor from graph mode (the graph runs later, in a Session); "
            f"make it a Variable and assign to it"
        )
    if out._op.graph is not graph:
        raise ValueError(f"{op.name}: Tensor {out!r} is from another graph")
    if out._op.kind in _IMMUTABLE:
        raise RuntimeError(
            f"{op.name}: cannot modify {out.name} in place: it is the output of a {out._op.type} node; "
            f"use Variable.assign / assign_add / assign_sub to change a variable"
        )


def _cast_node(graph, t, dtype):
    cast = get_op("_to_copy")
    attrs = {"dtype": dtype}
    return graph.create_op(cast.name, (t,), attrs, _infer(cast, (t,), attrs), op_expr=cast).outputs[0]
