"""Graph and Operation: TensorFlow 1's dataflow graph, built by the op system's lazy interpreter.

A ``Graph`` holds operations in creation order. Each ``Operation`` is one node: a kind (an
ember primitive's name, or a graph-only type such as ``Const`` or ``Placeholder``), input
tensors, attributes, control inputs and output tensors. Its ``type`` is TensorFlow's op type
(``AddV2``, ``MatMul``), which the schema entry dispatching the primitive declares (its ``tf``
key); executors and passes work on the kind. Names are unique within a graph, made
TensorFlow's way: a name scope prefixes them ("layer/MatMul") and a taken name gets the next
free suffix ("Const", "Const_1"); names and scopes share one table, compared in lowercase.

``graph.as_default()`` pushes the graph on this thread's stack and installs the lazy
interpreter for the block, so every ember op called inside records a node instead of running.
``Session.as_default()`` pushes a session on this thread's default-session stack, which lives
here, below the Session, as in TensorFlow 1: ``Tensor.eval()`` and ``Operation.run()`` find
their session without importing the module that defines it.

The IR is two modules: ``tensor.py`` (the values) below the lazy interpreter, and this one
(the graph that holds them) above it. The lazy interpreter records into whatever graph it is
given through ``create_op`` and never imports this module, so ``as_default`` can install it
with a plain import.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator

from .._core.tensor import Tensor
from ..dispatch.interpreter import eager_default_interpreter, interpreter_scope, set_default_interpreter
from ..ops.schema import tf_op_table
from .export import as_graph_def, node_def
from .lazy import LazyInterpreter
from .tensor import GraphTensor

__all__ = [
    "Graph",
    "Operation",
    "building_graph",
    "control_dependencies",
    "get_default_graph",
    "get_default_session",
    "implicit_default_graph",
    "in_graph_scope",
    "name_scope",
    "pop_default_session",
    "push_default_session",
    "reset_default_graph",
    "session_for",
    "set_implicit_default_graph",
]

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class Operation:
    """A node of a graph: what it computes, from what, and the tensors it produces."""

    __slots__ = ("__weakref__", "_consumers", "_id", "_tf_type", "attrs", "control_inputs", "device", "graph", "inputs", "kind", "name", "op_expr", "outputs")

    def __init__(self, graph: Graph, name: str, kind: str, inputs: tuple, attrs: dict, op_expr, control_inputs: tuple, device: str) -> None:
        self.graph = graph
        self.name = name
        self.kind = kind  # what executes it: a primitive's name or a graph-only type
        self._tf_type = None  # set where the node's TensorFlow type depends on more than its kind
        self.inputs = inputs
        self.attrs = attrs
        self.op_expr = op_expr  # the primitive for op-system nodes; None for graph-only types
        self.control_inputs = control_inputs
        self.device = device
        self.outputs: tuple = ()
        self._consumers: list = []  # operations that read an output of this one
        self._id = len(graph._ops)

    @property
    def type(self) -> str:
        """TensorFlow's op type of this node (``MatMul``); the primitive's name where TensorFlow
        has no op of that meaning."""
        if self._tf_type is not None:
            return self._tf_type
        if self.op_expr is None:
            return self.kind
        found = _tf_table().get(self.kind)
        return found[0] if found is not None else self.kind

    @property
    def node_def(self):
        return node_def(self)

    def get_attr(self, name: str):
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None

    def values(self) -> tuple:
        return self.outputs

    def run(self, feed_dict=None, session=None) -> None:
        """Run this operation in ``session`` (default: the default session)."""
        self._evaluate(self, feed_dict, session, "Operation.run()")

    def _evaluate(self, fetch, feed_dict, session, what: str):
        """``fetch`` (this operation or one of its outputs) run in ``session`` or the default one."""
        return session_for(self.graph, session, what).run(fetch, feed_dict=feed_dict)

    def __repr__(self) -> str:
        return f'<ember.Operation "{self.name}" type={self.type}>'


class Graph:
    """A dataflow graph: operations, their unique names, scopes and control dependencies."""

    # The class of the tensors its operations output (a subclass may give them other operators,
    # as ember.compat.v1's graphs give them TensorFlow's).
    tensor_class: type = GraphTensor

    def __init__(self) -> None:
        self._ops: list[Operation] = []
        self._by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._finalized = False
        self._collections: dict[str, list] = {}
        self._captured: dict[int, tuple] = {}  # id(eager tensor) -> (tensor, its Const output)
        self._local = threading.local()  # this thread's name scope, control deps, device
        self.version = 0
        self.seed = None
        # Called when a Session starts running this graph: state TensorFlow keeps per session
        # (a seeded random op's stream, which a new session replays) starts over.
        self.session_start_hooks: list = []
        self._function_names: set = set()  # of the function graphs nested in it (cond branches, loop bodies)

    # -- per-thread building state --------------------------------------------------

    def _state(self):
        local = self._local
        if not hasattr(local, "scope"):
            local.scope = ""
            local.control = []  # a stack of lists of operations
            local.device = ""
        return local

    # -- names ----------------------------------------------------------------------

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` under the current scope, with the first free ``_N`` suffix."""
        scope = self._state().scope
        if scope:
            name = f"{scope}/{name}"
        key = name.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count > 0:
            base = key
            while True:  # "add_1" may itself have been taken by an explicit name
                candidate = f"{base}_{count}"
                if candidate not in self._names_in_use:
                    break
                count += 1
                if mark_as_used:
                    self._names_in_use[key] = count + 1
            if mark_as_used:
                self._names_in_use[candidate] = 1
            name = f"{name}_{count}"
        return name

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Prefix the names of operations made inside with ``name/`` (made unique like an op's
        name). A name ending in "/" re-enters that exact scope; None or "" resets to the top."""
        state = self._state()
        old = state.scope
        if name is None or name == "":
            new = ""
        elif name.endswith("/"):
            if not _VALID_SCOPE.match(name[:-1]):
                raise ValueError(f"'{name}' is not a valid scope name")
            new = name[:-1]
        else:
            if not _VALID_SCOPE.match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
            new = self.unique_name(name)
        state.scope = new
        try:
            yield (new + "/") if new else ""
        finally:
            state.scope = old

    def get_name_scope(self) -> str:
        return self._state().scope

    # -- control dependencies and devices --------------------------------------------

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs) -> Iterator[None]:
        """Operations made inside run only after ``control_inputs`` (operations or tensors);
        None clears the outer dependencies for the block."""
        state = self._state()
        if control_inputs is None:
            saved, state.control = state.control, []
            try:
                yield
            finally:
                state.control = saved
            return
        ops = []
        for c in control_inputs:
            op = _as_operation(c, "control_dependencies")
            if op.graph is not self:
                raise ValueError(f"Control input {op.name!r} must be from the same graph as the operations it controls")
            ops.append(op)
        state.control.append(ops)
        try:
            yield
        finally:
            state.control.pop()

    @contextlib.contextmanager
    def device(self, device_name: str) -> Iterator[None]:
        state = self._state()
        old = state.device
        state.device = "" if device_name is None else str(device_name)
        try:
            yield
        finally:
            state.device = old

    # -- building ---------------------------------------------------------------------

    def _check_not_finalized(self) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def create_op(
        self,
        kind: str,
        inputs: tuple,
        attrs: dict,
        outputs: list,
        *,
        name: str | None = None,
        op_expr=None,
    ) -> Operation:
        """Add an operation; ``outputs`` is a list of (probe shape, static TensorShape, dtype)."""
        self._check_not_finalized()
        if name is not None and not _VALID_NAME.match(name.rstrip("/")):
            raise ValueError(f"'{name}' is not a valid node name")
        if name is not None and name.endswith("/"):  # TensorFlow's convention: exactly this name
            name = name[:-1]
            self._names_in_use[name.lower()] = max(1, self._names_in_use.get(name.lower(), 0))
        else:
            name = self.unique_name(name or _default_name(kind))
        state = self._state()
        control = []
        for group in state.control:
            for c in group:
                if c not in control and not any(c is t.op for t in inputs):
                    control.append(c)
        op = Operation(self, name, kind, tuple(inputs), attrs, op_expr, tuple(control), state.device)
        make = self.tensor_class._make
        op.outputs = tuple(make(op, i, shape, static, dtype) for i, (shape, static, dtype) in enumerate(outputs))
        for t in op.inputs:
            if op not in t.op._consumers:
                t.op._consumers.append(op)
        self._ops.append(op)
        self._by_name[name] = op
        self.version += 1
        return op

    def _rename(self, op: Operation, name: str) -> None:
        """Give ``op`` the name ``name``, which must be free or already reserved by a name scope
        (TensorFlow's wrappers name a node after the scope they opened for it: "add", "add/y")."""
        if name in self._by_name:
            raise ValueError(f"Duplicate node name in graph: '{name}'")
        del self._by_name[op.name]
        op.name = name
        self._by_name[name] = op
        self._names_in_use[name.lower()] = max(1, self._names_in_use.get(name.lower(), 0))

    # -- lookups -------------------------------------------------------------------------

    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError(
                f"The name '{name}' looks a like an Operation name, not a Tensor name: Tensor names must be of the form "
                f'"<op_name>:<output_index>".'
            )
        op = self._by_name.get(op_name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The operation, '{op_name}', does not exist in the graph.")
        i = int(index)
        if i >= len(op.outputs):
            raise KeyError(
                f"The name '{name}' refers to a Tensor which does not exist. The operation, '{op_name}', exists but only has "
                f"{len(op.outputs)} outputs."
            )
        return op.outputs[i]

    def as_graph_element(self, obj, allow_tensor: bool = True, allow_operation: bool = True):
        """``obj`` (a tensor, an operation or a name) as an element of this graph."""
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                return self.get_tensor_by_name(obj)
            if allow_operation:
                return self.get_operation_by_name(obj)
        if isinstance(obj, GraphTensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj!r} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj.name!r} is not an element of this graph.")
            return obj
        if isinstance(obj, Tensor) and not isinstance(obj, GraphTensor):
            raise TypeError(
                "Can not convert an eager Tensor into a Tensor or Operation: it was computed when it was made and has its value "
                "already (use .numpy()). To build a graph that a Session runs, make the ops inside `with graph.as_default():`, "
                "or call ember.compat.v1.disable_eager_execution() first (TensorFlow 1's implicit default graph)."
            )
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    # -- collections -----------------------------------------------------------------------

    def add_to_collection(self, name: str, value) -> None:
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value) -> None:
        """``value`` added to each collection of ``names`` (one name, or an iterable, each once)."""
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection(self, name: str, scope: str | None = None) -> list:
        """A copy of the collection; with ``scope``, only the items whose ``name`` starts with a
        match of that regular expression (items without a name are left out)."""
        items = self._collections.get(name, ())
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [item for item in items if isinstance(getattr(item, "name", None), str) and pattern.match(item.name)]

    def get_collection_ref(self, name: str) -> list:
        """The collection's list itself (created empty if absent): changes to it change the graph's."""
        return self._collections.setdefault(name, [])

    def get_all_collection_keys(self) -> list:
        return [name for name, items in self._collections.items() if items is not None]

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    # -- state ------------------------------------------------------------------------------

    def finalize(self) -> None:
        """Make the graph read-only: adding an operation raises from now on."""
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Make this the default graph of this thread, and record ops into it, for the block."""
        stack = _stack()
        stack.append(self)
        try:
            with interpreter_scope(self._make_interpreter()):
                yield self
        finally:
            stack.pop()

    def _make_interpreter(self) -> LazyInterpreter:
        """The interpreter that records into this graph (a function's sub-graph captures outer tensors)."""
        return LazyInterpreter(self)

    def as_graph_def(self, from_version: int | None = None, add_shapes: bool = False):
        """This graph as a TensorFlow ``GraphDef`` protobuf (see ``export.py``)."""
        return as_graph_def(self, from_version=from_version, add_shapes=add_shapes)

    def __repr__(self) -> str:
        return f"<ember.Graph with {len(self._ops)} operations>"


_TF_TABLE: list[dict] = []


def _tf_table() -> dict:
    """primitive -> (TensorFlow type, default node name), built from the schema on first use."""
    if not _TF_TABLE:
        _TF_TABLE.append(tf_op_table())
    return _TF_TABLE[0]


def _default_name(kind: str) -> str:
    """TensorFlow's default node name: the one the schema entry's ``tf`` key gives the primitive
    (``MatMul``, ``add`` for ``AddV2``), else its ember name; ``add_scalar`` is named as ``add``."""
    found = _tf_table().get(kind)
    return found[1] if found is not None else kind.removesuffix("_scalar").removesuffix("_tensor")


def _as_operation(obj, where: str) -> Operation:
    if isinstance(obj, Operation):
        return obj
    if isinstance(obj, GraphTensor):
        return obj.op
    if hasattr(obj, "op") and isinstance(obj.op, Operation):
        return obj.op
    raise TypeError(f"{where}(): expected an Operation or a graph Tensor, got {type(obj).__name__}")


# -- the default graph: a thread-local stack over one process-wide graph -------------------


class _Stack(threading.local):
    def __init__(self) -> None:
        self.graphs: list[Graph] = []


_STACK = _Stack()
_GLOBAL = [Graph()]
_IMPLICIT: list = [None]  # the recorder of TensorFlow 1's implicit default graph, while it is on


def _stack() -> list[Graph]:
    return _STACK.graphs


def get_default_graph() -> Graph:
    """The innermost ``as_default()`` graph of this thread, else the process's default graph."""
    stack = _STACK.graphs
    return stack[-1] if stack else _GLOBAL[0]


def building_graph(graph: Graph) -> Graph:
    """The graph new ops on ``graph``'s tensors go into: the default graph when it is a function
    body nested in ``graph`` (a cond branch or a loop body captures them), else ``graph``."""
    default = get_default_graph()
    g = default
    while g is not None:
        if g is graph:
            return default
        g = getattr(g, "outer_graph", None)
    return graph


def in_graph_scope() -> bool:
    """Whether ops made now become nodes of a graph: inside ``as_default()``, or anywhere while
    the implicit default graph is on."""
    return bool(_STACK.graphs) or _IMPLICIT[0] is not None


def reset_default_graph() -> None:
    """Replace the process's default graph with a fresh one (not inside an ``as_default`` block)."""
    if _STACK.graphs:
        raise AssertionError("Do not use reset_default_graph() to clear nested graphs. Exit the as_default() blocks first.")
    _GLOBAL[0] = type(_GLOBAL[0])()


class _DefaultGraphRecorder(LazyInterpreter):
    """Records every op made outside a graph scope into the process's default graph, whichever
    graph that is now (``reset_default_graph`` replaces it)."""

    name = "lazy-default-graph"

    def __init__(self) -> None:  # no graph of its own: it follows the default one
        pass

    @property
    def graph(self) -> Graph:
        return get_default_graph()


def set_implicit_default_graph(enabled: bool, graph_class: type | None = None) -> None:
    """Turn TensorFlow 1's implicit default graph on or off, for every thread.

    On, an op made outside any ``as_default()`` block is recorded into the default graph, as
    after TensorFlow's ``disable_eager_execution()``; ``graph_class`` (a ``Graph`` subclass) is
    the class of the default graph from now on (an empty default graph is replaced by one).
    Off, ops run eagerly again; the graphs built stay as they are.
    """
    if graph_class is not None:
        if not (isinstance(graph_class, type) and issubclass(graph_class, Graph)):
            raise TypeError(f"set_implicit_default_graph(): graph_class must be a Graph subclass, got {graph_class!r}")
        if type(_GLOBAL[0]) is not graph_class and not _GLOBAL[0]._ops:
            _GLOBAL[0] = graph_class()
    if enabled and _IMPLICIT[0] is None:
        _IMPLICIT[0] = _DefaultGraphRecorder()
        set_default_interpreter(_IMPLICIT[0], records=True)
    elif not enabled and _IMPLICIT[0] is not None:
        _IMPLICIT[0] = None
        set_default_interpreter(eager_default_interpreter())


def implicit_default_graph() -> bool:
    """Whether TensorFlow 1's implicit default graph is on (``set_implicit_default_graph``)."""
    return _IMPLICIT[0] is not None


def name_scope(name: str | None):
    """``get_default_graph().name_scope(name)``."""
    return get_default_graph().name_scope(name)


def control_dependencies(control_inputs):
    """``get_default_graph().control_dependencies(control_inputs)``."""
    return get_default_graph().control_dependencies(control_inputs)


# -- the default session: a thread-local stack (Session.as_default pushes on it) -------------


class _Sessions(threading.local):
    def __init__(self) -> None:
        self.stack: list = []


_SESSIONS = _Sessions()


def get_default_session():
    """The innermost ``Session.as_default()`` session of this thread, or None."""
    return _SESSIONS.stack[-1] if _SESSIONS.stack else None


def push_default_session(session) -> None:
    """Make ``session`` this thread's default session until it is popped."""
    _SESSIONS.stack.append(session)


def pop_default_session(session=None) -> None:
    """Remove ``session`` from this thread's stack (the innermost one when None)."""
    stack = _SESSIONS.stack
    if session is None:
        stack.pop()
    elif session in stack:
        stack.remove(session)


def session_for(graph: Graph, session, what: str):
    """``session``, or the default one, checked to run elements of ``graph`` (``what`` names the
    caller in the error)."""
    session = session or get_default_session()
    if session is None:
        raise ValueError(f"Cannot evaluate tensor using `{what}`: No default session is registered. Use `with sess.as_default()` or pass an explicit session")
    if session.graph is not None and session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph is different from the session's graph.")
    return session
