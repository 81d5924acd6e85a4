"""Algebraic simplification: operations that give back their input unchanged are bypassed.

Rules (``x`` is the surviving input; every consumer of the result reads ``x`` instead):

- ``x * 1``, ``1 * x``, ``x / 1``, ``x + 0``, ``0 + x``, ``x - 0``, ``x ** 1``: the scalar forms
  (``mul_scalar``, ``div_scalar``, ``add_scalar``, ``sub_scalar``, ``pow_scalar`` with
  ``attrs["other"]`` a plain Python number) and the tensor forms where the other operand is a
  ``Const`` of ones (zeros) of at most ``MAX_CONST_ELEMENTS`` elements;
- ``neg(neg(x))``;
- a chain of ``permute`` / ``transpose`` / ``t`` / ``T`` / ``mT`` whose permutations compose to
  the identity (``x.t().t()``);
- a chain of order-preserving reshapes (``view``, ``reshape_copy``, ``squeeze``, ``unsqueeze``,
  ``unflatten``, ``flatten``) that ends in ``x``'s own shape, and ``detach`` / ``expand`` /
  ``broadcast_to`` to ``x``'s shape; a ``view`` whose size is ``x``'s sizes with at most one -1;
- ``Identity`` without control inputs.

Never when ``x`` is a variable itself (``VariableV2``'s output, which the plan reads when each
consumer runs): bypassing ``v * 1`` or ``v.read`` would move the read, and across an
assignment that a consumer waits for, change the value it sees.

Guard, on every rule: the result's dtype is ``x``'s and its shape provably ``x``'s (equal
sizes, or the same unknown size): ``int32 * 1.0`` is float32, ``x + zeros(2, 3)`` with ``x`` of
shape (3,) broadcasts, and neither is rewritten. Nodes that are fed, have control inputs, or
are random are left alone. ``x + 0`` turns ``-0.0`` into ``+0.0``; the rewrite keeps ``-0.0``
(XLA and TensorFlow's Grappler make the same trade); the values compare equal.
"""

from __future__ import annotations

import numpy as np

from ..symbolic import SymInt
from .rewrite import RGraph, is_random, same_dim, same_shape

__all__ = ["MAX_CONST_ELEMENTS", "run"]

NAME = "algebraic"
MAX_CONST_ELEMENTS = 1 << 16



def _role(node) -> str | None:
    """How the pass may fold the node's primitive (its ``shape_role``, tagged beside the op)."""
    return node.op_expr.shape_role if node.op_expr is not None else None


def _const_all(v, target) -> bool:
    node = v.node
    if node.type != "Const" or node.frozen:
        return False
    value = node.attrs["value"]
    if value.numel() > MAX_CONST_ELEMENTS:
        return False
    try:
        a = value.numpy()
    except Exception:  # a dtype NumPy cannot compare: not an identity we can prove
        return False
    return bool(np.all(a == target))


def _perm(node, rank: int) -> tuple | None:
    """The permutation a permuting node applies (output dim i = input dim p[i])."""
    t = node.type
    if t == "permute":
        dims = node.attrs.get("dims")
        if dims is None or len(dims) != rank or any(isinstance(d, SymInt) for d in dims):
            return None
        p = tuple(int(d) % rank if rank else 0 for d in dims)
        return p if sorted(p) == list(range(rank)) else None
    p = list(range(rank))
    if t == "transpose":
        d0, d1 = node.attrs.get("dim0"), node.attrs.get("dim1")
        if not isinstance(d0, int) or not isinstance(d1, int) or rank == 0:
            return None if rank else tuple(p)
        d0, d1 = d0 % rank, d1 % rank
        p[d0], p[d1] = p[d1], p[d0]
    elif t == "t":
        if rank == 2:
            p = [1, 0]
    elif t == "T":
        p = p[::-1]
    elif t == "mT":
        if rank < 2:
            return None
        p[-1], p[-2] = p[-2], p[-1]
    return tuple(p)


def _usable(node) -> bool:
    return node.alive and not node.frozen and not node.control_inputs


def _identity_input(node):
    """The input ``node`` equals, or None."""
    t = node.type
    if t == "Identity":
        return node.inputs[0] if node.inputs else None
    if node.op_expr is None or is_random(node) or len(node.outputs) != 1:
        return None
    identity = node.op_expr.right_identity  # x * 1, x + 0, x ** 1 (tagged beside the op)
    if identity is not None:
        other = node.attrs.get("other")
        if type(other) in (int, float) and other == identity:
            return node.inputs[0]
        return None
    if t in ("mul", "add", "sub", "div") and len(node.inputs) == 2:
        a, b = node.inputs
        unit = 1 if t in ("mul", "div") else 0
        if _const_all(b, unit):
            return a
        if t in ("mul", "add") and _const_all(a, unit):
            return b
        return None
    if t == "neg":
        inner = node.inputs[0].node
        if inner.type == "neg" and _usable(inner) and inner.inputs:
            return inner.inputs[0]
        return None
    role = _role(node)
    if role == "permute":
        rank = node.outputs[0].static.rank
        if rank is None:
            return None
        p = _perm(node, rank)
        src = node.inputs[0]
        # walk up the chain of permutes, composing
        while p is not None:
            if p == tuple(range(rank)):
                return src
            inner = src.node
            if _role(inner) != "permute" or not _usable(inner) or not inner.inputs:
                return None
            q = _perm(inner, rank)
            if q is None:
                return None
            p = tuple(q[i] for i in p)
            src = inner.inputs[0]
        return None
    if role == "reshape":
        out = node.outputs[0]
        if t == "view" and _view_keeps_shape(node):
            return node.inputs[0]
        src = node.inputs[0]
        while True:
            if same_shape(src.shape, out.shape) and src.static == out.static:
                return src
            inner = src.node
            if _role(inner) != "reshape" or not _usable(inner) or not inner.inputs:
                return None
            src = inner.inputs[0]
    if role == "identity_if_same_shape" and node.inputs:
        return node.inputs[0]
    return None


def _view_keeps_shape(node) -> bool:
    size = node.attrs.get("size")
    x = node.inputs[0]
    if not isinstance(size, tuple) or x.static.rank is None or len(size) != len(x.shape):
        return False
    wild = 0
    for s, d in zip(size, x.shape, strict=True):
        if not isinstance(s, SymInt) and s == -1:
            wild += 1
        elif not same_dim(s, d):
            return False
    return wild <= 1


def run(g: RGraph, keep) -> int:
    changed = 0
    kinds: dict = {}
    for node in list(g.nodes):
        if not _usable(node):
            continue
        x = _identity_input(node)
        if x is None:
            continue
        out = node.outputs[0]
        if x.dtype is not out.dtype or not same_shape(x.shape, out.shape) or x.static != out.static:
            continue
        if x.node.type == "VariableV2":
            continue  # a consumer reads a variable when it runs: bypassing would move the read
        g.replace_node(node, [x], control_target=x.node)
        changed += 1
        kinds[node.type] = kinds.get(node.type, 0) + 1
    g.compact()
    if changed:
        detail = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in sorted(kinds.items()))
        g.log(NAME, f"bypassed {changed} identity op{'s' if changed != 1 else ''} ({detail})")
    return changed
