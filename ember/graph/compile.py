"""``ember.compile``: trace an eager function or ``nn.Module`` into a graph and run its plan.

OneFlow's ``nn.Graph`` idea on ember's one op system. A call with a new signature (tensor
shapes, dtypes and requires_grad, the other arguments' values) first runs eagerly, which also
creates state that is made on first use (an optimizer's moments); the next call with that
signature traces the function: arguments become placeholders, the autograd interpreter wraps
the lazy one so ``loss.backward()`` records backward nodes into the same graph, and every eager
tensor the function touches (parameters, buffers, optimizer state, ``.grad``) becomes an input
fed with the live tensor at each call. In-place writes to those tensors are recorded as new
values and written back after each run, and ``.grad`` fields the trace set are set from the
results. The graph goes through the passes and runs as one cached plan per signature.

When the traced function returns tensors that require grad (a model's forward in training),
the call is recorded as one autograd node, ``CompiledCall``, whose inputs are the arguments
and the captured tensors (parameters). Its backward is a second plan built at trace time with
the graph-mode ``gradients()`` of the same graph: fed the call's inputs and the output
gradients, it recomputes the forward and returns the input gradients (recomputation instead
of saved activations: the forward plan keeps nothing alive). Captured tensors that the call
writes in place (a BatchNorm's running statistics) are snapshotted before the forward, so the
recomputation sees the values the forward saw.

What a trace cannot see runs wrongly, as in every tracer: Python control flow on tensor values
(refused: a graph tensor has no value), and Python state changed by the function.
"""

from __future__ import annotations

import threading

import numpy as np

from .._core.tensor import HOST_READ_GUARD, Tensor
from ..autograd.function import Function
from ..autograd.interpreter import AutogradInterpreter
from ..dispatch import grad_mode
from ..dispatch.interpreter import interpreter_scope
from ..ops import functional as F
from .gradients import gradients
from .graph import Graph, _stack
from .lazy import LazyInterpreter, refuse_global
from .run.plan import Plan
from .run.static import ArrayPlan, NotStatic, wrap
from .session import compile_plan
from .sources import placeholder
from .symbolic import TensorShape
from .tensor import GraphTensor

__all__ = ["CompiledFunction", "compile"]


class _Tracer(LazyInterpreter):
    """The lazy interpreter for tracing: eager tensors become fed inputs, not constants, and
    in-place writes to them are remembered for write-back."""

    name = "lazy-trace"

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph)
        self.captures: list = []  # (eager tensor, its input node's tensor)
        self.current: dict = {}  # id(eager) -> (eager, the graph tensor holding its latest value)

    def capture(self, t):
        if isinstance(t, GraphTensor):
            return super().capture(t)
        if t.is_global:  # a global parameter or state the function uses
            refuse_global("ember.compile", t)
        hit = self.current.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        shape = tuple(t._shape)
        op = self.graph.create_op("Placeholder", (), {"dtype": t._dtype, "shape": TensorShape(shape)}, [(shape, TensorShape(shape), t._dtype)], name="capture")
        sym = op.outputs[0]
        self.captures.append((t, sym))
        self.current[id(t)] = (t, sym)
        return sym

    def guard_read(self, t) -> None:
        """Host code reading a tensor the function writes would bake one call's value into
        the graph: refuse it."""
        hit = self.current.get(id(t))
        if hit is not None and hit[0] is t and hit[1]._op.kind != "Placeholder":
            raise RuntimeError(
                f"ember.compile: the function reads the value of a tensor it also modifies (e.g. with .item() or .tolist()); "
                f"a trace would keep the value of one call. Keep the computation in tensor ops (shape {tuple(t._shape)}, dtype {t._dtype.name})"
            )

    def apply(self, op, inputs, attrs, outputs=None):
        if outputs is None or all(isinstance(o, GraphTensor) for o in outputs):
            return super().apply(op, inputs, attrs, outputs)
        # an in-place write into eager tensors: record the new values, remember them for write-back
        stand_ins = []
        for o in outputs:
            if isinstance(o, GraphTensor):
                stand_ins.append(o)
                continue
            if o._base is not None:
                raise NotImplementedError(
                    f"ember.compile: {op.name} writes in place into a view of a tensor from outside the function; "
                    f"write into the whole tensor instead"
                )
            stand_ins.append(self.capture(o))
        inputs = tuple(self.capture(t) if not isinstance(t, GraphTensor) else t for t in inputs)
        node = self.graph.create_op(op.name, inputs, dict(attrs), [(t._shape, t._static, t._dtype) for t in stand_ins], op_expr=op)
        for o, new in zip(outputs, node.outputs, strict=True):
            if not isinstance(o, GraphTensor):
                self.current[id(o)] = (o, new)
        return outputs


