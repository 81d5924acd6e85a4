"""The autograd interpreter: the seed's ``AutogradInterpreter``, a wrapper around another one.

When grad mode is on and an input requires grad, the op runs on the inner interpreter with
grad mode off and a backward node is recorded for its outputs, capturing the tensors its
derivative needs. Otherwise the op passes straight through: the cost of autograd for an op
that records nothing is one flag test per input.
"""

from __future__ import annotations

import sys

from ..dispatch import grad_mode
from ..dispatch.interpreter import Interpreter
from ..dispatch.opexpr import OpExpr
from . import inplace_views as _views
from .anomaly_mode import STATE as _ANOMALY, record_forward_stack
from .nodes import _ACCUMULATORS, _SEQUENCE, WRITE_SITES, OpNode, TensorMap, accumulate_grad_node, save_tensor

__all__ = ["AutogradInterpreter"]

_state = grad_mode.state

# output tensor -> its index among its node's outputs, for nodes with several outputs
OUTPUT_NR = TensorMap()
# views taken by detach() of tensors that require grad: writes into them are not differentiated
DETACHED_VIEWS = TensorMap()

NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case "
    "is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace "
    "either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want "
    "the inplace to be tracked)."
)


class AutogradInterpreter(Interpreter):
    """Records backward nodes around ``inner``'s ops."""

    name = "autograd"

    def __init__(self, inner: Interpreter) -> None:
        self.inner = inner

    @property
    def inner(self) -> Interpreter:
        """The interpreter that runs the ops (eager, or a distributed one around it)."""
        return self._inner

    @inner.setter
    def inner(self, interpreter: Interpreter) -> None:
        self._inner = interpreter
        self._inner_apply = interpreter.apply  # bound once: every op that records nothing goes through it

    def apply(self, op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        for t in inputs:
            if t._requires_grad and _state.enabled:
                return self._record(op, inputs, attrs, outputs)
        if outputs is not None and _state.enabled:
            _check_leaf_write(op, outputs)
            for out in outputs:
                if out.grad_fn is not None:  # fill_/zero_ on a tensor with history: its new value has none
                    return self._record(op, inputs, attrs, outputs)
        return self._inner_apply(op, inputs, attrs, outputs)

    def _record(self, op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple | None) -> tuple:
        # an in-place write into a differentiable view is recorded on the view's base (CopySlices)
        target = _check_leaf_write(op, outputs) if outputs is not None else None
        if not op.differentiable:  # comparisons, argmax, detach...: results need no gradient
            results = self.inner.apply(op, inputs, attrs, outputs)
            if outputs is None and op.view is not None:  # detach(): a view cut from the graph
                for t in results:
                    DETACHED_VIEWS[t] = True
            elif target is not None:
                _record_view_write(op, target, None, inputs)
            elif outputs is not None:
                for out in outputs:  # overwritten by something without a derivative: no history left
                    out.grad_fn = None
                    out._requires_grad = False
                    OUTPUT_NR.discard(out)
                    _refresh_views(out)
            return results
        derivative = op.derivative
        if derivative is None:
            raise NotImplementedError(f"the derivative for '{op.name}' is not implemented (it is not registered beside the op)")
        saves = derivative.saves
        saved_inputs = None
        keep = derivative.keep_inputs
        n = len(inputs)
        if saves == "inputs" or saves == "both":
            if keep is not None:  # only the inputs the formula reads: writes into the others stay allowed
                saved_inputs = _save_some(inputs, keep, outputs)
            elif outputs is None:  # graph.save_tensor, inlined; the common binary op without a list
                if n == 2:
                    a, b = inputs
                    saved_inputs = ((a, a._storage._version), (b, b._storage._version))
                else:
                    saved_inputs = tuple([(t, t._storage._version) for t in inputs])
            else:  # an in-place op overwrites its input: save the old value, not the new
                saved_inputs = tuple([_save_input(t, outputs) for t in inputs])
            for item in saved_inputs:
                if item is not None:
                    item[0]._storage._watched = True  # its in-place writes will note their file:line
        input_meta = None  # the node reads it off its saved inputs when asked
        if n == 2:  # the common binary op, without building lists; an input needing no gradient has no edge
            a, b = inputs
            next_functions = (_edge(a) if a._requires_grad else _NO_EDGE, _edge(b) if b._requires_grad else _NO_EDGE)
            if saved_inputs is None:
                input_meta = ((a._shape, a._dtype), (b._shape, b._dtype))
        elif n == 1:
            t = inputs[0]
            next_functions = (_edge(t),)
            if saved_inputs is None:
                input_meta = ((t._shape, t._dtype),)
        else:
            next_functions = tuple([_edge(t) for t in inputs])
            if saved_inputs is None:
                input_meta = tuple([(t._shape, t._dtype) for t in inputs])
        if input_meta is None and keep is not None:  # a partial save cannot give every input's meta later
            input_meta = tuple([(t._shape, t._dtype) for t in inputs])
        previous = _state.enabled
        _state.enabled = False
        try:
            results = self._inner_apply(op, inputs, attrs, outputs)
        finally:
            _state.enabled = previous
        saved_outputs = None
        if saves == "outputs" or saves == "both":
            keep = derivative.keep_outputs
            if keep is None:
                saved_outputs = tuple([(t, t._storage._version) for t in results])
            else:
                saved_outputs = tuple([(t, t._storage._version) if i in keep else None for i, t in enumerate(results)])
            for item in saved_outputs:
                if item is not None:
                    item[0]._storage._watched = True
        output_meta = ((results[0]._shape, results[0]._dtype),) if len(results) == 1 else tuple([(t._shape, t._dtype) for t in results])
        node = _new_node(OpNode)  # OpNode.__init__, inlined: one is made for every recorded op
        node.next_functions = next_functions
        node.sequence_nr = next(_SEQUENCE)
        node._pre_hooks = node._post_hooks = ()
        node.op = op
        node.attrs = attrs
        node.saved_inputs = saved_inputs
        node.saved_outputs = saved_outputs
        node._input_meta = input_meta
        node.output_meta = output_meta
        if _ANOMALY[0]:
            record_forward_stack(node)
        if target is not None:
            _record_view_write(op, target, node, inputs)
            return results
        if outputs is None and op.view is None and len(results) == 1:  # the common case: one fresh output
            t = results[0]
            dtype = t._dtype
            if dtype.is_floating_point or dtype.is_complex:
                t.grad_fn = node
                t._requires_grad = True
            return results
        multi = len(results) > 1
        aux = op.aux_outputs
        for i, t in enumerate(results):
            if (t._dtype.is_floating_point or t._dtype.is_complex) and i not in aux:
                t.grad_fn = node
                t._requires_grad = True
                if multi and (i or outputs is not None):  # a fresh first output needs no entry: 0 is the default
                    OUTPUT_NR[t] = i
                elif outputs is not None:
                    OUTPUT_NR.discard(t)
        if outputs is not None:  # the tensor written has a new history: so have its views
            for t in results:
                _refresh_views(t)
        elif op.view is not None:  # remember the views of a tensor with history, for writes into it later
            for t in results:
                base = t._base
                if base is not None and base.grad_fn is not None and t._requires_grad:
                    _views.register_view(base, t)
        return results


_ACCUMULATOR_ITEMS = _ACCUMULATORS._items  # id(leaf) -> (weakref to it, its AccumulateGrad)
_NO_EDGE = (None, 0)  # the edge of an input that needs no gradient
_new_node = object.__new__


def _edge(t) -> tuple:
    if not t._requires_grad:
        return (None, 0)
    fn = t.grad_fn
    if fn is None:  # a leaf: its one AccumulateGrad (nodes.accumulate_grad_node, its hit inlined)
        item = _ACCUMULATOR_ITEMS.get(id(t))
        if item is not None and item[0]() is t:
            return (item[1], 0)
        return (accumulate_grad_node(t), 0)
    meta = getattr(fn, "output_meta", None)  # a single-output node needs no output-number lookup
    return (fn, 0) if meta is not None and len(meta) == 1 else (fn, OUTPUT_NR.get(t, 0))


def _check_leaf_write(op: OpExpr, outputs: tuple):
    """Refuse in-place writes into leaves that require grad and their views; return the output that
    is a differentiable view (its base takes the write's history), or None."""
    target = None
    for out in outputs:
        if out.grad_fn is None and out._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        base = out._base
        if base is None:
            continue
        if base._requires_grad:
            if not out._requires_grad:
                if out in DETACHED_VIEWS:
                    continue  # a view taken by detach(): the write is not differentiated through it
                raise RuntimeError(NO_GRAD_VIEW)  # taken under no_grad, or without autograd (its history is unknown)
            if base.grad_fn is None:
                raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        elif not op.differentiable:
            continue  # written without a derivative into a tensor without history: nothing to record
        if target is not None:
            raise NotImplementedError(f"{op.name}: an in-place op that writes into several views is not differentiable")
        target = out
    if target is not None and len(outputs) > 1:
        raise NotImplementedError(f"{op.name}: an in-place op with several outputs, one of them a view, is not differentiable")
    return target


def _record_view_write(op: OpExpr, view, fn, inputs: tuple) -> None:
    """Record an in-place write into ``view`` (already done; ``fn`` is the op's node, or None for an
    op without a derivative) on its base: the base's ``grad_fn`` becomes CopySlices."""
    base = view._base
    if not (base._dtype.is_floating_point or base._dtype.is_complex) or (fn is None and not base._requires_grad):
        view.grad_fn = None
        view._requires_grad = False
        return
    self_index = next((i for i, t in enumerate(inputs) if t is view), None)
    base.grad_fn = _views.CopySlices(op, base, view, fn, self_index, _edge(base))
    base._requires_grad = True
    OUTPUT_NR.discard(base)
    _views.register_view(base, view)
    _refresh_views(base)


def _refresh_views(base) -> None:
    """``base``'s history changed: each of its live views reads its elements out of the new one."""
    if base._base is not None:
        return
    views = _views.live_views(base)
    if not views:
        return
    edge = (base.grad_fn, 0) if base.grad_fn is not None else None
    for v in views:
        OUTPUT_NR.discard(v)
        if edge is None:
            v.grad_fn = None
            v._requires_grad = False
        else:
            v.grad_fn = _views.AsStridedBackward0(edge, base, v)
            v._requires_grad = True


def note_write_site(outputs: tuple) -> None:
    """Remember where the storages that autograd saved tensors of were last written in place."""
    site = None
    for out in outputs:
        storage = out._storage
        if getattr(storage, "_watched", False):
            if site is None:
                site = _user_site()
            WRITE_SITES[storage] = site


# code object -> whether it is ember's own (a module of the package, or generated code): the
# walk to the user's frame runs on every in-place write to a saved storage (an optimizer step)
_INTERNAL_CODE: dict = {}


def _user_site() -> str:
    frame = sys._getframe(2)
    internal = _INTERNAL_CODE
    while frame is not None:
        code = frame.f_code
        ours = internal.get(code)
        if ours is None:
            if len(internal) > 4096:  # code made at run time (exec, lambdas of generated modules) stays bounded
                internal.clear()
            name = frame.f_globals.get("__name__", "")
            ours = internal[code] = name.startswith("ember.") or code.co_filename.startswith("<ember")
        if not ours:
            return f"{code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


def _save_input(t, outputs: tuple | None) -> tuple:
    """``t`` with its version; a copy of its old value when an in-place op is about to overwrite it."""
    if outputs is not None and any(t is o or t._storage is o._storage for o in outputs):
        t = t.clone()
    return save_tensor(t)


def _save_some(inputs: tuple, keep: tuple, outputs: tuple | None) -> tuple:
    """The inputs kept by ``keep`` = (positions, first position of a kept variadic tail); None elsewhere."""
    positions, tail = keep
    return tuple([_save_input(t, outputs) if i in positions or i >= tail else None for i, t in enumerate(inputs)])
