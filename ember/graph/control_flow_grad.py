"""Gradients through ``cond`` and ``while_loop``: the rules ``gradients()`` calls for ``If`` and
``While`` nodes.

A gradient function graph is a copy of the forward function (the part its differentiated outputs
need) with ``gradients()`` of that copy added: inputs are the forward inputs and the output
gradients, outputs the input gradients (zeros where an input does not matter). The copy
recomputes the forward values instead of saving them, except what a recomputation would change:
the values random ops drew in a cond branch are kept as extra outputs of the ``If`` node (as
TensorFlow 2 keeps intermediates), so dropout under ``cond`` differentiates with the mask the
forward used. It refuses ``assign_add``/``assign_sub`` on the path and random ops nested deeper;
an ``Assign`` on the path gives its value, a ``Print`` its input, without the effect.

- ``If``: the gradient is another ``If`` on the same predicate whose branches are the two
  gradient functions: the taken branch's inputs get its gradient, the others zeros.
- ``While``: once differentiated, the node gets a history output: each run records the loop
  variables every iteration started from (TensorFlow 1 pushes them on stacks). A ``WhileGrad``
  node runs the body's gradient function over the recorded iterations in reverse, summing the
  captured tensors' gradients; what the body's random ops drew is recorded too, so dropout in
  a loop differentiates with its masks. A body that assigns variables or draws random values in
  nested control flow is refused: its recomputed iterations would differ from the recorded
  ones; so is a second derivative of a loop.
"""

from __future__ import annotations

from .._core import dtype as _dt
from ..dispatch.interpreter import EAGER, interpreter_scope
from ..ops import functional as F
from ..ops.random import RANDOM_OPS
from .func_graph import FuncGraph, run_function
from .gradients import _GraphContext, gradients, register_gradient
from .graph import Graph
from .run.plan import register_executor
from .symbolic import TensorShape, probe_shape
from .tensor import GraphTensor

__all__ = ["grad_function"]

_ACCUMULATE = frozenset({"AssignAdd", "AssignSub"})
_EFFECTS = frozenset({"Assign", "AssignAdd", "AssignSub"})


def _differentiable(t) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


def _is_random(op) -> bool:
    return op.op_expr is not None and (op.kind in RANDOM_OPS or "generator" in op.attrs)


def _copy_name(op) -> str:
    """A copy's name: the original's, without the leading underscores graph names cannot start with."""
    return op.name.lstrip("_") or op.kind.lstrip("_") or "copy"


def _needed(fg: FuncGraph, outputs: list) -> list:
    """The operations of ``fg`` the ``outputs`` depend on through data edges, in creation order."""
    seen: set = set()
    stack = [t._op for t in outputs]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t._op for t in op.inputs)
    return sorted(seen, key=lambda o: o._id)


def _copy_op(gfg: FuncGraph, fg: FuncGraph, op, mapped: dict, where: str) -> None:
    ins = tuple(mapped[id(t)] for t in op.inputs)
    specs = [(t._shape, t._static, t._dtype) for t in op.outputs]
    if _is_random(op):
        raise NotImplementedError(
            f"gradients(): {where} recomputes its forward values, and {op.name} ({op.type}) draws new random values each run; "
            "gradients through a random op inside cond or while_loop are not supported (apply the random op outside)"
        )
    if op.kind in _ACCUMULATE:
        raise NotImplementedError(
            f"gradients(): {where} uses the value of {op.name} ({op.type}), which a recomputation would apply twice; not supported"
        )
    if op.kind in ("If", "While") and any(_has_random(v) for v in op.attrs.values() if isinstance(v, FuncGraph)):
        raise NotImplementedError(
            f"gradients(): {where} recomputes {op.name} ({op.type}), whose body draws random values; "
            "gradients through random ops nested in control flow inside cond are not supported"
        )
    if op.kind == "VariableV2":  # the recomputation reads the value the forward node started with
        value = fg.value_of.get(op)  # none when the branch only writes the variable (an Assign's target)
        mapped[id(op.outputs[0])] = None if value is None else mapped[id(value)]
        return
    if op.kind == "Assign":  # its value, without writing the variable again
        new = Graph.create_op(gfg, "Identity", (ins[1],), {"T": op.outputs[0]._dtype}, specs, name=_copy_name(op))
    elif op.kind == "Print":
        new = Graph.create_op(gfg, "Identity", (ins[0],), {"T": op.outputs[0]._dtype}, specs, name=_copy_name(op))
    else:
        new = Graph.create_op(gfg, op.kind, ins, op.attrs, specs, name=_copy_name(op), op_expr=op.op_expr)
        new._tf_type = op._tf_type
    for t, n in zip(op.outputs, new.outputs, strict=True):
        mapped[id(t)] = n


