"""Autograd through a compiled call: a compiled forward whose results require grad.

When the traced function returns tensors that require grad (a model's forward in training),
the call is recorded as one autograd node, ``CompiledCall``, whose inputs are the arguments
and the captured tensors (parameters). Its backward is a second plan built at trace time with
the graph-mode ``gradients()`` of the same graph: fed the call's inputs and the output
gradients, it recomputes the forward and returns the input gradients (recomputation instead
of saved activations: the forward plan keeps nothing alive). Captured tensors that the call
writes in place (a BatchNorm's running statistics) are snapshotted before the forward, so the
recomputation sees the values the forward saw.
"""

from __future__ import annotations

from .._core.tensor import Tensor
from ..autograd.function import Function
from .array_plan import ArrayPlan, NotStatic, wrap
from .gradients import gradients
from .ops import placeholder
from .plan import Plan

__all__ = ["CompiledCall", "backward_for"]


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
        from .. import zeros

        meta = self.out_meta
        ys = [grads[k] if grads[k] is not None else zeros(tuple(meta[k]._shape), dtype=meta[k]._dtype) for k in self.diff_outs]
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
    from .compile import _NoSession, _plan

    plan = _plan(graph, fetches, feeds + grad_ys, True)
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