class _Runner:
    """A traced signature: its plan and what to do with the results."""

    __slots__ = ("arrays", "backward", "build", "captures", "grads", "plan", "session", "writes")

    def run(self, tensor_args: list):
        if self.backward is not None and grad_mode.is_grad_enabled():
            outs = CompiledCall.apply(self, *tensor_args, *[t for t, _ in self.captures])
            return self.build(list(outs) if isinstance(outs, tuple) else [outs])
        return self.build(self.outputs(tensor_args))

    def outputs(self, tensor_args: list) -> list:
        """The flat results of one run, after the write-backs and ``.grad`` updates."""
        values = tensor_args + [t for t, _ in self.captures]
        if self.arrays is not None:
            return self._run_arrays(values)
        results = self.plan.run(self.session, values)
        n_out = len(results) - len(self.writes) - len(self.grads)
        outs = results[:n_out]
        with grad_mode.no_grad():
            for (target, _), value in zip(self.writes, results[n_out:n_out + len(self.writes)], strict=True):
                if value is not target:
                    target.copy_(value)
        for (target, _), value in zip(self.grads, results[n_out + len(self.writes):], strict=True):
            target.grad = value
        return outs

    def _run_arrays(self, values: list):
        feeds = []
        for t in values:
            a = t._host_array()
            feeds.append(a if a.flags.c_contiguous else np.ascontiguousarray(a))
        results = self.arrays.run(feeds)
        n_out = len(results) - len(self.writes) - len(self.grads)
        for (target, _), (array, _) in zip(self.writes, results[n_out:n_out + len(self.writes)], strict=True):
            target_array = target._host_array()
            if array is not target_array:
                np.copyto(target_array, array)
            target._storage._version += 1
        for (target, _), (array, owner) in zip(self.grads, results[n_out + len(self.writes):], strict=True):
            target.grad = wrap(array, owner)
        return [wrap(a, owner) for a, owner in results[:n_out]]


class _NoSession:
    """What a plan asks of its session: a compiled function has no graph variables."""

    def __init__(self) -> None:
        self._variables: dict = {}