def grad_function(fg: FuncGraph, outer: Graph, diff_outputs: list, wrt: list, name: str, saved: list = ()) -> FuncGraph:
    """The gradient function of ``fg``: inputs ``fg.inputs``, one gradient per output in
    ``diff_outputs`` (positions), then the forward values ``saved`` (tensors of ``fg``, used instead
    of a recomputation, or of another branch: placeholders never read); outputs the gradients of
    the inputs at positions ``wrt``."""
    gfg = FuncGraph(name, outer)
    mapped = _same_inputs(fg, gfg)
    ys_fwd = [fg.outputs[k] for k in diff_outputs]
    kept: dict = {}
    grad_ys = [gfg.add_input(y._dtype, y._static, name="grad") for y in ys_fwd]
    for t in saved:
        own = t._op.graph is fg
        ph = gfg.add_input(t._dtype, t._static if own else TensorShape(None), name="saved")
        if own:
            kept[id(t)] = ph
    with gfg.as_default():
        for op in _needed(fg, ys_fwd):
            if op.outputs and id(op.outputs[0]) in mapped:  # an input
                continue
            if op.outputs and id(op.outputs[0]) in kept:
                _replay(gfg, op, mapped, kept)
                continue
            _copy_op(gfg, fg, op, mapped, f"the gradient of {fg.name!r}")
    ys = [mapped[id(y)] for y in ys_fwd]
    xs = [gfg.inputs[k] for k in wrt]
    grads = gradients(ys, xs, grad_ys=grad_ys, name="gradients") if ys and xs else [None] * len(xs)
    with gfg.as_default():
        gfg.outputs = [F.zeros_like(x) if g is None else g for g, x in zip(grads, xs, strict=True)]
    return gfg


def _same_inputs(fg: FuncGraph, new: FuncGraph) -> dict:
    """Give ``new`` placeholders like ``fg``'s inputs (the same sizes, known or not); the map."""
    mapped: dict = {}
    for t in fg.inputs:
        ph = Graph.create_op(
            new, "Placeholder", (), {"dtype": t._dtype, "shape": t._static}, [(t._shape, t._static, t._dtype)], name="input"
        )
        new.inputs.append(ph.outputs[0])
        mapped[id(t)] = ph.outputs[0]
    return mapped


def _replay(gfg: FuncGraph, op, mapped: dict, kept: dict) -> None:
    """A random op of the forward branch in its gradient function: its values are the ones the
    forward drew (``kept``); when its inputs want gradients, a ``RandomReplay`` node gives those
    values and differentiates with the op's own derivative on them."""
    saved = [kept[id(t)] for t in op.outputs]
    if not any(_differentiable(t) for t in op.inputs):
        for t, v in zip(op.outputs, saved, strict=True):
            mapped[id(t)] = v
        return
    ins = tuple(mapped[id(t)] for t in op.inputs)
    specs = [(t._shape, t._static, t._dtype) for t in op.outputs]
    attrs = {"op": op.kind, "expr": op.op_expr, "attrs": op.attrs, "n_inputs": len(ins)}
    node = Graph.create_op(gfg, "RandomReplay", (*ins, *saved), attrs, specs, name=_copy_name(op))
    for t, v in zip(op.outputs, node.outputs, strict=True):
        mapped[id(t)] = v


class _Replayed:
    """What a derivative reads of its node, for a ``RandomReplay``: the op's inputs and the values drawn."""

    def __init__(self, node) -> None:
        n = node.attrs["n_inputs"]
        self.op_expr = node.attrs["expr"]
        self.attrs = node.attrs["attrs"]
        self.inputs = node.inputs[:n]
        self.outputs = node.inputs[n:]


