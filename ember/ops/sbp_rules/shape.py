"""SBP rules of the shape and view ops. They only move or pick elements, so a partial of any
kind passes through unchanged and a broadcast stays one; a split follows its dim where the
dim survives whole (transpose, permute, unsqueeze, a slice of another dim...), and is boxed
where the op cuts across it (indexing the split dim, a reshape that would regroup the rows of
an uneven split). Ops whose shape attribute names logical sizes (view, expand) get it
rewritten for each rank's piece (``Signature.local_attrs``).

>>> from ember.dispatch.sbp import split
>>> transpose({"dim0": 0, "dim1": 2}, (((4, 3, 2), None),), (split(0),))
(S(0)) -> (S(2))
>>> reshape({"size": (4, 6)}, (((4, 2, 3), None),), (split(0),), 2)
(S(0)) -> (S(0))
"""

from __future__ import annotations

from ...dispatch.opexpr import OP_REGISTRY
from ...dispatch.sbp import Signature, broadcast, needs_ranks, split, split_sizes

__all__ = [
    "along", "cat", "cumprod", "cumsum", "expand", "flip", "identity_split", "triangle", "getitem", "identity", "index_select", "movedim", "narrow", "permute", "reshape", "select", "split_along", "squeeze", "t", "to_copy",
    "transpose", "unbind", "unflatten", "unsqueeze",
]  # fmt: skip


def _wrap(d: int, ndim: int) -> int:
    return d + ndim if d < 0 else d


def _follow(sbps, where) -> Signature:
    """One input: a partial or broadcast passes; a split goes to ``where(dim)`` (None: box)."""
    e = sbps[0]
    if not e.is_split:
        return Signature((e,), (e,))
    out = where(e.dim)
    if out is None:
        return Signature((broadcast,), (broadcast,))
    return Signature((e,), (split(out),))


def identity(attrs, metas, sbps) -> Signature:
    """detach, contiguous: the layout passes whole."""
    return Signature((sbps[0],), (sbps[0],))


def identity_split(attrs, metas, sbps) -> Signature:
    """one_hot: the input's dims stay where they are (a class dim is added last); a split
    passes, a partial is boxed (one_hot is not linear)."""
    e = sbps[0]
    if e.is_partial:
        return Signature((broadcast,), (broadcast,))
    return Signature((e,), (e,))


def to_copy(attrs, metas, sbps) -> Signature:
    """.to(dtype)/clone: a split or broadcast passes; a partial only between floating dtypes
    (a cast to integers rounds each piece, and the sum of rounded pieces is not the rounded sum)."""
    e = sbps[0]
    src, dst = metas[0][1], attrs.get("dtype") or metas[0][1]
    if e.is_partial and src is not dst and not (src.is_floating_point and dst.is_floating_point):
        return Signature((broadcast,), (broadcast,))
    return Signature((e,), (e,))


def _permuted(order):
    """The rule of a permutation given as ``order[out_dim] = in_dim``."""
    return lambda d: order.index(d)


def transpose(attrs, metas, sbps) -> Signature:
    n = len(metas[0][0])
    if n == 0:
        return identity(attrs, metas, sbps)
    a, b = _wrap(attrs["dim0"], n), _wrap(attrs["dim1"], n)
    return _follow(sbps, lambda d: b if d == a else a if d == b else d)


def permute(attrs, metas, sbps) -> Signature:
    n = len(metas[0][0])
    order = [_wrap(d, n) for d in attrs["dims"]]
    return _follow(sbps, _permuted(order))


def t(attrs, metas, sbps) -> Signature:
    """t (a matrix's transpose, a no-op below 2-D) and mT (the last two dims)."""
    n = len(metas[0][0])
    if n < 2:
        return identity(attrs, metas, sbps)
    return _follow(sbps, lambda d: n - 1 if d == n - 2 else n - 2 if d == n - 1 else d)


def big_t(attrs, metas, sbps) -> Signature:
    """T: every dim reversed."""
    n = len(metas[0][0])
    return _follow(sbps, lambda d: n - 1 - d)


def movedim(attrs, metas, sbps) -> Signature:
    n = len(metas[0][0])
    if n == 0:
        return identity(attrs, metas, sbps)
    src = [_wrap(d, n) for d in attrs["source"]]
    dst = [_wrap(d, n) for d in attrs["destination"]]
    order = [-1] * n
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [o if o != -1 else next(rest) for o in order]
    return _follow(sbps, _permuted(order))


def unsqueeze(attrs, metas, sbps) -> Signature:
    at = _wrap(attrs["dim"], len(metas[0][0]) + 1)
    return _follow(sbps, lambda d: d if d < at else d + 1)


