"""The backward graph as Graphviz DOT text (``dot -Tsvg graph.dot``): no graphviz needed to write it.

One box per node, named as PyTorch names them (``ReluBackward0``); a leaf's ``AccumulateGrad``
is labeled with the leaf's shape (and its name, given ``params``); an edge leads from each node
to each of its ``next_functions`` (labeled with the input's output number when it is not 0).
The tensor the graph was drawn from is an extra node at the top.

>>> import ember
>>> x = ember.ones(2, 3, requires_grad=True)
>>> print(to_dot((x * 2).relu().sum()))  # doctest: +NORMALIZE_WHITESPACE
digraph backward {
  node [shape=box, style="rounded,filled", fillcolor=lightgrey, fontname=monospace, fontsize=12];
  t0 [label="tensor ()", fillcolor=darkolivegreen1];
  n0 [label="SumBackward0"];
  n1 [label="ReluBackward0"];
  n2 [label="MulBackward0"];
  n3 [label="AccumulateGrad\\n(2, 3)", fillcolor=lightblue];
  t0 -> n0;
  n0 -> n1;
  n1 -> n2;
  n2 -> n3;
}
"""

from __future__ import annotations

from .._core.tensor import Tensor
from .nodes import AccumulateGrad, Node, OpNode, accumulate_grad_node

__all__ = ["save_dot", "to_dot"]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(t: Tensor) -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ("," if t.ndim == 1 else "") + ")"


def _saved_of(node: Node) -> list[tuple[str, Tensor]]:
    """(label, tensor) for each tensor a node keeps for its backward (nothing once freed)."""
    out = []
    if isinstance(node, OpNode):
        for kind, items in (("input", node.saved_inputs), ("output", node.saved_outputs)):
            for i, item in enumerate(items or ()):
                if item is not None:
                    out.append((f"saved {kind} {i}", item[0]))
        return out
    saved = getattr(node, "_saved", None)
    if isinstance(saved, tuple):  # a custom Function's ctx.save_for_backward
        for i, item in enumerate(saved):
            if item is not None:
                out.append((f"saved {i}", item[0]))
    return out


def to_dot(tensor_or_node, *, show_saved: bool = False, params: dict | None = None) -> str:
    """The backward graph of a tensor (from its ``grad_fn``) or of a node, as DOT text.

    ``show_saved`` adds the tensors each node saved for backward (dashed, orange); ``params``
    (``dict(model.named_parameters())``) names the leaves.
    """
    names = {id(p): name for name, p in (params or {}).items()}
    lines = [
        "digraph backward {",
        '  node [shape=box, style="rounded,filled", fillcolor=lightgrey, fontname=monospace, fontsize=12];',
    ]
    edges: list[str] = []
    roots: list[Node] = []
    if isinstance(tensor_or_node, Tensor):
        t = tensor_or_node
        lines.append(f"  t0 [label={_quote('tensor ' + _shape(t))}, fillcolor=darkolivegreen1];")
        root = t.grad_fn if t.grad_fn is not None else (accumulate_grad_node(t) if t._requires_grad else None)
        if root is not None:
            roots.append(root)
            edges.append("  t0 -> n0;")
    elif isinstance(tensor_or_node, Node):
        roots.append(tensor_or_node)
    else:
        raise TypeError(f"to_dot(): expected a Tensor or an autograd Node, got {type(tensor_or_node).__name__}")
    ids: dict[int, str] = {}
    order: list[Node] = []

    def ident(node: Node) -> str:
        key = id(node)
        if key not in ids:
            ids[key] = f"n{len(ids)}"
            order.append(node)
        return ids[key]

    for root in roots:
        ident(root)
    i = 0
    saved_count = 0
    while i < len(order):  # breadth first: ids follow distance from the root
        node = order[i]
        i += 1
        me = ids[id(node)]
        if isinstance(node, AccumulateGrad):
            var = node.variable
            label = "AccumulateGrad\n" + (names[id(var)] + " " if id(var) in names else "") + _shape(var)
            lines.append(f"  {me} [label={_quote(label)}, fillcolor=lightblue];")
        else:
            lines.append(f"  {me} [label={_quote(node.name())}];")
        for nxt, nr in node.next_functions:
            if nxt is None:
                continue
            attr = f" [label={_quote(str(nr))}]" if nr else ""
            edges.append(f"  {me} -> {ident(nxt)}{attr};")
        if show_saved:
            for label, saved in _saved_of(node):
                sid = f"s{saved_count}"
                saved_count += 1
                lines.append(f"  {sid} [label={_quote(label + chr(10) + _shape(saved))}, fillcolor=orange];")
                edges.append(f"  {sid} -> {me} [style=dashed, dir=none];")
    return "\n".join([*lines, *edges, "}"]) + "\n"


def save_dot(tensor_or_node, path, **kwargs) -> str:
    """Write ``to_dot(tensor_or_node, **kwargs)`` to ``path``; returns the path."""
    text = to_dot(tensor_or_node, **kwargs)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)
