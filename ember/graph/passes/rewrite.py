"""The rewritable form of a graph that the optimization passes work on.

A ``Graph`` is append-only: its operations cannot be removed or rewired, and the user's graph
must never change. ``RGraph.from_graph`` copies the part of a graph that some fetches need
(through data and control edges, and the producers of fed tensors) into light ``Node`` and
``Value`` objects that passes edit freely: rewire every use of a value to another
(``replace_uses``), drop a node (``remove``), add new ones (``insert_before``). Nodes are kept
in a topological order (the original creation order; new nodes go before the one they
replace). ``materialize`` builds a new ``Graph`` from the result, with the original names.

What must survive: the fetched values and operations (``fetch_values`` / ``fetch_nodes``,
updated when a pass replaces a fetched value by an equal one) and the fed values. A node
that produces a fed value is *frozen*: its outputs come from the feed at run time, so no pass
may fold, merge, rewrite or fuse it, nor look through it.
"""

from __future__ import annotations

import heapq
import operator

from ...ops.random import RANDOM_OPS
from ..graph import _VALID_NAME, Graph, Operation
from ..symbolic import SymFloat, SymInt, _Expr, has_symbols

__all__ = ["STATEFUL", "WRITES", "Node", "RGraph", "Value", "frozen_attr", "has_symbols", "is_random", "same_dim", "same_shape"]

WRITES = frozenset({"Assign", "AssignAdd", "AssignSub"})
STATEFUL = WRITES | {"VariableV2"}
RANDOM = 1  # Node.flags: a random op
SYMBOLIC = 2  # Node.flags: an attribute holds a size known only at run time


def is_random(node: Node) -> bool:
    """A random primitive draws new values every run: the samplers of ``ember/ops/random.py``
    (``RANDOM_OPS``) and every op that takes a ``generator`` attribute (dropout...)."""
    return node.flags & RANDOM != 0


_PLAIN = frozenset({int, float, bool, str, type(None)})


def _flags(op_type: str, op_expr, attrs: dict) -> int:
    if op_expr is None:
        return 0
    f = RANDOM if op_type in RANDOM_OPS or "generator" in attrs else 0
    for v in attrs.values():
        if type(v) not in _PLAIN and has_symbols(v):
            return f | SYMBOLIC
    return f