@register_gradient("RandomReplay")
def _random_replay_grad(op, grads, needs):
    replayed = _Replayed(op)
    n = op.attrs["n_inputs"]
    outs = [F.zeros_like(t) if g is None else g for g, t in zip(grads, replayed.outputs, strict=True)]
    result = replayed.op_expr.derivative(_GraphContext(replayed, needs[:n]), *outs)
    result = result if isinstance(result, tuple) else (result,)
    return (*result[:n], *(None,) * (len(op.inputs) - n))


def _run_random_replay(step, values: list, session) -> None:
    n = step.op.attrs["n_inputs"]
    for s, k in zip(step.outs, step.ins[n:], strict=True):
        values[s] = values[k]


def _has_random(fg: FuncGraph) -> bool:
    return any(
        _is_random(op) or any(_has_random(v) for v in op.attrs.values() if isinstance(v, FuncGraph)) for op in fg.get_operations()
    )


def _random_values(fg: FuncGraph, outputs: list) -> list:
    """The outputs of the random ops ``outputs`` depend on: a gradient uses the values drawn."""
    return [t for op in _needed(fg, outputs) if _is_random(op) for t in op.outputs]


def _expose(op, fg: FuncGraph, tensors: list) -> list:
    """Outputs of the ``If`` node ``op`` carrying the values of ``tensors`` of its branch ``fg``
    when that branch runs (added once; the executor leaves them None when the other one runs)."""
    out = []
    for t in tensors:
        position = fg.exposed_map.get(id(t))
        if position is None:
            position = len(op.outputs)
            op.outputs = (*op.outputs, GraphTensor._make(op, position, t._shape, t._static, t._dtype))
            fg.outputs.append(t)
            fg.exposed.append(position)
            fg.exposed_map[id(t)] = position
            fg._plan = None
            op.graph.version += 1
        out.append(op.outputs[position])
    return out


def _check_loop_body(fg: FuncGraph, loop: str, nested: bool = False) -> None:
    """Refuse a loop whose body's gradient the recorded iterations do not determine: one that
    assigns variables, or draws random values inside nested control flow."""
    for op in fg.get_operations():
        if op.kind in _EFFECTS or (nested and _is_random(op)):
            raise NotImplementedError(
                f"gradients(): while_loop {loop!r} runs {op.name} ({op.type}) in its body; its gradient recomputes each "
                "iteration from the recorded loop variables, which a variable's assignment or a random draw nested in "
                "control flow would change; gradients of such loops are not supported"
            )
        for value in op.attrs.values():
            if isinstance(value, FuncGraph):
                _check_loop_body(value, loop, nested=True)


def _keep_in_body(body: FuncGraph, tensors: list, n: int) -> None:
    """Make ``tensors`` (of a loop body) outputs after its ``n`` loop variables: each iteration's
    values go in the loop's history."""
    for t in tensors:
        if all(t is not o for o in body.outputs[n:]):
            body.outputs.append(t)
            body._plan = None


def _history(op) -> GraphTensor:
    """The ``While`` node's history output (added once): its value is the run's ``LoopHistory``."""
    position = op.attrs.get("history_output")
    if position is None:
        position = len(op.outputs)
        op.outputs = (*op.outputs, GraphTensor._make(op, position, (), TensorShape([]), _dt.int64))
        op.attrs["history_output"] = position
        op.graph.version += 1
    return op.outputs[position]


