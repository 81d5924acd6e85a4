"""Indexing ops: functors, inference rules and (with autograd) derivatives, side by side.

``t[key]`` and ``t[key] = value`` follow NumPy: basic keys (ints, slices, None, ...) give a view
(the ``getitem`` view op); integer or boolean tensors, arrays and lists make the key advanced,
and the result is a copy (the ``index`` primitive over the basic part's view, with NumPy's rule
for where the indexed dimensions go). Boolean masks become integer indices (``nonzero``) first,
as in PyTorch. Out-of-bounds indices raise ``IndexError``; negative ones count from the end.

Also here: gather/scatter, index_select/index_add/index_fill/index_copy, masked_fill/select/
scatter, take/put, nonzero, sort/argsort/topk/kthvalue, unique, searchsorted/bucketize.
Kernels are in ``ember/kernels/cpu/indexing.py``.

>>> import ember
>>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
>>> t[:, [2, 0]].tolist()
[[2, 0], [5, 3]]
>>> t[t.numpy() > 2].tolist()
[3, 4, 5]
"""

from __future__ import annotations

import collections
import operator

import numpy as np

from .._core import dtype as _dt
from .._core import indexing as _core_indexing
from .._core.device import CPU
from .._core.shape import broadcast_shapes, wrap_dim
from .._core.tensor import Tensor, empty_tensor
from .._core.tensor_numpy import from_numpy
from ..dispatch import NO_ATTRS, OpExpr, dispatch
from .common import broadcast_pair, sum_to
from .common import functional as _F
from .functor import FUNCTORS, functor
from .schema import schema_family
from .shape import run_view, view_op

declare = schema_family("indexing")

__all__ = ["IndexKey", "index_result_shape"]

# -- getitem: basic keys are a view op --------------------------------------------------------------


class IndexKey:
    """A basic index key (ints, slices, None, Ellipsis) as a hashable attribute.

    ``items`` is the key as a tuple; ``simple`` says it holds only ints and slices, at most one
    per dimension (the common case, which has a shorter rule). Python 3.11's slices do not hash:
    the canonical form (slices as tuples, index-like values as ints) is only built when the key
    is hashed or compared, so the eager path never pays for it."""

    __slots__ = ("items", "simple")

    def __init__(self, items: tuple, simple: bool = False) -> None:
        self.items = items
        self.simple = simple

    def canonical(self) -> tuple:
        out = []
        for item in self.items:
            if type(item) is slice:
                out.append(("slice", *(None if v is None else operator.index(v) for v in (item.start, item.stop, item.step))))
            elif item is None or item is Ellipsis:
                out.append(item)
            else:
                out.append(_core_indexing._as_int(item))
        return tuple(out)

    def __hash__(self) -> int:
        return hash(self.canonical())

    def __eq__(self, other) -> bool:
        return type(other) is IndexKey and self.canonical() == other.canonical()

    def __repr__(self) -> str:
        return f"IndexKey({self.items!r})"


def _basic_rule(x, key):
    if type(key) is int:
        return _core_indexing._select(x, 0, key)
    if key.simple:
        return _core_indexing._ints_and_slices(x, key.items)
    return _core_indexing._basic(x, key.items)


_GETITEM = view_op("getitem", _basic_rule, ("key",))


def _basic_view(x: Tensor, key) -> Tensor:
    if type(key) is int:
        return run_view(_GETITEM, x, {"key": key})[0]
    return run_view(_GETITEM, x, {"key": IndexKey(key if type(key) is tuple else (key,))})[0]


def _is_basic(key) -> bool:
    items = key if type(key) is tuple else (key,)
    for item in items:
        if type(item) is int or type(item) is slice or item is None or item is Ellipsis:
            continue
        if _core_indexing._as_int(item) is None:
            return False
    return True


# -- advanced keys: the plan --------------------------------------------------------------------------


def _index_tensor(array: np.ndarray, device) -> Tensor:
    """An index tensor over a fresh NumPy array (wrapped without a copy on the CPU)."""
    if device is CPU:
        return from_numpy(array)
    out = empty_tensor(array.shape, _dt.from_numpy_dtype(array.dtype), device)
    if array.size and device.type != "meta":  # a meta index keeps only its shape
        np.copyto(out._host_array(), array)
    return out


_INT64_EMPTY = np.zeros(0, dtype=np.int64)


def _classify(item, device):
    """('basic', item) | ('int', i) | ('bool0', flag) | ('index', Tensor) | ('mask', ndarray)."""
    if item is None or item is Ellipsis or type(item) is slice:
        return "basic", item
    if type(item) is bool or isinstance(item, np.bool_):
        return "bool0", bool(item)
    if isinstance(item, Tensor):
        dtype = item._dtype
        if dtype is _dt.string or dtype.kind not in "iub":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, not {dtype}")
        if dtype.kind == "b":
            if item.is_meta:
                raise NotImplementedError(
                    "__getitem__(): boolean masks of meta tensors are not supported (the result's shape depends on data)"
                )
            return ("bool0", bool(item.item())) if item.ndim == 0 else ("mask", item._host_array())
        if item.ndim == 0:
            return "int", operator.index(item)
        return "index", item
    i = _core_indexing._as_int(item)
    if i is not None and not isinstance(item, np.ndarray):
        return "int", i
    if isinstance(item, (list, tuple, np.ndarray)):
        array = _core_indexing._numpy_item(item)
        if array is item or not isinstance(array, np.ndarray):
            array = np.array(array)  # a copy: the caller may change theirs while a kernel is queued
        if array.dtype.kind == "b":
            return ("bool0", bool(array)) if array.ndim == 0 else ("mask", array)
        if array.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean type, not {array.dtype}")
        if array.ndim == 0:
            return "int", int(array)
        return "index", _index_tensor(array, device)
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte tensors are valid indices "
        f"(got {type(item).__name__})"
    )


def _plan(x: Tensor, key, op: str):
    """Split an advanced key into the basic key of a view and (view dim, index tensor) pairs."""
    items = key if type(key) is tuple else (key,)
    device = x._storage._device
    classified = [_classify(item, device) for item in items]
    ndim = len(x._shape)
    consumed = 0
    ellipses = 0
    for kind, item in classified:
        if kind == "mask":
            consumed += item.ndim
        elif kind in ("int", "index") or (kind == "basic" and type(item) is slice):
            consumed += 1
        elif item is Ellipsis and kind == "basic":
            ellipses += 1
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    basic: list = []
    pairs: list = []
    d = 0  # dimension of x
    v = 0  # dimension of the view
    full = slice(None)
    for kind, item in classified:
        if kind == "basic":
            if item is None:
                basic.append(None)
                v += 1
            elif item is Ellipsis:
                n = ndim - consumed
                basic.extend([full] * n)
                d += n
                v += n
            else:
                basic.append(item)
                d += 1
                v += 1
        elif kind == "int":
            size = x._shape[d]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {d} with size {size}")
            basic.append(full)
            pairs.append((v, _index_tensor(np.asarray(item, dtype=np.int64), device)))
            d += 1
            v += 1
        elif kind == "bool0":
            basic.append(None)
            pairs.append((v, _index_tensor(np.zeros(1, dtype=np.int64) if item else _INT64_EMPTY, device)))
            v += 1
        elif kind == "index":
            if item._storage._device != device:
                raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed tensor ({device})")
            basic.append(full)
            pairs.append((v, item))
            d += 1
            v += 1
        else:  # a boolean mask over item.ndim dimensions
            k = item.ndim
            for j in range(k):
                if item.shape[j] != x._shape[d + j]:
                    raise IndexError(
                        f"boolean index did not match indexed tensor along dimension {d + j}; size of dimension is "
                        f"{x._shape[d + j]} but size of corresponding boolean dimension is {item.shape[j]}"
                    )
            for idx in np.nonzero(item):
                basic.append(full)
                pairs.append((v, _index_tensor(idx.astype(np.int64, copy=False), device)))
                d += 1
                v += 1
    return tuple(basic), pairs


