"""The global step: an int64 scalar variable named ``global_step`` in the graph's ``global_step``
collection, which ``Optimizer.minimize(global_step=...)`` increments once per train op run."""

from __future__ import annotations

import numpy as np

from .. import sources
from ..graph import Graph, get_default_graph

__all__ = ["create_global_step", "get_global_step", "get_or_create_global_step", "global_step"]

GLOBAL_STEP = "global_step"


def get_global_step(graph: Graph | None = None):
    """The graph's global step variable (the ``global_step`` collection's one, or the tensor named
    ``global_step:0``), or None."""
    graph = graph or get_default_graph()
    found = graph.get_collection(GLOBAL_STEP)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise TypeError("Multiple tensors in global_step collection.")
    try:
        step = graph.get_tensor_by_name("global_step:0")
    except KeyError:
        return None
    _check_integer(step)
    return step


def _check_integer(step) -> None:
    if step.dtype.is_floating_point or step.dtype.is_complex or not step.dtype.name.startswith(("int", "uint")):
        raise TypeError(f'Existing "global_step" does not have integer type: {step.dtype.name}')
    if step.shape.rank not in (0, None):
        raise TypeError(f'Existing "global_step" is not a scalar: {step.shape}')


def create_global_step(graph: Graph | None = None):
    """Make the graph's global step: int64 zero, not trainable, in the global variables and
    the ``global_step`` collection (an error if it exists)."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None), graph.control_dependencies(None):
        return sources.Variable(lambda: sources.constant(np.int64(0), name="zeros"), trainable=False, name=GLOBAL_STEP,
                                collections=[sources.GLOBAL_VARIABLES, GLOBAL_STEP])  # fmt: skip


def get_or_create_global_step(graph: Graph | None = None):
    """The graph's global step, made if it does not exist.

    >>> import ember
    >>> with ember.Graph().as_default():
    ...     step = get_or_create_global_step()
    ...     same = get_or_create_global_step()
    >>> step is same, step.name, step.dtype
    (True, 'global_step:0', ember.int64)
    """
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    return create_global_step(graph) if step is None else step


def global_step(sess, global_step_tensor) -> int:
    """The global step's value in ``sess``, as a Python int."""
    return int(sess.run(global_step_tensor))