@register_gradient("If")
def _if_grad(op, grads, needs):
    pred, *fwd = op.inputs
    diff = [k for k, g in enumerate(grads) if g is not None and _differentiable(op.outputs[k])]
    wrt = [k for k in range(len(fwd)) if needs[k + 1]]
    if not diff or not wrt:
        return (None,) * len(op.inputs)
    base = op.name.replace("/", "_")
    keys = ("then_branch", "else_branch")
    drawn = [_random_values(op.attrs[key], [op.attrs[key].outputs[k] for k in diff]) for key in keys]
    saved = drawn[0] + drawn[1]
    kept = _expose(op, op.attrs[keys[0]], drawn[0]) + _expose(op, op.attrs[keys[1]], drawn[1])
    branches = [grad_function(op.attrs[key], op.graph, diff, wrt, f"{base}_{key}_grad", saved) for key in keys]
    attrs = {
        "then_branch": branches[0],
        "else_branch": branches[1],
        "Tcond": pred._dtype,
        "Tout": tuple(fwd[k]._dtype for k in wrt),
    }
    outs = [(probe_shape(fwd[k]._static), fwd[k]._static, fwd[k]._dtype) for k in wrt]
    grad_if = op.graph.create_op("If", (pred, *fwd, *[grads[k] for k in diff], *kept), attrs, outs, name="If")
    result: list = [None] * len(op.inputs)
    for k, g in zip(wrt, grad_if.outputs, strict=True):
        result[k + 1] = g
    return tuple(result)


@register_gradient("While")
def _while_grad(op, grads, needs):
    attrs = op.attrs
    n = attrs["n_loop_vars"]
    n_caps = len(op.inputs) - n - (1 if attrs["has_maximum_iterations"] else 0)
    if not attrs["back_prop"]:
        return (None,) * len(op.inputs)
    diff = [k for k in range(n) if _differentiable(op.outputs[k])]
    cap_diff = [j for j in range(n_caps) if needs[n + j]]
    if not diff or not (any(needs[k] for k in diff) or cap_diff) or all(grads[k] is None for k in diff):
        return (None,) * len(op.inputs)
    body = attrs["body"]
    _check_loop_body(body, op.name)
    _keep_in_body(body, _random_values(body, [body.outputs[k] for k in diff]), n)
    wrt = diff + [n + j for j in cap_diff]
    body_grad = grad_function(body, op.graph, diff, wrt, f"{op.name.replace('/', '_')}_body_grad", body.outputs[n:])
    given = [k for k in diff if grads[k] is not None]
    grad_attrs = {
        "body_grad": body_grad,
        "diff": tuple(diff),
        "cap_diff": tuple(cap_diff),
        "given": tuple(given),
        "n_captures": n_caps,
    }
    wanted = [op.inputs[k] for k in diff] + [op.inputs[n + j] for j in cap_diff]
    outs = [(probe_shape(t._static), t._static, t._dtype) for t in wanted]
    inputs = (_history(op), *op.inputs[n : n + n_caps], *[grads[k] for k in given])
    grad_op = op.graph.create_op("WhileGrad", inputs, grad_attrs, outs, name="WhileGrad")
    result: list = [None] * len(op.inputs)
    for k, g in zip(diff + [n + j for j in cap_diff], grad_op.outputs, strict=True):
        result[k] = g
    return tuple(result)


@register_gradient("WhileGrad")
def _while_grad_grad(op, grads, needs):
    raise NotImplementedError(f"gradients(): second derivatives through while_loop ({op.name}) are not supported")


def _run_while_grad(step, values: list, session) -> None:
    attrs = step.op.attrs
    diff, cap_diff, given = attrs["diff"], attrs["cap_diff"], attrs["given"]
    n_caps = attrs["n_captures"]
    history = values[step.ins[0]]
    caps = [values[s] for s in step.ins[1 : 1 + n_caps]]
    supplied = dict(zip(given, [values[s] for s in step.ins[1 + n_caps :]], strict=True))
    with interpreter_scope(EAGER):
        g = [supplied[k] if k in supplied else F.zeros_like(history.final[k]) for k in diff]
        g_caps: list = [None] * len(cap_diff)
        for loop_vars, drawn in reversed(history.iterations):
            res = run_function(attrs["body_grad"], session, loop_vars + caps + g + drawn)
            g = res[: len(diff)]
            for j, r in enumerate(res[len(diff) :]):
                g_caps[j] = r if g_caps[j] is None else g_caps[j] + r
        g_caps = [F.zeros_like(caps[j]) if c is None else c for j, c in zip(cap_diff, g_caps, strict=True)]
    for s, r in zip(step.outs, g + g_caps, strict=True):
        values[s] = r


register_executor("WhileGrad", _run_while_grad)
register_executor("RandomReplay", _run_random_replay)
