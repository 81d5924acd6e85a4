"""The engine: run the backward graph from some outputs, dependency-counted.

``backward`` counts, for each node reachable from the roots, how many edges lead into it;
a node runs once every gradient for it has arrived (summed per output), latest-recorded
first among the ready ones, as PyTorch's engine orders them. Leaves' ``AccumulateGrad`` add
into ``.grad``; ``grad()`` captures the gradients of chosen inputs instead. Code running inside
a backward (a hook) may ``queue_callback`` a function to run once that backward has finished.

>>> import ember
>>> x = ember.tensor([1.0, 2.0], requires_grad=True)
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4.])
"""

from __future__ import annotations

import functools
import heapq
import threading

from .._core.tensor import Tensor
from ..dispatch import grad_mode
from ..dispatch.sbp import ACTIVE as _GLOBALS_ACTIVE, AMBIENT as _AMBIENT
from .anomaly_mode import STATE as _ANOMALY, checked_apply as _checked_apply
from .interpreter import OUTPUT_NR
from .nodes import AccumulateGrad, TensorMap, accumulate_grad_node

__all__ = ["backward", "grad", "queue_callback"]

# tensors whose .grad is kept although they are not leaves (Tensor.retain_grad)
RETAINS_GRAD = TensorMap()  # tensor -> True
# tensor -> hooks on its gradient (Tensor.register_hook), and leaves' post-accumulate hooks
TENSOR_HOOKS = TensorMap()
POST_ACCUMULATE_HOOKS = TensorMap()


class _Running(threading.local):
    # per thread, the final-callback lists of the backwards running now, innermost last
    # (a hook may run a backward of its own)
    def __init__(self) -> None:
        self.callbacks: list[list] = []


_RUNNING = _Running()


def queue_callback(callback) -> None:
    """Run ``callback()`` when the backward now running on this thread has finished.

    PyTorch's ``Variable._execution_engine.queue_callback``: called from a hook during
    ``backward()`` or ``grad()``, the callback runs after the last node of that backward, before
    the call returns, in the order queued; a callback may queue more. If the backward raises,
    its callbacks do not run. DistributedDataParallel waits for its gradient reductions here.

    >>> import ember
    >>> from ember.autograd import engine
    >>> w = ember.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> _ = w.register_post_accumulate_grad_hook(lambda p: engine.queue_callback(lambda: seen.append(p.grad.tolist())))
    >>> (w * w).sum().backward()
    >>> seen
    [[2.0, 4.0]]
    """
    if not callable(callback):
        raise TypeError(f"queue_callback(): callback must be callable, not {type(callback).__name__}")
    running = _RUNNING.callbacks
    if not running:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    running[-1].append(callback)


def _run_callbacks(callbacks: list) -> None:
    i = 0
    while i < len(callbacks):  # (a callback may queue another)
        callbacks[i]()
        i += 1


def _apply_global_aware(node, grads: tuple) -> tuple:
    """A node whose gradients are global runs with their placement ambient (dispatch/sbp.py):
    what its derivative makes from shapes alone is global too."""
    for g in grads:
        if g is not None and g.is_global:
            previous = _AMBIENT.placement
            _AMBIENT.placement = g.placement
            try:
                return node.apply(grads)
            finally:
                _AMBIENT.placement = previous
    return node.apply(grads)


def _ones_like_meta(t: Tensor) -> Tensor:
    """The implicit gradient of a one-element output: ones of its shape and dtype, made by the
    fill primitive directly (8 us through ``tensor(1.0)``, 5.6 through ``ones``, 3 so). A global
    output's is made from it by an op, so it is global too."""
    if t.is_global:
        from ..ops.common import functional

        return functional().ones_like(t)
    return _filled()(t._shape, t._dtype, t._storage._device, 1, "backward")


@functools.cache
def _filled():
    from ..ops.creation import new_filled  # (ops import autograd: fetched on first use)

    return new_filled


