"""Graph-only operations: constants, placeholders, variables, identity, groups.

These are TensorFlow 1's special tensors, the sources of a graph's values. Everything else a graph computes is an ember op
recorded by the lazy interpreter. Outside a graph scope ``constant`` and ``identity`` run
eagerly; ``placeholder`` needs a graph, as in TensorFlow.
"""

from __future__ import annotations

import numpy as np

from .._core import dtype as _dt
from .._core.shape import broadcast_shapes
from .._core.tensor import Tensor, tensor
from ..dispatch.interpreter import eager_default_interpreter, interpreter_scope
from .graph import Graph, Operation, building_graph, get_default_graph, in_graph_scope, session_for
from .lazy import const_node, refuse_global
from .symbolic import TensorShape, as_shape, probe_shape
from .tensor import GraphTensor

__all__ = [
    "Variable",
    "assign",
    "assign_add",
    "assign_sub",
    "constant",
    "global_variables",
    "global_variables_initializer",
    "group",
    "identity",
    "no_op",
    "placeholder",
    "placeholder_with_default",
    "trainable_variables",
    "variables_initializer",
]

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"


def _graph_for(op: str) -> Graph:
    if not in_graph_scope():
        raise RuntimeError(f"{op}() needs a graph: call it inside `with ember.Graph().as_default():` (eager mode has no {op})")
    return get_default_graph()


def _as_eager(value, dtype, op: str) -> Tensor:
    if isinstance(value, GraphTensor):
        raise TypeError(f"{op}(): the value must be a Python/NumPy value or an eager tensor, not the graph tensor {value.name}")
    if isinstance(value, Tensor):
        if value.is_global and in_graph_scope():
            refuse_global(f"graph mode's {op}()", value)
        return value if dtype is None or value._dtype is dtype else value.to(dtype)
    if dtype is None:
        return tensor(value)
    return tensor(np.asarray(value, dtype=dtype.numpy_dtype) if dtype is not _dt.string else value, dtype=dtype)


def constant(value, dtype=None, shape=None, name: str = "Const"):
    """A tensor with a value fixed when the graph is built (eager: the tensor itself).

    ``shape`` fills a scalar value to that shape, or reshapes a value with as many elements.

    >>> import ember
    >>> with ember.Graph().as_default():
    ...     ember.constant([1.0, 2.0]), ember.constant(0, shape=(2, 3), name="zeros")
    (Tensor("Const:0", shape=(2,), dtype=float32), Tensor("zeros:0", shape=(2, 3), dtype=int64))
    """
    dtype = None if dtype is None else _dt.as_dtype(dtype, op="constant", arg="dtype")
    value = _as_eager(value, dtype, "constant")
    with interpreter_scope(eager_default_interpreter()):  # the value is made now, in a graph scope too
        if shape is not None:
            shape = tuple(as_shape(shape).as_list())
            n = int(np.prod(shape, dtype=np.int64))
            if value.numel() == 1 and n != 1:
                value = value.reshape(()).expand(shape).contiguous()
            elif value.numel() == n:
                value = value.reshape(shape)
            else:
                raise TypeError(f"constant(): expected {n} values for shape {list(shape)}, got {value.numel()}")
        if not value.is_contiguous():
            value = value.contiguous()
    if not in_graph_scope():
        return value
    return const_node(get_default_graph(), value, name)


def placeholder(dtype, shape=None, name: str | None = None) -> GraphTensor:
    """An input of the graph, given a value by ``feed_dict`` at each ``Session.run``.

    >>> import ember
    >>> with ember.Graph().as_default():
    ...     x = ember.placeholder(ember.float32, shape=(None, 3), name="x")
    >>> x, x.shape.as_list()
    (Tensor("x:0", shape=(None, 3), dtype=float32), [None, 3])
    """
    graph = _graph_for("placeholder")
    dtype = _dt.as_dtype(dtype, op="placeholder", arg="dtype")
    static = as_shape(shape)
    op = graph.create_op("Placeholder", (), {"dtype": dtype, "shape": static}, [(probe_shape(static), static, dtype)], name=name or "Placeholder")
    return op.outputs[0]


