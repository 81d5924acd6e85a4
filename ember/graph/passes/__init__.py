"""Graph optimization passes and ``optimize``, which runs them on a copy of a graph.

``optimize(graph, fetches, feeds)`` copies what the fetches need into a rewritable form
(``rewrite.RGraph``), runs the passes, and builds a NEW ``Graph`` (the user's is never
modified). It returns ``(new_graph, tensor_map)``: ``tensor_map[id(original)]`` is the new
graph's counterpart of an original tensor or operation; every fetch and feed has one (a
fetched value that a pass proved equal to another maps to that other one), and so does
every other original that survived.

The passes, one module each (``run(g, keep) -> number of changes``; the module docstrings give
the exact rules):

- ``constant_folding``: evaluate ops whose inputs are all constants, now;
- ``algebraic``: bypass ops that return their input (``x * 1``, ``x.t().t()``, ``neg(neg(x))``...);
- ``cse``: merge ops that compute the same thing from the same inputs;
- ``dce``: drop what no fetch needs;
- ``fusion``: chains and trees of elementwise ops become one ``Fused`` node;
- ``memory``: elementwise ops write into an input buffer that dies with them.

The first three repeat while they find something (at most ``MAX_ROUNDS`` rounds): folding
can expose a ``x * 1``, merging can expose a fold. ``explain(graph, fetches)`` (or
``optimize(..., report=True)``) says what each pass changed:

>>> import ember, numpy as np
>>> g = ember.Graph()
>>> with g.as_default():
...     x = ember.placeholder(ember.float32, shape=(None, 3), name="x")
...     y = ((x * ember.ones(3)) + 1.0).relu() * 2.0
...     z = ((x * ember.ones(3)) + 1.0).relu() * 2.0
>>> new, tmap = optimize(g, [y, z])
>>> [op.type for op in new.get_operations()]
['Placeholder', 'Fused']
>>> with ember.Session(graph=new) as sess:
...     sess.run(tmap[id(y)], {tmap[id(x)]: np.array([[-2.0, 0.0, 1.0]], np.float32)}).tolist()
[[0.0, 2.0, 4.0]]
"""

from __future__ import annotations

import time

from ..graph import Operation
from ..tensor import GraphTensor
from . import algebraic, constant_folding, cse, dce, fusion, memory
from .rewrite import RGraph

__all__ = ["DEFAULT_PASSES", "MAX_ROUNDS", "PASSES", "Report", "explain", "optimize"]

PASSES = {
    "constant_folding": constant_folding,
    "algebraic": algebraic,
    "cse": cse,
    "dce": dce,
    "fusion": fusion,
    "memory": memory,
}
DEFAULT_PASSES = ("constant_folding", "algebraic", "cse", "dce", "fusion", "memory")
_SIMPLIFY = frozenset({"constant_folding", "algebraic", "cse"})
MAX_ROUNDS = 3


class Report:
    """What ``optimize`` did: per pass, the changes, the time and the pass's own notes."""

    def __init__(self) -> None:
        self.ops_before = 0
        self.ops_total = 0
        self.ops_after = 0
        self.types_after: dict = {}
        self.entries: list = []  # (pass name, changes, seconds)
        self.notes: dict = {}
        self.seconds = 0.0

    def changes(self, name: str) -> int:
        return sum(c for n, c, _ in self.entries if n == name)

    def __str__(self) -> str:
        lines = [
            f"optimize: {self.ops_before} ops -> {self.ops_after} ops in {self.seconds * 1e3:.2f} ms "
            f"(the fetches need {self.ops_before} of the graph's {self.ops_total})"
        ]
        totals: dict = {}
        for name, changes, seconds in self.entries:
            c, s = totals.get(name, (0, 0.0))
            totals[name] = (c + changes, s + seconds)
        for name, (_changes, seconds) in totals.items():
            notes = self.notes.get(name)
            what = "; ".join(notes) if notes else "no change"
            lines.append(f"  {name}: {what} [{seconds * 1e3:.2f} ms]")
        return "\n".join(lines)

    __repr__ = __str__


