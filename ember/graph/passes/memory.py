"""Memory planning: elementwise ops write into an input buffer that dies with them.

The plan already frees each slot right after its last reader. This pass adds in-place reuse:
an elementwise primitive ``y = op(x, ...)`` may write ``y`` into ``x``'s buffer, saving one
allocation and keeping one buffer fewer alive at that step, when all of these hold:

- ``op`` is elementwise and has an in-place form in the schema (``add_``, ``relu_``...): its
  kernel is written to be correct when its output is its first input (the same kernel runs
  ``x.add_(y)`` in eager mode); ``x`` is input 0;
- ``y`` has ``x``'s dtype and provably ``x``'s shape (no broadcasting of ``x``);
- ``x`` is a fresh buffer: the output of a computing primitive (not a view op, not ``Const``,
  a placeholder, a variable or its read, not a fed value) or of a ``Fused`` node;
- nothing else ever reads ``x``'s buffer: ``x`` has this one reader (reading it twice in this
  node is fine: ``x * x``), no view of it exists, it is not fetched, and no assignment stores
  it into a variable. This makes the decision independent of the order the plan picks.

The node is marked ``attrs["inplace"] = 0``. The executor honours it through
``run.plan.inplace_target(inputs, index)``, which checks again at run time what the static shapes could
not prove (sizes unknown when the graph was built): the input is not a view and the
broadcast of all inputs' shapes is the input's own shape; otherwise the op gets a fresh
output as usual. ``Fused`` nodes are not marked: ``FusedProgram`` refuses an output that
overlaps an input (it computes into a temporary then copies), so aliasing there saves nothing;
fusion already keeps its intermediates in cache-sized scratch buffers.
"""

from __future__ import annotations

import functools

from ...dispatch.opexpr import OP_REGISTRY
from ...ops.schema import load_schema
from ..elementwise import is_elementwise
from .rewrite import WRITES, RGraph, same_shape

__all__ = ["run"]

NAME = "memory"


@functools.cache
def _inplace_ops() -> frozenset:
    # on first use: the elementwise primitives with an in-place form in the schema
    names = {p for e in load_schema() if e.inplace for p in e.primitives}
    return frozenset(n for n in names if n in OP_REGISTRY and is_elementwise(OP_REGISTRY[n]))


def _fresh(v) -> bool:
    node = v.node
    if node.frozen:
        return False
    if node.type == "Fused":
        return True
    return node.op_expr is not None and node.op_expr.view is None


def run(g: RGraph, keep) -> int:
    inplace = _inplace_ops()
    marked = 0
    kinds: dict = {}
    for node in g.nodes:
        if node.op_expr is None or node.type not in inplace or node.frozen or len(node.outputs) != 1 or not node.inputs:
            continue
        if "inplace" in node.attrs:
            continue
        x = node.inputs[0]
        y = node.outputs[0]
        if x.dtype is not y.dtype or not same_shape(x.shape, y.shape) or x.static != y.static:
            continue
        if not _fresh(x) or x in keep:
            continue
        if any(u is not node for u in x.uses):
            continue  # another reader (a view op included)
        if any(u.type in WRITES for u in x.uses):
            continue
        node.attrs = {**node.attrs, "inplace": 0}
        marked += 1
        kinds[node.type] = kinds.get(node.type, 0) + 1
    if marked:
        detail = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in sorted(kinds.items()))
        g.log(NAME, f"{marked} op{'s' if marked != 1 else ''} write into a dying input ({detail})")
    return marked