def placeholder_with_default(input, shape, name: str | None = None) -> GraphTensor:  # noqa: A002 - TensorFlow's name
    """A placeholder that takes ``input``'s value when nothing is fed."""
    graph = _graph_for("placeholder_with_default")
    default = graph._make_interpreter().capture(input if isinstance(input, Tensor) else constant(input))
    static = as_shape(shape)
    if not static.is_compatible_with(default._static):
        raise ValueError(f"placeholder_with_default(): the default's shape {default._static} is not compatible with shape {static}")
    op = graph.create_op(
        "PlaceholderWithDefault", (default,), {"dtype": default._dtype, "shape": static},
        [(probe_shape(static), static, default._dtype)], name=name or "PlaceholderWithDefault",
    )
    return op.outputs[0]


def identity(input, name: str | None = None):  # noqa: A002 - TensorFlow's name
    """The same value, as a new node (eager: the tensor itself)."""
    if not in_graph_scope():
        return input
    x = get_default_graph()._make_interpreter().capture(input)
    op = building_graph(x.graph).create_op("Identity", (x,), {"T": x._dtype}, [(x._shape, x._static, x._dtype)], name=name or "Identity")
    return op.outputs[0]


def no_op(name: str | None = None) -> Operation:
    """An operation that does nothing (a hub for control dependencies)."""
    return _graph_for("no_op").create_op("NoOp", (), {}, [], name=name or "NoOp")


def group(*inputs, name: str | None = None) -> Operation:
    """An operation that runs after all of ``inputs`` (operations or tensors)."""
    graph = _graph_for("group")
    with graph.control_dependencies([i for i in inputs if i is not None]):
        return graph.create_op("NoOp", (), {}, [], name=name or "group_deps")


# -- variables ------------------------------------------------------------------------------


class Variable(GraphTensor):
    """A tensor whose value persists across ``Session.run`` calls and changes by assignment.

    Its nodes are TensorFlow's: ``Variable`` (VariableV2), ``Variable/initial_value``,
    ``Variable/Assign`` (the initializer) and ``Variable/read``.
    """

    __slots__ = ("_initial_value", "_initializer", "_read", "trainable")

    def __new__(cls, initial_value=None, trainable: bool = True, name: str | None = None, dtype=None, validate_shape: bool = True,
                collections=None):  # fmt: skip
        if initial_value is None:
            raise ValueError("Variable(): initial_value must be specified.")
        if collections is not None and not isinstance(collections, (list, tuple, set)):
            raise ValueError(f"collections argument to Variable constructor must be a list, tuple, or set. Got {collections} of type {type(collections)}")
        graph = _graph_for("Variable")
        dtype = None if dtype is None else _dt.as_dtype(dtype, op="Variable", arg="dtype")
        with graph.name_scope(name or "Variable") as scope:
            if callable(initial_value):  # an initializer's nodes go under <name>/Initializer, as TensorFlow's
                with graph.name_scope("Initializer"):
                    initial_value = initial_value()
            if isinstance(initial_value, GraphTensor):
                init = initial_value if dtype is None or initial_value._dtype is dtype else initial_value.to(dtype)
            else:
                init = constant(initial_value, dtype=dtype, name="initial_value")
            static = init._static if validate_shape else TensorShape(None)
            if validate_shape and not static.is_fully_defined():
                raise ValueError(f"Variable(): initial_value must have a fully defined shape when validate_shape is True, got {static}")
            op = graph.create_op("VariableV2", (), {"dtype": init._dtype, "shape": static}, [], name=scope)
            self = object.__new__(cls)
            self._bind(op, 0, init._shape, static, init._dtype)
            op.outputs = (self,)
            self.trainable = bool(trainable)
            self._initial_value = init
            self._initializer = graph.create_op("Assign", (self, init), {"T": init._dtype}, [(init._shape, static, init._dtype)], name="Assign")
            for t in (self, init):
                if self._initializer not in t.op._consumers:
                    t.op._consumers.append(self._initializer)
            self._read = identity(self, name="read")
        collections = [GLOBAL_VARIABLES] if collections is None else list(collections)
        if self.trainable and TRAINABLE_VARIABLES not in collections:
            collections.append(TRAINABLE_VARIABLES)
        graph.add_to_collections(collections, self)
        return self

    def __init__(self, *args, **kwargs) -> None:
        pass

    @property
    def initializer(self) -> Operation:
        return self._initializer

    @property
    def initial_value(self) -> GraphTensor:
        return self._initial_value

    def value(self) -> GraphTensor:
        return self._read

    def read_value(self) -> GraphTensor:
        return identity(self, name="read")

    def initialized_value(self) -> GraphTensor:
        """The variable's value where it is initialised, else its initial value: what initialising
        another variable from this one reads, whatever order the initializers run in."""
        graph = self.graph
        with graph.as_default(), graph.control_dependencies(None), graph.name_scope(self.op.name + "/"):
            init = self._initial_value
            op = graph.create_op("InitializedValue", (self, init), {"dtype": self._dtype}, [(init._shape, self._static, self._dtype)],
                                 name="initialized_value")  # fmt: skip
        return op.outputs[0]

    def assign(self, value, name: str | None = None) -> GraphTensor:
        return _assign("Assign", self, value, name)

    def assign_add(self, delta, name: str | None = None) -> GraphTensor:
        return _assign("AssignAdd", self, delta, name)

    def assign_sub(self, delta, name: str | None = None) -> GraphTensor:
        return _assign("AssignSub", self, delta, name)

    def load(self, value, session=None) -> None:
        session_for(self.graph, session, "Variable.load()")._set_variable(self, value)

    def __repr__(self) -> str:
        return f"<ember.Variable '{self.name}' shape={self._static} dtype={self._dtype.name}>"

    __str__ = __repr__


