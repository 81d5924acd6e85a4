"""TensorFlow 1's indexing, selection and reordering ops: ``gather`` (``axis``, ``batch_dims``),
``gather_nd``, ``scatter_nd``, ``one_hot``, ``where`` (TensorFlow 1's rule: a vector condition
picks rows), ``slice``, ``strided_slice``, ``pad``, ``reverse``, ``sort``/``argsort``,
``meshgrid``, ``sequence_mask``, and the old ``tf.diag``/``tf.diag_part``.

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     g = tf.gather([[1, 2], [3, 4], [5, 6]], [2, 0])
...     tf.Session().run(g).tolist(), g.op.type
([[5, 6], [1, 2]], 'GatherV2')
"""

from __future__ import annotations

import builtins

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor as _EmberTensor
from ...ops import functional as F
from ._common import as_pair, check_dtype, known_dims, static_axes, static_shape, static_value, tensor
from .array_ops import reshape
from .data_dependent import where_coordinates
from .framework import op_scope
from .shape_ops import dims_of

__all__ = [
    "argsort", "boolean_mask", "diag", "diag_part", "gather", "gather_nd", "meshgrid", "one_hot", "pad", "reverse", "reverse_v2", "scatter_nd",
    "sequence_mask", "slice", "sort", "strided_slice", "where", "where_v2",
]  # fmt: skip

_INDEX = (_dt.int32, _dt.int64)