class CompiledFunction:
    """``fn`` compiled per call signature (see the module docstring)."""

    def __init__(self, fn, *, passes=True) -> None:
        self._fn = fn
        self._passes = passes
        self._runners: dict = {}
        self._seen: set = set()
        self._lock = threading.Lock()
        self.traces = 0  # how many times a signature was traced (retracing is visible here)

    def __call__(self, *args, **kwargs):
        for a in _flat(args, kwargs):
            if isinstance(a, Tensor) and a.is_global:
                refuse_global("ember.compile", a)
        key = _signature(args, kwargs, grad_mode.is_grad_enabled())
        runner = self._runners.get(key)
        if runner is None:
            if key not in self._seen:  # first call: eager (it creates state made on first use)
                self._seen.add(key)
                return self._fn(*args, **kwargs)
            with self._lock:
                runner = self._runners[key] = self._trace(args, kwargs)
        return runner.run([a if a.is_contiguous() else a.contiguous() for a in _flat(args, kwargs) if isinstance(a, Tensor)])

    def _trace(self, args, kwargs) -> _Runner:
        graph = Graph()
        tracer = _Tracer(graph)
        flat = _flat(args, kwargs)
        placeholders = []
        stack = _stack()
        stack.append(graph)
        HOST_READ_GUARD[0] = tracer.guard_read
        try:
            with interpreter_scope(AutogradInterpreter(tracer)):
                symbolic = []
                for a in flat:
                    if isinstance(a, Tensor):
                        shape = tuple(a._shape)
                        p = graph.create_op("Placeholder", (), {"dtype": a._dtype, "shape": TensorShape(shape)},
                                            [(shape, TensorShape(shape), a._dtype)], name="arg").outputs[0]  # fmt: skip
                        p._requires_grad = a._requires_grad
                        placeholders.append(p)
                        symbolic.append(p)
                    else:
                        symbolic.append(a)
                s_args, s_kwargs = _unflat(args, kwargs, symbolic)
                out = self._fn(*s_args, **s_kwargs)
        finally:
            HOST_READ_GUARD[0] = None
            stack.pop()
        self.traces += 1
        out_tensors: list = []
        build = _structure(out, out_tensors, tracer)
        writes = [(t, sym) for t, sym in tracer.current.values() if sym._op.kind != "Placeholder"]
        grads = []
        for t, _ in tracer.captures:
            if isinstance(t.grad, GraphTensor):
                grads.append((t, t.grad))
                t.grad = None
        runner = _Runner()
        runner.captures = tracer.captures
        runner.writes = writes
        runner.grads = grads
        runner.build = build
        runner.session = _NoSession()
        fetches = out_tensors + [s for _, s in writes] + [g for _, g in grads]
        feeds = placeholders + [s for _, s in tracer.captures]
        runner.plan = compile_plan(graph, fetches, [], feeds, self._passes)
        n_out = len(out_tensors)
        plan = runner.plan
        # each written-back value may be computed into its target: fetch slot -> feed slot
        targets = {plan.fetch_slots[n_out + i]: plan.feed_slots[len(placeholders) + [id(t) for t, _ in tracer.captures].index(id(w))]
                   for i, (w, _) in enumerate(writes)}  # fmt: skip
        try:
            runner.arrays = ArrayPlan(plan, targets, row_feeds=tuple(range(len(placeholders))))
        except NotStatic:
            runner.arrays = None
        # results that require grad: a backward plan, so that eager autograd flows through the call
        # (not when the function ran backward itself, a whole training step: its history is spent, as in eager)
        runner.backward = None if grads else backward_for(graph, out_tensors, feeds, [t for t, _ in tracer.captures], len(placeholders), writes)
        self.graph = graph
        return runner


def compile(fn=None, *, passes: bool = True):  # noqa: A001 - ember.compile, as torch.compile
    """Compile ``fn`` (a function or an ``nn.Module``); usable as a decorator.

    >>> import ember
    >>> @ember.compile
    ... def f(x):
    ...     return (x * 2).relu().sum()
    >>> [f(ember.tensor([-1.0, 3.0])).item() for _ in range(3)], f.traces  # eager, traced, cached plan
    ([6.0, 6.0, 6.0], 1)
    """
    if fn is None:
        return lambda f: compile(f, passes=passes)
    if not callable(fn):
        raise TypeError(f"compile(): expected a function or an nn.Module, got {type(fn).__name__}")
    return CompiledFunction(fn, passes=passes)


# -- autograd through a compiled call ------------------------------------------------------------


class _Backward:
    """The backward plan of a compiled call and how its inputs and results line up."""

    def __init__(self, plan: Plan, arrays, wrt: list, n_inputs: int, diff_outs: list, written: list, out_meta: list, session) -> None:
        self.plan = plan
        self.arrays = arrays
        self.wrt = wrt  # input positions whose gradient the plan computes, in its fetch order
        self.n_inputs = n_inputs
        self.diff_outs = diff_outs  # output positions that carry a gradient, in the plan's grad_ys order
        self.written = written  # input positions the forward writes in place (snapshotted)
        self.out_meta = out_meta  # the outputs' graph tensors: shape and dtype of a missing output gradient
        self.session = session

    def run(self, inputs: tuple, grads: tuple) -> list:
        meta = self.out_meta
        ys = [grads[k] if grads[k] is not None else F.zeros(tuple(meta[k]._shape), dtype=meta[k]._dtype) for k in self.diff_outs]
        feeds = [t if t.is_contiguous() else t.contiguous() for t in (*inputs, *ys)]
        if self.arrays is not None:
            results = [wrap(a, owner) for a, owner in self.arrays.run([t._host_array() for t in feeds])]
        else:
            results = self.plan.run(self.session, feeds)
        out: list = [None] * self.n_inputs
        for k, g in zip(self.wrt, results, strict=True):
            out[k] = g
        return out