def _roots(tensors, grad_tensors, create_graph: bool, api: str) -> list[tuple]:
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    tensors = tuple(tensors)
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,) * len(tensors) if grad_tensors is None else (grad_tensors,)
    grad_tensors = tuple(grad_tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"{api}: got {len(grad_tensors)} gradients for {len(tensors)} tensors")
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors, strict=True)):
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = _ones_like_meta(t)
        elif tuple(g.shape) != tuple(t._shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {list(g.shape)} and output[{i}] has a shape of {list(t._shape)}.")
        node = t.grad_fn if t.grad_fn is not None else accumulate_grad_node(t)
        roots.append((node, OUTPUT_NR.get(t, 0), g, t))
    return roots


def _dependencies(roots: list) -> dict:
    """How many edges lead into each node reachable from the roots."""
    deps: dict = {}
    seen = set()
    stack = [node for node, _, _, _ in roots]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                stack.append(nxt)
    return deps


def _execute(roots: list, retain_graph: bool, create_graph: bool, capture: dict | None, accumulate: bool) -> None:
    # This loop runs once per node of every backward, so it is written flat (locals, no helper
    # calls for the common single-output node).
    deps = _dependencies(roots)
    buffers: dict = {}  # node -> list of summed gradients, one per node output
    owned = {id(g) for _, _, g, _ in roots}  # gradients a leaf may not keep without a copy
    for node, nr, g, _ in roots:
        _add(buffers, node, nr, g)
    ready, queued = [], set()
    for node, _, _, _ in roots:
        if deps.get(node, 0) == 0 and id(node) not in queued:
            queued.add(id(node))
            heapq.heappush(ready, (-node.sequence_nr, id(node), node))
    push, pop = heapq.heappush, heapq.heappop
    previous = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    running = _RUNNING.callbacks
    callbacks: list = []
    running.append(callbacks)
    try:
        while ready:
            node = pop(ready)[2]
            grads = buffers.pop(node, None)
            if grads is None:  # no gradient reached this node: nothing to run, but its edges are done
                for nxt, _ in node.next_functions:
                    if nxt is not None:
                        deps[nxt] -= 1
                        if deps[nxt] == 0:
                            push(ready, (-nxt.sequence_nr, id(nxt), nxt))
                continue
            grads = tuple(grads)
            for hook in node._pre_hooks:
                changed = hook(grads)
                if changed is not None:
                    grads = tuple(changed)
            if capture is not None:
                for nr, g in enumerate(grads):
                    if (node, nr) in capture:
                        capture[(node, nr)] = g
            if type(node) is AccumulateGrad:
                if accumulate:
                    _accumulate(node.variable, grads[0], create_graph, owned)
                continue
            if TENSOR_HOOKS._items or RETAINS_GRAD._items:  # listing the maps costs ~1 us a node: only when used
                _apply_tensor_hooks(node, grads, owned)
            if _ANOMALY[0]:
                grad_inputs = _checked_apply(node, grads, _apply_global_aware if _GLOBALS_ACTIVE[0] else _plain_apply)
            elif _GLOBALS_ACTIVE[0]:
                grad_inputs = _apply_global_aware(node, grads)
            else:
                grad_inputs = node.apply(grads)
            for hook in node._post_hooks:
                changed = hook(grad_inputs, grads)
                if changed is not None:
                    grad_inputs = tuple(changed)
            if not retain_graph:
                release = getattr(node, "release", None)
                if release is not None:
                    release()
            n_grads = len(grad_inputs)
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                g = grad_inputs[i] if i < n_grads else None
                if g is not None:
                    slots = buffers.get(nxt)
                    if slots is None:
                        meta = getattr(nxt, "output_meta", None)
                        n = len(meta) if meta else 1
                        slots = buffers[nxt] = [None] * (n if n > nr else nr + 1)
                        slots[nr] = g
                    elif slots[nr] is None:
                        slots[nr] = g
                    else:
                        slots[nr] = slots[nr] + g
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    push(ready, (-nxt.sequence_nr, id(nxt), nxt))
        if callbacks:
            _run_callbacks(callbacks)
    finally:
        running.pop()
        grad_mode.state.enabled = previous


def _plain_apply(node, grads: tuple) -> tuple:
    return node.apply(grads)


def _apply_tensor_hooks(node, grads, owned: set) -> None:
    """Non-leaf tensors' register_hook / retain_grad see the gradient that reaches their node."""
    for t, hooks in list(TENSOR_HOOKS.items()):
        if t.grad_fn is node and t.grad_fn is not None:
            for hook in hooks:
                hook(grads[0])
    for t, _ in RETAINS_GRAD.items():
        if t.grad_fn is node:
            g = grads[0]
            t.grad = g if t.grad is None else t.grad + g
            owned.add(id(g))  # now held by a retained .grad: a leaf must not keep the same tensor


def _add(buffers: dict, node, nr: int, g) -> None:
    slots = buffers.get(node)
    if slots is None:
        n = max(1, len(getattr(node, "output_meta", ())) or 1)
        slots = buffers[node] = [None] * max(n, nr + 1)
    slots[nr] = g if slots[nr] is None else slots[nr] + g


def _accumulate(leaf: Tensor, g, create_graph: bool, owned: set) -> None:
    if TENSOR_HOOKS._items:  # (the common case has no hooks anywhere: no lookup)
        for hook in TENSOR_HOOKS.get(leaf, ()):
            changed = hook(g)
            if changed is not None:
                g = changed
    if g._shape != leaf._shape:
        raise RuntimeError(f"the gradient for a leaf of shape {list(leaf._shape)} has shape {list(g._shape)}")
    if leaf.grad is None:
        # the leaf must own its .grad: a derivative may hand one gradient to two inputs, and a
        # root's gradient belongs to the caller; a fresh, dense gradient nobody else got is kept
        if create_graph:
            leaf.grad = g
        elif id(g) in owned or g._base is not None or g._requires_grad or not g.is_contiguous():
            leaf.grad = g.detach().clone()
        else:
            leaf.grad = g
        owned.add(id(leaf.grad))
    elif create_graph:
        leaf.grad = leaf.grad + g
    else:
        leaf.grad.add_(g.detach())
    if POST_ACCUMULATE_HOOKS._items:
        for hook in POST_ACCUMULATE_HOOKS.get(leaf, ()):
            hook(leaf)


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False, inputs=None) -> None:
    """Compute the gradients of ``tensors`` and add them into the leaves' ``.grad``."""
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(tensors, grad_tensors, create_graph, "backward")
    if inputs is not None:
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        results = grad(tensors, inputs, grad_tensors, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
        callbacks: list = []
        _RUNNING.callbacks.append(callbacks)  # the accumulation's hooks belong to this backward too
        try:
            for t, g in zip(inputs, results, strict=True):
                if g is not None:
                    _accumulate(t, g, create_graph, {id(g) for g in results})
            _run_callbacks(callbacks)
        finally:
            _RUNNING.callbacks.pop()
        return
    _execute(roots, retain_graph, create_graph, None, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False, allow_unused: bool = False):
    """The gradients of ``outputs`` with respect to ``inputs`` (no ``.grad`` is touched).

    >>> import ember
    >>> x = ember.tensor(3.0, requires_grad=True)
    >>> grad(x * x, x)
    (tensor(6.),)
    """
    if retain_graph is None:
        retain_graph = create_graph
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    for i, t in enumerate(inputs):
        if not t._requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors does not require grad (input {i})")
    roots = _roots(outputs, grad_outputs, create_graph, "grad")
    keys = [((t.grad_fn, OUTPUT_NR.get(t, 0)) if t.grad_fn is not None else (accumulate_grad_node(t), 0)) for t in inputs]
    capture = dict.fromkeys(keys)
    _execute(roots, retain_graph, create_graph, capture, False)
    results = []
    for i, key in enumerate(keys):
        g = capture[key]
        if g is None and not allow_unused:
            raise RuntimeError(
                f"One of the differentiated Tensors (input {i}) appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."
            )
        results.append(g)
    return tuple(results)