def _indices(value, arg: str = "indices"):
    t = tensor(value, arg)
    check_dtype(t, _INDEX, arg)
    return t if t._dtype is _dt.int64 else t.to(_dt.int64)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of ``params`` along ``axis`` (0 by default) at ``indices`` (any shape): the result's
    shape is ``params.shape[:axis] + indices.shape + params.shape[axis + 1:]``; with
    ``batch_dims`` b, the first b axes of both index each other one to one."""
    with op_scope(name, "GatherV2", (params, indices)) as scope:
        p = tensor(params, "params")
        idx = _indices(indices)
        b = int(batch_dims)
        if b < 0:
            b += static_shape(idx).rank
        (dim,) = static_axes(b if axis is None else static_value(axis, "gather(): axis"), static_shape(p).rank, "gather")
        if dim < b:
            raise ValueError(f"batch_dims ({b}) must be less than or equal to axis ({dim}).")
        if b:
            if dim != b:
                raise NotImplementedError("gather(): batch_dims with axis other than batch_dims is not supported")
            batch = 1
            for d in builtins.range(b):
                batch = batch * p.size(d)
            flat = F.reshape(p, (batch, *tuple(p.size())[b:]))
            rows = F.reshape(F.arange(batch, dtype=_dt.int64), (batch,) + (1,) * (idx.ndim - b))
            offsets = F.add(F.mul(rows, p.size(b)), F.reshape(idx, (batch, *tuple(idx.size())[b:])))
            merged = F.reshape(flat, (-1, *tuple(p.size())[b + 1 :]))
            picked = F.index_select(merged, 0, F.reshape(offsets, (-1,)))
            result = F.reshape(picked, (*tuple(p.size())[:b], *tuple(idx.size())[b:], *tuple(p.size())[b + 1 :]))
            return scope.out(result, "GatherV2")
        picked = F.index_select(p, dim, F.reshape(idx, (-1,)))
        shape = (*tuple(p.size())[:dim], *tuple(idx.size()), *tuple(p.size())[dim + 1 :])
        return scope.out(F.reshape(picked, shape), "GatherV2")


def _flat_index(p, idx, what: str):
    depth = known_dims(idx, "gather_nd")[-1]
    if depth is None:
        raise ValueError(f"{what}: the last axis of indices (the index depth) must be known")
    if depth > static_shape(p).rank:
        raise ValueError(f"{what}: index depth {depth} is larger than the rank {static_shape(p).rank} of params")
    return depth


def _linear(idx, strides):
    """The row-major position of each index vector (``idx``'s last axis) given the strides."""
    flat = None
    for k, stride in enumerate(strides):
        term = F.mul(F.select(idx, -1, k), stride)
        flat = term if flat is None else F.add(flat, term)
    return flat


def gather_nd(params, indices, name=None, batch_dims=0):
    """The elements (or slices) of ``params`` at the index vectors along ``indices``' last axis."""
    if batch_dims:
        raise NotImplementedError("gather_nd(): batch_dims is not supported")
    with op_scope(name, "GatherNd", (params, indices)) as scope:
        p = tensor(params, "params")
        idx = _indices(indices)
        depth = _flat_index(p, idx, "gather_nd")
        sizes = tuple(p.size())
        strides = [1] * depth
        for k in builtins.range(depth - 2, -1, -1):
            strides[k] = strides[k + 1] * sizes[k + 1]
        flat = _linear(idx, strides) if depth else F.zeros(tuple(idx.size())[:-1], dtype=_dt.int64)
        rows = F.reshape(p, (-1, *sizes[depth:]))
        picked = F.index_select(rows, 0, F.reshape(flat, (-1,)))
        return scope.out(F.reshape(picked, (*tuple(idx.size())[:-1], *sizes[depth:])), "GatherNd")


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of ``shape`` with ``updates`` added at the index vectors of ``indices``
    (repeated indices sum)."""
    with op_scope(name, "ScatterNd", (indices, updates)) as scope:
        idx = _indices(indices)
        u = tensor(updates, "updates")
        dims = dims_of(shape, "scatter_nd(): shape")
        depth = known_dims(idx, "scatter_nd")[-1]
        if depth is None or depth > len(dims):
            raise ValueError(f"scatter_nd(): the index depth {depth} must be known and at most the rank {len(dims)} of shape")
        strides = [1] * depth
        for k in builtins.range(depth - 2, -1, -1):
            strides[k] = strides[k + 1] * dims[k + 1]
        flat = _linear(idx, strides)
        rows = 1
        for d in dims[:depth]:
            rows = rows * d
        base = F.zeros((rows, *dims[depth:]), dtype=u._dtype)
        filled = F.index_add(base, 0, F.reshape(flat, (-1,)), F.reshape(u, (-1, *dims[depth:])))
        return scope.out(F.reshape(filled, dims), "ScatterNd")


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """Vectors of length ``depth`` with ``on_value`` (1) at each index and ``off_value`` (0)
    elsewhere, along a new axis ``axis`` (last by default); an index outside [0, depth) gives
    all ``off_value``. The dtype is ``dtype``, else ``on_value``'s/``off_value``'s, else float32."""
    with op_scope(name, "one_hot", (indices,)) as scope:
        idx = tensor(indices, "indices")
        check_dtype(idx, (_dt.uint8, _dt.int32, _dt.int64), "indices")
        n = int(static_value(depth, "one_hot(): depth"))
        given = [v for v in (on_value, off_value) if v is not None]
        if dtype is None:
            dtype = next((v._dtype for v in given if hasattr(v, "_dtype")), None)
            if dtype is None:
                dtype = tensor(given[0], "on_value")._dtype if given else _dt.float32
        dtype = _dt.as_dtype(dtype, op="one_hot", arg="dtype")
        on = tensor(
            1 if on_value is None else on_value,
            "on_value",
            dtype=dtype if on_value is None or not hasattr(on_value, "_dtype") else None,
        )
        off = tensor(
            0 if off_value is None else off_value,
            "off_value",
            dtype=dtype if off_value is None or not hasattr(off_value, "_dtype") else None,
        )
        for arg, v in (("on_value", on), ("off_value", off)):
            if v._dtype is not dtype:
                raise TypeError(f"dtype {dtype.name} of {arg} does not match dtype parameter {v._dtype.name}")
        hits = F.eq(F.unsqueeze(idx.to(_dt.int64), -1), F.arange(n, dtype=_dt.int64))
        result = F.where(hits, on, off)
        ndim = static_shape(idx).rank
        if axis is not None and axis != -1:
            if not 0 <= axis <= ndim:
                raise ValueError(f"one_hot(): axis must be -1 or in [0, {ndim}], got {axis}")
            result = F.movedim(result, -1, axis)
        return scope.out(result, "OneHot")


def where(condition, x=None, y=None, name=None):
    """TensorFlow 1's ``where``: with ``x`` and ``y`` (of one shape), their elements where
    ``condition`` is true and false; a vector condition picks whole rows. With ``condition``
    alone, the int64 coordinates of its true elements (node ``Where``)."""
    if x is None and y is None:
        return where_coordinates(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    with op_scope(name, "Select", (condition, x, y)) as scope:
        c = tensor(condition, "condition")
        check_dtype(c, (_dt.bool_,), "condition")
        xt, yt = as_pair(x, y, "Select", "x", "t")
        xs, ys, cs = known_dims(xt, "where"), known_dims(yt, "where"), known_dims(c, "where")
        if len(xs) != len(ys) or any(a is not None and b is not None and a != b for a, b in zip(xs, ys, strict=True)):
            raise ValueError(f"Shapes must be equal rank, and the same: {xt.shape} and {yt.shape} for 'Select'")
        if len(cs) == 1 and len(xs) > 1:
            c = F.reshape(c, (-1,) + (1,) * (len(xs) - 1))
        elif len(cs) != len(xs) and len(cs) != 0:
            raise ValueError(f"Shapes must be equal rank, but are {len(cs)} and {len(xs)} for 'Select'")
        return scope.out(F.where(c, xt, yt), "Select")


def where_v2(condition, x=None, y=None, name=None):
    """TensorFlow 2's ``where``: ``condition``, ``x`` and ``y`` broadcast together (node ``SelectV2``)."""
    if x is None or y is None:
        return where(condition, x, y, name)
    with op_scope(name, "SelectV2", (condition, x, y)) as scope:
        c = tensor(condition, "condition")
        check_dtype(c, (_dt.bool_,), "condition")
        xt, yt = as_pair(x, y, "SelectV2", "x", "t")
        return scope.out(F.where(c, xt, yt), "SelectV2")


def reverse(tensor_, axis, name=None, tensor=None):
    """``tensor`` with the order of elements reversed along each axis of ``axis`` (``ReverseV2``)."""
    value = tensor if tensor is not None else tensor_
    with op_scope(name, "ReverseV2", (value,)) as scope:
        x = _t(value, "tensor")
        dims = static_axes(axis, static_shape(x).rank, "reverse")
        return scope.out(F.flip(x, dims), "ReverseV2")


reverse_v2 = reverse


def _t(value, name):
    return tensor(value, name)


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """The block of ``input_`` from ``begin`` of ``size`` (a size of -1 takes the rest of that axis)."""
    with op_scope(name, "Slice", (input_,)) as scope:
        x = _t(input_, "input")
        starts, sizes = dims_of(begin, "slice(): begin"), dims_of(size, "slice(): size")
        if len(starts) != static_shape(x).rank or len(sizes) != static_shape(x).rank:
            raise ValueError(f"slice(): begin and size need one entry per axis of the rank-{static_shape(x).rank} input")
        result = x
        for d, (b, n) in enumerate(zip(starts, sizes, strict=True)):
            full = x.size(d)
            n = full - b if n == -1 else n
            if b < 0 or n < 0 or (not _unknown(x, d) and b + n > full):
                raise ValueError(f"slice(): Expected begin[{d}] + size[{d}] <= {full} (begin {b}, size {n})")
            if b != 0 or n is not full:
                result = F.narrow(result, d, b, n)
        return scope.out(F.clone(result) if result is x else result, "Slice")


def _unknown(x, d: int) -> bool:
    return known_dims(x, "strided_slice")[d] is None


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
                  var=None, name=None):  # fmt: skip
    """NumPy-style slicing ``input_[begin:end:strides]`` with TensorFlow's bit masks (bit i of
    ``begin_mask``/``end_mask`` ignores begin[i]/end[i], ``shrink_axis_mask`` takes one element,
    ``new_axis_mask`` inserts an axis, ``ellipsis_mask`` is ``...``)."""
    with op_scope(name, "StridedSlice", (input_,)) as scope:
        x = _t(input_, "input")
        starts, ends = dims_of(begin, "strided_slice(): begin"), dims_of(end, "strided_slice(): end")
        steps = (1,) * len(starts) if strides is None else dims_of(strides, "strided_slice(): strides")
        key = []
        for i, (b, e, s) in enumerate(zip(starts, ends, steps, strict=True)):
            bit = 1 << i
            if ellipsis_mask & bit:
                key.append(Ellipsis)
            elif new_axis_mask & bit:
                key.append(None)
            elif shrink_axis_mask & bit:
                key.append(b)
            else:
                if s == 0:
                    raise ValueError("strided_slice(): strides must be non-zero")
                key.append(builtins.slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
        result = _index(x, tuple(key))
        return scope.out(result, "StridedSlice")


def _index(x, key: tuple):
    # ember's indexing takes positive steps only (PyTorch's rule): a negative step is a flip
    # of the axis followed by the mirrored positive slice
    out_key = []
    flips = []
    axis = 0
    for k in key:
        if k is None:
            out_key.append(None)
            continue
        if k is Ellipsis:
            out_key.append(k)
            axis = static_shape(x).rank - builtins.sum(1 for j in key[key.index(k) + 1 :] if j is not None)
            continue
        if isinstance(k, builtins.slice) and k.step is not None and k.step < 0:
            if _unknown(x, axis):
                raise NotImplementedError("strided_slice(): a negative stride along an axis of unknown size is not supported")
            n = x.size(axis)
            start, stop, step = k.indices(n)
            # mirrored positions in the flipped axis: i -> n - 1 - i
            first = n - 1 - start
            last = n - 1 - stop if stop is not None else n
            flips.append(axis)
            out_key.append(builtins.slice(first, last, -step))
        else:
            out_key.append(k)
        axis += 1
    if flips:
        x = F.flip(x, tuple(flips))
    return _EmberTensor.__getitem__(x, tuple(out_key))


def pad(tensor_, paddings, mode="CONSTANT", name=None, constant_values=0, tensor=None):
    """``tensor`` padded by ``paddings[i] = [before, after]`` along each axis: with
    ``constant_values`` (CONSTANT), a mirror without the edge (REFLECT) or with it (SYMMETRIC)."""
    value = tensor if tensor is not None else tensor_
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"Unknown padding mode: {mode}")
    fill = static_value(constant_values, "pad(): constant_values")
    default = "MirrorPad" if mode != "CONSTANT" else "Pad" if fill == 0 else "PadV2"
    with op_scope(name, default, (value,)) as scope:
        x = _t(value, "tensor")
        pads = (
            np.asarray(static_value(paddings, "pad(): paddings"), dtype=np.int64).reshape(-1, 2) if paddings is not None else None
        )
        if pads.shape[0] != static_shape(x).rank:
            raise ValueError(
                f"The first dimension of paddings must be the rank of inputs [{static_shape(x).rank},2], got {list(pads.shape)}"
            )
        if (pads < 0).any():
            raise ValueError("pad(): paddings must be non-negative")
        if mode == "CONSTANT":
            flat = [int(v) for pair in pads[::-1] for v in pair]
            return scope.out(F.pad(x, flat, value=fill), "Pad" if fill == 0 else "PadV2")
        result = x
        for d, (before, after) in enumerate(pads.tolist()):
            result = _mirror(result, d, before, after, mode == "SYMMETRIC")
        return scope.out(result, "MirrorPad")