def index_result_shape(shape: tuple, dims: tuple, index_shapes: list) -> tuple:
    """NumPy's rule: the broadcast index shape replaces the indexed dims where they are
    adjacent, and goes first when they are not."""
    try:
        b = broadcast_shapes(*index_shapes) if index_shapes else ()
    except RuntimeError:
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {', '.join(str(list(s)) for s in index_shapes)}"
        ) from None
    if not dims:
        return tuple(shape)
    if dims == tuple(range(dims[0], dims[0] + len(dims))):
        return (*shape[: dims[0]], *b, *shape[dims[-1] + 1 :])
    return (*b, *(s for d, s in enumerate(shape) if d not in dims))


# -- the index primitive: x[i0, :, i2] over a view --------------------------------------------------

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


def _advanced_getitem(x: Tensor, key) -> Tensor:
    basic, pairs = _plan(x, key, "__getitem__")
    view = _basic_view(x, basic)
    return dispatch(_INDEX, (view, *[t for _, t in pairs]), {"dims": tuple(d for d, _ in pairs)})[0]


declare(
    "getitem",
    "Tensor (Tensor input, Object key) => GetItem",
    op=("getitem", "index"), operators=("__getitem__",),
    doc="""
    input[key] with NumPy's rules: ints, slices, None and ... give a view; integer or boolean
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
    if _is_basic(items):
        return run_view(_GETITEM, input, {"key": IndexKey(items)})[0]
    return _advanced_getitem(input, key)


# -- setitem: index_put into the basic part's view ---------------------------------------------------

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
        array = _core_indexing._value_as_numpy(self, value)
        out = empty_tensor(
            array.shape, _dt.string if array.dtype == object else _dt.from_numpy_dtype(array.dtype), self._storage._device
        )
        if not self.is_meta and array.size:
            np.copyto(out._host_array(), array)
        return out
    return None


def _put(view: Tensor, pairs: list, value, accumulate: bool, op: str) -> None:
    dims = tuple(d for d, _ in pairs)
    indices = [t for _, t in pairs]
    values = _values_tensor(view, value)
    try:
        if values is None:
            scalar = view._scalar_for(value, view._dtype, op)
            dispatch(_INDEX_PUT_SCALAR, (view, *indices), {"dims": dims, "value": scalar, "accumulate": accumulate}, (view,))
        else:
            dispatch(_INDEX_PUT, (view, values, *indices), {"dims": dims, "accumulate": accumulate}, (view,))
    except ValueError as exc:
        raise ValueError(f"{op}(): {exc}") from None


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
    if _is_basic(key):
        view = _basic_view(input, key)
        _put(view, [], value, False, "__setitem__")
        return None
    basic, pairs = _plan(input, key, "__setitem__")
    _check_single_mask_value(input, key, value)
    view = _write_target(input, basic, value)
    _put(view, pairs, value, False, "__setitem__")
    return None


def _write_target(t: Tensor, basic: tuple, value) -> Tensor:
    """Where an advanced-key write goes: the view of ``t`` by the key's basic part; or, when that
    part takes whole dimensions only and autograd is concerned, ``t`` itself, so the write is
    recorded directly on ``t`` (a plain node, rather than a view write's CopySlices)."""
    if (t._requires_grad or (isinstance(value, Tensor) and value._requires_grad)) and all(
        type(b) is slice and b == slice(None) for b in basic
    ):
        return t
    return _basic_view(t, basic)


def _check_single_mask_value(input: Tensor, key, value) -> None:
    """NumPy's one quirk kept for compatibility: a key that is a single boolean mask over all
    dimensions takes only 0-d or 1-d values."""
    items = key if type(key) is tuple else (key,)
    if len(items) != 1:
        return
    mask = items[0]
    if isinstance(mask, (Tensor, np.ndarray)) and (mask.dtype is _dt.bool_ or mask.dtype == np.bool_) and mask.ndim == input.ndim:
        ndim = (
            value.ndim if isinstance(value, (Tensor, np.ndarray)) else np.ndim(value) if isinstance(value, (list, tuple)) else 0
        )
        if ndim > 1:
            raise ValueError(
                f"__setitem__(): boolean mask assignment requires a 0 or 1-dimensional value, the value has {ndim} dimensions"
            )


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
    basic, pairs = _plan(target, key, "index_put")
    view = _write_target(target, basic, values)
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


# -- gather / scatter ------------------------------------------------------------------------------


def _run(op: OpExpr, inputs: tuple, attrs: dict, out=None):
    return dispatch(op, inputs, attrs, None if out is None else (out,))


def _check_index_dtype(op: str, index: Tensor, arg: str = "index") -> None:
    if (index._dtype is _dt.string or index._dtype.kind not in "iu") and index.numel():
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for {arg}, but got {index._dtype}")


def _ndim1(shape: tuple) -> tuple:
    """0-d tensors take part as 1-d ones (PyTorch's ensure_nonempty_dim)."""
    return shape if shape else (1,)


def _check_gather_shapes(op: str, x: Tensor, dim: int, index: Tensor, src: Tensor | None = None) -> int:
    xs, ids = _ndim1(x._shape), _ndim1(index._shape)
    d = wrap_dim(dim, len(x._shape), op)
    if len(ids) != len(xs) and index.numel() != 0:
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as self tensor")
    if index.numel() == 0:
        return d
    for k in range(len(xs)):
        if k != d and ids[k] > xs[k]:
            raise RuntimeError(
                f"{op}(): Size does not match at dimension {k} expected index {list(index._shape)} to be smaller than self "
                f"{list(x._shape)} apart from dimension {d}"
            )
    if src is not None:
        ss = _ndim1(src._shape)
        if len(ss) != len(ids):
            raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as src tensor")
        for k in range(len(ids)):
            if ids[k] > ss[k]:
                raise RuntimeError(
                    f"{op}(): Expected index {list(index._shape)} to be smaller than self {list(x._shape)} apart from dimension "
                    f"{d} and to be smaller size than src {list(src._shape)}"
                )
    return d


_GATHER = OpExpr("gather", ("input", "index"), ("out",))


@_GATHER.shape_rule
def _infer_gather(attrs, x, index):
    _check_index_dtype("gather", index)
    _check_gather_shapes("gather", x, attrs["dim"], index)
    return ((index._shape, x._dtype),)


declare(
    "gather",
    "Tensor (Tensor input, Int dim, Tensor index, *, Bool sparse_grad=False) => Gather",
    method=True, out=True,
    doc="""
    out[i][j] = input[index[i][j]][j] for dim 0 (index picks along dim; same number of dims).

    >>> ember.tensor([[1, 2], [3, 4]]).gather(1, ember.tensor([[1, 0], [0, 0]])).tolist()
    [[2, 1], [3, 3]]
    """,
)
@functor("Gather")
def gather(input, dim, index, sparse_grad=False, out=None):
    return _run(_GATHER, (input, index), {"dim": dim}, out)[0]


_SCATTER = OpExpr("scatter", ("input", "index", "src"), ("out",))
_SCATTER_VALUE = OpExpr("scatter_value", ("input", "index"), ("out",))
_SCATTER_REDUCES = (None, "add", "multiply", "sum", "prod", "mean", "amax", "amin")


@_SCATTER.shape_rule
def _infer_scatter(attrs, x, index, src):
    op = attrs["op"]
    _check_index_dtype(op, index)
    _check_gather_shapes(op, x, attrs["dim"], index, src)
    if src._dtype is not x._dtype:
        raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype (got {x._dtype} and {src._dtype})")
    return ((x._shape, x._dtype),)


@_SCATTER_VALUE.shape_rule
def _infer_scatter_value(attrs, x, index):
    _check_index_dtype("scatter", index)
    _check_gather_shapes("scatter", x, attrs["dim"], index)
    return ((x._shape, x._dtype),)


def _check_reduce(reduce, allowed: tuple, op: str):
    if reduce not in allowed:
        raise RuntimeError(f"{op}(): reduce argument must be one of {', '.join(str(r) for r in allowed if r)}, got {reduce!r}")


declare(
    "scatter",
    [
        "Tensor (Tensor input, Int dim, Tensor index, Tensor src, *, String? reduce=None) => Scatter",
        "Tensor (Tensor input, Int dim, Tensor index, Scalar src, *, String? reduce=None) => ScatterValue",
        "Tensor (Tensor input, Int dim, Tensor index, *, Scalar value, String? reduce=None) => ScatterValue",
    ],
    method=True, inplace="scatter_", out=True, op=("scatter", "scatter_value"),
    doc="""
    A copy of input with src (a tensor or a number) written at index along dim; reduce 'add'
    or 'multiply' combines instead of overwriting.

    >>> ember.zeros(2, 3).scatter(1, ember.tensor([[2], [0]]), 5.0).tolist()
    [[0.0, 0.0, 5.0], [5.0, 0.0, 0.0]]
    """,
)
@functor("Scatter")
def scatter(input, dim, index, src, reduce=None, out=None):
    _check_reduce(reduce, (None, "add", "multiply"), "scatter")
    return _run(_SCATTER, (input, index, src), {"dim": dim, "reduce": reduce, "include_self": True, "op": "scatter"}, out)[0]


@functor("ScatterValue")
def scatter_value(input, dim, index, value, reduce=None, out=None):
    _check_reduce(reduce, (None, "add", "multiply"), "scatter")
    value = input._scalar_for(value, input._dtype, "scatter")
    return _run(_SCATTER_VALUE, (input, index), {"dim": dim, "value": value, "reduce": reduce}, out)[0]


declare(
    "scatter_add",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor src) => ScatterAdd",
    method=True, inplace="scatter_add_", out=True, op="scatter",
    doc="""
    scatter with the values at repeated indices summed.

    >>> ember.zeros(3).scatter_add(0, ember.tensor([0, 0, 2]), ember.tensor([1.0, 2.0, 3.0])).tolist()
    [3.0, 0.0, 3.0]
    """,
)
@functor("ScatterAdd")
def scatter_add(input, dim, index, src, out=None):
    return _run(_SCATTER, (input, index, src), {"dim": dim, "reduce": "add", "include_self": True, "op": "scatter_add"}, out)[0]


declare(
    "scatter_reduce",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor src, String reduce, *, Bool include_self=True) => ScatterReduce",
    method=True, inplace="scatter_reduce_", out=True, op="scatter",
    doc="""
    scatter with reduce 'sum', 'prod', 'mean', 'amax' or 'amin' over the values meeting at one
    place (and the input's value there unless include_self=False).

    >>> ember.tensor([5.0, 5.0]).scatter_reduce(0, ember.tensor([0, 0]), ember.tensor([1.0, 9.0]), "amax").tolist()
    [9.0, 5.0]
    """,
)
@functor("ScatterReduce")
def scatter_reduce(input, dim, index, src, reduce, include_self=True, out=None):
    _check_reduce(reduce, ("sum", "prod", "mean", "amax", "amin"), "scatter_reduce")
    return _run(
        _SCATTER, (input, index, src), {"dim": dim, "reduce": reduce, "include_self": include_self, "op": "scatter_reduce"}, out
    )[0]


