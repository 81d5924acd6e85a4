"""TensorFlow 1's ``Optimizer``: ``minimize`` = ``compute_gradients`` + ``apply_gradients``.

``compute_gradients`` adds the symbolic gradients of the loss; ``apply_gradients`` creates the
optimizer's slot variables on first use (``w/Adam``, ``w/Adam_1``: named after the variable, as
TensorFlow's), adds each variable's update under ``<name>/update_<var>``, and returns one train
op: a group of the updates named ``<name>``, or, given a ``global_step``, its increment, which
runs after them. Updates chain through the assignments' outputs, so each rule reads its slots'
new values where TensorFlow's fused kernels do.
"""

from __future__ import annotations

import numpy as np

from ..gradients import gradients
from ..graph import Operation
from ..sources import Variable, constant, group, trainable_variables
from ..tensor import GraphTensor

__all__ = ["Optimizer"]

_VALID_DTYPES = ("float16", "bfloat16", "float32", "float64")
TRAIN_OP = "train_op"


class Optimizer:
    """The base of TensorFlow 1's optimizers: subclasses say which slots they need
    (``_create_slots``) and how one variable is updated (``_apply_dense``)."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool = False, name: str = "Optimizer") -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict = {}  # slot name -> {variable: slot variable}
        self._non_slots: dict = {}  # (name, graph) -> variable

    def get_name(self) -> str:
        return self._name

    # -- gradients ----------------------------------------------------------------------------

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None) -> list:  # fmt: skip
        """``[(gradient or None, variable)]`` for the variables of ``var_list`` (default: the trainable ones)."""
        if callable(loss) and not isinstance(loss, GraphTensor):
            loss = loss()
        if not isinstance(loss, GraphTensor):
            raise TypeError(f"{self._name}.compute_gradients(): loss must be a graph tensor, got {type(loss).__name__}")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(
                f"gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not {gate_gradients}"
            )
        _check_dtypes([loss])
        if grad_loss is not None:
            _check_dtypes([grad_loss])
        var_list = trainable_variables(loss.graph) if var_list is None else _flatten(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        with loss.graph.as_default():
            grads = gradients(loss, var_list, grad_ys=None if grad_loss is None else [grad_loss])
        pairs = list(zip(grads, var_list, strict=True))
        _check_dtypes([v for g, v in pairs if g is not None])
        return pairs

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):  # fmt: skip
        """One train op: running it takes one step down the gradient of ``loss``."""
        pairs = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
                                       colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)  # fmt: skip
        if not any(g is not None for g, _ in pairs):
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not support gradients, "
                f"between variables {[str(v) for _, v in pairs]} and loss {loss!s}."
            )
        return self.apply_gradients(pairs, global_step=global_step, name=name)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> Operation:
        """The train op applying ``grads_and_vars`` (pairs with a None gradient are skipped)."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        for g, v in grads_and_vars:
            if not isinstance(v, Variable):
                raise TypeError(f"{self._name}.apply_gradients(): {v!r} is not a Variable")
            if g is not None and not isinstance(g, GraphTensor):
                raise TypeError(f"Gradient must be a Tensor, IndexedSlices, or None: {g}")
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in grads_and_vars]}.")
        graph = pairs[0][1].graph
        with graph.as_default():
            with graph.control_dependencies(None):  # slots are made once, outside any control context
                self._create_slots([v for _, v in pairs])
            with graph.name_scope(name or self._name) as scope:
                self.__dict__["_hyper_cache"] = {}
                self._prepare()
                updates = []
                for grad, var in pairs:
                    with graph.name_scope("update_" + var.op.name):
                        updates.append(_as_op(self._apply_dense(grad, var)))
                if global_step is None:
                    train_op = self._finish(updates, scope)
                else:
                    with graph.control_dependencies([self._finish(updates, "update")]):
                        train_op = global_step.assign_add(constant(np.ones((), global_step.dtype.numpy_dtype)), name=scope).op
            collection = graph.get_collection_ref(TRAIN_OP)
            if not any(op is train_op for op in collection):
                collection.append(train_op)
        return train_op

    # -- what subclasses define ------------------------------------------------------------------

    def _create_slots(self, var_list: list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError

    def _finish(self, update_ops: list, name_scope: str) -> Operation:
        return group(*update_ops, name=name_scope)

    # -- slots -----------------------------------------------------------------------------------

    def get_slot_names(self) -> list:
        """The names of the slots this optimizer makes (``"m"``, ``"v"`` for Adam), sorted."""
        return sorted(self._slots)

    def get_slot(self, var, name: str):
        """The slot variable ``name`` of ``var``, or None."""
        for v, slot in self._slots.get(name, {}).items():
            if v is var:
                return slot
        return None

    def variables(self) -> list:
        """The variables this optimizer created (slots, then the others), in creation order."""
        made = [s for slots in self._slots.values() for s in slots.values()] + list(self._non_slots.values())
        return sorted(made, key=lambda v: v.op._id)

    def _slot(self, var, slot_name: str, op_name: str, fill: float = 0.0):
        """The slot ``slot_name`` of ``var``, made on first use as ``<var>/<op_name>`` filled with ``fill``."""
        slots = self._slots.setdefault(slot_name, {})
        for v, slot in slots.items():
            if v is var:
                return slot
        value = np.full(var.shape.as_list(), fill, dtype=var.dtype.numpy_dtype)
        graph = var.graph
        with graph.name_scope(None):
            slot = Variable(
                lambda: constant(value, name="zeros" if fill == 0 else "Const"), trainable=False, name=f"{var.op.name}/{op_name}"
            )
        slots[var] = slot
        return slot

    def _zeros_slot(self, var, slot_name: str, op_name: str):
        return self._slot(var, slot_name, op_name)

    def _get_non_slot_variable(self, name: str, graph=None):
        return self._non_slots.get((name, graph))

    def _non_slot(self, name: str, initial_value: float, like) -> Variable:
        """A variable of the optimizer's own (Adam's ``beta1_power``), one per graph."""
        key = (name, like.graph)
        if key not in self._non_slots:
            with like.graph.name_scope(None):
                self._non_slots[key] = Variable(constant(np.asarray(initial_value, dtype=like.dtype.numpy_dtype), name="initial_value"),
                                                trainable=False, name=name)  # fmt: skip
        return self._non_slots[key]

    def _hyper(self, name: str, dtype):
        """The hyperparameter ``self._<name>`` (a float, a tensor, or a callable giving one) as a
        tensor of ``dtype``: one node per train op and dtype, made under the train op's scope."""
        cache = self.__dict__.setdefault("_hyper_cache", {})
        key = (name, dtype)
        if key not in cache:
            value = getattr(self, "_" + name)
            value = value() if callable(value) else value
            if isinstance(value, GraphTensor):
                cache[key] = value if value.dtype is dtype else value.to(dtype)
            else:
                cache[key] = constant(np.asarray(value, dtype=dtype.numpy_dtype), name=name)
        return cache[key]


def _as_op(update) -> Operation:
    return update if isinstance(update, Operation) else update.op


def _flatten(items) -> list:
    out = []
    for item in items if isinstance(items, (list, tuple)) else [items]:
        out.extend(_flatten(item) if isinstance(item, (list, tuple)) else [item])
    return out


def _check_dtypes(tensors) -> None:
    for t in tensors:
        if t.dtype.name not in _VALID_DTYPES:
            raise ValueError(
                f"Invalid type <dtype: '{t.dtype.name}'> for {t.name}, expected: {['float16', 'bfloat16', 'float32', 'float64']}."
            )