def squeeze(attrs, metas, sbps) -> Signature:
    shape = metas[0][0]
    dims = attrs.get("dim")
    dims = (dims,) if isinstance(dims, int) else dims
    dims = range(len(shape)) if dims is None else [_wrap(d, len(shape)) for d in dims]
    gone = {d for d in dims if shape[d] == 1}
    return _follow(sbps, lambda d: None if d in gone else d - sum(1 for g in gone if g < d))


def _reshape_target(src: tuple, dst: tuple, d: int, ranks: int):
    """The output dim a split of input dim ``d`` becomes under a reshape ``src -> dst``, or None.

    The dims are grouped (each group of input dims holds the same elements as its group of
    output dims); ``d`` must be the outermost non-unit dim of its group, and every rank's rows
    of ``d`` must fill whole rows of the group's outermost output dim (uneven splits included).
    """
    if 0 in src or src[d] <= 1:
        return None
    i = j = 0
    while i < len(src) and j < len(dst):
        gi, gj = i, j
        pa, pb = src[i], dst[j]
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                pa, i = pa * src[i], i + 1
            else:
                pb, j = pb * dst[j], j + 1
        if not gi <= d < i:
            continue
        if any(src[x] != 1 for x in range(gi, d)):
            return None
        k = next((y for y in range(gj, j) if dst[y] != 1), None)
        if k is None:
            return None
        rows_in, rows_out = pa // src[d], pa // dst[k]
        ins, outs = split_sizes(src[d], ranks), split_sizes(dst[k], ranks)
        if all(a * rows_in == b * rows_out for a, b in zip(ins, outs, strict=True)):
            return k
        return None
    return None


def _local_size(attrs, in_shapes, out_shapes):
    return {**attrs, "size": tuple(out_shapes[0])}


def _reshape_run(apply, pieces, attrs, info):
    """A piece can be strided where the logical tensor is not (a transposed split): view it
    where its strides allow, copy otherwise (reshape's own rule, per piece)."""
    (x,) = pieces
    if x.is_contiguous():
        return apply(OP_REGISTRY["view"], pieces, attrs)
    return apply(OP_REGISTRY["reshape_copy"], pieces, attrs)


@needs_ranks
def reshape(attrs, metas, sbps, ranks) -> Signature:
    """view / reshape (attr ``size``, the logical output shape): a split survives when its rows
    map to whole rows of an output dim on every rank; the piece's size is rewritten."""
    e = sbps[0]
    if not e.is_split:
        return Signature((e,), (e,), run=_reshape_run)
    out = _reshape_target(tuple(metas[0][0]), tuple(attrs["size"]), e.dim, ranks)
    if out is None:
        return Signature((broadcast,), (broadcast,), run=_reshape_run)
    return Signature((e,), (split(out),), local_attrs=_local_size, run=_reshape_run)


@needs_ranks
def unflatten(attrs, metas, sbps, ranks) -> Signature:
    """unflatten(dim, sizes): the reshape rule, the piece's ``sizes`` rewritten."""
    e = sbps[0]
    shape = tuple(metas[0][0])
    if not e.is_split:
        return Signature((e,), (e,))
    d = _wrap(attrs["dim"], len(shape))
    sizes = list(attrs["sizes"])
    if -1 in sizes:
        known = 1
        for s in sizes:
            known *= s if s != -1 else 1
        sizes[sizes.index(-1)] = shape[d] // known if known else 0
    dst = shape[:d] + tuple(sizes) + shape[d + 1 :]
    out = _reshape_target(shape, dst, e.dim, ranks)
    if out is None:
        return Signature((broadcast,), (broadcast,))

    def local(attrs, in_shapes, out_shapes):
        return {**attrs, "sizes": tuple(out_shapes[0][d : d + len(sizes)])}

    return Signature((e,), (split(out),), local_attrs=local)


def expand(attrs, metas, sbps) -> Signature:
    """expand / broadcast_to: a split of a dim that is not expanded moves to its output dim."""
    shape, size = metas[0][0], attrs["size"]
    lead = len(size) - len(shape)
    e = sbps[0]
    if not e.is_split:
        return Signature((e,), (e,))
    k = lead + e.dim
    if size[k] not in (-1, shape[e.dim]):
        return Signature((broadcast,), (broadcast,))
    return Signature((e,), (split(k),), local_attrs=_local_size)


def narrow(attrs, metas, sbps) -> Signature:
    """narrow on another dim keeps the split; narrowing the split dim boxes."""
    at = _wrap(attrs["dim"], len(metas[0][0]))
    return _follow(sbps, lambda d: None if d == at else d)


def select(attrs, metas, sbps) -> Signature:
    """select(dim, index) on another dim keeps the split (re-indexed)."""
    at = _wrap(attrs["dim"], len(metas[0][0]))
    return _follow(sbps, lambda d: None if d == at else d - (d > at))