declare(
    "take_along_dim",
    "Tensor (Tensor input, Tensor indices, Int? dim=None) => TakeAlongDim",
    method=True, composite=True,
    doc="""
    gather with input and indices broadcast (except along dim); without dim, over the flattened input.

    >>> ember.take_along_dim(ember.tensor([[10, 30, 20]]), ember.tensor([[0, 2]]), dim=1).tolist()
    [[10, 20]]
    """,
)
@functor("TakeAlongDim")
def take_along_dim(input, indices, dim=None):
    if dim is None:
        return gather(FUNCTORS["Reshape"](input, (-1,)), 0, FUNCTORS["Reshape"](indices, (-1,)))
    ndim = len(input._shape)
    if len(indices._shape) != ndim:
        raise RuntimeError(
            f"take_along_dim(): input and indices should have the same number of dimensions, but got {ndim} dimensions for input, and {len(indices._shape)} dimensions for indices"
        )
    d = wrap_dim(dim, ndim, "take_along_dim")
    a, b = list(input._shape), list(indices._shape)
    a[d] = b[d] = 1
    shape = broadcast_shapes(a, b, op="take_along_dim")
    xs, ids = list(shape), list(shape)
    xs[d], ids[d] = input._shape[d], indices._shape[d]
    expand = FUNCTORS["Expand"]
    return gather(expand(input, tuple(xs)), d, expand(indices, tuple(ids)))


# -- index_select / index_add / index_fill / index_copy ----------------------------------------------


def _check_vector_index(op: str, index: Tensor) -> None:
    _check_index_dtype(op, index)
    if len(index._shape) > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, got a tensor of {len(index._shape)} dimensions")


_INDEX_SELECT = OpExpr("index_select", ("input", "index"), ("out",))


