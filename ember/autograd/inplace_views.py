"""In-place writes into views of tensors that require grad: PyTorch's ``CopySlices``.

A view shares its base's memory, so an in-place op on ``v = y[0]`` changes ``y`` too. The write
is recorded on the **base**: ``y.grad_fn`` becomes a :class:`CopySlices` node that takes the
gradient of the whole base, runs the in-place op's own backward node on the slice the view covers,
and passes the rest through to the base's previous history. Every live view of the base then
reads its elements back out of that new history: its ``grad_fn`` becomes an
:class:`AsStridedBackward0` node over the base (PyTorch regenerates views' ``grad_fn`` the same
way).

>>> import ember
>>> x = ember.ones(2, 2, requires_grad=True)
>>> y = x * 1
>>> v = y[0]
>>> _ = v.mul_(3)
>>> y.grad_fn, v.grad_fn
(<CopySlices>, <AsStridedBackward0>)
>>> y.sum().backward()
>>> x.grad
tensor([[3., 3.],
        [1., 1.]])

The view's place inside its base is pure geometry: its (shape, strides, offset) and the base's,
turned into the flat (row-major) index of the base element each view element is. Backward works
on those indices with ``take`` / ``index_put`` / ``index_add``, which differentiate again, so
``create_graph`` goes through a write into a view as through any other op.
"""

from __future__ import annotations

import math
import weakref

import numpy as np

from .._core.shape import is_contiguous
from .._core.tensor_numpy import from_numpy
from ..ops.common import functional as _F
from .nodes import Node, OpNode, TensorMap

__all__ = ["AsStridedBackward0", "CopySlices", "live_views", "register_view", "view_index"]


def geometry(t) -> tuple:
    """(shape, strides, storage offset) of ``t``."""
    return (t._shape, t._stride, t._offset)


def _positions(shape: tuple, stride: tuple, offset: int) -> np.ndarray:
    """The storage position of each element of a layout (an int64 array of ``shape``)."""
    pos = np.full(shape, offset, dtype=np.int64)
    for k, (n, s) in enumerate(zip(shape, stride, strict=True)):
        if n > 1 and s:
            pos = pos + (np.arange(n, dtype=np.int64) * s).reshape([n if j == k else 1 for j in range(len(shape))])
    return pos


def view_index(base: tuple, view: tuple) -> np.ndarray:
    """For each element of the layout ``view``, the row-major index of the element of the layout
    ``base`` at the same storage position (both are (shape, strides, offset) over one storage)."""
    base_shape, base_stride, base_offset = base
    pos = _positions(*view)
    n = math.prod(base_shape)
    if pos.size == 0:
        return pos
    if is_contiguous(base_shape, base_stride):
        index = pos - base_offset
        if index.min() < 0 or index.max() >= n:
            raise NotImplementedError("in-place write into a view that reaches outside its base is not differentiable")
        return index
    base_pos = _positions(*base).reshape(-1)
    lo = int(min(base_pos.min(initial=0), pos.min()))
    hi = int(max(base_pos.max(initial=0), pos.max()))
    lookup = np.full(hi - lo + 1, -1, dtype=np.int64)
    lookup[base_pos - lo] = np.arange(n, dtype=np.int64)
    if np.count_nonzero(lookup >= 0) != n:
        raise NotImplementedError("in-place write into a view of a base whose elements overlap in memory is not differentiable")
    index = lookup[pos - lo]
    if index.size and index.min() < 0:
        raise NotImplementedError("in-place write into a view that reaches outside its base is not differentiable")
    return index


def _index_tensor(base: tuple, view: tuple):
    return from_numpy(np.ascontiguousarray(view_index(base, view)))


