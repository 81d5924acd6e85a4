"""Common subexpression elimination: one node for each distinct computation.

Rule: two primitive nodes with the same type, the same inputs (the same values, in order) and
equal attributes compute the same values; the later one is dropped and its consumers read the
earlier one's outputs (control edges to it move to the survivor). Two ``Const`` nodes merge
when their values are the same tensor, or equal (same dtype, shape and bytes) and small
(at most ``MAX_CONST_ELEMENTS`` elements compared).

Attributes compare strictly: by type and value for numbers (``2``, ``2.0`` and ``True`` differ,
``0.0`` and ``-0.0`` differ, ``nan`` never matches), elementwise for tuples, by identity for
tensors, dtypes, generators and any object of a type this module does not know, and by identity
for sizes known only at run time (``SymInt`` / ``SymFloat``: two expressions are not compared).

Never merged: random ops (``RANDOM_OPS``, a ``generator`` attribute): two draws differ; graph
nodes with state or effects (placeholders, variables, assignments, ``NoOp``); fed nodes; nodes
with control inputs.
"""

from __future__ import annotations

from .rewrite import RGraph, frozen_attr, is_random

__all__ = ["MAX_CONST_ELEMENTS", "run"]

NAME = "cse"
MAX_CONST_ELEMENTS = 1 << 12


def _const_key(node):
    value = node.attrs.get("value")
    if value is None:
        return None
    if value.numel() > MAX_CONST_ELEMENTS or value._dtype.name == "string":
        return ("Const", id(value))
    try:
        data = value.numpy().tobytes()
    except Exception:  # a value NumPy cannot export: compare by identity
        return ("Const", id(value))
    return ("Const", value._dtype, tuple(value._shape), data)


def _key(node):
    if node.frozen or node.control_inputs:
        return None
    if node.type == "Const":
        return _const_key(node)
    if node.op_expr is None or is_random(node):
        return None
    try:
        attrs = tuple((k, frozen_attr(v)) for k, v in node.attrs.items())
        key = (node.op_expr, tuple(node.inputs), attrs, node.device)
        hash(key)
    except TypeError:
        return None
    return key


def run(g: RGraph, keep) -> int:
    seen: dict = {}
    merged = 0
    kinds: dict = {}
    for node in g.nodes:
        if not node.alive:
            continue
        key = _key(node)
        if key is None:
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = node
            continue
        if len(first.outputs) != len(node.outputs):
            continue
        g.replace_node(node, list(first.outputs), control_target=first)
        merged += 1
        kinds[node.type] = kinds.get(node.type, 0) + 1
    g.compact()
    if merged:
        detail = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in sorted(kinds.items()))
        g.log(NAME, f"merged {merged} node{'s' if merged != 1 else ''} ({detail})")
    return merged