def backward_for(graph, out_tensors: list, feeds: list, captured: list, n_args: int, writes: list):
    """A ``_Backward`` for a trace whose results require grad, else None."""
    diff = [k for k, t in enumerate(out_tensors) if t._requires_grad and (t._dtype.is_floating_point or t._dtype.is_complex)]
    if not diff:
        return None
    wants = [k for k, sym in enumerate(feeds) if (sym._requires_grad if k < n_args else captured[k - n_args]._requires_grad)]
    if not wants:
        return None
    for t in out_tensors:  # the trace's autograd records served their purpose: the graph holds the ops
        t.grad_fn, t._requires_grad = None, False
    with graph.as_default():
        grad_ys = [placeholder(out_tensors[k]._dtype, out_tensors[k]._static, name="grad_y") for k in diff]
        grads = gradients([out_tensors[k] for k in diff], [feeds[k] for k in wants], grad_ys=grad_ys, name="compiled_backward")
    wrt = [k for k, g in zip(wants, grads, strict=True) if g is not None]
    fetches = [g for g in grads if g is not None]
    if not fetches:
        return None
    plan = compile_plan(graph, fetches, [], feeds + grad_ys)
    try:
        arrays = ArrayPlan(plan)
    except NotStatic:
        arrays = None
    ids = {id(t): n_args + i for i, t in enumerate(captured)}
    written = sorted(ids[id(t)] for t, _ in writes if id(t) in ids)
    return _Backward(plan, arrays, wrt, len(feeds), diff, written, list(out_tensors), _NoSession())


class CompiledCall(Function):
    """One compiled call as one autograd node (see the module docstring)."""

    @staticmethod
    def forward(ctx, runner, *inputs):
        backward = runner.backward
        snapshots = {k: inputs[k].clone() for k in backward.written}  # before the call writes them
        outs = runner.outputs(list(inputs[: len(inputs) - len(runner.captures)]))
        ctx.runner = runner
        ctx.save_for_backward(*[snapshots.get(k, t) for k, t in enumerate(inputs)])
        for k, t in enumerate(outs):
            if k not in backward.diff_outs:
                ctx.mark_non_differentiable(t)
        return tuple(outs) if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        inputs = ctx.saved_tensors
        result = ctx.runner.backward.run(inputs, grads)
        return (None, *[g if isinstance(g, Tensor) else None for g in result])


# -- signatures and argument structures -----------------------------------------------------------


def _flat(args: tuple, kwargs: dict) -> list:
    out: list = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)) and not isinstance(a, Tensor):
            out.extend(a)
        else:
            out.append(a)
    return out


def _unflat(args: tuple, kwargs: dict, flat: list):
    it = iter(flat)

    def take(a):
        if isinstance(a, (list, tuple)) and not isinstance(a, Tensor):
            return type(a)(next(it) for _ in a)
        return next(it)

    new_args = tuple(take(a) for a in args)
    new_kwargs = {k: take(v) for k, v in kwargs.items()}
    return new_args, new_kwargs


def _signature(args: tuple, kwargs: dict, grad_enabled: bool):
    parts = [grad_enabled, tuple(kwargs)]
    for a in _flat(args, kwargs):
        if isinstance(a, Tensor):
            parts.append((tuple(a._shape), a._dtype, a._requires_grad))
        else:
            try:
                hash(a)
                parts.append((type(a), a))
            except TypeError:
                parts.append((type(a), id(a)))
    return tuple(parts)


def _structure(out, tensors: list, tracer: _Tracer):
    """How to rebuild ``out`` from the run's results; its graph tensors are appended to ``tensors``."""
    if isinstance(out, Tensor):
        if not isinstance(out, GraphTensor):
            out = tracer.capture(out)  # an eager tensor returned as is: its value at the call
        i = len(tensors)
        tensors.append(out)
        return lambda values: values[i]
    if isinstance(out, (list, tuple)):
        parts = [_structure(o, tensors, tracer) for o in out]
        if hasattr(out, "_fields"):
            return lambda values: type(out)(*[p(values) for p in parts])
        return lambda values: type(out)(p(values) for p in parts)
    if isinstance(out, dict):
        parts = {k: _structure(v, tensors, tracer) for k, v in out.items()}
        return lambda values: type(out)((k, p(values)) for k, p in parts.items())
    return lambda values: out
