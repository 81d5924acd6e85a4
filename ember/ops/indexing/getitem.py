"""``t[key]`` and ``t[key] = value``, and PyTorch's spellings of them (``index``, ``index_put``).

``t[key]`` follows PyTorch: a basic key (ints, slices, None, ...) gives a view (the ``getitem``
view op); integer or boolean tensors, arrays and lists make the key advanced, and the result is
a copy (the ``index`` primitive over the basic part's view). The ints of an advanced key select
in that view first, so where the indexed dims go is NumPy's rule over the tensor indices alone
(``y[0, :, idx]`` keeps idx's dims in place; NumPy would put them first). ``t[key] = value`` writes into the
basic part's view with ``index_put`` (``index_put_scalar`` for a number). Out-of-bounds indices
raise ``IndexError``; negative ones count from the end. The keys are parsed in ``keys.py``.

The gather ``index`` and the scatter ``index_put`` are each other's derivative, so both live here.

>>> import ember
>>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
>>> t[:, [2, 0]].tolist()
[[2, 0], [5, 3]]
>>> t[t.numpy() > 2].tolist()
[3, 4, 5]
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt, literals
from ..._core.shape import broadcast_shapes
from ..._core.tensor import Tensor, empty_tensor, scalar_for
from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import functional as _F, sum_to
from ..functor import functor
from ..schema import schema_family
from ..shape import positions, scatter_back
from ..shape.view_op import run_view, view_op
from ._common import zeros
from .keys import IndexKey, basic, index_result_shape, ints_and_slices, is_basic, plan, select

declare = schema_family("indexing")

__all__ = ["basic_view", "bytes_array", "getitem", "setitem", "values_array"]


# -- getitem: basic keys are a view op, advanced ones the index primitive over it -----------------

declare(
    "getitem",
    "Tensor (Tensor input, Object key) => GetItem",
    op=("getitem", "index"), operators=("__getitem__",),
    doc="""
    input[key] with PyTorch's rules: ints, slices, None and ... give a view; integer or boolean
    tensors, arrays and lists (advanced indexing) give a copy.

    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t[1, ::-1].tolist(), t[[0, 1], [2, 0]].tolist()
    ([5, 4, 3], [2, 3])
    """,
)
@functor("GetItem")
def getitem(input, key):
    kind = type(key)
    if kind is int:
        return run_view(_GETITEM, input, {"key": key})[0]
    if kind is tuple:
        if len(key) <= len(input._shape):
            for item in key:
                if type(item) is not int and type(item) is not slice:
                    break
            else:
                return run_view(_GETITEM, input, {"key": IndexKey(key, True)})[0]
        items = key
    elif kind is slice and input._shape:
        return run_view(_GETITEM, input, {"key": IndexKey((key,), True)})[0]
    else:
        items = (key,)
    if is_basic(items):
        return run_view(_GETITEM, input, {"key": IndexKey(items)})[0]
    return _advanced_getitem(input, key)


def _advanced_getitem(x: Tensor, key) -> Tensor:
    basic_key, pairs = plan(x, key, "__getitem__")
    view = basic_view(x, basic_key)
    return dispatch(_INDEX, (view, *[t for _, t in pairs]), {"dims": tuple(d for d, _ in pairs)})[0]


def _basic_rule(x, key):
    if type(key) is int:
        return select(x, 0, key)
    if key.simple:
        return ints_and_slices(x, key.items)
    return basic(x, key.items)


_GETITEM = view_op("getitem", _basic_rule, ("key",)).tag(sbp=sbp_rules.shape.getitem)


@_GETITEM.grad_rule(saves="none")
def _getitem_grad(ctx, g):
    shape = ctx.input_meta[0][0]
    (pos,) = positions(_GETITEM, ctx.attrs, shape)
    return (scatter_back(g, pos, shape),)


def basic_view(x: Tensor, key) -> Tensor:
    """``x[key]`` for a basic key, through the ``getitem`` view op."""
    if type(key) is int:
        return run_view(_GETITEM, x, {"key": key})[0]
    return run_view(_GETITEM, x, {"key": IndexKey(key if type(key) is tuple else (key,))})[0]


_INDEX = OpExpr("index", ("input", "indices"), ("out",))


@_INDEX.shape_rule
def _infer_index(attrs, x, *indices):
    dims = attrs["dims"]
    for d in dims:
        if d >= len(x._shape):
            raise IndexError(f"too many indices for tensor of dimension {len(x._shape)}")
    for t in indices:
        if t._dtype.kind not in "iu":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, not {t._dtype}")
    return ((index_result_shape(x._shape, dims, [t._shape for t in indices]), x._dtype),)


@_INDEX.grad_rule(saves=("indices",))  # the index tensors, not the tensor indexed
def _index_grad(ctx, g):
    indices = ctx.inputs[1:]
    return (_accumulate_into_zeros(ctx.input_meta[0], g, ctx.attrs["dims"], indices), *(None for _ in indices))


def _accumulate_into_zeros(meta, g, dims: tuple, indices: tuple):
    """Zeros of ``meta`` with ``g`` added at ``[indices]`` (index_put, accumulate, in place on a
    fresh tensor: the out-of-place index_put needs the destination's values)."""
    target = zeros(meta)
    return dispatch(_INDEX_PUT, (target, g, *indices), {"dims": dims, "accumulate": True}, (target,))[0]


# -- setitem: index_put into the basic part's view -------------------------------------------------

declare(
    "setitem",
    "Void (Tensor input, Object key, Object value) => SetItem",
    differentiable=True, op=("getitem", "index_put", "index_put_scalar"), operators=("__setitem__",),
    doc="""
    input[key] = value (a tensor, array, list or number, broadcast and cast to input's dtype).

    >>> t = ember.zeros(2, 3)
    >>> t[:, [0, 2]] = 1.0
    >>> t.tolist()
    [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]
    """,
)
@functor("SetItem")
def setitem(input, key, value):
    input._check_writable("__setitem__()", overlap=False)  # overlap is checked on what is written
    if is_basic(key):
        view = basic_view(input, key)
        _put(view, [], value, False, "__setitem__")
        return None
    basic_key, pairs = plan(input, key, "__setitem__")
    view = _write_target(input, basic_key, value)
    _put(view, pairs, value, False, "__setitem__")
    return None


def _write_target(t: Tensor, basic_key: tuple, value) -> Tensor:
    """Where an advanced-key write goes: the view of ``t`` by the key's basic part; or, when that
    part takes whole dimensions only and autograd is concerned, ``t`` itself, so the write is
    recorded directly on ``t`` (a plain node, rather than a view write's CopySlices)."""
    if (t._requires_grad or (isinstance(value, Tensor) and value._requires_grad)) and all(
        type(b) is slice and b == slice(None) for b in basic_key
    ):
        return t
    return basic_view(t, basic_key)


def _put(view: Tensor, pairs: list, value, accumulate: bool, op: str) -> None:
    dims = tuple(d for d, _ in pairs)
    indices = [t for _, t in pairs]
    values = _values_tensor(view, value)
    try:
        if values is None:
            scalar = scalar_for(value, view._dtype, op)
            dispatch(_INDEX_PUT_SCALAR, (view, *indices), {"dims": dims, "value": scalar, "accumulate": accumulate}, (view,))
        else:
            dispatch(_INDEX_PUT, (view, values, *indices), {"dims": dims, "accumulate": accumulate}, (view,))
    except ValueError as exc:
        raise ValueError(f"{op}(): {exc}") from None


def _values_tensor(self: Tensor, value) -> Tensor | None:
    """``value`` as a tensor for index_put, or None for a scalar (checked, in ``self``'s dtype)."""
    if isinstance(value, Tensor):
        if value.is_meta and not self.is_meta:
            raise NotImplementedError("__setitem__(): Cannot copy out of meta tensor; no data!")
        if (value._dtype is _dt.string) != (self._dtype is _dt.string):
            raise TypeError(f"__setitem__(): cannot assign a {value._dtype} tensor into a {self._dtype} tensor")
        if self.is_meta and not value.is_meta:
            value = value.to("meta")
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        array = values_array(self, value)
        out = empty_tensor(
            array.shape, _dt.string if array.dtype == object else _dt.from_numpy_dtype(array.dtype), self._storage._device
        )
        if not self.is_meta and array.size:
            np.copyto(out._host_array(), array)
        return out
    return None


def values_array(self: Tensor, value) -> np.ndarray:
    """A list, tuple or array of values to write into ``self``, as a NumPy array (bytes for a
    string tensor; text refused for the others)."""
    if self._dtype is _dt.string:
        return bytes_array(value)
    if isinstance(value, (list, tuple)):  # literals: exact, and refused where they do not fit the dtype
        return literals.array_from_data(value, self._dtype, "__setitem__", Tensor)[0]
    array = np.asarray(value)
    if array.dtype.kind in "OSU":
        raise TypeError(f"__setitem__(): cannot assign {array.dtype} values into a {self._dtype} tensor")
    return array


def bytes_array(value) -> np.ndarray:
    """An object array of ``bytes`` (str encoded as UTF-8); anything else is refused.

    Built with ``dtype=object`` so that bytes keep their trailing NULs (NumPy's ``S`` drops them).
    """
    array = np.asarray(value, dtype=object)
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(array.reshape(-1)):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, bytes):
            flat[i] = bytes(v)
        else:
            raise TypeError(f"__setitem__(): a string tensor takes bytes or str values, not {type(v).__name__}")
    return out