@_INDEX_SELECT.shape_rule
def _infer_index_select(attrs, x, index):
    _check_vector_index("index_select", index)
    d = wrap_dim(attrs["dim"], len(x._shape), "index_select")
    if not x._shape:
        if index.numel() != 1:
            raise IndexError("index_select(): Index to scalar can have only 1 value")
        return (((), x._dtype),)
    n = index.numel()
    return (((*x._shape[:d], n, *x._shape[d + 1 :]), x._dtype),)


declare(
    "index_select",
    "Tensor (Tensor input, Int dim, Tensor index) => IndexSelect",
    method=True, out=True,
    doc="""
    The slices of input at the positions index (a vector) along dim.

    >>> ember.tensor([[1, 2], [3, 4]]).index_select(0, ember.tensor([1, 1, 0])).tolist()
    [[3, 4], [3, 4], [1, 2]]
    """,
)
@functor("IndexSelect")
def index_select(input, dim, index, out=None):
    return _run(_INDEX_SELECT, (input, index), {"dim": dim}, out)[0]


_INDEX_ADD = OpExpr("index_add", ("input", "index", "source"), ("out",))
_INDEX_COPY = OpExpr("index_copy", ("input", "index", "source"), ("out",))
_INDEX_FILL = OpExpr("index_fill", ("input", "index"), ("out",))
_INDEX_FILL_TENSOR = OpExpr("index_fill_tensor", ("input", "index", "value"), ("out",))


def _check_source(op: str, x: Tensor, d: int, index: Tensor, source: Tensor) -> None:
    xs, ss = _ndim1(x._shape), _ndim1(source._shape)
    n = index.numel()
    expected = (*xs[:d], n, *xs[d + 1 :])
    if len(ss) != len(xs) or tuple(ss) != expected:
        raise RuntimeError(
            f"{op}(): Source/destination tensor must have same slice shapes (source {list(source._shape)}, expected {list(expected)})"
        )
    if source._dtype is not x._dtype:
        raise RuntimeError(f"{op}(): self ({x._dtype}) and source ({source._dtype}) must have the same scalar type")


def _index_source_rule(op: OpExpr, name: str):
    @op.shape_rule
    def infer(attrs, x, index, source):
        _check_vector_index(name, index)
        d = wrap_dim(attrs["dim"], len(x._shape), name)
        _check_source(name, x, d, index, source)
        return ((x._shape, x._dtype),)


_index_source_rule(_INDEX_ADD, "index_add")
_index_source_rule(_INDEX_COPY, "index_copy")


@_INDEX_FILL.shape_rule
def _infer_index_fill(attrs, x, index):
    _check_vector_index("index_fill", index)
    wrap_dim(attrs["dim"], len(x._shape), "index_fill")
    return ((x._shape, x._dtype),)


@_INDEX_FILL_TENSOR.shape_rule
def _infer_index_fill_tensor(attrs, x, index, value):
    if value._shape:
        raise RuntimeError(
            f"index_fill_(): only supports a 0-dimensional value tensor, but got tensor with {len(value._shape)} dimension(s)."
        )
    return _infer_index_fill(attrs, x, index)


declare(
    "index_add",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor source, *, Scalar alpha=1) => IndexAdd",
    method=True, inplace="index_add_", out=True,
    doc="""
    A copy of input with alpha * source's slices added at the positions index along dim.

    >>> ember.zeros(3).index_add(0, ember.tensor([0, 2, 0]), ember.tensor([1.0, 2.0, 3.0])).tolist()
    [4.0, 0.0, 2.0]
    """,
)
@functor("IndexAdd")
def index_add(input, dim, index, source, alpha=1, out=None):
    if isinstance(alpha, float) and not (input._dtype.is_floating_point or input._dtype.is_complex):
        raise RuntimeError("index_add(): For integral input tensors, argument alpha must not be a floating point number.")
    return _run(_INDEX_ADD, (input, index, source), {"dim": dim, "alpha": alpha}, out)[0]


declare(
    "index_copy",
    "Tensor (Tensor input, Int dim, Tensor index, Tensor source) => IndexCopy",
    method=True, inplace="index_copy_", out=True,
    doc="A copy of input with source's slices written at the positions index along dim.",
)
@functor("IndexCopy")
def index_copy(input, dim, index, source, out=None):
    return _run(_INDEX_COPY, (input, index, source), {"dim": dim}, out)[0]


@functor("IndexFill")
def index_fill(input, dim, index, value, out=None):
    value = input._scalar_for(value, input._dtype, "index_fill")
    return _run(_INDEX_FILL, (input, index), {"dim": dim, "value": value}, out)[0]


declare(
    "index_fill",
    [
        "Tensor (Tensor input, Int dim, Tensor index, Tensor value) => IndexFillTensor",
        "Tensor (Tensor input, Int dim, Tensor index, Scalar value) => IndexFill",
    ],
    method=True, inplace="index_fill_", out=True, op=("index_fill_tensor", "index_fill"),
    doc="""
    A copy of input with the slices at index along dim set to value (a number or 0-d tensor).

    >>> ember.zeros(2, 2).index_fill(1, ember.tensor([1]), 7).tolist()
    [[0.0, 7.0], [0.0, 7.0]]
    """,
)
@functor("IndexFillTensor")
def index_fill_tensor(input, dim, index, value, out=None):
    return _run(_INDEX_FILL_TENSOR, (input, index, value), {"dim": dim}, out)[0]


# -- masked ops ----------------------------------------------------------------------------------------


def _check_mask(op: str, mask: Tensor) -> None:
    if mask._dtype is not _dt.bool_:
        raise RuntimeError(f"{op}(): only supports boolean masks, but got mask with dtype {mask._dtype}")


_MASKED_FILL = OpExpr("masked_fill", ("input", "mask"), ("out",))
_MASKED_FILL_TENSOR = OpExpr("masked_fill_tensor", ("input", "mask", "value"), ("out",))


@_MASKED_FILL.shape_rule
def _infer_masked_fill(attrs, x, mask):
    _check_mask("masked_fill", mask)
    return ((broadcast_pair(x._shape, mask._shape), x._dtype),)


@_MASKED_FILL_TENSOR.shape_rule
def _infer_masked_fill_tensor(attrs, x, mask, value):
    if value._shape:
        raise RuntimeError(
            f"masked_fill_(): only supports a 0-dimensional value tensor, but got tensor with {len(value._shape)} dimension(s)."
        )
    return _infer_masked_fill(attrs, x, mask)


@functor("MaskedFill")
def masked_fill(input, mask, value, out=None):
    value = input._scalar_for(value, input._dtype, "masked_fill")
    return _run(_MASKED_FILL, (input, mask), {"value": value}, out)[0]


declare(
    "masked_fill",
    [
        "Tensor (Tensor input, Tensor mask, Tensor value) => MaskedFillTensor",
        "Tensor (Tensor input, Tensor mask, Scalar value) => MaskedFill",
    ],
    method=True, inplace="masked_fill_", out=True, op=("masked_fill_tensor", "masked_fill"),
    doc="""
    A copy of input with value (a number or 0-d tensor) where the boolean mask (broadcast) is True.

    >>> ember.tensor([1, 2, 3]).masked_fill(ember.tensor([True, False, True]), 0).tolist()
    [0, 2, 0]
    """,
)
@functor("MaskedFillTensor")
def masked_fill_tensor(input, mask, value, out=None):
    return _run(_MASKED_FILL_TENSOR, (input, mask, value), NO_ATTRS, out)[0]


