"""Function graphs: the sub-graphs that control flow nodes hold (a cond branch, a loop body).

A ``FuncGraph`` is a ``Graph`` nested in an outer one (TensorFlow 2's ``FuncGraph``): its
``inputs`` are placeholders, its ``outputs`` the tensors the function returns. A tensor of an
enclosing graph used inside is *captured*: it becomes one more input placeholder, and the node
that holds the function feeds it from outside (through every level of nesting). A variable used
inside becomes a proxy ``VariableV2`` node whose reads and writes go to the outer variable's value
in the Session (``_origin`` maps the proxy to the variable, as the passes' copies do), so an
assignment in a branch writes the real variable, and only when the branch runs; the variable is
also an input of the holding node (its value when the node starts), the edge gradients take. Control inputs on
outer operations are hoisted onto the holding node (``outer_controls``).

``run_function`` runs a function graph on input values with a plan compiled once, whose targets
include every stateful node of the body (assignments, prints, asserts, nested control flow): a
function runs its side effects whether or not its outputs use them, as TensorFlow 2's functions do.
"""

from __future__ import annotations

from .graph import Graph, Operation
from .lazy import LazyInterpreter
from .run.plan import Plan
from .run.specialize import specialize
from .symbolic import probe_shape
from .tensor import GraphTensor

__all__ = ["STATEFUL_TYPES", "FuncGraph", "run_function"]

_WRITES = frozenset({"Assign", "AssignAdd", "AssignSub"})
# Node types a function runs even when its outputs do not need them.
STATEFUL_TYPES = frozenset({"Assign", "AssignAdd", "AssignSub", "Print", "PrintV2", "Assert", "If", "While"})


class _CapturingInterpreter(LazyInterpreter):
    """The lazy interpreter of a function graph: tensors of enclosing graphs are captured."""

    name = "lazy-function"

    def capture(self, t):
        if isinstance(t, GraphTensor) and t._op.graph is not self.graph:
            return self.graph.capture(t)
        return super().capture(t)