def _elements(graph, items) -> list:
    if items is None:
        return []
    if isinstance(items, (GraphTensor, Operation, str)):
        items = [items]
    out = []
    for f in items:
        e = graph.as_graph_element(f)
        if isinstance(e, (GraphTensor, Operation)):
            out.append(e)
    return out


def _resolve(name_or_pass):
    if isinstance(name_or_pass, str):
        try:
            module = PASSES[name_or_pass]
        except KeyError:
            raise ValueError(f"optimize(): unknown pass {name_or_pass!r} (passes: {', '.join(PASSES)})") from None
        return name_or_pass, module.run
    run = getattr(name_or_pass, "run", name_or_pass)
    name = getattr(name_or_pass, "NAME", None) or getattr(run, "__module__", "pass").rsplit(".", 1)[-1]
    if not callable(run):
        raise TypeError(f"optimize(): a pass is a name, a module with run(g, keep), or a function, not {type(name_or_pass).__name__}")
    return name, run


def optimize(graph, fetches, feeds=(), passes=DEFAULT_PASSES, report: bool = False):
    """A new, optimized graph computing ``fetches`` (with ``feeds`` fed), and the map
    ``id(original tensor or operation) -> new one``. ``report=True`` prints what each pass
    did; the ``Report`` is also ``new_graph.optimize_report``."""
    start = time.perf_counter()
    fetch_list = _elements(graph, fetches)
    feed_list = _elements(graph, feeds)
    g = RGraph.from_graph(graph, fetch_list, feed_list)
    rep = Report()
    rep.ops_total = g.total
    rep.ops_before = len(g.nodes)
    keep = g.keep
    steps = [_resolve(p) for p in passes]
    i = 0
    while i < len(steps):
        if steps[i][0] in _SIMPLIFY:
            j = i
            while j < len(steps) and steps[j][0] in _SIMPLIFY:
                j += 1
            for _ in range(MAX_ROUNDS):
                changed = 0
                for name, run in steps[i:j]:
                    changed += _run_one(g, keep, name, run, rep)
                if not changed:
                    break
            i = j
        else:
            _run_one(g, keep, *steps[i], rep)
            i += 1
    new_graph, tensor_of, op_of = g.materialize()
    tensor_map: dict = {}
    for key, v in g.value_of.items():
        v = g.resolve(v)
        t = tensor_of.get(v)
        if t is not None:
            tensor_map[key] = t
    for key, n in g.node_of.items():
        op = op_of.get(n)
        if op is not None:
            tensor_map[key] = op
    for f, v in zip([f for f in fetch_list if not _is_op(f)], g.fetch_values, strict=True):
        tensor_map[id(f)] = tensor_of[v]
    for f, n in zip([f for f in fetch_list if _is_op(f)], g.fetch_nodes, strict=True):
        tensor_map[id(f)] = op_of[n]
    rep.notes = g.notes
    rep.ops_after = len(g.nodes)
    for n in g.nodes:
        rep.types_after[n.type] = rep.types_after.get(n.type, 0) + 1
    rep.seconds = time.perf_counter() - start
    new_graph.optimize_report = rep
    if report:
        print(rep)
    return new_graph, tensor_map


def _is_op(x) -> bool:
    return isinstance(x, Operation)


def _run_one(g: RGraph, keep, name: str, run, rep: Report) -> int:
    t0 = time.perf_counter()
    changes = int(run(g, keep) or 0)
    rep.entries.append((name, changes, time.perf_counter() - t0))
    return changes


def explain(graph, fetches, feeds=(), passes=DEFAULT_PASSES) -> str:
    """What ``optimize`` would change, pass by pass, as text (also printed)."""
    new_graph, _ = optimize(graph, fetches, feeds, passes)
    text = str(new_graph.optimize_report)
    print(text)
    return text
