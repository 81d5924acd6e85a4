"""``ember.train``: TensorFlow 1's optimizers for graph mode.

``minimize(loss)`` is ``compute_gradients`` (symbolic ``gradients``) then ``apply_gradients``
(assignments to the variables, grouped into one train op). The update rules are TensorFlow's:
plain gradient descent, and Adam with the bias correction folded into the step size
(``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``) and ``epsilon`` added to ``sqrt(v)``.
"""

from __future__ import annotations

from ..ops import functional as F
from .gradients import gradients
from .sources import Variable, group, trainable_variables
from .tensor import GraphTensor

__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer"]


class Optimizer:
    """Computes gradients of a loss and applies them to variables."""

    def __init__(self, use_locking: bool = False, name: str = "Optimizer") -> None:
        self._name = name

    def compute_gradients(self, loss, var_list=None) -> list:
        if not isinstance(loss, GraphTensor):
            raise TypeError(f"{self._name}.compute_gradients(): loss must be a graph tensor, got {type(loss).__name__}")
        var_list = list(var_list) if var_list is not None else trainable_variables(loss.graph)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list)
        return list(zip(grads, var_list, strict=True))

    def apply_gradients(self, grads_and_vars, global_step=None, name: str | None = None):
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in grads_and_vars]}")
        graph = pairs[0][1].graph
        with graph.as_default(), graph.name_scope(name or self._name):
            self._prepare(graph, [v for _, v in pairs])
            updates = [self._apply_one(g, v) for g, v in pairs]
            updates += self._finish(graph, updates)
            if global_step is not None:
                with graph.control_dependencies(updates):
                    return global_step.assign_add(1).op
            return group(*updates, name="update")

    def minimize(self, loss, global_step=None, var_list=None, name: str | None = None):
        """One train op: running it takes one step down the gradient of ``loss``."""
        return self.apply_gradients(self.compute_gradients(loss, var_list), global_step=global_step, name=name)

    def _prepare(self, graph, variables: list) -> None:
        pass

    def _apply_one(self, grad, var):
        raise NotImplementedError

    def _finish(self, graph, updates: list) -> list:
        return []


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``."""

    def __init__(self, learning_rate: float, use_locking: bool = False, name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _apply_one(self, grad, var):
        return var.assign_sub(grad * self._lr)


class MomentumOptimizer(Optimizer):
    """``accum = momentum * accum + grad; var -= lr * accum`` (Nesterov: ``var -= lr * (grad + momentum * accum)``)."""

    def __init__(self, learning_rate: float, momentum: float, use_locking: bool = False, name: str = "Momentum", use_nesterov: bool = False) -> None:
        super().__init__(use_locking, name)
        self._lr, self._momentum, self._nesterov = learning_rate, momentum, use_nesterov
        self._slots: dict = {}

    def _prepare(self, graph, variables: list) -> None:
        for v in variables:
            if v not in self._slots:
                self._slots[v] = Variable(F.zeros(v._shape, dtype=v._dtype), trainable=False, name=f"{v.op.name}/Momentum")

    def _apply_one(self, grad, var):
        accum = self._slots[var].assign(self._slots[var] * self._momentum + grad)
        step = grad + accum * self._momentum if self._nesterov else accum
        return var.assign_sub(step * self._lr)


class AdamOptimizer(Optimizer):
    """Adam, as TensorFlow 1 computes it."""

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-08,
                 use_locking: bool = False, name: str = "Adam") -> None:  # fmt: skip
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon
        self._slots: dict = {}
        self._powers = None

    def _prepare(self, graph, variables: list) -> None:
        dtype = variables[0]._dtype
        if self._powers is None:
            with graph.name_scope(None):
                self._powers = (
                    Variable(self._beta1, trainable=False, name="beta1_power", dtype=dtype),
                    Variable(self._beta2, trainable=False, name="beta2_power", dtype=dtype),
                )
        for v in variables:
            if v not in self._slots:
                with graph.name_scope(None):
                    self._slots[v] = (
                        Variable(F.zeros(v._shape, dtype=v._dtype), trainable=False, name=f"{v.op.name}/Adam"),
                        Variable(F.zeros(v._shape, dtype=v._dtype), trainable=False, name=f"{v.op.name}/Adam_1"),
                    )
        b1p, b2p = self._powers
        self._lr_t = self._lr * (1 - b2p).sqrt() / (1 - b1p)

    def _apply_one(self, grad, var):
        m, v = self._slots[var]
        m_t = m.assign(m * self._beta1 + grad * (1 - self._beta1))
        v_t = v.assign(v * self._beta2 + (grad * grad) * (1 - self._beta2))
        return var.assign_sub(self._lr_t * m_t / (v_t.sqrt() + self._epsilon))

    def _finish(self, graph, updates: list) -> list:
        b1p, b2p = self._powers
        with graph.control_dependencies(updates):
            return [b1p.assign(b1p * self._beta1).op, b2p.assign(b2p * self._beta2).op]