def _mirror(x, d: int, before: int, after: int, symmetric: bool):
    n = x.size(d)
    limit = n if symmetric else n - 1
    if before > limit or after > limit:
        raise ValueError(f"pad(): paddings must be no greater than the dimension size: {before}, {after} greater than {limit}")
    parts = []
    skip = 0 if symmetric else 1
    if before:
        parts.append(F.flip(F.narrow(x, d, skip, before), (d,)))
    parts.append(x)
    if after:
        parts.append(F.flip(F.narrow(x, d, n - after - skip, after), (d,)))
    return F.cat(parts, d) if len(parts) > 1 else x


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (stable; ``direction`` "ASCENDING" or "DESCENDING")."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Unknown direction: {direction}")
    with op_scope(name, "sort", (values,)) as scope:
        x = _t(values, "values")
        (dim,) = static_axes(axis, static_shape(x).rank, "sort")
        return scope.out(F.sort(x, dim=dim, descending=direction == "DESCENDING", stable=True)[0])


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis``."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Unknown direction: {direction}")
    with op_scope(name, "argsort", (values,)) as scope:
        x = _t(values, "values")
        (dim,) = static_axes(axis, static_shape(x).rank, "argsort")
        order = F.sort(x, dim=dim, descending=direction == "DESCENDING", stable=True)[1]
        return scope.out(order.to(_dt.int32), "Cast")


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-d tensors: ``indexing="xy"`` (default, Cartesian) or "ij" (matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"meshgrid(): unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with op_scope(name, "meshgrid", args):
        tensors = [F.reshape(_t(a, "x"), (-1,)) for a in args]
        return list(F.meshgrid(*tensors, indexing=indexing))


def sequence_mask(lengths, maxlen=None, dtype=_dt.bool_, name=None):
    """``mask[..., j] = j < lengths[...]``, with ``maxlen`` columns (the largest length by default)."""
    dtype = _dt.as_dtype(dtype, op="sequence_mask", arg="dtype")
    with op_scope(name, "SequenceMask", (lengths,)) as scope:
        lens = tensor(lengths, "lengths")
        check_dtype(lens, (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8), "lengths")
        if maxlen is None:
            raise NotImplementedError(
                "sequence_mask(): maxlen=None sizes the result by the values; give maxlen in ember's graph mode"
            )
        n = int(static_value(maxlen, "sequence_mask(): maxlen"))
        mask = F.lt(F.arange(n, dtype=lens._dtype), F.unsqueeze(lens, -1))
        return scope.out(mask if dtype is _dt.bool_ else mask.to(dtype), "Less" if dtype is _dt.bool_ else "Cast")


def diag(diagonal, name=None):
    """TensorFlow 1's ``tf.diag``: a rank-2k tensor with ``diagonal`` (rank k) on its diagonal."""
    with op_scope(name, "Diag", (diagonal,)) as scope:
        d = _t(diagonal, "diagonal")
        dims = known_dims(d, "diag")
        if not dims or None in dims:
            raise ValueError(f"diag(): the input must have a known shape of rank >= 1, got {d.shape}")
        return scope.out(F.reshape(F.diag(F.reshape(d, (-1,))), (*dims, *dims)), "Diag")


def diag_part(input, name=None):  # noqa: A002 - TensorFlow's name
    """TensorFlow 1's ``tf.diag_part``: the inverse of ``tf.diag`` (input of shape ``s + s``)."""
    with op_scope(name, "DiagPart", (input,)) as scope:
        x = _t(input, "input")
        dims = known_dims(x, "diag_part")
        k = len(dims) // 2
        if len(dims) % 2 or dims[:k] != dims[k:] or None in dims or not dims:
            raise ValueError(f"diag_part(): the input shape must be s + s for a known s, got {x.shape}")
        n = int(np.prod(dims[:k]))
        return scope.out(F.reshape(F.diagonal(F.reshape(x, (n, n))), tuple(dims[:k])), "DiagPart")


def boolean_mask(tensor_, mask, name="boolean_mask", axis=None, tensor=None):
    """The elements (or slices) of ``tensor`` where ``mask`` is true: ``mask``'s k axes match
    ``tensor``'s axes from ``axis`` (0) on, and the result has one axis for them."""
    value = tensor if tensor is not None else tensor_
    with op_scope(name, "boolean_mask", (value, mask)) as scope:
        x = _t(value, "tensor")
        m = _t(mask, "mask")
        check_dtype(m, (_dt.bool_,), "mask")
        k, ndim = static_shape(m).rank, static_shape(x).rank
        start = 0 if axis is None else int(axis) % ndim
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        if start + k > ndim:
            raise ValueError(f"boolean_mask(): a rank-{k} mask from axis {start} does not fit a rank-{ndim} tensor")
        for a, b in zip(known_dims(x, "boolean_mask")[start : start + k], known_dims(m, "boolean_mask"), strict=True):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Shapes {x.shape} and {m.shape} are incompatible")
        lead = x.size()[:start]
        merged = reshape(x, [*lead, -1, *x.size()[start + k :]]) if k > 1 else x
        flat_mask = reshape(m, [-1]) if k > 1 else m
        coords = where_coordinates(flat_mask)
        if start:  # the masked axis to the front, gathered, and back
            return scope.out(F.movedim(gather_nd(F.movedim(merged, start, 0), coords), 0, start), "GatherV2")
        return scope.out(gather_nd(merged, coords), "GatherV2")