def _poly(x):
    """A size expression as a canonical polynomial over the unknown sizes (a frozenset of
    (monomial, coefficient)), or None when it is not one: sums, differences and products, and a
    floor division by a constant that divides every coefficient (``(3 * n) // 3`` is ``n``)."""
    if isinstance(x, (SymInt, SymFloat)):
        x = x.expr
    if type(x) is int:
        return {(): x} if x else {}
    if not isinstance(x, _Expr):
        return None
    if x.fn is None:
        return {((x.args[0], 1),): 1}
    a, b = (_poly(v) for v in x.args)
    if a is None or b is None:
        return None
    fn = x.fn
    if fn is operator.add or fn is operator.sub:
        out = dict(a)
        sign = 1 if fn is operator.add else -1
        for m, c in b.items():
            out[m] = out.get(m, 0) + sign * c
        return {m: c for m, c in out.items() if c}
    if fn is operator.mul:
        out: dict = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                powers = dict(ma)
                for v, k in mb:
                    powers[v] = powers.get(v, 0) + k
                m = tuple(sorted(powers.items()))
                out[m] = out.get(m, 0) + ca * cb
        return {m: c for m, c in out.items() if c}
    if fn is operator.floordiv and len(b) == 1 and () in b and b[()] > 0:
        d = b[()]
        if all(c % d == 0 for c in a.values()):
            return {m: c // d for m, c in a.items()}
    return None


def same_dim(a, b) -> bool:
    """Two sizes that are provably equal: equal ints, the same unknown size, or expressions of
    unknown sizes that reduce to the same polynomial."""
    if a is b:
        return True
    sa, sb = isinstance(a, SymInt), isinstance(b, SymInt)
    if sa or sb:
        if sa and sb and a.var is not None and a.var == b.var:
            return True
        pa, pb = _poly(a), _poly(b)
        return pa is not None and pa == pb
    return a == b


def same_shape(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(same_dim(x, y) for x, y in zip(a, b, strict=True))


def frozen_attr(v):
    """A hashable key for an attribute value that two values share only when they are surely
    equal for the op: numbers by type and bits (``2``/``2.0``/``True`` differ, ``0.0``/``-0.0``
    differ), sequences elementwise, run-time sizes (``SymInt``) and unknown objects by identity."""
    t = type(v)
    if v is None or t is bool or t is str or t is int:
        return (t, v)
    if t is float:
        return (float, v.hex())
    if t is complex:
        return (complex, v.real.hex(), v.imag.hex())
    if t is tuple or t is list:
        return (t, tuple([frozen_attr(x) for x in v]))
    if t is slice:
        return (slice, frozen_attr(v.start), frozen_attr(v.stop), frozen_attr(v.step))
    if v is Ellipsis:
        return ("...",)
    if t is dict:
        return (dict, tuple((k, frozen_attr(x)) for k, x in v.items()))
    name = t.__name__
    if name == "IndexKey":
        return ("IndexKey", frozen_attr(v.items), v.simple)
    if name == "TensorShape":
        return ("TensorShape", v._dims)
    if name == "Device":
        return ("device", str(v))
    return ("id", id(v))  # DTypes are singletons; tensors, generators, SymInts: the same object only


class Value:
    """One output of a node: its probe shape (``SymInt`` where unknown), static shape, dtype."""

    __slots__ = ("dtype", "index", "node", "shape", "src", "static", "uses")

    def __init__(self, node: Node, index: int, shape: tuple, static, dtype, src=None) -> None:
        self.node = node
        self.index = index
        self.shape = tuple(shape)
        self.static = static
        self.dtype = dtype
        self.src = src  # the original GraphTensor, None for a value a pass made
        self.uses: list = []  # consumer nodes, once per input position

    @property
    def ndim(self) -> int | None:
        return self.static.rank

    def __repr__(self) -> str:
        return f"<Value {self.node.name}:{self.index} {self.static} {self.dtype.name}>"


class Node:
    """One operation of an ``RGraph``."""

    __slots__ = (
        "alive", "attrs", "control_inputs", "control_users", "device", "flags", "frozen", "inputs", "name", "op_expr", "outputs", "src", "type",
    )

    def __init__(self, op_type: str, inputs: list, attrs: dict, op_expr=None, name: str | None = None, device: str = "") -> None:
        self.type = op_type
        self.inputs = list(inputs)
        self.attrs = attrs
        self.op_expr = op_expr
        self.name = name
        self.device = device
        self.control_inputs: list = []
        self.control_users: list = []
        self.outputs: list = []
        self.src = None  # the original Operation
        self.alive = True
        self.frozen = False
        self.flags = _flags(op_type, op_expr, attrs)

    @property
    def symbolic(self) -> bool:
        return self.flags & SYMBOLIC != 0

    @property
    def is_primitive(self) -> bool:
        return self.op_expr is not None

    def __repr__(self) -> str:
        return f"<Node {self.name} {self.type}>"


class _Keep:
    """What must survive, seen live: fetched values and nodes, fed values."""

    __slots__ = ("g",)

    def __init__(self, g: RGraph) -> None:
        self.g = g

    def __contains__(self, item) -> bool:
        g = self.g
        if isinstance(item, Value):
            return item in g._fetch_set or item in g.fed
        return item in g.fetch_nodes or any(v in g._fetch_set or v in g.fed for v in item.outputs)


class RGraph:
    """A copy of the needed part of a graph, in a form passes can rewrite."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.fetch_values: list[Value] = []
        self.fetch_nodes: list[Node] = []
        self.fed: set = set()
        self._fetch_set: set = set()
        self._inserts: dict = {}  # node -> nodes to place before it at the next compact()
        self.replaced: dict = {}  # Value -> the Value that took over its uses
        self.source = None
        self.notes: dict[str, list[str]] = {}
        self.value_of: dict[int, Value] = {}  # id(original tensor) -> its Value
        self.node_of: dict[int, Node] = {}  # id(original op) -> its Node
        self.copied = 0
        self.total = 0

    # -- building -----------------------------------------------------------------------

    @classmethod
    def from_graph(cls, graph, fetches: list, feeds: list = (), prune: bool = True) -> RGraph:
        """``fetches``: GraphTensors and Operations of ``graph``; ``feeds``: its fed tensors.
        ``prune``: copy only what they need (else every operation)."""
        self = cls()
        self.source = graph
        ops = graph._ops
        self.total = len(ops)
        fetch_ops = [f if isinstance(f, Operation) else f._op for f in fetches]
        if prune:
            seen: set = set()
            stack = fetch_ops + [t._op for t in feeds]
            while stack:
                op = stack.pop()
                if op in seen:
                    continue
                seen.add(op)
                stack.extend(t._op for t in op.inputs)
                stack.extend(op.control_inputs)
            ops = sorted(seen, key=lambda op: op._id)
        value_of = self.value_of
        node_of = self.node_of
        for op in ops:
            node = Node(op.kind, [], dict(op.attrs), op.op_expr, op.name, op.device)
            node.src = op
            node_of[id(op)] = node
            for i, t in enumerate(op.outputs):
                v = Value(node, i, t._shape, t._static, t._dtype, t)
                node.outputs.append(v)
                value_of[id(t)] = v
            for t in op.inputs:
                v = value_of.get(id(t))
                if v is None:  # a tensor object that is not in its op's outputs tuple (rebound)
                    v = node_of[id(t._op)].outputs[t._index]
                node.inputs.append(v)
                v.uses.append(node)
            for c in op.control_inputs:
                cn = node_of[id(c)]
                node.control_inputs.append(cn)
                cn.control_users.append(node)
            self.nodes.append(node)
        self.copied = len(self.nodes)
        for f in fetches:
            if isinstance(f, Operation):
                self.fetch_nodes.append(node_of[id(f)])
            else:
                self.fetch_values.append(value_of[id(f)])
        self._fetch_set = set(self.fetch_values)
        for t in feeds:
            v = value_of[id(t)]
            self.fed.add(v)
            v.node.frozen = True
        return self

    @property
    def keep(self) -> _Keep:
        return _Keep(self)

    def new_node(self, op_type: str, inputs: list, attrs: dict, outputs: list, *, op_expr=None, name: str | None = None) -> Node:
        """A node (not yet placed: see ``insert_before``); ``outputs``: (shape, static, dtype)."""
        node = Node(op_type, inputs, attrs, op_expr, name)
        for v in inputs:
            v.uses.append(node)
        node.outputs = [Value(node, i, shape, static, dtype) for i, (shape, static, dtype) in enumerate(outputs)]
        return node

    def insert_before(self, anchor: Node, node: Node) -> None:
        self._inserts.setdefault(anchor, []).append(node)

    def log(self, pass_name: str, message: str) -> None:
        self.notes.setdefault(pass_name, []).append(message)

    # -- rewriting ------------------------------------------------------------------------

    def replace_uses(self, old: Value, new: Value) -> None:
        """Every consumer of ``old`` (and a fetch of it) reads ``new`` instead."""
        if old is new:
            return
        for node in old.uses:
            node.inputs = [new if v is old else v for v in node.inputs]
            new.uses.append(node)
        old.uses = []
        self.replaced[old] = new
        if old in self._fetch_set:
            self.fetch_values = [new if v is old else v for v in self.fetch_values]
            self._fetch_set = set(self.fetch_values)
        if old in self.fed:  # (passes never replace a fed value; kept for safety)
            self.fed.discard(old)
            self.fed.add(new)

    def resolve(self, v: Value) -> Value:
        """The value that now stands for ``v`` (after replacements)."""
        seen = 0
        while v in self.replaced and seen < 10_000:
            v = self.replaced[v]
            seen += 1
        return v

    def redirect_control(self, old: Node, new: Node | None) -> None:
        """Nodes that ran after ``old`` run after ``new`` (None: after ``old``'s own control inputs)."""
        targets = [new] if new is not None else list(old.control_inputs)
        for user in old.control_users:
            user.control_inputs = [c for c in user.control_inputs if c is not old]
            for t in targets:
                if t not in user.control_inputs and t is not user:
                    user.control_inputs.append(t)
                    t.control_users.append(user)
        old.control_users = []
        if old in self.fetch_nodes and new is not None:
            self.fetch_nodes = [new if n is old else n for n in self.fetch_nodes]

    def remove(self, node: Node) -> None:
        """Drop ``node``; its outputs must have no uses left."""
        node.alive = False
        for v in node.inputs:
            if node in v.uses:
                v.uses.remove(node)
        for c in node.control_inputs:
            c.control_users = [u for u in c.control_users if u is not node]
        for u in node.control_users:
            u.control_inputs = [c for c in u.control_inputs if c is not node]
        node.control_users = []

    def replace_node(self, old: Node, replacements: list[Value | None], control_target: Node | None = None) -> None:
        """``old``'s outputs are ``replacements`` (equal values); ``old`` goes away."""
        for v, r in zip(old.outputs, replacements, strict=True):
            if r is not None:
                self.replace_uses(v, r)
        if control_target is None:
            control_target = next((r.node for r in replacements if r is not None), None)
        self.redirect_control(old, control_target)
        self.remove(old)

    def compact(self) -> None:
        """Drop removed nodes from the order, place inserted ones."""
        inserts = self._inserts
        out = []
        for node in self.nodes:
            if inserts:
                extra = inserts.pop(node, None)
                if extra:
                    out.extend(n for n in extra if n.alive)
            if node.alive:
                out.append(node)
        self._inserts = {}
        self.nodes = out

    def toposort(self) -> None:
        """Reorder the nodes topologically (stable: earlier position first)."""
        self.compact()
        position = {n: i for i, n in enumerate(self.nodes)}
        indegree = {}
        users: dict = {}
        for n in self.nodes:
            deps = {v.node for v in n.inputs}
            deps.update(n.control_inputs)
            indegree[n] = len(deps)
            for d in deps:
                users.setdefault(d, []).append(n)
        ready = [(position[n], n) for n, k in indegree.items() if k == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, n = heapq.heappop(ready)
            order.append(n)
            for u in users.get(n, ()):
                indegree[u] -= 1
                if indegree[u] == 0:
                    heapq.heappush(ready, (position[u], u))
        if len(order) != len(self.nodes):
            raise RuntimeError("graph rewrite made a cycle")
        self.nodes = order

    def uses_count(self) -> int:
        return sum(len(n.inputs) for n in self.nodes)

    # -- back to a Graph ---------------------------------------------------------------------

    def materialize(self):
        """A new ``Graph`` holding the nodes; returns (graph, {Value: GraphTensor}, {Node: Operation})."""
        self.compact()
        graph = Graph()
        if self.source is not None:
            graph.seed = self.source.seed
        counts: dict = {}
        for n in self.nodes:
            if n.name:
                key = n.name.lower()
                counts[key] = counts.get(key, 0) + (1 if n.src is None else 1000)  # originals keep their names
                graph._names_in_use[key] = 1
        tensor_of: dict = {}
        op_of: dict = {}
        origin: dict = {}
        for n in self.nodes:
            inputs = tuple(tensor_of[v] for v in n.inputs)
            specs = [(v.shape, v.static, v.dtype) for v in n.outputs]
            if n.name and (n.src is not None or counts[n.name.lower()] == 1):
                name = n.name + "/"
            else:  # a node a pass made, whose suggested name is taken
                name = graph.unique_name(n.name or n.type)
            exact = name.endswith("/") and not _VALID_NAME.match(name[:-1])
            if exact:  # a name the graph made itself ("_to_copy") but would refuse from a caller
                name = graph.unique_name("renamed")
            op = graph.create_op(n.type, inputs, n.attrs, specs, name=name, op_expr=n.op_expr)
            if n.src is not None and n.src.kind == n.type:
                op._tf_type = n.src._tf_type  # a node's TensorFlow type that its kind alone does not give
            if exact:
                del graph._by_name[op.name]
                op.name = n.name
                graph._by_name[op.name] = op
            n.name = op.name
            op.device = n.device
            if n.control_inputs:
                op.control_inputs = tuple(op_of[c] for c in n.control_inputs)
            for v, t in zip(n.outputs, op.outputs, strict=True):
                tensor_of[v] = t
            op_of[n] = op
            if n.src is not None:
                origin[op] = n.src
        graph._origin = origin  # new operation -> the original one it copies (variables are keyed by it)
        return graph, tensor_of, op_of
