"""TensorFlow 1's reshaping, joining and creation ops: ``reshape``, ``transpose``, ``concat``,
``stack``, ``split``, ``squeeze``, ``tile``, ``zeros``, ``range``... A shape argument may come
from ``tf.shape`` (``shape_ops.py`` reads it back into sizes).

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     parts = tf.split(tf.reshape(tf.range(6), [2, 3]), [1, -1], axis=1)
...     [p.tolist() for p in tf.Session().run(parts)]
[[[0], [3]], [[1, 2], [4, 5]]]
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ..._core import dtype as _dt
from ...graph.tensor import GraphTensor
from ...ops import functional as F
from ._common import as_pair, is_int, known_dims, static_axes, static_shape, static_value, tensor
from .framework import constant, op_scope
from .shape_ops import dims_of, scalar_of

__all__ = [
    "broadcast_to", "concat", "expand_dims", "fill", "identity_n", "lin_space", "linspace", "ones", "ones_like", "pack", "range",
    "reshape", "split", "squeeze", "stack", "tile", "transpose", "unpack", "unstack", "zeros", "zeros_like",
]  # fmt: skip


def _known(x) -> bool:
    return static_shape(x).rank is not None and static_shape(x).is_fully_defined()


# -- reshaping -------------------------------------------------------------------------------------


def reshape(tensor_, shape, name=None, tensor=None):
    """``tensor`` with a new shape of as many elements (one size may be -1: inferred)."""
    value = tensor if tensor is not None else tensor_
    with op_scope(name, "Reshape", (value, shape)) as scope:
        x = _t(value, "tensor")
        dims = dims_of(shape, "reshape(): shape")
        if builtins.sum(1 for d in dims if d == -1) > 1:
            raise ValueError(f"reshape(): only one input size may be -1, not both; shape {list(dims)}")
        n = 1
        for d in dims:
            n = n * d if d != -1 else n
        symbolic = any(type(d) is not int for d in dims)
        if _known(x) and -1 not in dims and not symbolic and int(np.prod(known_dims(x, "reshape"))) != n:
            raise ValueError(f"Cannot reshape a tensor with {int(np.prod(known_dims(x, 'reshape')))} elements to shape {list(dims)} "
                                 f"({n} elements) for '{scope.name[:-1]}' (op: 'Reshape')")  # fmt: skip
        result = F.reshape(x, _infer_minus_one(x, dims))
        return scope.out(F.clone(x) if result is x else result, "Reshape")


def _infer_minus_one(x, dims: tuple) -> tuple:
    """``dims`` with its -1 worked out as a plain size when the unknown sizes cancel out
    (``[tf.shape(x)[0], -1]`` of a ``(None, 2, 3)`` tensor is ``(n, 6)``, known 6)."""
    if -1 not in dims:
        return dims
    sizes = tuple(x.size())
    unknown_in = [d for d in sizes if type(d) is not int]
    unknown_out = [d for d in dims if type(d) is not int]
    same = len(unknown_in) == len(unknown_out) and all(any(a is b or a.expr is b.expr for b in unknown_out) for a in unknown_in)
    if not unknown_in or not same:
        return dims
    known_in = int(np.prod([d for d in sizes if type(d) is int], dtype=np.int64))
    known_out = int(np.prod([d for d in dims if type(d) is int and d != -1], dtype=np.int64))
    if known_out == 0 or known_in % known_out:
        return dims
    return tuple(known_in // known_out if d == -1 else d for d in dims)


def _t(value, name: str):
    return tensor(value, name)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """``a`` with its axes permuted by ``perm`` (reversed by default); conjugated with ``conjugate``."""
    with op_scope(name, "transpose", (a,)) as scope:
        x = _t(a, "a")
        ndim = static_shape(x).rank
        perm = (
            tuple(reversed(builtins.range(ndim)))
            if perm is None
            else tuple(int(p) for p in static_value(perm, "transpose(): perm"))
        )
        if sorted(p % ndim if ndim else p for p in perm) != list(builtins.range(ndim)):
            raise ValueError(f"transpose(): perm {list(perm)} is not a permutation of the {ndim} axes")
        result = F.permute(x, perm) if ndim else F.clone(x)
        if conjugate and x._dtype.is_complex:
            result = F.conj_physical(result)
        return scope.out(result, "Transpose")


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002 - TensorFlow's name
    """``input`` with a size-1 axis inserted at ``axis`` (``dim`` is the old name)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = axis if axis is not None else dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    with op_scope(name, "ExpandDims", (input,)) as scope:
        x = _t(input, "input")
        a = static_value(axis, "expand_dims(): axis")
        a = a[0] if isinstance(a, list) and len(a) == 1 else a
        ndim = static_shape(x).rank
        if not -ndim - 1 <= a <= ndim:
            raise ValueError(
                f"expand_dims(): axis {a} is out of range for a tensor of rank {ndim} (expected [{-ndim - 1}, {ndim}])"
            )
        return scope.out(F.unsqueeze(x, a), "ExpandDims")


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002 - TensorFlow's name
    """``input`` without its size-1 axes (only those in ``axis`` when given; each must have size 1)."""
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
    axis = axis if axis is not None else squeeze_dims
    with op_scope(name, "Squeeze", (input,)) as scope:
        x = _t(input, "input")
        static = known_dims(x, "squeeze")
        if axis is None:
            if None in static:
                raise ValueError(f"squeeze(): {x.name} has unknown sizes; name the axes to squeeze")
            dims = tuple(i for i, n in enumerate(static) if n == 1)
        else:
            dims = static_axes(axis, len(static), "squeeze")
            for d in dims:
                if static[d] is not None and static[d] != 1:
                    raise ValueError(f"Can not squeeze dim[{d}], expected a dimension of 1, got {static[d]} for '{scope.name[:-1]}' "
                                     f"(op: 'Squeeze') with input shapes: {x.shape}.")  # fmt: skip
        return scope.out(F.squeeze(x, dim=dims) if dims else F.clone(x), "Squeeze")


