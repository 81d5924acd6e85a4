"""A Session plan specialised to its fed shapes: the static executor for graph-mode training.

A ``Plan`` is compiled once per (fetches, fed tensors); the sizes of its unknown dimensions
come from the feeds at each run. Specialised to one set of fed shapes, every size is known and
the plan runs as an ``ArrayPlan`` (kernels on preplanned arrays, one generated function),
cached per shape signature. Variables are fed in as arrays the session owns; an assignment is
its arithmetic written back into the variable (in place when nothing later in the run reads
the old value, else copied after the run): ``Assign`` a copy, ``AssignAdd``/``AssignSub`` an
add/subtract. Plans this cannot express (data-dependent sizes, graph-only ops it does not
know) keep running on the general executor.
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import get_op
from ...ops import functional as F
from ..errors import FailedPreconditionError
from .plan import Step
from .static import ArrayPlan, NotStatic, tensor_of, wrap

__all__ = ["specialize"]

_ARITHMETIC = {"Assign": "_to_copy", "AssignAdd": "add", "AssignSub": "sub"}


class _Op:
    """The few fields of an Operation a static plan reads, for an assignment turned arithmetic."""

    __slots__ = ("attrs", "inputs", "name", "op_expr", "outputs", "type")

    def __init__(self, op, expr, inputs: tuple, attrs: dict) -> None:
        self.name, self.type, self.outputs = op.name, expr.name, op.outputs
        self.op_expr, self.inputs, self.attrs = expr, inputs, attrs


class _Specialised:
    """What ``ArrayPlan`` reads of a plan, with variables as feeds and assignments as arithmetic."""

    def __init__(self, plan) -> None:
        self.template = plan.template
        self.fetch_slots = list(plan.fetch_slots)
        self.feed_slots = list(plan.feed_slots)
        self.feed_tensors = list(plan.feed_tensors)
        self.nslots = plan.nslots
        self.var_feeds: list = []  # (feed index, variable op)
        self.writes: list = []  # (index among the fetches, variable op)
        var_slot: dict = {}

        def feed_variable(slot: int, var, tensor) -> None:
            if var not in var_slot:
                var_slot[var] = slot
                self.var_feeds.append((len(self.feed_slots), var))
                self.feed_slots.append(slot)
                self.feed_tensors.append(tensor)

        self.steps = []
        for step in plan.steps:
            if step.kind == "NoOp":
                continue
            for s, var in step.reads:
                feed_variable(s, var, _variable_tensor(var))
            if step.kind in _ARITHMETIC:
                var = step.var if step.var is not None else step.op.inputs[0]._op
                feed_variable(step.ins[0], var, step.op.inputs[0])
                expr = get_op(_ARITHMETIC[step.kind])
                if step.kind == "Assign":
                    new = Step(_Op(step.op, expr, (step.op.inputs[1],), {"dtype": step.op.inputs[0]._dtype}), "primitive", (step.ins[1],), step.outs)
                else:
                    new = Step(_Op(step.op, expr, step.op.inputs, {}), "primitive", (var_slot[var], step.ins[1]), step.outs)
                self.writes.append((len(self.fetch_slots), var))
                self.fetch_slots.append(step.outs[0])
                self.steps.append(new)
                continue
            if step.reads:
                step = _copy_step(step)
            self.steps.append(step)
        for s, var in plan.fetch_reads:
            feed_variable(s, var, _variable_tensor(var))
        self.var_slot = var_slot


def _copy_step(step: Step) -> Step:
    new = Step.__new__(Step)
    for name in Step.__slots__:
        setattr(new, name, getattr(step, name))
    new.reads = ()
    return new


def _variable_tensor(var):
    return var.outputs[0]


class _Runner:
    def __init__(self, plan, spec: _Specialised, arrays: ArrayPlan, n_user: int) -> None:
        self.spec, self.arrays, self.n_user = spec, arrays, n_user
        self.fresh = plan.fetch_fresh

    def run(self, session, values: list) -> list:
        store = session._variables
        feeds = [v._host_array() for v in values]
        for _, var in self.spec.var_feeds:
            tensor = store.get(var)
            if tensor is None:
                if not any(var is w for _, w in self.spec.writes):
                    raise FailedPreconditionError(None, var, f"Attempting to use uninitialized value {var.name}\n\t [[node {var.name}]] (run its initializer first)")
                tensor = store[var] = F.empty(tuple(_variable_tensor(var)._shape), dtype=_variable_tensor(var)._dtype)
            feeds.append(tensor._host_array())
        results = self.arrays.run(feeds)
        for k, var in self.spec.writes:
            array = results[k][0]
            target = store[var]._host_array()
            if array is not target:
                np.copyto(target, array)
        # A result without an owner is shared, not fresh: the session copies it before handing it over.
        return [wrap(a, owner) if owner is not None else tensor_of(a) for a, owner in results[: self.n_user]]


def specialize(plan, feed_values: list):
    """A runner of ``plan`` for these fed shapes, or None when the plan needs the general executor."""
    cache = plan.specialised
    key = tuple(v._shape for v in feed_values)
    if key in cache:
        return cache[key]
    runner = None
    env = {}
    for v, binds in zip(feed_values, plan.feed_binds, strict=True):
        for j, var in binds:
            env[var] = v._shape[j]
    try:
        spec = _Specialised(plan)
        user = len(plan.fetch_slots)
        # a write computed straight into its variable where nothing later reads the old value
        targets = {spec.fetch_slots[k]: spec.var_slot[var] for k, var in spec.writes}
        # an inference run over fed batches may go in blocks of rows (row_split.py)
        rows = tuple(range(len(plan.feed_slots))) if not spec.writes else ()
        arrays = ArrayPlan(spec, targets, row_feeds=rows, env=env)
        runner = _Runner(plan, spec, arrays, user)
    except (NotStatic, KeyError, NotImplementedError, RuntimeError):
        # not expressible statically (a view that only a copy gives at these strides, a size only
        # the run knows...): the general executor runs it, and raises what is really an error
        runner = None
    if len(cache) >= 64:
        cache.clear()
    cache[key] = runner
    return runner