def _host_count(op: str, mask: Tensor, shape: tuple | None = None) -> int:
    """The number of True elements of ``mask`` broadcast to ``shape`` (a VM sync point)."""
    if mask.is_meta:
        raise NotImplementedError(f"{op}(): meta tensors are not supported (the result's shape depends on data)")
    array = mask._host_array()
    if shape is not None and array.shape != tuple(shape):
        array = np.broadcast_to(array, shape)
    return int(np.count_nonzero(array))


_MASKED_SELECT = OpExpr("masked_select", ("input", "mask"), ("out",))


@_MASKED_SELECT.shape_rule
def _infer_masked_select(attrs, x, mask):
    _check_mask("masked_select", mask)
    broadcast_pair(x._shape, mask._shape)
    return (((attrs["count"],), x._dtype),)


declare(
    "masked_select",
    "Tensor (Tensor input, Tensor mask) => MaskedSelect",
    method=True, out=True,
    doc="""
    The elements of input where the boolean mask (broadcast) is True, as a 1-d tensor.

    >>> ember.tensor([[1, 2], [3, 4]]).masked_select(ember.tensor([True, False])).tolist()
    [1, 3]
    """,
)
@functor("MaskedSelect")
def masked_select(input, mask, out=None):
    _check_mask("masked_select", mask)
    shape = broadcast_pair(input._shape, mask._shape)
    return _run(_MASKED_SELECT, (input, mask), {"count": _host_count("masked_select", mask, shape)}, out)[0]


_MASKED_SCATTER = OpExpr("masked_scatter", ("input", "mask", "source"), ("out",))


@_MASKED_SCATTER.shape_rule
def _infer_masked_scatter(attrs, x, mask, source):
    _check_mask("masked_scatter", mask)
    if source._dtype is not x._dtype:
        raise RuntimeError(
            f"masked_scatter(): expected self and source to have same dtypes but got {x._dtype} and {source._dtype}"
        )
    return ((broadcast_pair(x._shape, mask._shape), x._dtype),)


declare(
    "masked_scatter",
    "Tensor (Tensor input, Tensor mask, Tensor source) => MaskedScatter",
    method=True, inplace="masked_scatter_", out=True,
    doc="""
    A copy of input with source's first elements written, in order, where mask is True.

    >>> ember.zeros(3).masked_scatter(ember.tensor([True, False, True]), ember.tensor([1.0, 2.0])).tolist()
    [1.0, 0.0, 2.0]
    """,
)
@functor("MaskedScatter")
def masked_scatter(input, mask, source, out=None):
    return _run(_MASKED_SCATTER, (input, mask, source), NO_ATTRS, out)[0]


# -- take / put --------------------------------------------------------------------------------------------

_TAKE = OpExpr("take", ("input", "index"), ("out",))


@_TAKE.shape_rule
def _infer_take(attrs, x, index):
    _check_index_dtype("take", index)
    if x.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    return ((index._shape, x._dtype),)


declare(
    "take",
    "Tensor (Tensor input, Tensor index) => Take",
    method=True, out=True,
    doc="""
    The elements of the flattened input at index (the result has index's shape).

    >>> ember.take(ember.tensor([[1, 2], [3, 4]]), ember.tensor([[0, 3]])).tolist()
    [[1, 4]]
    """,
)
@functor("Take")
def take(input, index, out=None):
    return _run(_TAKE, (input, index), NO_ATTRS, out)[0]


_PUT = OpExpr("put", ("input", "index", "source"), ("out",))


@_PUT.shape_rule
def _infer_put(attrs, x, index, source):
    _check_index_dtype("put", index)
    if index.numel() != source.numel():
        raise RuntimeError(
            f"put_(): Expected source and index to have the same number of elements, but got source.numel() = {source.numel()}, "
            f"index.numel() = {index.numel()}"
        )
    if source._dtype is not x._dtype:
        raise RuntimeError(f"put_(): self ({x._dtype}) and source ({source._dtype}) must have the same scalar type")
    return ((x._shape, x._dtype),)


declare(
    "put",
    "Tensor (Tensor input, Tensor index, Tensor source, Bool accumulate=False) => Put",
    method=True, inplace="put_", out=True,
    doc="""
    A copy of input with source written at the flat positions index (summed with accumulate).

    >>> ember.zeros(2, 2).put(ember.tensor([3, 0]), ember.tensor([5.0, 6.0])).tolist()
    [[6.0, 0.0], [0.0, 5.0]]
    """,
)
@functor("Put")
def put(input, index, source, accumulate=False, out=None):
    return _run(_PUT, (input, index, source), {"accumulate": accumulate}, out)[0]


# -- nonzero -------------------------------------------------------------------------------------------------

_NONZERO = OpExpr("nonzero", ("input",), ("out",))


@_NONZERO.shape_rule
def _infer_nonzero(attrs, x):
    if x._dtype is _dt.string:
        raise TypeError("nonzero(): string tensors are not supported")
    return (((attrs["count"], len(x._shape)), _dt.int64),)


declare(
    "nonzero",
    "Tensor (Tensor input, *, Bool as_tuple=False) => Nonzero",
    method=True, out=True, differentiable=False,
    doc="""
    The indices of the nonzero elements, one row each (an (n, ndim) int64 tensor); with
    as_tuple=True, one 1-d tensor per dimension.

    >>> ember.tensor([[0, 1], [2, 0]]).nonzero().tolist()
    [[0, 1], [1, 0]]
    """,
)
@functor("Nonzero")
def nonzero(input, as_tuple=False, out=None):
    if input.is_meta:
        raise NotImplementedError("nonzero(): meta tensors are not supported (the result's shape depends on data)")
    count = int(np.count_nonzero(input._host_array()))
    if not as_tuple:
        return _run(_NONZERO, (input,), {"count": count}, out)[0]
    x = input if input._shape else FUNCTORS["Reshape"](input, (1,))
    result = _run(_NONZERO, (x,), {"count": count})[0]
    return (
        FUNCTORS["Unbind"](FUNCTORS["Transpose"](result, 0, 1), 0)
        if count
        else tuple(FUNCTORS["Reshape"](c, (0,)) for c in FUNCTORS["Unbind"](result, 1))
    )


declare("argwhere", "Tensor (Tensor input) => Argwhere", method=True, differentiable=False, op="nonzero", doc="nonzero(input).")
@functor("Argwhere")
def argwhere(input):
    return nonzero(input)


# -- sorting -------------------------------------------------------------------------------------------------

sort_result = collections.namedtuple("sort", ("values", "indices"))
topk_result = collections.namedtuple("topk", ("values", "indices"))
kthvalue_result = collections.namedtuple("kthvalue", ("values", "indices"))

