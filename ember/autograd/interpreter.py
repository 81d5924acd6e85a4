"""The autograd interpreter: the seed's ``AutogradInterpreter``, a wrapper around another one.

When grad mode is on and an input requires grad, the op runs on the inner interpreter with
grad mode off and a backward node is recorded for its outputs, capturing the tensors its
derivative needs. Otherwise the op passes straight through: the cost of autograd for an op
that records nothing is one flag test per input.
"""

from __future__ import annotations

import sys

from ..dispatch.interpreter import Interpreter
from ..dispatch.opexpr import OpExpr
from . import grad_mode
from .graph import WATCHED, WRITE_SITES, OpNode, SavedTensor, TensorMap, accumulate_grad_node

__all__ = ["AutogradInterpreter"]

_state = grad_mode.state

# output tensor -> its index among its node's outputs, for nodes with several outputs
OUTPUT_NR = TensorMap()


class AutogradInterpreter(Interpreter):
    """Records backward nodes around ``inner``'s ops."""

    name = "autograd"

    def __init__(self, inner: Interpreter) -> None:
        self.inner = inner

    def apply(self, op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        for t in inputs:
            if t._requires_grad and _state.enabled:
                return self._record(op, inputs, attrs, outputs)
        if outputs is not None and _state.enabled:
            _check_leaf_write(op, outputs)
            for out in outputs:
                if out.grad_fn is not None:  # fill_/zero_ on a tensor with history: its new value has none
                    return self._record(op, inputs, attrs, outputs)
        return self.inner.apply(op, inputs, attrs, outputs)

    def _record(self, op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple | None) -> tuple:
        if not op.differentiable:  # comparisons, argmax, detach...: results need no gradient
            if outputs is not None:
                _check_leaf_write(op, outputs)
            results = self.inner.apply(op, inputs, attrs, outputs)
            if outputs is not None:
                for out in outputs:  # overwritten by something without a derivative: no history left
                    out.grad_fn = None
                    out._requires_grad = False
            return results
        derivative = op.derivative
        if derivative is None:
            raise NotImplementedError(f"the derivative for '{op.name}' is not implemented (it is not registered beside the op)")
        if outputs is not None:
            _check_leaf_write(op, outputs)
        saves = getattr(derivative, "saves", "inputs")
        saved_inputs = None
        if saves in ("inputs", "both"):
            # an in-place op overwrites its input: save the old value, not the new
            saved_inputs = tuple(
                SavedTensor(t.clone() if outputs is not None and any(t is o or t._storage is o._storage for o in outputs) else t)
                for t in inputs
            )
        next_functions = tuple(_edge(t) for t in inputs)
        input_meta = tuple((t._shape, t._dtype) for t in inputs)
        previous = _state.enabled
        _state.enabled = False
        try:
            results = self.inner.apply(op, inputs, attrs, outputs)
        finally:
            _state.enabled = previous
        saved_outputs = tuple(SavedTensor(t) for t in results) if saves in ("outputs", "both") else None
        node = OpNode(op, attrs, next_functions, saved_inputs, saved_outputs, input_meta, tuple((t._shape, t._dtype) for t in results))
        for saved in (saved_inputs or ()) + (saved_outputs or ()):
            WATCHED.add(saved.tensor._storage)
        multi = len(results) > 1
        for i, t in enumerate(results):
            if t._dtype.is_floating_point or t._dtype.is_complex:
                t.grad_fn = node
                t._requires_grad = True
                if multi:
                    OUTPUT_NR[t] = i
        return results


def _edge(t) -> tuple:
    if not t._requires_grad:
        return (None, 0)
    if t.grad_fn is None:
        return (accumulate_grad_node(t), 0)
    return (t.grad_fn, OUTPUT_NR.get(t, 0) if t.grad_fn is not None else 0)


def _check_leaf_write(op: OpExpr, outputs: tuple) -> None:
    for out in outputs:
        if out.grad_fn is None and out._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        base = out._base
        if base is not None and (base._requires_grad or out._requires_grad):
            raise NotImplementedError(
                f"{op.name}: an in-place write into a view of a tensor that requires grad is not differentiated yet "
                "(PyTorch's CopySlices); write into a clone instead"
            )


def note_write_site(storage) -> None:
    """Remember where a storage that autograd saved tensors of was last written in place."""
    if storage in WATCHED:
        WRITE_SITES[storage] = _user_site()


def _user_site() -> str:
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not name.startswith("ember.") and not frame.f_code.co_filename.startswith("<ember"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"