_INDEX_PUT = OpExpr("index_put", ("input", "values", "indices"), ("out",))
_INDEX_PUT_SCALAR = OpExpr("index_put_scalar", ("input", "indices"), ("out",))


def _strip_ones(shape: tuple, ndim: int) -> tuple:
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return shape


def _check_values_shape(values_shape: tuple, target: tuple) -> None:
    values_shape = _strip_ones(tuple(values_shape), len(target))
    try:
        if len(values_shape) > len(target) or broadcast_shapes(target, values_shape) != tuple(target):
            raise RuntimeError
    except RuntimeError:
        raise ValueError(
            f"shape mismatch: value tensor of shape {tuple(values_shape)} cannot be broadcast to indexing result of shape {tuple(target)}"
        ) from None


@_INDEX_PUT.shape_rule
def _infer_index_put(attrs, x, values, *indices):
    target = index_result_shape(x._shape, attrs["dims"], [t._shape for t in indices])
    _check_values_shape(values._shape, target)
    if (values._dtype is _dt.string) != (x._dtype is _dt.string):
        raise TypeError(f"index_put(): cannot assign a {values._dtype} tensor into a {x._dtype} tensor")
    return ((x._shape, x._dtype),)


@_INDEX_PUT_SCALAR.shape_rule
def _infer_index_put_scalar(attrs, x, *indices):
    index_result_shape(x._shape, attrs["dims"], [t._shape for t in indices])
    return ((x._shape, x._dtype),)