_SORT = OpExpr("sort", ("input",), ("values", "indices"))


def _check_sortable(op: str, x: Tensor) -> None:
    if x._dtype.is_complex or x._dtype is _dt.string:
        raise RuntimeError(f"{op}(): {x._dtype} tensors are not supported (complex numbers have no order)")


@_SORT.shape_rule
def _infer_sort(attrs, x):
    _check_sortable("sort", x)
    wrap_dim(attrs["dim"], len(x._shape), "sort")
    return ((x._shape, x._dtype), (x._shape, _dt.int64))


declare(
    "sort",
    "(Tensor values, Tensor indices) (Tensor input, Int dim=-1, Bool descending=False, *, Bool stable=False) => Sort",
    method=True,
    doc="""
    The values sorted along dim and their original indices (a named tuple); NaN sorts as the
    largest value. The sort is always stable.

    >>> ember.tensor([3, 1, 2]).sort(descending=True).indices.tolist()
    [0, 2, 1]
    """,
)
@functor("Sort")
def sort(input, dim=-1, descending=False, stable=False):
    values, indices = dispatch(_SORT, (input,), {"dim": dim, "descending": descending, "k": None})
    return sort_result(values, indices)


declare(
    "argsort",
    "Tensor (Tensor input, Int dim=-1, Bool descending=False, *, Bool stable=False) => Argsort",
    method=True, differentiable=False, op="sort",
    doc="""
    The indices that sort input along dim.

    >>> ember.argsort(ember.tensor([3, 1, 2])).tolist()
    [1, 2, 0]
    """,
)
@functor("Argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    return dispatch(_SORT, (input,), {"dim": dim, "descending": descending, "k": None})[1]


_TOPK = OpExpr("topk", ("input",), ("values", "indices"))


@_TOPK.shape_rule
def _infer_topk(attrs, x):
    _check_sortable("topk", x)
    d = wrap_dim(attrs["dim"], len(x._shape), "topk")
    k = attrs["k"]
    size = x._shape[d] if x._shape else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"topk(): selected index k out of range (k = {k}, dimension {d} has size {size})")
    shape = (*x._shape[:d], k, *x._shape[d + 1 :]) if x._shape else ()
    return ((shape, x._dtype), (shape, _dt.int64))