def tile(input, multiples, name=None):  # noqa: A002 - TensorFlow's name
    """``input`` repeated ``multiples[i]`` times along each axis ``i``."""
    with op_scope(name, "Tile", (input,)) as scope:
        x = _t(input, "input")
        reps = dims_of(multiples, "tile(): multiples")
        if len(reps) != static_shape(x).rank:
            raise ValueError(
                f"Shape must be rank {static_shape(x).rank} but is rank {len(reps)}: multiples of tile() need one entry per axis"
            )
        return scope.out(F.tile(x, reps), "Tile")


def broadcast_to(input, shape, name=None):  # noqa: A002 - TensorFlow's name
    """``input`` broadcast to ``shape`` (NumPy's rules)."""
    with op_scope(name, "BroadcastTo", (input,)) as scope:
        x = _t(input, "input")
        return scope.out(F.broadcast_to(x, dims_of(shape, "broadcast_to(): shape")).contiguous(), "BroadcastTo")


# -- joining and splitting --------------------------------------------------------------------------


def _same_dtype(tensors, op_type: str):
    first = tensors[0]
    for t in tensors[1:]:
        if t._dtype is not first._dtype:
            raise TypeError(f"{op_type}: the tensors must have one dtype, got {first._dtype.name} and {t._dtype.name}")


def _converted(values, what: str):
    graph_dtype = next((v._dtype for v in values if isinstance(v, GraphTensor)), None)
    return [tensor(v, f"{what}_{i}" if i else what, dtype_hint=graph_dtype) for i, v in enumerate(values)]


def concat(values, axis, name="concat"):
    """The tensors of ``values`` joined along ``axis`` (node ``ConcatV2``)."""
    if not isinstance(values, list | tuple):
        values = [values]
    with op_scope(name, "concat", values) as scope:
        tensors = _converted(values, "values")
        _same_dtype(tensors, "ConcatV2")
        (dim,) = static_axes(static_value(axis, "concat(): axis"), static_shape(tensors[0]).rank, "concat")
        if len(tensors) == 1:
            return scope.out(F.clone(tensors[0]), "Identity")
        return scope.out(F.cat(tensors, dim=dim), "ConcatV2")