def _fit_values(g, shape: tuple):
    """The gradient of index_put's ``values``: ``g`` (the indexed result's shape) summed down to
    ``values``' shape, which broadcasts to it after dropping leading ones."""
    stripped = _strip_ones(tuple(shape), g.ndim)
    return sum_to(g, stripped).reshape(shape)


def _zero_at(g, dims: tuple, indices: tuple):
    """``g`` with the positions ``[indices]`` zeroed (a product with a constant mask)."""
    mask = _F().ones(g.shape, dtype=g.dtype)
    dispatch(_INDEX_PUT_SCALAR, (mask, *indices), {"dims": dims, "value": 0, "accumulate": False}, (mask,))
    return g * mask


@_INDEX_PUT.grad_rule(saves=("indices",))  # not the tensor written nor the values: no copy of either is kept
def _index_put_grad(ctx, g):
    dims, accumulate = ctx.attrs["dims"], ctx.attrs["accumulate"]
    indices = ctx.inputs[2:]
    values_shape = ctx.input_meta[1][0]
    if not dims:  # the whole tensor is written
        return (g if accumulate else _F().zeros_like(g)), _fit_values(g, values_shape), *(None for _ in indices)
    gathered = dispatch(_INDEX, (g, *indices), {"dims": dims})[0]
    grad_input = g if accumulate else _zero_at(g, dims, indices)
    return grad_input, _fit_values(gathered, values_shape), *(None for _ in indices)


@_INDEX_PUT_SCALAR.grad_rule(saves=("indices",))
def _index_put_scalar_grad(ctx, g):
    dims, accumulate = ctx.attrs["dims"], ctx.attrs["accumulate"]
    indices = ctx.inputs[1:]
    if accumulate:
        grad_input = g
    elif not dims:
        grad_input = _F().zeros_like(g)
    else:
        grad_input = _zero_at(g, dims, indices)
    return grad_input, *(None for _ in indices)


# -- PyTorch's spellings: a tuple of index tensors (None for a whole dimension) ---------------------


def _index_list(input: Tensor, indices, op: str):
    """PyTorch's ``indices`` argument (a tuple of index tensors or None) as a key."""
    if isinstance(indices, Tensor):
        indices = (indices,)
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"{op}(): argument 'indices' must be a tuple of Tensors, not {type(indices).__name__}")
    key = tuple(slice(None) if i is None else i for i in indices)
    for i in key:
        if not isinstance(i, (Tensor, slice)):
            raise TypeError(f"{op}(): argument 'indices' must be a tuple of Tensors or None, but found {type(i).__name__}")
    return key


declare(
    "index_put",
    "Tensor (Tensor input, Object indices, Tensor values, Bool accumulate=False) => IndexPut",
    method=True, inplace="index_put_", out=True, op=("getitem", "index_put"),
    doc="""
    A copy of input with input[indices] = values (or += with accumulate, duplicates summed);
    indices is a tuple of index tensors (None for a whole dimension).

    >>> ember.zeros(3).index_put_((ember.tensor([0, 0, 2]),), ember.tensor([1.0, 2.0, 3.0]), accumulate=True).tolist()
    [3.0, 0.0, 3.0]
    """,
)
@functor("IndexPut")
def index_put(input, indices, values, accumulate=False, out=None):
    key = _index_list(input, indices, "index_put")
    target = input
    if out is not None:
        if out is not input:
            out.copy_(input)
        target = out
    else:
        target = input.clone()
    target._check_writable("index_put()", overlap=False)
    if input.is_meta:
        raise NotImplementedError("index_put(): meta tensors are not supported (the indices hold data)")
    basic_key, pairs = plan(target, key, "index_put")
    view = _write_target(target, basic_key, values)
    if values._dtype is not target._dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {target._dtype} for the destination and {values._dtype} for the source."
        )
    _put(view, pairs, values, accumulate, "index_put")
    return target


declare(
    "index",
    "Tensor (Tensor input, Object indices) => Index",
    op=("getitem", "index"),
    doc="input[indices] for PyTorch's tuple of index tensors (None for a whole dimension).",
)
@functor("Index")
def index(input, indices):
    return getitem(input, _index_list(input, indices, "index"))