declare(
    "topk",
    "(Tensor values, Tensor indices) (Tensor input, Int k, Int dim=-1, Bool largest=True, Bool sorted=True) => Topk",
    method=True,
    doc="""
    The k largest (or smallest) values along dim, sorted, and their indices (a named tuple).

    >>> ember.tensor([1, 5, 3, 4]).topk(2).values.tolist()
    [5, 4]
    """,
)
@functor("Topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    values, indices = dispatch(_TOPK, (input,), {"dim": dim, "descending": largest, "k": k})
    return topk_result(values, indices)


declare(
    "kthvalue",
    "(Tensor values, Tensor indices) (Tensor input, Int k, Int dim=-1, Bool keepdim=False) => Kthvalue",
    method=True, op="sort",
    doc="""
    The k-th smallest value along dim (k counts from 1) and its index (a named tuple).

    >>> ember.tensor([4, 1, 3]).kthvalue(2).values.item()
    3
    """,
)
@functor("Kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, len(input._shape), "kthvalue")
    size = input._shape[d] if input._shape else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} (k = {k}, size {size})")
    values, indices = dispatch(_SORT, (input,), {"dim": d, "descending": False, "k": None})
    if not input._shape:
        return kthvalue_result(values, indices)
    select = FUNCTORS["Narrow"] if keepdim else FUNCTORS["Select"]
    args = (d, k - 1, 1) if keepdim else (d, k - 1)
    return kthvalue_result(select(values, *args), select(indices, *args))


# -- unique ----------------------------------------------------------------------------------------------------

_UNIQUE = OpExpr("unique", ("input",), ("values", "inverse", "counts"))
_UNIQUE_CONSECUTIVE = OpExpr("unique_consecutive", ("input",), ("values", "inverse", "counts"))


def _unique_shapes(attrs, x):
    n, dim = attrs["count"], attrs["dim"]
    if dim is None:
        return (((n,), x._dtype), (x._shape, _dt.int64), ((n,), _dt.int64))
    d = wrap_dim(dim, len(x._shape), "unique")
    return (((*x._shape[:d], n, *x._shape[d + 1 :]), x._dtype), ((x._shape[d],), _dt.int64), ((n,), _dt.int64))


_UNIQUE.shape_rule(_unique_shapes)
_UNIQUE_CONSECUTIVE.shape_rule(_unique_shapes)


def _unique(op: OpExpr, name: str, input, return_inverse, return_counts, dim):
    from ..kernels.cpu.indexing import unique_arrays

    if input.is_meta:
        raise NotImplementedError(f"{name}(): meta tensors are not supported (the result's shape depends on data)")
    if input._dtype is _dt.string:
        raise TypeError(f"{name}(): string tensors are not supported")
    if dim is not None:
        dim = wrap_dim(dim, len(input._shape), name)
    count = unique_arrays(input._host_array(), dim, op.name == "unique_consecutive", count_only=True)
    values, inverse, counts = dispatch(op, (input,), {"count": count, "dim": dim})
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


declare(
    "unique",
    "Tensor (Tensor input, Bool sorted=True, Bool return_inverse=False, Bool return_counts=False, Int? dim=None) => Unique",
    method=True, differentiable=False,
    doc="""
    The distinct values (or slices along dim), sorted; with return_inverse / return_counts, also
    where each element went and how often each value occurs (a tuple).

    >>> ember.unique(ember.tensor([3, 1, 3, 2]), return_counts=True)[1].tolist()
    [1, 1, 2]
    """,
)
@functor("Unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique(_UNIQUE, "unique", input, return_inverse, return_counts, dim)


declare(
    "unique_consecutive",
    "Tensor (Tensor input, Bool return_inverse=False, Bool return_counts=False, Int? dim=None) => UniqueConsecutive",
    method=True, differentiable=False,
    doc="""
    Runs of equal consecutive values (or slices along dim) collapsed to one.

    >>> ember.tensor([1, 1, 2, 1]).unique_consecutive().tolist()
    [1, 2, 1]
    """,
)
@functor("UniqueConsecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    return _unique(_UNIQUE_CONSECUTIVE, "unique_consecutive", input, return_inverse, return_counts, dim)


# -- searchsorted / bucketize --------------------------------------------------------------------------------------

_SEARCHSORTED = OpExpr("searchsorted", ("sorted_sequence", "input", "sorter"), ("out",))


@_SEARCHSORTED.shape_rule
def _infer_searchsorted(attrs, seq, x, *sorter):
    if seq._dtype.is_complex or x._dtype.is_complex:
        raise RuntimeError("searchsorted(): complex tensors are not supported")
    if not seq._shape:
        raise RuntimeError("searchsorted(): boundaries tensor should have at least 1 dimension, but got a 0-d tensor")
    if len(seq._shape) > 1 and (len(x._shape) != len(seq._shape) or x._shape[:-1] != seq._shape[:-1]):
        raise RuntimeError(
            "searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input "
            f"value tensor must match, but we got boundaries tensor {list(seq._shape)} and input value tensor {list(x._shape)}"
        )
    if sorter:
        (s,) = sorter
        if s._shape != seq._shape:
            raise RuntimeError(
                f"searchsorted(): boundary and sorter must have the same size, but got boundary tensor {list(seq._shape)} and got sorter tensor {list(s._shape)}"
            )
        _check_index_dtype("searchsorted", s, "sorter")
    return ((x._shape, _dt.int32 if attrs["out_int32"] else _dt.int64),)


def _side(right, side) -> bool:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right' but got {side!r}")
        if right and side == "left":
            raise RuntimeError("searchsorted(): side and right can't be set to opposites, got side of left while right was True")
        return side == "right"
    return bool(right)


declare(
    "searchsorted",
    [
        "Tensor (Tensor sorted_sequence, Tensor input, *, Bool out_int32=False, Bool right=False, String? side=None, Tensor? sorter=None) => Searchsorted",
        "Tensor (Tensor sorted_sequence, Scalar input, *, Bool out_int32=False, Bool right=False, String? side=None, Tensor? sorter=None) => SearchsortedScalar",
    ],
    out=True, differentiable=False, op="searchsorted",
    doc="""
    Where each value of input would be inserted into the sorted last dim of sorted_sequence
    (before equal values, or after them with right=True / side="right").

    >>> ember.searchsorted(ember.tensor([1, 3, 5]), ember.tensor([3, 6])).tolist()
    [1, 3]
    """,
)
@functor("Searchsorted")
def searchsorted(sorted_sequence, input, out_int32=False, right=False, side=None, sorter=None, out=None):
    inputs = (sorted_sequence, input) if sorter is None else (sorted_sequence, input, sorter)
    return _run(_SEARCHSORTED, inputs, {"out_int32": out_int32, "right": _side(right, side)}, out)[0]


def _scalar_tensor(value, like: Tensor) -> Tensor:
    from .args import scalar_tensor_like

    return scalar_tensor_like(value, like)


@functor("SearchsortedScalar")
def searchsorted_scalar(sorted_sequence, input, out_int32=False, right=False, side=None, sorter=None, out=None):
    return searchsorted(sorted_sequence, _scalar_tensor(input, sorted_sequence), out_int32, right, side, sorter, out)


declare(
    "bucketize",
    [
        "Tensor (Tensor input, Tensor boundaries, *, Bool out_int32=False, Bool right=False) => Bucketize",
        "Tensor (Scalar input, Tensor boundaries, *, Bool out_int32=False, Bool right=False) => BucketizeScalar",
    ],
    out=True, differentiable=False, op="searchsorted",
    doc="""
    The bucket of each value of input among the sorted 1-d boundaries.

    >>> ember.bucketize(ember.tensor([1, 4, 9]), ember.tensor([2, 4, 8])).tolist()
    [0, 1, 3]
    """,
)
@functor("Bucketize")
def bucketize(input, boundaries, out_int32=False, right=False, out=None):
    if len(boundaries._shape) != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim({len(boundaries._shape)})")
    return searchsorted(boundaries, input, out_int32, right, None, None, out)


@functor("BucketizeScalar")
def bucketize_scalar(input, boundaries, out_int32=False, right=False, out=None):
    return bucketize(_scalar_tensor(input, boundaries), boundaries, out_int32, right, out)


# -- derivatives ---------------------------------------------------------------------------------------
# Written with ember's ops (so they differentiate again). Index inputs get no gradient (None).
# Gathers go back as scatter-adds into zeros and the other way round; where an op overwrites
# positions, the destination's gradient has them zeroed.


def _zeros(meta):
    shape, dtype = meta
    return _F().zeros(shape, dtype=dtype)


def _sum_to(g, shape: tuple):
    return sum_to(g, shape)


def _fit_values(g, shape: tuple):
    """The gradient of index_put's ``values``: ``g`` (the indexed result's shape) summed down to
    ``values``' shape, which broadcasts to it after dropping leading ones."""
    stripped = _strip_ones(tuple(shape), g.ndim)
    return _sum_to(g, stripped).reshape(shape)


@_GETITEM.grad_rule(saves="none")
def _getitem_grad(ctx, g):
    from .shape import _positions, _scatter_back

    shape = ctx.input_meta[0][0]
    (pos,) = _positions(_GETITEM, ctx.attrs, shape)
    return (_scatter_back(g, pos, shape),)


def _accumulate_into_zeros(meta, g, dims: tuple, indices: tuple):
    """Zeros of ``meta`` with ``g`` added at ``[indices]`` (index_put, accumulate, in place on a
    fresh tensor: the out-of-place index_put needs the destination's values)."""
    target = _zeros(meta)
    return dispatch(_INDEX_PUT, (target, g, *indices), {"dims": dims, "accumulate": True}, (target,))[0]


def _zero_at(g, dims: tuple, indices: tuple):
    """``g`` with the positions ``[indices]`` zeroed (a product with a constant mask)."""
    mask = _F().ones(g.shape, dtype=g.dtype)
    dispatch(_INDEX_PUT_SCALAR, (mask, *indices), {"dims": dims, "value": 0, "accumulate": False}, (mask,))
    return g * mask


@_INDEX.grad_rule(saves="inputs")
def _index_grad(ctx, g):
    indices = ctx.inputs[1:]
    return (_accumulate_into_zeros(ctx.input_meta[0], g, ctx.attrs["dims"], indices), *(None for _ in indices))


@_INDEX_PUT.grad_rule(saves="inputs")
def _index_put_grad(ctx, g):
    dims, accumulate = ctx.attrs["dims"], ctx.attrs["accumulate"]
    indices = ctx.inputs[2:]
    values_shape = ctx.input_meta[1][0]
    if not dims:  # the whole tensor is written
        return (g if accumulate else _F().zeros_like(g)), _fit_values(g, values_shape), *(None for _ in indices)
    gathered = dispatch(_INDEX, (g, *indices), {"dims": dims})[0]
    grad_input = g if accumulate else _zero_at(g, dims, indices)
    return grad_input, _fit_values(gathered, values_shape), *(None for _ in indices)


@_INDEX_PUT_SCALAR.grad_rule(saves="inputs")
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


@_GATHER.grad_rule(saves="inputs")
def _gather_grad(ctx, g):
    index = ctx.inputs[1]
    return _F().scatter_add(_zeros(ctx.input_meta[0]), ctx.attrs["dim"], index, g), None


def _pad_to(g, shape: tuple):
    """``g`` padded with zeros at the end of each dimension up to ``shape`` (scatter's ``src``
    may be larger than ``index``; the elements beyond it are not read)."""
    if tuple(g.shape) == tuple(shape):
        return g
    if not shape:
        return g.reshape(())
    pad = ()
    for have, want in zip(reversed(_ndim1(tuple(g.shape))), reversed(shape), strict=True):
        pad += (0, want - have)
    return _F().pad(g.reshape(_ndim1(tuple(g.shape))), pad)


@_SCATTER.grad_rule(saves="inputs")
def _scatter_grad(ctx, g):
    F = _F()
    index = ctx.inputs[1]
    x_shape = ctx.input_meta[0][0]
    dim, reduce, include_self = ctx.attrs["dim"], ctx.attrs["reduce"], ctx.attrs["include_self"]
    src_shape = ctx.input_meta[2][0]
    if reduce is None:
        return F.scatter(g, dim, index, 0), None, _pad_to(F.gather(g, dim, index), src_shape)
    if reduce in ("add", "sum"):
        grad_input = g if include_self else F.scatter(g, dim, index, 0)
        return grad_input, None, _pad_to(F.gather(g, dim, index), src_shape)
    if reduce == "mean":
        ones = F.ones(index.shape, dtype=g.dtype)
        touched = F.scatter_add(F.zeros(x_shape, dtype=g.dtype), dim, index, ones)
        count = touched + 1 if include_self else touched
        touched = touched > 0
        count = F.where(count == 0, F.ones_like(count), count)
        scaled = g / count
        grad_input = scaled if include_self else F.where(touched, F.zeros_like(g), g)
        return grad_input, None, _pad_to(F.gather(scaled, dim, index), src_shape)
    raise NotImplementedError(f"the derivative of scatter with reduce={reduce!r} is not implemented (only None, add, sum, mean)")


@_SCATTER_VALUE.grad_rule(saves="inputs")
def _scatter_value_grad(ctx, g):
    index = ctx.inputs[1]
    reduce = ctx.attrs["reduce"]
    if reduce is None:
        return _F().scatter(g, ctx.attrs["dim"], index, 0), None
    if reduce == "add":
        return g, None
    raise NotImplementedError(f"the derivative of scatter with a value and reduce={reduce!r} is not implemented")


@_INDEX_SELECT.grad_rule(saves="inputs")
def _index_select_grad(ctx, g):
    index = ctx.inputs[1]
    meta = ctx.input_meta[0]
    if not meta[0]:  # a 0-d input: the one element, selected once
        return g.reshape(()), None
    return _F().index_add(_zeros(meta), ctx.attrs["dim"], index, g), None


def _select_source(g, dim: int, index, source_shape: tuple):
    if not g.shape:
        return g.reshape(source_shape)
    return _F().index_select(g, dim, index).reshape(source_shape)


@_INDEX_ADD.grad_rule(saves="inputs")
def _index_add_grad(ctx, g):
    index = ctx.inputs[1]
    alpha = ctx.attrs["alpha"]
    grad_source = _select_source(g, ctx.attrs["dim"], index, ctx.input_meta[2][0])
    return g, None, grad_source if alpha == 1 else grad_source * alpha


def _fill_zero(g, dim: int, index):
    return _F().index_fill(g, dim, index, 0) if g.shape else _F().zeros_like(g)


@_INDEX_COPY.grad_rule(saves="inputs")
def _index_copy_grad(ctx, g):
    index = ctx.inputs[1]
    dim = ctx.attrs["dim"]
    return _fill_zero(g, dim, index), None, _select_source(g, dim, index, ctx.input_meta[2][0])


@_INDEX_FILL.grad_rule(saves="inputs")
def _index_fill_grad(ctx, g):
    return _fill_zero(g, ctx.attrs["dim"], ctx.inputs[1]), None


@_INDEX_FILL_TENSOR.grad_rule(saves="inputs")
def _index_fill_tensor_grad(ctx, g):
    index = ctx.inputs[1]
    dim = ctx.attrs["dim"]
    unique_index = from_numpy(np.unique(index._host_array().reshape(-1)).astype(np.int64))
    grad_value = _select_source(g, dim, unique_index, (-1,)).sum() if g.shape else g.reshape(())
    value_dtype = ctx.input_meta[2][1]
    return _fill_zero(g, dim, index), None, grad_value if value_dtype is g.dtype else grad_value.to(value_dtype)


@_MASKED_FILL.grad_rule(saves="inputs")
def _masked_fill_grad(ctx, g):
    mask = ctx.inputs[1]
    return _sum_to(_F().masked_fill(g, mask, 0), ctx.input_meta[0][0]), None


@_MASKED_FILL_TENSOR.grad_rule(saves="inputs")
def _masked_fill_tensor_grad(ctx, g):
    F = _F()
    mask = ctx.inputs[1]
    grad_value = F.masked_fill(g, F.logical_not(mask), 0).sum()
    value_dtype = ctx.input_meta[2][1]
    grad_value = grad_value if value_dtype is g.dtype else grad_value.to(value_dtype)
    return _sum_to(F.masked_fill(g, mask, 0), ctx.input_meta[0][0]), None, grad_value


@_MASKED_SELECT.grad_rule(saves="inputs")
def _masked_select_grad(ctx, g):
    F = _F()
    mask = ctx.inputs[1]
    shape, dtype = ctx.input_meta[0]
    full = broadcast_pair(shape, tuple(mask.shape))
    if tuple(mask.shape) != full:
        mask = mask.expand(full)
    return _sum_to(F.masked_scatter(F.zeros(full, dtype=dtype), mask, g), shape), None


@_MASKED_SCATTER.grad_rule(saves="inputs")
def _masked_scatter_grad(ctx, g):
    F = _F()
    mask = ctx.inputs[1]
    source_shape = ctx.input_meta[2][0]
    n = 1
    for s in source_shape:
        n *= s
    selected = F.masked_select(g, mask)
    rest = n - selected.shape[0]
    if rest:
        selected = F.cat([selected, F.zeros(rest, dtype=g.dtype)])
    return _sum_to(F.masked_fill(g, mask, 0), ctx.input_meta[0][0]), None, selected.reshape(source_shape)


@_TAKE.grad_rule(saves="inputs")
def _take_grad(ctx, g):
    index = ctx.inputs[1]
    return _F().put(_zeros(ctx.input_meta[0]), index, g, accumulate=True), None


@_PUT.grad_rule(saves="inputs")
def _put_grad(ctx, g):
    F = _F()
    index = ctx.inputs[1]
    source_shape = ctx.input_meta[2][0]
    grad_input = g if ctx.attrs["accumulate"] else F.put(g, index, F.zeros(source_shape, dtype=g.dtype))
    return grad_input, None, F.take(g, index).reshape(source_shape)


def _value_selecting_grad(ctx, g, indices_grad=None):
    """sort/topk: the values' gradient written back where the values came from."""
    (_, indices) = ctx.outputs
    meta = ctx.input_meta[0]
    if not meta[0]:
        return (g.reshape(()),)
    return (_F().scatter(_zeros(meta), ctx.attrs["dim"], indices, g),)


_SORT.grad_rule(saves="outputs")(_value_selecting_grad)
_TOPK.grad_rule(saves="outputs")(_value_selecting_grad)