def stack(values, axis=0, name="stack"):
    """The tensors of ``values`` (of one shape) stacked along a new axis ``axis`` (node ``Pack``)."""
    with op_scope(name, "stack", values) as scope:
        tensors = _converted(values, "values")
        _same_dtype(tensors, "Pack")
        ndim = static_shape(tensors[0]).rank
        if not -ndim - 1 <= axis <= ndim:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-ndim - 1}, {ndim + 1})")
        return scope.out(F.stack(tensors, dim=axis), "Pack")


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of ``value`` along ``axis``, as a list (node ``Unpack``)."""
    with op_scope(name, "unstack", (value,)) as scope:
        x = _t(value, "value")
        ndim = static_shape(x).rank
        if not -ndim <= axis < ndim:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-ndim}, {ndim})")
        n = known_dims(x, "unstack")[axis]
        if n is None and num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
        if num is not None and n is not None and num != n:
            raise ValueError(f"unstack(): num={num} does not match the size {n} of axis {axis}")
        parts = list(F.unbind(x, axis))
        if parts:
            scope.out(parts[0], "Unpack")
        return parts


pack = stack
unpack = unstack


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal parts, or parts of the
    listed sizes (one may be -1: the rest)."""
    with op_scope(name, "split", (value,)) as scope:
        x = _t(value, "value")
        (dim,) = static_axes(static_value(axis, "split(): axis"), static_shape(x).rank, "split")
        total = x.size(dim)
        sizes = static_value(num_or_size_splits, "split(): num_or_size_splits")
        if isinstance(sizes, numbers.Integral):
            if sizes <= 0 or (known_dims(x, "split")[dim] is not None and total % sizes):
                raise ValueError(f"Dimension size must be evenly divisible by {sizes} but is {total} for 'split' (op: 'Split')")
            return _named_parts(scope, F.split(x, total // sizes, dim), "Split")
        sizes = [int(s) for s in sizes]
        if sizes.count(-1) > 1:
            raise ValueError("split(): at most one size may be -1")
        if -1 in sizes:
            sizes[sizes.index(-1)] = total - builtins.sum(s for s in sizes if s != -1)
        elif known_dims(x, "split")[dim] is not None and builtins.sum(sizes) != total:
            raise ValueError(f"Determined shape must either match input shape along split_dim exactly if fully specified, "
                             f"or be less than the size of the input along split_dim if not fully specified.  Got: {builtins.sum(sizes)} "
                             f"vs. {total}")  # fmt: skip
        return _named_parts(scope, F.split(x, sizes, dim), "SplitV")


def _named_parts(scope, parts, op_type: str) -> list:
    parts = list(parts)
    if parts and all(p.op is parts[0].op for p in parts):  # one node with an output per part, as TensorFlow's
        scope.out(parts[0], op_type)
    return parts


def identity_n(input, name=None):  # noqa: A002 - TensorFlow's name
    """Each tensor of ``input``, unchanged."""
    return [tensor(t, "input") for t in input]


# -- creation ------------------------------------------------------------------------------------------


def _filled(shape_, value, dtype, name, default: str):
    dtype = _dt.as_dtype(dtype, op=default, arg="dtype")
    with op_scope(name, default, ()) as scope:
        dims = dims_of(shape_, f"{default}(): shape")
        if dtype is _dt.string:
            return scope.out(constant(np.full(dims, "" if value == 0 else value, dtype=object)))
        if all(type(d) is int for d in dims) and int(np.prod(dims, dtype=np.int64)) < 1000:  # TensorFlow folds small ones
            return scope.out(constant(np.full(dims, value, dtype=dtype.numpy_dtype)))
        return scope.out(F.full(dims, value, dtype=dtype), "Fill")


def zeros(shape, dtype=_dt.float32, name=None):
    """A tensor of ``shape`` filled with zeros (float32 by default)."""
    return _filled(shape, False if _dt.as_dtype(dtype, op="zeros") is _dt.bool_ else 0, dtype, name, "zeros")


def ones(shape, dtype=_dt.float32, name=None):
    """A tensor of ``shape`` filled with ones (float32 by default)."""
    return _filled(shape, True if _dt.as_dtype(dtype, op="ones") is _dt.bool_ else 1, dtype, name, "ones")


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value`` (of ``value``'s dtype)."""
    with op_scope(name, "Fill", ()) as scope:
        v = tensor(value, "value")
        shape_ = dims_of(dims, "fill(): dims")
        if static_shape(v).rank != 0:
            raise ValueError(f"fill(): value must be a scalar, got shape {v.shape}")
        return scope.out(
            F.mul(F.ones(shape_, dtype=v._dtype), v)
            if v._dtype is not _dt.bool_
            else F.logical_and(F.ones(shape_, dtype=_dt.bool_), v),
            "Fill",
        )


def _like(fn_name: str, default: str, fill_value):
    def fn(tensor_, dtype=None, name=None, optimize=True, tensor=None):
        value = tensor if tensor is not None else tensor_
        with op_scope(name, default, (value,)) as scope:
            x = _t(value, "tensor")
            out = x._dtype if dtype is None else _dt.as_dtype(dtype, op=fn_name, arg="dtype")
            v = builtins.bool(fill_value) if out is _dt.bool_ else fill_value
            return scope.out(F.full_like(x, v, dtype=out), "ZerosLike" if fill_value == 0 else "Fill")

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"A tensor of ``tensor``'s shape (and dtype, unless ``dtype``) filled with {fill_value}s."
    return fn


zeros_like = _like("zeros_like", "zeros_like", 0)
ones_like = _like("ones_like", "ones_like", 1)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TensorFlow's name
    """``start, start + delta, ...`` below ``limit`` (``range(n)`` counts from 0): int32 when
    every argument is an integer, float32 when one is a float, unless ``dtype``."""
    if limit is None:
        start, limit = 0, start
    with op_scope(name, "range", ()) as scope:
        args = [_range_arg(a) for a in (start, limit, delta)]
        if dtype is None:
            graph = [a._dtype for a in (start, limit, delta) if isinstance(a, GraphTensor)]
            if graph:
                dtype = graph[0]
            elif all(isinstance(a, numbers.Integral) for a in args):
                dtype = _dt.int32 if all(-(2**31) <= a < 2**31 for a in args) else _dt.int64
            else:
                dtype = _dt.float32
        dtype = _dt.as_dtype(dtype, op="range", arg="dtype")
        if args[2] == 0:
            raise ValueError("range(): delta must not be 0 (Requires delta != 0)")
        if any(type(a) not in (int, float) and isinstance(a, numbers.Real) for a in args):  # a size from tf.shape()
            if not is_int(dtype) or any(type(a) is float for a in args):
                raise NotImplementedError("range(): a limit from tf.shape() is supported for integer ranges only")
            return scope.out(F.arange(*args, dtype=dtype), "Range")  # the size keeps its formula
        if is_int(dtype):
            args = [int(a) for a in args]
        return scope.out(F.arange(*args, dtype=dtype), "Range")


def _range_arg(value):
    """A range bound: a number, a constant, or a size read from ``tf.shape`` (an expression)."""
    if isinstance(value, GraphTensor) and value.op.type != "Const":
        return scalar_of(value, "range()")
    return static_value(value, "range()")


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``start``'s float dtype)."""
    with op_scope(name, "LinSpace", (start, stop)) as scope:
        lo, hi = as_pair(start, stop, "LinSpace", "start", "stop")
        n = int(static_value(num, "linspace(): num"))
        if n < 1:
            raise ValueError(f"Requires num > 0: {n}")
        if static_shape(lo).rank != 0 and axis != 0:
            raise NotImplementedError("linspace(): a non-zero axis is not supported")
        steps = F.div(F.arange(n, dtype=lo._dtype), max(n - 1, 1)) if n > 1 else F.zeros((1,), dtype=lo._dtype)
        shape_ = (n,) + (1,) * (static_shape(lo).rank or 0)
        result = F.add(lo, F.mul(F.reshape(steps, shape_), F.sub(hi, lo)))
        if n > 1:  # the last value is exactly stop, as TensorFlow's
            result = F.cat([F.narrow(result, 0, 0, n - 1), F.unsqueeze(F.broadcast_to(hi, lo.shape.as_list()), 0)], 0)
        return scope.out(result, "LinSpace")


lin_space = linspace