class FuncGraph(Graph):
    """The body of a function: a graph nested in ``outer_graph``, with inputs and outputs."""

    def __init__(self, name: str, outer_graph: Graph) -> None:
        super().__init__()
        root = outer_graph
        while getattr(root, "outer_graph", None) is not None:
            root = root.outer_graph
        taken = root._function_names  # a function's name is unique in the GraphDef's library
        unique, k = name, 0
        while unique in taken:
            k += 1
            unique = f"{name}_{k}"
        taken.add(unique)
        self.name = unique
        self.outer_graph = outer_graph
        self.seed = outer_graph.seed
        self.inputs: list = []  # placeholders: the function's arguments, then its captures
        self.outputs: list = []
        self.captures: list = []  # (tensor of outer_graph, its placeholder here)
        self.outer_controls: list = []  # operations of enclosing graphs the body depends on
        self._capture_map: dict = {}  # id(outer tensor) -> its tensor here
        self._origin: dict = {}  # proxy VariableV2 -> the variable op whose value it is
        self.value_of: dict = {}  # proxy VariableV2 -> the input fed the variable's value
        self._proxies: dict = {}  # id(variable of an enclosing graph) -> its proxy here
        self.exposed: list = []  # outputs a gradient added (after the first ones): positions in the holding node's outputs
        self.exposed_map: dict = {}  # id(tensor here) -> its position there
        self._plan_version = -1
        self.static_inputs = False  # every input's shape known: the plan may run as one array plan
        self._plan = None

    is_function_graph = True  # what export.py looks for (it sits below this module)

    def _make_interpreter(self) -> LazyInterpreter:
        return _CapturingInterpreter(self)

    def add_input(self, dtype, static, name: str = "placeholder") -> GraphTensor:
        """A new argument placeholder of ``dtype`` and static shape ``static`` (unknown sizes fresh)."""
        op = Graph.create_op(
            self, "Placeholder", (), {"dtype": dtype, "shape": static}, [(probe_shape(static), static, dtype)], name=name
        )
        self.inputs.append(op.outputs[0])
        return op.outputs[0]

    def _encloses(self, graph) -> bool:
        g = self.outer_graph
        while g is not None:
            if g is graph:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def capture(self, t: GraphTensor, write: bool = False) -> GraphTensor:
        """``t``, a tensor of an enclosing graph, as a tensor of this one. A variable becomes its
        proxy; read (not ``write``: the variable an assignment writes), the holding node also
        takes its value as an input, the edge its gradient flows back on."""
        if t._op.graph is self:
            return t
        if not self._encloses(t._op.graph):
            raise ValueError(
                f"Tensor {t.name} is from a graph that does not enclose the function {self.name!r}; it cannot be captured."
            )
        if t._op.kind != "VariableV2":
            return self._capture_value(t)
        proxy = self._proxies.get(id(t))
        if proxy is None:
            outer_op = t._op
            specs = [(t._shape, t._static, t._dtype)]
            proxy = Graph.create_op(self, "VariableV2", (), dict(outer_op.attrs), specs, name=outer_op.name.rsplit("/", 1)[-1])
            self._origin[proxy] = getattr(outer_op.graph, "_origin", {}).get(outer_op, outer_op)
            self._proxies[id(t)] = proxy
        if not write and proxy not in self.value_of:
            self.value_of[proxy] = self._capture_value(t)
        return proxy.outputs[0]

    def _capture_value(self, t: GraphTensor) -> GraphTensor:
        """An input placeholder fed ``t``'s value by the holding node (through every enclosing graph)."""
        hit = self._capture_map.get(id(t))
        if hit is not None:
            return hit[1]
        outer = t if t._op.graph is self.outer_graph else self.outer_graph.capture(t)
        hit = self._capture_map.get(id(outer))  # captured before through the enclosing graph's tensor
        if hit is not None:
            self._capture_map[id(t)] = hit
            return hit[1]
        value = self.add_input(t._dtype, t._static, name="capture")
        self.captures.append((outer, value))
        self._capture_map[id(t)] = self._capture_map[id(outer)] = (t, value)
        return value

    def create_op(self, op_type, inputs, attrs, outputs, *, name=None, op_expr=None) -> Operation:
        if op_type == "VariableV2":
            raise ValueError(
                f"A variable cannot be created inside the function {self.name!r} (a cond branch or a while_loop body); "
                "create it outside and use it inside"
            )
        writes = op_type in _WRITES
        inputs = tuple(t if t._op.graph is self else self.capture(t, write=writes and k == 0) for k, t in enumerate(inputs))
        return super().create_op(op_type, inputs, attrs, outputs, name=name, op_expr=op_expr)

    def control_dependencies(self, control_inputs):
        """As ``Graph.control_dependencies``; operations of enclosing graphs become control inputs
        of the node that holds this function."""
        if control_inputs is None:
            return super().control_dependencies(None)
        inner = []
        for c in control_inputs:
            op = c if isinstance(c, Operation) else getattr(c, "op", None)
            if isinstance(op, Operation) and op.graph is not self and self._encloses(op.graph):
                if op not in self.outer_controls:
                    self.outer_controls.append(op)
            else:
                inner.append(c)
        return super().control_dependencies(inner)

    def plan(self) -> Plan:
        """The plan computing the outputs from the inputs, with every stateful node run."""
        if self._plan is None or self._plan_version != self.version:
            targets = [op for op in self._ops if op.kind in STATEFUL_TYPES]
            self._plan = Plan(self, list(self.outputs), targets, list(self.inputs))
            self._plan_version = self.version
            self.static_inputs = all(t._static.is_fully_defined() for t in self.inputs)
        return self._plan

    def __repr__(self) -> str:
        return f"<ember.FuncGraph {self.name!r} with {len(self._ops)} operations>"

    def __str__(self) -> str:  # how an attribute holding it is exported
        return self.name


def run_function(fg: FuncGraph, session, args: list) -> list:
    """The outputs of ``fg`` run in ``session`` on the values ``args`` (one per input): as a static
    array plan when every input's shape is known (one plan for all runs: a loop body runs it
    every iteration), else node by node."""
    plan = fg.plan()
    if fg.static_inputs and getattr(session, "_specialize", True):  # Session(specialize=False): node by node
        runner = specialize(plan, args)
        if runner is not None:
            return runner.run(session, args)
    return plan.run(session, args)
