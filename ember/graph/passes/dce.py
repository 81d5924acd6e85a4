"""Dead code elimination: drop every node that nothing kept depends on.

Rule: a node survives when it is kept (it produces a fetched or fed value, or is a fetched
operation) or when a surviving node depends on it, through a data edge (any input, the
variable an assignment writes included) or a control edge. Everything else goes, whatever
its type. A stateful node (``VariableV2``, ``Assign``, ``AssignAdd``, ``AssignSub``) that a kept
node reaches through those edges is therefore always kept: its effect is part of what the
fetches asked for. A node whose value is fed keeps its own inputs (the graph must stay
well-formed), though the plan will not run them.
"""

from __future__ import annotations

from .rewrite import RGraph

__all__ = ["run"]

NAME = "dce"


def run(g: RGraph, keep) -> int:
    live: set = set()
    stack = [v.node for v in g.fetch_values] + list(g.fetch_nodes) + [v.node for v in g.fed]
    while stack:
        node = stack.pop()
        if node in live:
            continue
        live.add(node)
        stack.extend(v.node for v in node.inputs)
        stack.extend(node.control_inputs)
    dropped = [n for n in g.nodes if n.alive and n not in live]
    for n in dropped:
        g.remove(n)
    g.compact()
    if dropped:
        types: dict = {}
        for n in dropped:
            types[n.type] = types.get(n.type, 0) + 1
        detail = ", ".join(f"{k} x{c}" if c > 1 else k for k, c in sorted(types.items()))
        g.log(NAME, f"dropped {len(dropped)} unused node{'s' if len(dropped) != 1 else ''} ({detail})")
    return len(dropped)
