"""Execution plans: the part of a graph that some fetches need, in an order that runs.

A plan is compiled once per (fetches, fed tensors) and cached by the Session. Compiling
prunes the graph to what the fetches need (stopping at fed tensors), orders it (creation
order among ready nodes, writes to variables as late as their inputs allow, so every read in
a step sees the value from before the step's assignments), gives each tensor a slot, and
notes after which step each slot is dead so its memory goes back to the allocator at once.
Running walks the steps: graph-only nodes (Const, Placeholder, variables) are handled here,
every other node is its primitive on the eager interpreter, the same kernels as eager mode.
A graph-only node type defined above this module (a summary, say) brings its own kernel
through ``register_graph_kernel``.
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from ..._core.dtype import string
from ..._core.tensor import tensor
from ...dispatch.interpreter import EAGER
from ..errors import FailedPreconditionError, OpError, from_exception
from ..symbolic import SymInt, evaluate, has_symbols

__all__ = [
    "EXECUTORS", "FailedPreconditionError", "Plan", "Step", "data_inputs", "inplace_target", "needed_ops", "register_executor",
    "register_graph_kernel", "schedule",
]

_WRITES = {"Assign", "AssignAdd", "AssignSub"}
# nodes that ask whether their input variables hold a value: they never read the values
_QUERIES = {"IsVariableInitialized", "ReportUninitializedVariables", "InitializedValue"}

# Graph-only node types defined above this floor (control flow, summaries, PyFunc, Print, Assert):
# type -> run(step, values, session) (see register_executor and register_graph_kernel)
EXECUTORS: dict = {}


def register_executor(op_type: str, run) -> None:
    """Teach plans to run graph-only nodes of ``op_type``: ``run(step, values, session)`` reads its
    inputs from ``values[step.ins[k]]`` and stores its outputs in ``values[step.outs[k]]``."""
    old = EXECUTORS.get(op_type)
    if old is not None and old is not run and (old.__module__, old.__qualname__) != (run.__module__, run.__qualname__):
        raise ValueError(f"register_executor(): {op_type!r} already has an executor")  # (a reload re-registers)
    EXECUTORS[op_type] = run



def register_graph_kernel(op_type: str, kernel) -> None:
    """Run nodes of the graph-only type ``op_type`` (no ember primitive) with ``kernel``.

    ``kernel(op, inputs)`` gets the Operation and its input values (ember tensors) and returns
    a tuple of its output values. The node must not write a variable: it computes its outputs
    from its inputs (reading ``op.attrs`` as it needs). The simple form of ``register_executor``.
    """
    if not callable(kernel):
        raise TypeError(f"register_graph_kernel(): kernel must be callable, got {type(kernel).__name__}")

    def run(step, values, session) -> None:
        results = kernel(step.op, [values[i] for i in step.ins])
        if len(results) != len(step.outs):
            raise RuntimeError(f"the kernel of {op_type} ({step.op.name}) returned {len(results)} values for {len(step.outs)} outputs")
        for s, r in zip(step.outs, results, strict=True):
            values[s] = r

    run.__module__, run.__qualname__ = kernel.__module__, kernel.__qualname__  # a reload registers the same kernel again
    register_executor(op_type, run)


def data_inputs(op) -> tuple:
    """The inputs whose values an operation reads (an assignment writes its variable, it does
    not read it through the edge)."""
    return op.inputs[1:] if op.kind in _WRITES else op.inputs


def needed_ops(targets: list, fed: set) -> set:
    """The operations the targets depend on, through data and control edges, stopping at
    tensors that are fed."""
    seen: set = set()
    stack = list(targets)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        for t in data_inputs(op):
            if id(t) not in fed:
                stack.append(t._op)
        for c in op.control_inputs:  # a fed placeholder has run, as far as what waits on it knows
            if not (c.kind in ("Placeholder", "PlaceholderWithDefault") and c.outputs and all(id(t) in fed for t in c.outputs)):
                stack.append(c)
    return seen


def schedule(ops: set, fed: set) -> list:
    """A topological order of ``ops``: creation order among ready nodes, variable writes last."""
    indegree = {}
    users: dict = {}
    for op in ops:
        deps = {t._op for t in data_inputs(op) if id(t) not in fed and t._op in ops}
        deps.update(c for c in op.control_inputs if c in ops)
        indegree[op] = len(deps)
        for d in deps:
            users.setdefault(d, []).append(op)
    ready = [(op.kind in _WRITES, op._id, op) for op, n in indegree.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, op = heapq.heappop(ready)
        order.append(op)
        for u in users.get(op, ()):
            indegree[u] -= 1
            if indegree[u] == 0:
                heapq.heappush(ready, (u.kind in _WRITES, u._id, u))
    if len(order) != len(ops):
        raise RuntimeError("the graph has a cycle among the operations these fetches need")
    return order


class Step:
    __slots__ = ("attrs", "binds", "free", "inplace", "ins", "kind", "op", "outs", "reads", "symbolic", "var", "view")

    def __init__(self, op, kind: str, ins: tuple, outs: tuple) -> None:
        self.op = op
        self.kind = kind
        self.ins = ins
        self.outs = outs
        self.attrs = op.attrs
        # the memory pass's mark: write the output into input `inplace` when the run-time shapes allow
        self.inplace = op.attrs.get("inplace") if op.op_expr is not None else None
        if self.inplace is not None:
            self.attrs = {k: v for k, v in op.attrs.items() if k != "inplace"}
        self.var = None  # an assignment's variable (the original op when the graph is an optimized copy)
        self.symbolic = op.op_expr is not None and has_symbols(op.attrs)
        # unknown sizes this step's outputs fix (data-dependent shapes), bound after it runs
        self.binds = tuple(
            (k, j, d.var) for k, t in enumerate(op.outputs) for j, d in enumerate(t._shape) if isinstance(d, SymInt) and d.var is not None
        )
        self.free: tuple = ()
        self.reads: tuple = ()  # (slot, variable op): read when this step runs, after its control inputs
        self.view = op.op_expr is not None and op.op_expr.view is not None


class Plan:
    """The compiled form of one (fetches, feeds) signature of a graph."""

    def __init__(self, graph, fetch_tensors: list, target_ops: list, feed_tensors: list) -> None:
        self.graph = graph
        fed = {id(t) for t in feed_tensors}
        ops = needed_ops([t._op for t in fetch_tensors if id(t) not in fed] + list(target_ops), fed)
        order = schedule(ops, fed)
        self.ops = tuple(order)  # every node the plan runs or reads, constants and variables included
        slots: dict = {}

        def slot(t) -> int:
            key = id(t)
            if key not in slots:
                slots[key] = len(slots)
            return slots[key]

        self.feed_slots = tuple(slot(t) for t in feed_tensors)
        self.feed_tensors = list(feed_tensors)
        self.feed_binds = tuple(
            tuple((j, d.var) for j, d in enumerate(t._shape) if isinstance(d, SymInt) and d.var is not None) for t in feed_tensors
        )
        self.steps = []
        self.template: list = []  # slot values every run starts from: the constants
        consts = {}
        variables = {}
        origin = getattr(graph, "_origin", None) or {}  # an optimized copy keeps its variables under the original ops
        for op in order:
            if op.kind == "Const":
                consts[slot(op.outputs[0])] = op.attrs["value"]
                continue
            if op.kind == "VariableV2":  # read by each consumer when it runs (TensorFlow's ref semantics)
                variables[slot(op.outputs[0])] = origin.get(op, op)
                continue
            ins = tuple(slot(t) for t in op.inputs)
            outs = tuple(slot(t) for t in op.outputs)
            kind = op.kind if op.op_expr is None else "primitive"
            step = Step(op, kind, ins, outs)
            if kind in _QUERIES:  # InitializedValue asks of its first input only, and reads the second (the initial value)
                asked = op.inputs[:1] if kind == "InitializedValue" else op.inputs
                step.var = tuple(origin.get(t._op, t._op) for t in asked)
                step.reads = tuple((s, variables[s]) for s in ins[len(asked):] if s in variables)
                self.steps.append(step)
                continue
            step.reads = tuple((s, variables[s]) for s in (ins[1:] if kind in _WRITES else ins) if s in variables)
            if kind in _WRITES:
                step.var = origin.get(op.inputs[0]._op, op.inputs[0]._op)
            self.steps.append(step)
        self.fetch_slots = tuple(slot(t) for t in fetch_tensors)
        self.fetch_reads = tuple((s, variables[s]) for s in self.fetch_slots if s in variables)
        # a fetch computed into fresh memory by a kernel is handed over; anything else is copied
        fed_ids = {id(t) for t in feed_tensors}
        self.fetch_fresh = tuple(
            id(t) not in fed_ids and (t._op.kind == "Fused" or (t._op.op_expr is not None and t._op.op_expr.view is None)) for t in fetch_tensors
        )
        self.nslots = len(slots)
        self.specialised: dict = {}  # fed shapes -> a static runner (specialize.py), or None
        self.template = [None] * self.nslots
        for s, value in consts.items():
            self.template[s] = value
        self._plan_frees(fed)

    def _plan_frees(self, fed: set) -> None:
        """After each step, drop the slots nothing later reads (fetches and feeds stay)."""
        keep = set(self.fetch_slots) | set(self.feed_slots)
        last = {}
        for i, step in enumerate(self.steps):
            for s in step.ins[1:] if step.kind in _WRITES else step.ins:
                last[s] = i
            for s in step.outs:
                last.setdefault(s, i)
        frees: dict = {}
        for s, i in last.items():
            if s not in keep:
                frees.setdefault(i, []).append(s)
        for i, step in enumerate(self.steps):
            step.free = tuple(frees.get(i, ()))

    def run(self, session, feed_values: list, monitor=None, tf_errors: bool = False) -> list:
        """The fetched values. ``monitor``, if given, hears ``after_step(op, outputs, start_ns)``
        after each node (``run_metadata.py``'s RunTracer: timings and a deadline). With
        ``tf_errors`` (a Session's run), a kernel's exception is raised as TensorFlow's OpError
        naming the node (``errors.from_exception``); else as it is (``ember.compile``)."""
        values = self.template.copy()
        env: dict = {}
        for s, v, binds in zip(self.feed_slots, feed_values, self.feed_binds, strict=True):
            values[s] = v
            for j, var in binds:
                env[var] = v._shape[j]
        apply = EAGER.apply
        variables = session._variables
        try:
            for step in self.steps:
                if monitor is not None:
                    start = time.time_ns()
                if step.reads:
                    for s, var in step.reads:
                        values[s] = _read(variables, var, step.op)
                kind = step.kind
                if kind == "primitive":
                    attrs = step.attrs
                    if step.symbolic:
                        attrs = {k: evaluate(v, env) for k, v in attrs.items()}
                    ins = tuple([values[i] for i in step.ins])
                    if step.view:
                        result = _view(step.op.op_expr, ins, attrs)
                    elif step.inplace is not None and (target := inplace_target(ins, step.inplace)) is not None:
                        result = apply(step.op.op_expr, ins, attrs, (target,))
                        target = None
                    else:
                        result = apply(step.op.op_expr, ins, attrs)
                    for s, r in zip(step.outs, result, strict=True):
                        values[s] = r
                    for k, j, var in step.binds:
                        env.setdefault(var, result[k]._shape[j])
                    ins = result = r = None  # no reference here may outlive the slot the plan frees
                else:
                    _run_graph_op(step, values, variables, session)
                if monitor is not None:
                    monitor.after_step(step.op, [values[s] for s in step.outs], start)
                for s in step.free:
                    values[s] = None
        except (RuntimeError, ValueError, IndexError) as error:
            if not tf_errors or isinstance(error, OpError):
                raise
            raise from_exception(error, step.op) from error
        for s, var in self.fetch_reads:
            values[s] = _read(variables, var, var)
        return [values[s] for s in self.fetch_slots]


def inplace_target(inputs: tuple, index: int):
    """The tensor an op marked ``inplace`` may write into (``inputs[index]``), or None when
    the run-time shapes say it cannot (the input would be broadcast, or it is a view)."""
    x = inputs[index]
    if x._base is not None or not x.is_contiguous():
        return None
    shape = x._shape
    for t in inputs:
        s = t._shape
        if s == shape:
            continue
        # t must broadcast to x's shape without growing it
        if len(s) > len(shape):
            return None
        for a, b in zip(reversed(s), reversed(shape), strict=False):
            if a != b and a != 1:
                return None
    return x


def _view(op, ins: tuple, attrs: dict) -> tuple:
    """A view op at run time. Where an unknown size hid the layout when the graph was built, the
    recorded view may not exist for the real strides: a graph has values, not aliases, so the
    view of a contiguous copy is the same value."""
    try:
        return EAGER.apply(op, ins, attrs)
    except RuntimeError:
        if all(t.is_contiguous() for t in ins):
            raise
        return EAGER.apply(op, tuple(t.contiguous() for t in ins), attrs)


def _read(variables: dict, var, reader):
    value = variables.get(var)
    if value is None:
        raise FailedPreconditionError(
            None, reader, f"Attempting to use uninitialized value {var.name}\n\t [[node {reader.name}]] (run its initializer first)"
        )
    return value


def _fresh(op) -> bool:
    """Whether ``op``'s outputs are new memory of its own (a kernel's output, not a view, a
    constant, a variable's value or a pass-through)."""
    return op.kind == "Fused" or (op.op_expr is not None and op.op_expr.view is None)


def _run_graph_op(step: Step, values: list, variables: dict, session=None) -> None:
    op = step.op
    kind = step.kind
    if kind in _WRITES:
        var = step.var
        new = values[step.ins[1]]
        if kind != "Assign":
            old = variables.get(var)
            if old is None:
                raise FailedPreconditionError(None, op, f"Attempting to use uninitialized value {var.name}\n\t [[node {op.name}]]")
            new = old + new if kind == "AssignAdd" else old - new
        else:
            if new._shape != tuple(op.inputs[0]._shape) and op.inputs[0]._static.is_fully_defined():
                raise ValueError(f"{op.name}: cannot assign a value of shape {tuple(new._shape)} to {var.name} of shape {op.inputs[0]._static}")
            if not _fresh(op.inputs[1]._op):
                # a constant's value or another variable's: the static executor later writes this
                # variable in place, which must not reach the graph's constant or the other variable
                new = new.clone()
        variables[var] = new
        values[step.outs[0]] = new
    elif kind in ("Identity", "PlaceholderWithDefault"):
        values[step.outs[0]] = values[step.ins[0]]
    elif kind == "NoOp":
        pass
    elif kind == "IsVariableInitialized":
        values[step.outs[0]] = tensor(step.var[0] in variables)
    elif kind == "InitializedValue":
        value = variables.get(step.var[0])
        values[step.outs[0]] = values[step.ins[1]] if value is None else value
    elif kind == "ReportUninitializedVariables":
        names = [var.name for var in step.var if var not in variables]
        values[step.outs[0]] = tensor(np.array(names, dtype=object).reshape(len(names)), dtype=string)
    elif kind == "Placeholder":
        raise RuntimeError(f"placeholder {op.name} reached without a feed")  # Session checks feeds first
    elif kind == "Fused":
        op.attrs["program"].run_step(step, values)
    elif kind in EXECUTORS:
        EXECUTORS[kind](step, values, session)
    else:
        raise NotImplementedError(f"graph op type {kind!r} ({op.name}) has no executor")