def _assign(kind: str, ref, value, name: str | None) -> GraphTensor:
    if not isinstance(ref, Variable):
        raise TypeError(f"{kind.lower()}(): 'ref' must be a Variable, got {type(ref).__name__}")
    graph = building_graph(ref.graph)  # inside a cond branch or loop body: the write is the branch's
    with graph.as_default():
        value = graph._make_interpreter().capture(value if isinstance(value, Tensor) else constant(value, dtype=ref._dtype))
    if value._dtype is not ref._dtype:
        raise TypeError(f"{kind}: the value has dtype {value._dtype.name}; the variable {ref.name} has dtype {ref._dtype.name}")
    if kind == "Assign":
        if not ref._static.is_compatible_with(value._static):
            raise ValueError(f"{kind}: the value's shape {value._static} is not compatible with the variable's shape {ref._static}")
    elif value._static.rank is not None and ref._static.rank is not None and not ref._static.is_compatible_with(value._static):
        # (a value of compatible shape, unknown sizes included, is the variable's shape at run time)
        try:
            if tuple(broadcast_shapes(ref._shape, value._shape)) != tuple(ref._shape):
                raise ValueError
        except (ValueError, RuntimeError):
            raise ValueError(f"{kind}: the value's shape {value._static} does not broadcast to the variable's shape {ref._static}") from None
    op = graph.create_op(kind, (ref, value), {"T": ref._dtype}, [(ref._shape, ref._static, ref._dtype)], name=name or kind)
    return op.outputs[0]


def assign(ref, value, name: str | None = None):
    return _assign("Assign", ref, value, name)


def assign_add(ref, value, name: str | None = None):
    return _assign("AssignAdd", ref, value, name)


def assign_sub(ref, value, name: str | None = None):
    return _assign("AssignSub", ref, value, name)


def global_variables(graph: Graph | None = None) -> list:
    return (graph or get_default_graph()).get_collection(GLOBAL_VARIABLES)


def trainable_variables(graph: Graph | None = None) -> list:
    return (graph or get_default_graph()).get_collection(TRAINABLE_VARIABLES)


def variables_initializer(var_list, name: str = "init") -> Operation:
    """One operation that runs the initializers of ``var_list``."""
    graph = _graph_for("variables_initializer")
    with graph.control_dependencies([v.initializer for v in var_list]):
        return graph.create_op("NoOp", (), {}, [], name=name)


def global_variables_initializer() -> Operation:
    return variables_initializer(global_variables(), name="init")