def _full_slice(s: slice, size: int) -> bool:
    return s.step in (None, 1) and s.start in (None, 0) and (s.stop is None or (type(s.stop) is int and s.stop >= size))


def _getitem_map(key, shape):
    """{input dim: output dim} for the dims a basic key keeps whole, or None (not basic)."""
    items = key.items if hasattr(key, "items") else (key if isinstance(key, tuple) else (key,))
    used = sum(1 for it in items if it is not None and it is not Ellipsis)
    kept: dict = {}
    i = o = 0
    for it in items:
        if it is None:
            o += 1
        elif it is Ellipsis:
            for _ in range(len(shape) - used):
                kept[i] = o
                i, o = i + 1, o + 1
        elif type(it) is slice:
            if _full_slice(it, shape[i]):
                kept[i] = o
            i, o = i + 1, o + 1
        elif type(it) is int:
            i += 1
        else:
            return None
    while i < len(shape):
        kept[i] = o
        i, o = i + 1, o + 1
    return kept


def getitem(attrs, metas, sbps) -> Signature:
    """Basic indexing (ints, slices, None, ...): a split dim left whole keeps the split; an
    indexed or sliced split dim, or an advanced key, boxes."""
    e = sbps[0]
    if not e.is_split:
        return Signature((e,), (e,))
    kept = _getitem_map(attrs["key"], metas[0][0])
    if kept is None:
        return Signature((broadcast,), (broadcast,))
    return _follow(sbps, kept.get)


def split_along(attrs, metas, sbps) -> Signature:
    """split / chunk / tensor_split along ``dim``: every piece keeps a split of another dim."""
    at = _wrap(attrs["dim"], len(metas[0][0]))
    return _follow(sbps, lambda d: None if d == at else d)


def unbind(attrs, metas, sbps) -> Signature:
    """unbind(dim): every slice keeps a split of another dim (re-indexed)."""
    return select(attrs, metas, sbps)


def index_select(attrs, metas, sbps) -> Signature:
    """index_select(input, dim, index): a split of another input dim passes (the index
    broadcast); a split index splits the output along ``dim`` (the input broadcast); picking
    rows commutes with any partial of the input."""
    x, i = sbps
    at = _wrap(attrs["dim"], len(metas[0][0]))
    if x.is_split and x.dim != at:
        return Signature((x, broadcast), (x,))
    if x.is_partial and not i.is_partial:
        return Signature((x, broadcast), (x,))
    if i.is_split and len(metas[0][0]) > 0:
        return Signature((broadcast, i), (split(at),))
    return Signature((broadcast, broadcast), (broadcast,))


def along(dims_attr: str, *, partials: tuple = ("sum", "max", "min")):
    """Ops that work along the dims named by ``dims_attr`` (cumsum's dim, flip's dims, roll's
    dims, None meaning all): a split of another dim passes; a partial passes when its reduction
    commutes with the op (``partials``: any for a rearrangement, sum for cumsum)."""

    def rule(attrs, metas, sbps) -> Signature:
        n = len(metas[0][0])
        dims = attrs[dims_attr]
        dims = range(n) if dims is None else [_wrap(d, n) for d in ((dims,) if isinstance(dims, int) else dims)]
        e = sbps[0]
        if e.is_partial and e.reduce not in partials:
            return Signature((broadcast,), (broadcast,))
        return _follow(sbps, lambda d: None if d in dims else d)

    rule.__name__ = rule.__qualname__ = f"along_{dims_attr}"
    return rule


cumsum = along("dim", partials=("sum",))
cumprod = along("dim", partials=())
flip = along("dims")


def triangle(attrs, metas, sbps) -> Signature:
    """tril / triu: a split of a batch dim passes (the mask of the last two dims is by global
    position); zeroing entries keeps any partial."""
    n = len(metas[0][0])
    return _follow(sbps, lambda d: d if d < n - 2 else None)


def cat(attrs, metas, sbps) -> Signature:
    """cat along a dim that is not split keeps a split every input shares; partials of one kind
    stay (cat only places elements)."""
    ndims = {len(m[0]) for m in metas}
    n = len(sbps)
    if len(ndims) != 1:
        return Signature((broadcast,) * n, (broadcast,))
    at = _wrap(attrs["dim"], ndims.pop())
    first = sbps[0]
    if first.is_partial and all(e == first for e in sbps):
        return Signature(tuple(sbps), (first,))
    target = next((e for e in sbps if e.is_split and e.dim != at), None)
    if target is None:
        return Signature((broadcast,) * n, (broadcast,))
    return Signature((target,) * n, (target,))
