"""Activation checkpointing: trade compute for memory by recomputing a block in backward.

``checkpoint(fn, *args)`` runs ``fn`` under ``no_grad`` (no intermediate is kept), saves only
its inputs and the state of ``ember.default_generator``, and records one node; in backward
that node re-runs ``fn`` with grad enabled (and the same random numbers, so dropout draws the
same mask) and backpropagates through the recomputed graph. Gradients equal the plain ones.

Tensors ``fn`` reads that are not arguments (a module's parameters, a closure's tensors) are
found while the forward runs, so their gradients flow too, with ``backward`` and with
``ember.autograd.grad`` alike, whether or not an argument requires grad.

>>> import ember, ember.nn as nn
>>> lin = nn.Linear(3, 3)
>>> x = ember.randn(2, 3, requires_grad=True)
>>> y = checkpoint(lambda t: lin(t).relu(), x)
>>> y.grad_fn
<CheckpointFunctionBackward>
>>> y.sum().backward()
>>> x.grad.shape, lin.weight.grad.shape
(ember.Size([2, 3]), ember.Size([3, 3]))
"""

from __future__ import annotations

from .._core.tensor import Tensor
from ..autograd.engine import grad as _grad
from ..autograd.function import Function
from ..dispatch import grad_mode
from ..dispatch.interpreter import Interpreter, current_interpreter, interpreter_scope

__all__ = ["checkpoint", "checkpoint_sequential"]


class _CaptureInterpreter(Interpreter):
    """Passes ops on to ``inner``, noting each input that requires grad (under ``no_grad`` only
    tensors from outside the block can: parameters, closures)."""

    name = "checkpoint-capture"

    def __init__(self, inner: Interpreter, exclude: set) -> None:
        self.inner = inner
        self.exclude = exclude
        self.seen: set = set()
        self.captured: list = []

    def apply(self, op, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        for t in inputs:
            if t._requires_grad and id(t) not in self.seen and id(t) not in self.exclude:
                self.seen.add(id(t))
                self.captured.append(t)
        return self.inner.apply(op, inputs, attrs, outputs)


def _generator():
    from .._core.generator import default_generator

    return default_generator


class CheckpointFunction(Function):
    """The node of one checkpointed call: inputs ``(state, n_args, *args, *captured)``."""

    @staticmethod
    def forward(ctx, state: _Recorded, n_args: int, *args):
        explicit, captured = args[:n_args], args[n_args:]
        ctx.run = state.run
        ctx.rng_state = state.rng_state
        ctx.set_materialize_grads(False)
        positions = [i for i, a in enumerate(explicit) if isinstance(a, Tensor)]
        ctx.tensor_positions = positions
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in explicit]
        ctx.save_for_backward(*[explicit[i] for i in positions], *captured)
        outputs, state.outputs = state.outputs, None  # computed by checkpoint() while it looked for captured tensors
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        saved = ctx.saved_tensors
        n_explicit = len(ctx.tensor_positions)
        explicit_saved, captured = saved[:n_explicit], saved[n_explicit:]
        args = list(ctx.inputs)
        detached = []
        for pos, t in zip(ctx.tensor_positions, explicit_saved, strict=True):
            d = t.detach().requires_grad_(t._requires_grad)
            args[pos] = d
            detached.append(d)
        gen = _generator()
        current = gen.get_state() if ctx.rng_state is not None else None
        if current is not None:
            gen.set_state(ctx.rng_state)
        try:
            with grad_mode.enable_grad():
                outputs = ctx.run(*args)
        finally:
            if current is not None:
                gen.set_state(current)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        roots, root_grads = [], []
        for out, g in zip(outputs, grad_outputs, strict=False):
            if isinstance(out, Tensor) and out._requires_grad and g is not None:
                roots.append(out)
                root_grads.append(g)
        wanted = [t for t in (*detached, *captured) if t._requires_grad]
        results = {}
        if roots and wanted:
            # a captured non-leaf's own history lies beyond this block: keep it for the outer backward
            retain = grad_mode.is_grad_enabled() or any(t.grad_fn is not None for t in captured)
            grads = _grad(
                roots, wanted, root_grads, retain_graph=retain, create_graph=grad_mode.is_grad_enabled(), allow_unused=True
            )
            results = {id(t): g for t, g in zip(wanted, grads, strict=True)}
        explicit_grads = [None] * len(ctx.inputs)
        for pos, d in zip(ctx.tensor_positions, detached, strict=True):
            explicit_grads[pos] = results.get(id(d))
        return (None, None, *explicit_grads, *(results.get(id(t)) for t in captured))


class _Recorded:
    """What ``checkpoint`` hands ``CheckpointFunction.forward``: the function, its outputs, the RNG state."""

    __slots__ = ("outputs", "rng_state", "run")

    def __init__(self, run, outputs, rng_state) -> None:
        self.run, self.outputs, self.rng_state = run, outputs, rng_state


def checkpoint(function, *args, use_reentrant: bool | None = None, preserve_rng_state: bool = True, **kwargs):
    """``function(*args, **kwargs)`` without keeping its intermediates; they are recomputed in backward.

    ``use_reentrant`` is accepted for PyTorch compatibility; both settings behave as described in
    the module docstring (gradients also reach tensors ``function`` reads but was not passed).
    ``kwargs`` (besides PyTorch's ``context_fn``, ``determinism_check`` and ``debug``, which are
    ignored) go to ``function``.
    """
    for name in ("context_fn", "determinism_check", "debug"):
        kwargs.pop(name, None)
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    run = (lambda *a: function(*a, **kwargs)) if kwargs else function
    if not grad_mode.is_grad_enabled():
        return run(*args)
    # run once under no_grad, noting which outside tensors that need grad the function reads
    rng_state = _generator().get_state() if preserve_rng_state else None
    capture = _CaptureInterpreter(current_interpreter(), {id(a) for a in args if isinstance(a, Tensor)})
    with grad_mode.no_grad(), interpreter_scope(capture):
        outputs = run(*args)
    return CheckpointFunction.apply(_Recorded(run, outputs, rng_state), len(args), *args, *capture.captured)


def checkpoint_sequential(
    functions,
    segments: int,
    input,  # noqa: A002 - PyTorch's parameter name
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    **kwargs,
):
    """Run ``functions`` (a list or ``nn.Sequential``) in ``segments`` chunks, checkpointing all but the last.

    >>> import ember, ember.nn as nn
    >>> net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU())
    >>> x = ember.randn(2, 4, requires_grad=True)
    >>> checkpoint_sequential(net, 2, x).grad_fn  # the last segment runs normally
    <ReluBackward0>
    """
    for name in ("context_fn", "determinism_check", "debug"):
        kwargs.pop(name, None)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start: int, end: int, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    if segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be at least 1, got {segments}")
    segment_size = len(functions) // segments
    end = -1
    x = input
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        x = checkpoint(run_function(start, end, functions), x, use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state)
    return run_function(end + 1, len(functions) - 1, functions)(x)
