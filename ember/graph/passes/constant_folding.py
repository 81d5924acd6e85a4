"""Constant folding: compute now what depends only on constants.

Rule: a primitive node whose every input is the output of a ``Const`` node (or that has no
inputs at all: ``fill``, ``arange``, ``eye``...) is run once, now, with the eager kernels
(``EAGER.apply``: the same code a Session would run), and each of its outputs becomes a new
``Const`` node that takes over the uses (its name is the folded node's).

Never folded:
- random ops (``RANDOM_OPS`` of ``ember/ops/random.py``, and any op with a ``generator``
  attribute such as dropout): they draw new values on every run;
- graph-only nodes: placeholders (and ``PlaceholderWithDefault``), variables and their
  assignments, ``Identity`` (the algebraic pass removes it), ``NoOp``;
- a node whose value is fed (it is frozen), or that reads a fed ``Const``;
- a node with control inputs (folding would drop the ordering it asked for);
- a node with symbolic attributes (a size known only at run time), or whose output shape is
  not fully known (a data-dependent shape binds unknown sizes when it runs);
- a result with more than ``MAX_ELEMENTS`` (10M) elements per output: it would live in the
  plan for good (10M float32 = 40 MB), where computing it per run costs only time;
- a node whose kernel raises now (a division by zero on integers, an index out of range):
  it is left to raise, with its own message, when the graph runs.
"""

from __future__ import annotations

from ...dispatch.interpreter import EAGER
from .rewrite import RGraph, is_random

__all__ = ["MAX_ELEMENTS", "run"]

NAME = "constant_folding"
MAX_ELEMENTS = 10_000_000


def _foldable(node) -> bool:
    if node.op_expr is None or node.frozen or node.control_inputs or is_random(node) or node.symbolic:
        return False
    for v in node.outputs:
        n = v.static.num_elements()
        if n is None or n > MAX_ELEMENTS:
            return False
    return all(v.node.type == "Const" and not v.node.frozen for v in node.inputs)


def run(g: RGraph, keep) -> int:
    folded = 0
    examples = []
    for node in list(g.nodes):
        if not node.alive or not _foldable(node):
            continue
        if not any(v.uses for v in node.outputs) and node not in keep:
            continue  # nobody reads it: dead code elimination drops it
        inputs = tuple(v.node.attrs["value"] for v in node.inputs)
        try:
            results = EAGER.apply(node.op_expr, inputs, dict(node.attrs))
        except Exception:  # left to raise at run time, with its message
            continue
        if len(results) != len(node.outputs) or any(
            tuple(r._shape) != tuple(v.shape) or r._dtype is not v.dtype for r, v in zip(results, node.outputs, strict=True)
        ):
            continue
        consts = []
        for k, (r, v) in enumerate(zip(results, node.outputs, strict=True)):
            name = node.name if len(node.outputs) == 1 else f"{node.name}_{k}"
            c = g.new_node("Const", [], {"value": r, "dtype": r._dtype}, [(tuple(r._shape), v.static, r._dtype)], name=name)
            g.insert_before(node, c)
            consts.append(c.outputs[0])
        g.replace_node(node, consts)
        folded += 1
        if len(examples) < 3:
            examples.append(f"{node.name} ({node.type})")
    g.compact()
    if folded:
        g.log(NAME, f"folded {folded} node{'s' if folded != 1 else ''} into constants (e.g. {', '.join(examples)})")
    return folded
