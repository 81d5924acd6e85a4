"""SBP: how a logical tensor lies across the ranks of one mesh dimension (OneFlow's ``sbp``).

- ``split(dim)``: each rank holds one slice along ``dim``. An uneven split follows OneFlow's rule:
  pieces differ by at most one element and the first ranks take the larger ones (10 over 4 ranks
  is 3, 3, 2, 2).
- ``broadcast``: every rank holds the whole tensor.
- ``partial_sum`` / ``partial_max`` / ``partial_min``: every rank holds a tensor of the logical
  shape and the logical value is their sum (max, min).

A global tensor has one entry per mesh dimension, given as a tuple (nd-SBP). This file is the
language of SBP signatures: ops state their rules in it (``OpExpr.tag(sbp=...)``, see
``ember/ops/sbp_rules.py``) and ``ember.distributed.tensor`` carries them out.

>>> split(0), broadcast, partial_sum, split_sizes(10, 4), split_range(10, 4, 3)
(sbp.split(dim=0), sbp.broadcast, sbp.partial_sum, [3, 3, 2, 2], (8, 10))
"""

from __future__ import annotations

import threading

__all__ = [
    "AMBIENT", "SBP", "Signature", "broadcast", "needs_ranks", "normalize", "partial_max", "partial_min", "partial_sum", "split", "split_range",
    "split_sizes",
]  # fmt: skip


class SBP:
    """One entry of an SBP signature. Compare with ``==``; ``kind`` is "S", "B" or "P"."""

    __slots__ = ("dim", "kind", "reduce")

    def __init__(self, kind: str, dim: int | None = None, reduce: str | None = None) -> None:
        self.kind = kind
        self.dim = dim
        self.reduce = reduce  # "sum", "max" or "min" for a partial

    @property
    def is_split(self) -> bool:
        return self.kind == "S"

    @property
    def is_broadcast(self) -> bool:
        return self.kind == "B"

    @property
    def is_partial(self) -> bool:
        return self.kind == "P"

    def __eq__(self, other) -> bool:
        return isinstance(other, SBP) and (self.kind, self.dim, self.reduce) == (other.kind, other.dim, other.reduce)

    def __hash__(self) -> int:
        return hash((self.kind, self.dim, self.reduce))

    def __repr__(self) -> str:
        if self.kind == "S":
            return f"sbp.split(dim={self.dim})"
        return "sbp.broadcast" if self.kind == "B" else f"sbp.partial_{self.reduce}"

    def short(self) -> str:
        """``S(0)``, ``B``, ``P(sum)``: how traces and messages write it."""
        if self.kind == "S":
            return f"S({self.dim})"
        return "B" if self.kind == "B" else f"P({self.reduce})"


_SPLITS: dict[int, SBP] = {}


def split(dim: int) -> SBP:
    """Each rank of the mesh dimension holds one slice of ``dim`` (a non-negative dim)."""
    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 0:
        raise ValueError(f"sbp.split(): dim must be a non-negative int, got {dim!r}")
    found = _SPLITS.get(dim)
    if found is None:
        found = _SPLITS[dim] = SBP("S", dim=dim)
    return found


broadcast = SBP("B")
partial_sum = SBP("P", reduce="sum")
partial_max = SBP("P", reduce="max")
partial_min = SBP("P", reduce="min")


def normalize(sbp, mesh_ndim: int, ndim: int, fn: str) -> tuple[SBP, ...]:
    """An SBP or a tuple of them, checked against the mesh and the tensor's rank."""
    entries = (sbp,) if isinstance(sbp, SBP) else sbp
    if not isinstance(entries, (tuple, list)) or not all(isinstance(e, SBP) for e in entries):
        raise TypeError(
            f"{fn}(): sbp must be an sbp (ember.sbp.split(d), broadcast, partial_sum...) or a tuple of them, got {sbp!r}"
        )
    entries = tuple(entries)
    if len(entries) != mesh_ndim:
        raise ValueError(
            f"{fn}(): sbp has {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} {entries}, but the placement's mesh has {mesh_ndim} dimension(s): give one per mesh dimension"
        )
    for e in entries:
        if e.is_split and e.dim >= ndim:
            raise ValueError(f"{fn}(): {e!r} splits dim {e.dim}, but the tensor has {ndim} dimension(s)")
    return entries


def split_sizes(size: int, parts: int) -> list[int]:
    """The piece of each rank when ``size`` elements are split over ``parts`` ranks."""
    base, extra = divmod(size, parts)
    return [base + 1 if i < extra else base for i in range(parts)]


def split_range(size: int, parts: int, index: int) -> tuple[int, int]:
    """[start, stop) of piece ``index``."""
    base, extra = divmod(size, parts)
    start = index * base + min(index, extra)
    return start, start + base + (1 if index < extra else 0)


class Signature:
    """What an op's SBP rule decides for one mesh dimension: the layout each input must have
    (the interpreter boxes inputs that differ) and the layout of each output.

    ``local_attrs(attrs, in_shapes, out_shapes)``, when given, rewrites attributes that name
    logical sizes (reshape's shape) for a rank's pieces. ``run(apply, pieces, attrs, info)``,
    when given, computes a rank's outputs in place of the op's own kernel (mean over a split dim
    is a local sum scaled by the global count); ``apply(op, inputs, attrs)`` runs any op locally,
    and ``info`` holds the ``op``, the ``placement``, the ``rank`` and its mesh ``coord``, the
    ``signatures`` (one per mesh dim), the boxed global ``inputs`` and the outputs' ``metas``.
    """

    __slots__ = ("inputs", "local_attrs", "outputs", "run")

    def __init__(self, inputs: tuple, outputs: tuple, *, local_attrs=None, run=None) -> None:
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.local_attrs = local_attrs
        self.run = run

    def __repr__(self) -> str:
        ins = ", ".join(e.short() for e in self.inputs)
        outs = ", ".join(e.short() for e in self.outputs)
        return f"({ins}) -> ({outs})"


def needs_ranks(rule):
    """Mark an SBP rule that needs the mesh dimension's size: it is then called
    ``rule(attrs, metas, sbps, ranks)``. Uneven splits make some rules depend on it (a reshape
    keeps a split only when every rank's rows stay whole; a max over a split dim needs no empty piece)."""
    rule.needs_ranks = True
    return rule


class _Ambient(threading.local):
    """While autograd runs the derivative of an op on global tensors (``ACTIVE[0]`` once any
    global tensor exists), ``placement`` is theirs: a tensor the derivative makes from metadata
    alone (``zeros(shape)``, ``arange(n)``) is then made global on it, broadcast, as every rank
    computes the same one, instead of a local tensor the global op would refuse."""

    placement = None


AMBIENT = _Ambient()
ACTIVE = [False]  # set when the first global tensor routes ops to the global interpreter
