"""``tf.train.ExponentialMovingAverage``: a shadow variable per tracked variable (``w/ExponentialMovingAverage``),
moved toward it by ``apply``'s op: ``shadow -= (1 - decay) * (shadow - value)``, with
``decay = min(decay, (1 + num_updates) / (10 + num_updates))`` when ``num_updates`` is given."""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ...ops import functional as F
from ..graph import Operation
from ..sources import GLOBAL_VARIABLES, TRAINABLE_VARIABLES, Variable, constant, group
from ..tensor import GraphTensor

__all__ = ["ExponentialMovingAverage", "assign_moving_average"]

MOVING_AVERAGE_VARIABLES = "moving_average_variables"
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def assign_moving_average(variable, value, decay, zero_debias: bool = False, name=None):
    """``variable -= (variable - value) * (1 - decay)``; the output is the new value."""
    if zero_debias:
        raise NotImplementedError("assign_moving_average(): zero_debias=True is not supported")
    graph = variable.graph
    with graph.as_default(), graph.name_scope(name or "AssignMovingAvg"):
        if not isinstance(decay, GraphTensor):
            decay = constant(np.asarray(decay, dtype=variable.dtype.numpy_dtype), name="decay")
        elif decay.dtype is not variable.dtype:
            decay = decay.to(variable.dtype)
        return variable.assign_sub((variable - value) * (1 - decay))


class ExponentialMovingAverage:
    """Moving averages of variables (or tensors), updated by the op ``apply`` returns.

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     w = ember.Variable(1.0)
    ...     ema = ExponentialMovingAverage(0.5)
    ...     update = ema.apply([w])
    ...     move = w.assign(3.0)
    ...     init = ember.global_variables_initializer()
    >>> sess = ember.Session(graph=g)
    >>> _ = sess.run(init); _ = sess.run(move); _ = sess.run(update)
    >>> float(sess.run(ema.average(w))), ema.average_name(w)
    (2.0, 'Variable/ExponentialMovingAverage')
    """

    def __init__(self, decay, num_updates=None, zero_debias: bool = False, name: str = "ExponentialMovingAverage") -> None:
        if zero_debias:
            raise NotImplementedError("ExponentialMovingAverage(): zero_debias=True is not supported")
        self._decay = decay
        self._num_updates = num_updates
        self._name = name
        self._averages: dict = {}  # id(tracked) -> (tracked, shadow variable)

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list=None) -> Operation:
        """Make the shadow variables (once each) and return the op that moves them one step."""
        if var_list is None:
            raise ValueError(
                "ExponentialMovingAverage.apply(): pass var_list (ember has no default graph here to read trainable variables from)"
            )
        var_list = list(var_list)
        if not var_list:
            raise ValueError("ExponentialMovingAverage.apply(): var_list is empty")
        graph = var_list[0].graph
        for var in var_list:
            if var.dtype.name not in _FLOATS:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if id(var) not in self._averages:
                with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
                    if isinstance(var, Variable):
                        shadow = Variable(var.initialized_value(), trainable=False, name=self.average_name(var))
                        graph.add_to_collection(MOVING_AVERAGE_VARIABLES, var)
                    else:
                        zeros = np.zeros(var.shape.as_list(), dtype=var.dtype.numpy_dtype)
                        shadow = Variable(lambda z=zeros: constant(z, name="zeros"), trainable=False, name=self.average_name(var))
                self._averages[id(var)] = (var, shadow)
        with graph.as_default(), graph.name_scope(self._name) as scope:
            decay = (
                constant(np.float32(self._decay), name="decay")
                if not isinstance(self._decay, GraphTensor)
                else self._decay.to(_dt.float32)
            )
            if self._num_updates is not None:
                steps = self._num_updates
                steps = (
                    steps.to(_dt.float32) if isinstance(steps, GraphTensor) else constant(np.float32(steps), name="num_updates")
                )
                decay = F.minimum(decay, (1.0 + steps) / (10.0 + steps))
            updates = [assign_moving_average(self._averages[id(v)][1], v, decay) for v in var_list]
            return group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of ``var``, or None when ``apply`` never tracked it."""
        found = self._averages.get(id(var))
        return found[1] if found is not None and found[0] is var else None

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow variable: ``<var op name>/<this average's name>``."""
        return f"{var.op.name}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """Checkpoint name -> variable, reading each averaged variable from its shadow's name:
        what a ``Saver`` restoring averaged weights into the model's variables takes."""
        graph = next(iter(self._averages.values()))[0].graph if self._averages else None
        if graph is None:
            raise ValueError("ExponentialMovingAverage.variables_to_restore(): apply() was never called")
        if moving_avg_variables is None:
            moving_avg_variables = graph.get_collection(TRAINABLE_VARIABLES) + graph.get_collection(MOVING_AVERAGE_VARIABLES)
        averaged = {id(v): v for v in moving_avg_variables}
        shadows = {id(shadow) for _, shadow in self._averages.values()}
        names = {}
        for v in averaged.values():
            names[self.average_name(v)] = v
        for v in graph.get_collection(GLOBAL_VARIABLES):
            if id(v) not in averaged and id(v) not in shadows and v.op.name not in names:
                names[v.op.name] = v
        return names