class CopySlices(OpNode):
    """The history of a base after an in-place op wrote into one of its views.

    ``next_functions`` are the base's previous history, then the edges of the in-place op's inputs
    other than the view itself (``fn``'s edges). Backward: the slice of the base's gradient the
    view covers goes through ``fn`` (the in-place op's node); what ``fn`` returns for the view
    replaces that slice; the rest of the gradient passes through unchanged.
    """

    __slots__ = ("_index", "base_geometry", "fn", "self_index", "view_geometry")

    def __init__(self, op, base, view, fn, self_index: int | None, base_edge: tuple) -> None:
        edges = list(fn.next_functions) if fn is not None else []
        if fn is not None and self_index is not None:
            edges[self_index] = (None, 0)  # the view's old value reaches the base's history through the slice
        Node.__init__(self, (base_edge, *edges))
        meta = (base._shape, base._dtype)
        self.op = op
        self.attrs = fn.attrs if fn is not None else {}
        self.saved_inputs = self.saved_outputs = None
        self._input_meta = (meta, *(fn.input_meta if fn is not None else ()))
        self.output_meta = (meta,)
        self.fn = fn
        self.self_index = self_index
        self.base_geometry = geometry(base)
        self.view_geometry = geometry(view)
        self._index = None

    def name(self) -> str:
        return "CopySlices"

    def index(self):
        if self._index is None:
            self._index = _index_tensor(self.base_geometry, self.view_geometry)
        return self._index

    def release(self) -> None:
        if self.fn is not None:
            self.fn.release()

    def apply(self, grads: tuple) -> tuple:
        F = _F()
        shape, dtype = self.output_meta[0]
        g = grads[0] if grads else None
        if g is None:
            g = F.zeros(shape, dtype=dtype)
        flat = g.reshape(-1)
        index = self.index()
        grad_self, others = None, ()
        if self.fn is not None:
            result = self.fn.apply((F.take(flat, index),))
            others = list(result)
            if self.self_index is not None:
                grad_self = others[self.self_index]
                others[self.self_index] = None
        if grad_self is None:
            values = F.zeros(index.numel(), dtype=g.dtype)
        else:
            values = grad_self.reshape(-1)
            if values._dtype is not g._dtype:
                values = values.to(g._dtype)
        grad_base = F.index_put(flat, (index.reshape(-1),), values).reshape(shape)
        return (grad_base, *others)


class AsStridedBackward0(Node):
    """A view's history after its base was written in place: its elements read out of the base's
    new history (the gradient is added back at the base elements the view covers)."""

    __slots__ = ("_index", "base_geometry", "base_meta", "view_geometry")

    def __init__(self, base_edge: tuple, base, view) -> None:
        super().__init__((base_edge,))
        self.base_meta = (base._shape, base._dtype)
        self.base_geometry = geometry(base)
        self.view_geometry = geometry(view)
        self._index = None

    def apply(self, grads: tuple) -> tuple:
        g = grads[0] if grads else None
        if g is None:
            return (None,)
        if self._index is None:
            self._index = _index_tensor(self.base_geometry, self.view_geometry)
        F = _F()
        shape = self.base_meta[0]
        flat = F.zeros(math.prod(shape), dtype=g.dtype)
        return (F.index_add(flat, 0, self._index.reshape(-1), g.reshape(-1)).reshape(shape),)


# -- the live views of each base -------------------------------------------------------------
# base -> {id(view): weakref to view}: the views whose grad_fn is regenerated when the base's
# history changes. Only views of bases with history are kept (a leaf's views cannot be written).

_VIEWS = TensorMap()


def register_view(base, view) -> None:
    views = _VIEWS.get(base)
    if views is None:
        views = {}
        _VIEWS[base] = views
    elif len(views) >= 32 and len(views) & (len(views) - 1) == 0:  # now and then, forget the dead
        for key, ref in list(views.items()):
            if ref() is None:
                del views[key]
    views[id(view)] = weakref.ref(view)


def live_views(base) -> list:
    views = _VIEWS.get(base)
    if not views:
        return []
    out = []
    for key, ref in list(views.items()):
        v = ref()
        if v is None or v._base is not base:
            del views[key]
        else:
            out.append(v)
    return out
