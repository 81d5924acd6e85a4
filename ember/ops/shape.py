"""Shape ops: functors, inference rules and (with autograd) derivatives, side by side.

Two kinds live here:

- **View ops** (``view``, ``transpose``, ``narrow``, ``split``...): primitives whose rule is a
  ``view_rule`` calling the metadata implementation in ``ember/_core/views.py``. No kernel, no
  copy; the result shares the input's storage. Their attributes are hashable (tuples).
- **Copying ops** (``cat``, ``flip``, ``roll``, ``repeat``, ``pad``, ``tril``...): primitives with
  an inference rule here and a kernel in ``ember/kernels/cpu/shape.py``, or composites of other
  ops (``stack``, ``hstack``, ``rot90``, ``tile``...).

>>> import ember
>>> x = ember.tensor([[0, 1, 2], [3, 4, 5]])
>>> x.transpose(0, 1).tolist()
[[0, 3], [1, 4], [2, 5]]
>>> ember.cat([x, x], dim=1).shape
ember.Size([2, 6])
"""

from __future__ import annotations

import math
import operator

from .._core import dtype as _dt
from .._core import views as _views
from .._core.shape import compute_view_stride, infer_size, normalize_size_args, wrap_dim
from .._core.tensor import Tensor
from .._core.tensor_numpy import from_numpy
from ..dispatch import NO_ATTRS, OpExpr, dispatch
from ..dispatch import interpreter as _interp
from .common import functional as _F
from .common import sum_to
from .functor import FUNCTORS, functor
from .schema import schema_family

declare = schema_family("shape")

__all__ = ["VIEW_OPS", "run_view"]

VIEW_OPS: dict[str, OpExpr] = {}

_mode = _interp._mode


def run_view(op: OpExpr, x: Tensor, attrs: dict) -> tuple:
    """Dispatch a one-input view op to the current interpreter (no ``dispatch`` hop)."""
    return _mode.interpreter.apply(op, (x,), attrs)


def named(fn, name: str):
    """``fn`` under its own name and code object, so that tracebacks and ``ember.trace`` (which
    recognises functors and rules by code object) tell apart the functions one factory made."""
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _infer_from_view(op: OpExpr):
    def infer(attrs, *inputs):
        return tuple((t._shape, t._dtype) for t in op.view(attrs, *inputs))

    return infer


def view_op(name: str, core, attr_names: tuple[str, ...] = (), *, multi: bool = False) -> OpExpr:
    """A view primitive whose rule calls ``core(x, *attrs)`` (metadata only)."""
    op = OpExpr(name, ("input",), ("out",))
    op.view_rule(_rule(name, core, attr_names, multi))
    op.shape_rule(_infer_from_view(op))
    VIEW_OPS[name] = op
    return op


def _rule(name: str, core, attr_names: tuple[str, ...], multi: bool):
    n = len(attr_names)
    if multi and n == 1:  # the core returns a tuple of views
        (a,) = attr_names

        def rule(attrs, x):
            return core(x, attrs[a])
    elif multi:
        a, b = attr_names

        def rule(attrs, x):
            return core(x, attrs[a], attrs[b])
    elif n == 0:

        def rule(attrs, x):
            return (core(x),)
    elif n == 1:
        (a,) = attr_names

        def rule(attrs, x):
            return (core(x, attrs[a]),)
    elif n == 2:
        a, b = attr_names

        def rule(attrs, x):
            return (core(x, attrs[a], attrs[b]),)
    else:
        a, b, c = attr_names

        def rule(attrs, x):
            return (core(x, attrs[a], attrs[b], attrs[c]),)

    return named(rule, f"{name}_view_rule")


def _simple_view(functor_name: str, name: str, core, attr_names: tuple[str, ...] = (), *, multi: bool = False) -> OpExpr:
    """A view primitive plus its functor ``Name(input, *attrs)`` (attrs in the schema's order)."""
    op = view_op(name, core, attr_names, multi=multi)
    n = len(attr_names)
    # Each arity spelled out: this is the hot path of every view.
    if n == 0:

        def run(input):
            out = _mode.interpreter.apply(op, (input,), NO_ATTRS)
            return out if multi else out[0]
    elif n == 1:
        (a,) = attr_names

        def run(input, x0):
            out = _mode.interpreter.apply(op, (input,), {a: x0})
            return out if multi else out[0]
    elif n == 2:
        a, b = attr_names

        def run(input, x0, x1):
            out = _mode.interpreter.apply(op, (input,), {a: x0, b: x1})
            return out if multi else out[0]
    else:
        a, b, c = attr_names

        def run(input, x0, x1, x2):
            out = _mode.interpreter.apply(op, (input,), {a: x0, b: x1, c: x2})
            return out if multi else out[0]

    FUNCTORS[functor_name] = named(run, functor_name)
    return op


# -- view ops: one primitive per core function ---------------------------------------------------


_LAYOUTS: dict = {}  # (shape, strides, requested size) -> (shape, strides or None)
_LAYOUTS_LIMIT = 4096


def view_layout(x, size: tuple) -> tuple:
    """The shape (one -1 resolved) and strides of ``x`` viewed as ``size``; strides are None
    where no view exists. Memoized: models reshape the same layouts again and again."""
    key = (x._shape, x._stride, size)
    layout = _LAYOUTS.get(key)
    if layout is None:
        shape = infer_size(size, x.numel(), "view")
        layout = (shape, compute_view_stride(x._shape, x._stride, shape))
        if len(_LAYOUTS) >= _LAYOUTS_LIMIT:
            _LAYOUTS.clear()
        _LAYOUTS[key] = layout
    return layout


def _view_sizes(x, size):
    """``x.view(size)``; ``size`` is a tuple of ints (one may be -1)."""
    shape, stride = view_layout(x, size)
    if stride is None:
        raise _NoView(
            "view(): view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        )
    return x._view(shape, stride, x._offset)


class _NoView(RuntimeError):
    """No strides view the input with the requested shape (reshape then copies)."""


_VIEW = view_op("view", _view_sizes, ("size",))
_VIEW_DTYPE = view_op("view_dtype", _views._view_dtype, ("dtype",))


def _looks_like_dtype(x) -> bool:
    return type(x) is not int and _views._looks_like_dtype(x)


declare(
    "view",
    "Tensor (Tensor input, Object size) => View",
    op=("view", "view_dtype"),
    doc="""
    A view with a new shape (PyTorch's stride rule; one -1 is inferred) or a new dtype.
    Tensor.view also takes the sizes as separate arguments: ``t.view(2, -1)``.

    >>> ember.tensor([1, 2, 3, 4]).view(2, -1).tolist()
    [[1, 2], [3, 4]]
    """,
)
@functor("View")
def view(input, size):
    """``view(shape)`` or ``view(dtype)``; ``size`` is the method's argument tuple or one value."""
    if type(size) is not tuple or (len(size) == 1 and type(size[0]) is not int):
        if type(size) is tuple and len(size) == 1:
            size = size[0]
        if _looks_like_dtype(size):
            return run_view(_VIEW_DTYPE, input, {"dtype": _dt.as_dtype(size, op="view")})[0]
        size = (size,)
    size = normalize_size_args(size, "view")
    return run_view(_VIEW, input, {"size": size})[0]


def _view_method(self, *shape):
    return view(self, shape)


declare("view_as", "Tensor (Tensor input, Tensor other) => ViewAs", method=True, op="view", doc="input.view(other.shape).")
@functor("ViewAs")
def view_as(input, other):
    return view(input, other._shape)


_RESHAPE_COPY = OpExpr("reshape_copy", ("input",), ("out",))


@_RESHAPE_COPY.shape_rule
def _infer_reshape_copy(attrs, x):
    return ((attrs["size"], x._dtype),)


declare(
    "reshape",
    "Tensor (Tensor input, IntList shape) => Reshape",
    method=True, op=("view", "reshape_copy"),
    doc="""
    A view with the new shape when the strides allow one, otherwise a contiguous copy.
    The sizes may also come as separate arguments.

    >>> ember.reshape(ember.tensor([[1, 2], [3, 4]]).t(), (-1,)).tolist()
    [1, 3, 2, 4]
    """,
)
@functor("Reshape")
def reshape(input, shape):
    """A view when the strides allow one (PyTorch's rule), otherwise a contiguous copy."""
    try:
        shape, stride = view_layout(input, shape)
    except RuntimeError as exc:
        raise RuntimeError(str(exc).replace("view()", "reshape()", 1)) from None
    if stride is None:
        return _mode.interpreter.apply(_RESHAPE_COPY, (input,), {"size": shape})[0]
    return _mode.interpreter.apply(_VIEW, (input,), {"size": shape})[0]


declare(
    "reshape_as",
    "Tensor (Tensor input, Tensor other) => ReshapeAs",
    method=True, op=("view", "reshape_copy"),
    doc="input.reshape(other.shape).",
)
@functor("ReshapeAs")
def reshape_as(input, other):
    return reshape(input, other._shape)


declare(
    "flatten",
    "Tensor (Tensor input, Int start_dim=0, Int end_dim=-1) => Flatten",
    method=True, op=("view", "reshape_copy"),
    doc="""
    Dimensions start_dim..end_dim merged into one (a view when possible, as reshape).

    >>> ember.zeros(2, 3, 4).flatten(1).shape
    ember.Size([2, 12])
    """,
)
@functor("Flatten")
def flatten(input, start_dim=0, end_dim=-1):
    ndim = len(input._shape)
    if ndim == 0:
        return reshape(input, (1,))
    start = wrap_dim(start_dim, ndim, "flatten", "start_dim")
    end = wrap_dim(end_dim, ndim, "flatten", "end_dim")
    if start > end:
        raise RuntimeError("flatten(): start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input._shape
    return reshape(input, (*shape[:start], math.prod(shape[start : end + 1]), *shape[end + 1 :]))


declare(
    "ravel",
    "Tensor (Tensor input) => Ravel",
    method=True, op=("view", "reshape_copy"),
    doc="The elements as a 1-d tensor (a view when possible).",
)
@functor("Ravel")
def ravel(input):
    return reshape(input, (-1,))


declare(
    "unflatten",
    "Tensor (Tensor input, Int dim, IntList sizes) => Unflatten",
    method=True,
    doc="""
    Dimension dim split into sizes (one -1 inferred).

    >>> ember.zeros(2, 6).unflatten(1, (3, -1)).shape
    ember.Size([2, 3, 2])
    """,
)
_simple_view("Unflatten", "unflatten", _views.unflatten, ("dim", "sizes"))
declare(
    "squeeze",
    "Tensor (Tensor input, IntList? dim=None) => Squeeze",
    method=True,
    doc="""
    Size-1 dimensions removed: all of them, or those among dim (an int or a tuple).

    >>> ember.zeros(1, 2, 1).squeeze((0, 2)).shape
    ember.Size([2])
    """,
)
_SQUEEZE = _simple_view("Squeeze", "squeeze", _views.squeeze, ("dim",))


declare(
    "unsqueeze",
    "Tensor (Tensor input, Int dim) => Unsqueeze",
    method=True,
    doc="""
    A new size-1 dimension at position dim.

    >>> ember.zeros(2, 3).unsqueeze(-1).shape
    ember.Size([2, 3, 1])
    """,
)
_UNSQUEEZE = _simple_view("Unsqueeze", "unsqueeze", _views.unsqueeze, ("dim",))


declare(
    "expand_dims",
    "Tensor (Tensor input, IntList axis=0) => ExpandDims",
    op="unsqueeze",
    doc="""
    The array API's expand_dims: size-1 dimensions at the positions axis (an int or a tuple).

    >>> ember.expand_dims(ember.zeros(2, 3), axis=(0, 3)).shape
    ember.Size([1, 2, 3, 1])
    """,
)
@functor("ExpandDims")
def expand_dims(input, axis=(0,)):
    """The array API's ``expand_dims``: new size-1 axes at ``axis`` (positions in the result)."""
    if len(axis) == 1:
        return run_view(_UNSQUEEZE, input, {"dim": axis[0]})[0]
    out_ndim = len(input._shape) + len(axis)
    dims = sorted(wrap_dim(d, out_ndim, "expand_dims", "axis") for d in axis)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"expand_dims(): repeated axis in {list(axis)}")
    for d in dims:
        input = run_view(_UNSQUEEZE, input, {"dim": d})[0]
    return input


declare(
    "transpose",
    "Tensor (Tensor input, Int dim0, Int dim1) => Transpose",
    method=True, aliases=("swapaxes", "swapdims"),
    doc="""
    Dimensions dim0 and dim1 swapped (a view).

    >>> ember.zeros(2, 3, 4).transpose(0, 2).shape
    ember.Size([4, 3, 2])
    """,
)
_simple_view("Transpose", "transpose", _views.transpose, ("dim0", "dim1"))
declare(
    "permute",
    "Tensor (Tensor input, IntList dims) => Permute",
    method=True, aliases=("permute_dims",),
    doc="""
    Dimensions reordered (a view); the dims may also come as separate arguments.

    >>> ember.permute(ember.zeros(2, 3, 4), (2, 0, 1)).shape
    ember.Size([4, 2, 3])
    """,
)
_PERMUTE = _simple_view("Permute", "permute", _views.permute, ("dims",))


declare(
    "movedim",
    "Tensor (Tensor input, IntList source, IntList destination) => Movedim",
    method=True, aliases=("moveaxis",),
    doc="""
    Dimensions source moved to positions destination, the others keeping their order.

    >>> ember.zeros(2, 3, 4).movedim(0, -1).shape
    ember.Size([3, 4, 2])
    """,
)
_simple_view("Movedim", "movedim", _views.movedim, ("source", "destination"))
declare(
    "t",
    "Tensor (Tensor input) => T2D",
    method=True,
    doc="The transpose of a matrix (0-d and 1-d tensors are returned as views of themselves).",
)
_simple_view("T2D", "t", _views.t)
declare(
    "T",
    "Tensor (Tensor input) => T",
    method="property",
    doc="All dimensions reversed (Tensor.T); for more than 2 dims prefer permute or mT.",
)
_simple_view("T", "T", _views.T)
declare(
    "linalg.matrix_transpose",
    "Tensor (Tensor input) => MatrixTranspose",
    op="mT",
    doc="The last two dimensions swapped (a view), as ``A.mT`` and :func:`ember.matrix_transpose`.",
)
declare(
    "mT",
    "Tensor (Tensor input) => MatrixTranspose",
    method="property", aliases=("matrix_transpose",),
    doc="""
    The last two dimensions swapped (Tensor.mT; the array API's matrix_transpose).

    >>> ember.matrix_transpose(ember.zeros(5, 2, 3)).shape
    ember.Size([5, 3, 2])
    """,
)
_simple_view("MatrixTranspose", "mT", _views.mT)
declare(
    "expand",
    "Tensor (Tensor input, IntList size) => Expand",
    method=True,
    doc="""
    Size-1 dimensions repeated without copying (stride 0); -1 keeps a size. The sizes may also
    come as separate arguments.

    >>> ember.zeros(3, 1).expand(2, 3, 4).shape
    ember.Size([2, 3, 4])
    """,
)
_EXPAND = _simple_view("Expand", "expand", _views.expand, ("size",))


declare(
    "expand_as",
    "Tensor (Tensor input, Tensor other) => ExpandAs",
    method=True, op="expand",
    doc="input.expand(other.shape).",
)
@functor("ExpandAs")
def expand_as(input, other):
    return FUNCTORS["Expand"](input, other._shape)


declare(
    "broadcast_to",
    "Tensor (Tensor input, IntList size) => BroadcastTo",
    method=True,
    doc="""
    input broadcast to shape size (a view, as expand).

    >>> ember.broadcast_to(ember.tensor([1, 2]), (2, 2)).tolist()
    [[1, 2], [1, 2]]
    """,
)
_simple_view("BroadcastTo", "broadcast_to", _views.broadcast_to, ("size",))
declare(
    "narrow",
    "Tensor (Tensor input, Int dim, Int start, Int length) => Narrow",
    method=True,
    doc="""
    Elements start..start+length of dimension dim (a view).

    >>> ember.tensor([0, 1, 2, 3]).narrow(0, 1, 2).tolist()
    [1, 2]
    """,
)
_simple_view("Narrow", "narrow", _views.narrow, ("dim", "start", "length"))
declare(
    "select",
    "Tensor (Tensor input, Int dim, Int index) => Select",
    method=True,
    doc="""
    The slice at index of dimension dim, that dimension removed (a view).

    >>> ember.tensor([[1, 2], [3, 4]]).select(1, 0).tolist()
    [1, 3]
    """,
)
_simple_view("Select", "select", _views.select, ("dim", "index"))
declare(
    "unbind",
    "TensorList (Tensor input, Int dim=0) => Unbind",
    method=True,
    doc="""
    Every slice along dim, as a tuple of views.

    >>> [t.tolist() for t in ember.tensor([[1, 2], [3, 4]]).unbind(1)]
    [[1, 3], [2, 4]]
    """,
)
_simple_view("Unbind", "unbind", _views.unbind, ("dim",), multi=True)
_SPLIT = view_op("split", _views.split, ("split_size_or_sections", "dim"), multi=True)
_TENSOR_SPLIT = view_op("tensor_split", _views.tensor_split, ("indices_or_sections", "dim"), multi=True)
declare(
    "chunk",
    "TensorList (Tensor input, Int chunks, Int dim=0) => Chunk",
    method=True,
    doc="""
    At most chunks views of equal size (the last may be smaller) along dim.

    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).chunk(2)]
    [[0, 1, 2], [3, 4]]
    """,
)
_simple_view("Chunk", "chunk", _views.chunk, ("chunks", "dim"), multi=True)


def _int_or_ints(value, op: str, arg: str):
    """An int, or a tuple of ints (lists and 1-d tensors too), for split-like arguments."""
    if type(value) is int:
        return value
    if isinstance(value, Tensor):
        if value.ndim == 0:
            return operator.index(value)
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return tuple(_views._index(v, op, arg) for v in value)
    return _views._index(value, op, arg)


declare(
    "split",
    "TensorList (Tensor input, Object split_size_or_sections, Int dim=0) => Split",
    method=True,
    doc="""
    Views of pieces of split_size elements along dim (the last may be shorter), or of the
    given list of sizes.

    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).split(2)]
    [[0, 1], [2, 3], [4]]
    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).split([1, 4])]
    [[0], [1, 2, 3, 4]]
    """,
)
@functor("Split")
def split(input, split_size_or_sections, dim=0):
    arg = _int_or_ints(split_size_or_sections, "split", "split_size_or_sections")
    return run_view(_SPLIT, input, {"split_size_or_sections": arg, "dim": dim})


declare(
    "tensor_split",
    "TensorList (Tensor input, Object indices_or_sections, Int dim=0) => TensorSplit",
    method=True,
    doc="""
    Views split into n nearly equal sections, or at the given indices (NumPy's array_split).

    >>> [t.tolist() for t in ember.tensor([0, 1, 2, 3, 4]).tensor_split([1, 3])]
    [[0], [1, 2], [3, 4]]
    """,
)
@functor("TensorSplit")
def tensor_split(input, indices_or_sections, dim=0):
    arg = _int_or_ints(indices_or_sections, "tensor_split", "indices_or_sections")
    return run_view(_TENSOR_SPLIT, input, {"indices_or_sections": arg, "dim": dim})


declare(
    "diagonal",
    "Tensor (Tensor input, Int offset=0, Int dim1=0, Int dim2=1) => Diagonal",
    method=True,
    doc="""
    The diagonal of dims dim1 and dim2 as the last dimension (a view).

    >>> ember.tensor([[1, 2], [3, 4]]).diagonal().tolist()
    [1, 4]
    """,
)
_simple_view("Diagonal", "diagonal", _views.diagonal, ("offset", "dim1", "dim2"))
declare(
    "unfold",
    "Tensor (Tensor input, Int dimension, Int size, Int step) => Unfold",
    method=True,
    doc="""
    Sliding windows of size elements, step apart, along dimension, as a new last dimension (a view).

    >>> ember.tensor([0, 1, 2, 3]).unfold(0, 2, 1).tolist()
    [[0, 1], [1, 2], [2, 3]]
    """,
)
_simple_view("Unfold", "unfold", _views.unfold, ("dimension", "size", "step"))
declare(
    "as_strided",
    "Tensor (Tensor input, IntList size, IntList stride, Int? storage_offset=None) => AsStrided",
    method=True,
    doc="Any layout over the input's storage (checked against the storage's bounds).",
)
_simple_view("AsStrided", "as_strided", _views.as_strided, ("size", "stride", "storage_offset"))

# ``t.view(2, 3)`` and ``t.view(ember.int32)``: one parameter that is either sizes (also as
# varargs) or a dtype, which the generated functions cannot express; the method is bound here
# and calls the functor. Its schema entry has ``method: false``.
Tensor.view = _view_method


# -- copying ops: primitives with kernels, and composites ----------------------------------------


def _primitive(name: str, inputs=("input",)) -> OpExpr:
    return OpExpr(name, inputs, ("out",))


def _run(op: OpExpr, inputs: tuple, attrs: dict, out=None) -> Tensor:
    return dispatch(op, inputs, attrs, None if out is None else (out,))[0]


def _is_legacy_empty(t) -> bool:
    return len(t._shape) == 1 and t._shape[0] == 0


_CAT = _primitive("cat", ("tensors",))


@_CAT.shape_rule
def _infer_cat(attrs, *tensors):
    if not tensors:
        raise RuntimeError("cat(): expected a non-empty list of Tensors")
    dtype = tensors[0]._dtype
    for i, t in enumerate(tensors):
        if not t._shape:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be concatenated")
        if t._dtype is not dtype:
            dtype = _dt.promote_types(dtype, t._dtype)
    # PyTorch skips 1-d empty tensors (the legacy "no tensor" shape) whatever the others' shapes
    kept = [(i, t) for i, t in enumerate(tensors) if not _is_legacy_empty(t)]
    if not kept:
        return (((0,), dtype),)
    ref = kept[0][1]._shape
    ndim = len(ref)
    d = wrap_dim(attrs["dim"], ndim, "cat")
    total = 0
    for i, t in kept:
        shape = t._shape
        if len(shape) != ndim:
            raise RuntimeError(f"cat(): Tensors must have same number of dimensions: got {ndim} and {len(shape)}")
        for k in range(ndim):
            if k != d and shape[k] != ref[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref[k]} but got size {shape[k]} "
                    f"for tensor number {i} in the list."
                )
        total += shape[d]
    return (((*ref[:d], total, *ref[d + 1 :]), dtype),)


declare(
    "cat",
    "Tensor (TensorList tensors, Int dim=0) => Cat",
    out=True, aliases=("concat", "concatenate"),
    doc="""
    Tensors joined along dim (sizes must match elsewhere; dtypes promote; 1-d empty tensors
    are skipped, as in PyTorch).

    >>> ember.cat([ember.tensor([[1, 2]]), ember.tensor([[3.5, 4]])]).tolist()
    [[1.0, 2.0], [3.5, 4.0]]
    """,
)
@functor("Cat")
def cat(tensors, dim=0, out=None):
    return _run(_CAT, tuple(tensors), {"dim": dim}, out)


def _check_stack(tensors, op: str) -> None:
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    first = tensors[0]._shape
    for i, t in enumerate(tensors):
        if t._shape != first:
            raise RuntimeError(
                f"{op} expects each tensor to be equal size, but got {list(first)} at entry 0 and {list(t._shape)} at entry {i}"
            )


declare(
    "stack",
    "Tensor (TensorList tensors, Int dim=0) => Stack",
    out=True, composite=True,
    doc="""
    Tensors of one shape joined along a new dimension dim.

    >>> ember.stack([ember.tensor([1, 2]), ember.tensor([3, 4])], dim=1).tolist()
    [[1, 3], [2, 4]]
    """,
)
@functor("Stack")
def stack(tensors, dim=0, out=None):
    _check_stack(tensors, "stack")
    d = wrap_dim(dim, len(tensors[0]._shape) + 1, "stack")
    return cat([run_view(_UNSQUEEZE, t, {"dim": d})[0] for t in tensors], d, out)


def _atleast(t: Tensor, n: int) -> Tensor:
    """NumPy's atleast_1d/2d/3d: 0-d -> (1,)*n; (k,) -> (1, k) or (1, k, 1); (m, k) -> (m, k, 1)."""
    shape = t._shape
    if len(shape) >= n:
        return t
    if not shape:
        return reshape(t, (1,) * n)
    if len(shape) == 1:
        return reshape(t, (1, shape[0]) if n == 2 else (1, shape[0], 1))
    return reshape(t, (*shape, 1))


declare(
    "hstack",
    "Tensor (TensorList tensors) => Hstack",
    out=True, composite=True,
    doc="Tensors joined column-wise (along dim 0 for 1-d tensors, dim 1 otherwise).",
)
@functor("Hstack")
def hstack(tensors, out=None):
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    ts = [_atleast(t, 1) for t in tensors]
    return cat(ts, 0 if len(ts[0]._shape) == 1 else 1, out)


declare(
    "vstack",
    "Tensor (TensorList tensors) => Vstack",
    out=True, composite=True, aliases=("row_stack",),
    doc="""
    Tensors joined row-wise (1-d tensors become rows).

    >>> ember.vstack([ember.tensor([1, 2]), ember.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """,
)
@functor("Vstack")
def vstack(tensors, out=None):
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat([_atleast(t, 2) for t in tensors], 0, out)


declare(
    "dstack",
    "Tensor (TensorList tensors) => Dstack",
    out=True, composite=True,
    doc="Tensors joined depth-wise (along dim 2, after making each at least 3-d).",
)
@functor("Dstack")
def dstack(tensors, out=None):
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_atleast(t, 3) for t in tensors], 2, out)


declare(
    "column_stack",
    "Tensor (TensorList tensors) => ColumnStack",
    out=True, composite=True,
    doc="1-d tensors as columns (and 2-d ones as they are) joined along dim 1.",
)
@functor("ColumnStack")
def column_stack(tensors, out=None):
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    ts = [reshape(t, (-1, 1)) if len(t._shape) <= 1 else t for t in tensors]
    return cat(ts, 1, out)


def _flip_dims(dims, axis, ndim: int, op: str) -> tuple:
    if axis is not None:
        dims = axis
    if dims is None or len(dims) == 0:
        return tuple(range(ndim))
    wrapped = tuple(wrap_dim(d, ndim, op, "dims") for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(
            f"{op}(): dims has duplicates, original flip dims size={len(wrapped)}, but unique flip dims size={len(set(wrapped))}"
        )
    return wrapped


_FLIP = _primitive("flip")


@_FLIP.shape_rule
def _infer_flip(attrs, x):
    return ((x._shape, x._dtype),)


declare(
    "flip",
    "Tensor (Tensor input, IntList dims, *, IntList? axis=None) => Flip",
    method=True,
    doc="""
    A copy with the order of elements reversed along dims (every dim when none is given, as the
    array API's flip(x, axis=None)).

    >>> ember.tensor([[1, 2], [3, 4]]).flip(0).tolist()
    [[3, 4], [1, 2]]
    >>> ember.flip(ember.tensor([[1, 2], [3, 4]])).tolist()
    [[4, 3], [2, 1]]
    """,
)
@functor("Flip")
def flip(input, dims, axis=None):
    return _run(_FLIP, (input,), {"dims": _flip_dims(dims, axis, len(input._shape), "flip")})


declare("fliplr", "Tensor (Tensor input) => Fliplr", method=True, op="flip", doc="flip along dim 1 (input at least 2-d).")
@functor("Fliplr")
def fliplr(input):
    if len(input._shape) < 2:
        raise RuntimeError("fliplr(): Input must be >= 2-d.")
    return _run(_FLIP, (input,), {"dims": (1,)})


declare("flipud", "Tensor (Tensor input) => Flipud", method=True, op="flip", doc="flip along dim 0 (input at least 1-d).")
@functor("Flipud")
def flipud(input):
    if len(input._shape) < 1:
        raise RuntimeError("flipud(): Input must be >= 1-d.")
    return _run(_FLIP, (input,), {"dims": (0,)})


_ROLL = _primitive("roll")


@_ROLL.shape_rule
def _infer_roll(attrs, x):
    return ((x._shape, x._dtype),)


declare(
    "roll",
    "Tensor (Tensor input, IntList shifts, IntList? dims=None, *, IntList? axis=None) => Roll",
    method=True,
    doc="""
    Elements shifted along dims (wrapping around); without dims, over the flattened tensor.

    >>> ember.roll(ember.tensor([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    """,
)
@functor("Roll")
def roll(input, shifts, dims=None, axis=None):
    if axis is not None:
        dims = axis
    ndim = len(input._shape)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims: 0")
        return _run(_ROLL, (input,), {"shifts": shifts, "dims": None})
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(wrap_dim(d, ndim, "roll", "dims") for d in dims)
    return _run(_ROLL, (input,), {"shifts": shifts, "dims": dims})


declare(
    "rot90",
    "Tensor (Tensor input, Int k=1, IntList dims=[0, 1]) => Rot90",
    method=True, composite=True,
    doc="""
    Rotation by 90 degrees k times in the plane of dims (from the first towards the second).

    >>> ember.tensor([[1, 2], [3, 4]]).rot90().tolist()
    [[2, 4], [1, 3]]
    """,
)
@functor("Rot90")
def rot90(input, k=1, dims=(0, 1)):
    ndim = len(input._shape)
    if len(dims) != 2:
        raise RuntimeError(f"rot90(): expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"rot90(): expected total dims >= 2, but got total dims = {ndim}")
    a = wrap_dim(dims[0], ndim, "rot90", "dims")
    b = wrap_dim(dims[1], ndim, "rot90", "dims")
    if a == b:
        raise RuntimeError(f"rot90(): expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    k %= 4
    if k == 1:
        return FUNCTORS["Transpose"](_run(_FLIP, (input,), {"dims": (b,)}), a, b)
    if k == 2:
        return _run(_FLIP, (input,), {"dims": (a, b)})
    if k == 3:
        return FUNCTORS["Transpose"](_run(_FLIP, (input,), {"dims": (a,)}), a, b)
    return _run(_FLIP, (input,), {"dims": ()})  # a copy, as in PyTorch


_REPEAT = _primitive("repeat")


@_REPEAT.shape_rule
def _infer_repeat(attrs, x):
    repeats = attrs["repeats"]
    if len(repeats) < len(x._shape):
        raise RuntimeError(
            "repeat(): Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor "
            f"(repeats {list(repeats)}, tensor of shape {list(x._shape)})"
        )
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"repeat(): Trying to create tensor with negative dimension: repeats {list(repeats)}")
    shape = (1,) * (len(repeats) - len(x._shape)) + x._shape
    return ((tuple(s * r for s, r in zip(shape, repeats, strict=True)), x._dtype),)


declare(
    "repeat",
    "Tensor (Tensor input, IntList repeats) => Repeat",
    method=True,
    doc="""
    The tensor tiled repeats[i] times along each dim (len(repeats) >= ndim; new dims lead).

    >>> ember.tensor([1, 2]).repeat(2, 2).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """,
)
@functor("Repeat")
def repeat(input, repeats):
    return _run(_REPEAT, (input,), {"repeats": repeats})


declare(
    "tile",
    "Tensor (Tensor input, IntList dims) => Tile",
    method=True, op="repeat",
    doc="""
    repeat, with missing leading repeats taken as 1.

    >>> ember.tile(ember.tensor([[1, 2]]), (2,)).tolist()
    [[1, 2, 1, 2]]
    """,
)
@functor("Tile")
def tile(input, dims):
    ndim = len(input._shape)
    if len(dims) < ndim:
        dims = (1,) * (ndim - len(dims)) + tuple(dims)
    return _run(_REPEAT, (input,), {"repeats": dims})


_REPEAT_INTERLEAVE = _primitive("repeat_interleave", ("input", "repeats"))


@_REPEAT_INTERLEAVE.shape_rule
def _infer_repeat_interleave(attrs, x, repeats):
    d = attrs["dim"]
    shape = list(x._shape)
    if repeats._dtype.kind not in "iu":
        raise RuntimeError(f"repeat_interleave(): repeats must be an integer tensor, got {repeats._dtype}")
    if len(repeats._shape) > 1:
        raise RuntimeError("repeat_interleave(): repeats must be 0-dim or 1-dim tensor")
    n = repeats._shape[0] if repeats._shape else 1
    if n != 1 and n != shape[d]:
        raise RuntimeError(
            f"repeat_interleave(): repeats must have the same size as input along dim, but got repeats.size(0) = {n} and input.size({d}) = {shape[d]}"
        )
    shape[d] = attrs["output_size"]
    return ((tuple(shape), x._dtype),)


def _repeat_interleave(input, repeats: Tensor, dim, output_size):
    if dim is None:
        input = reshape(input, (-1,))
        dim = 0
    elif not input._shape:
        input = reshape(input, (1,))
    d = wrap_dim(dim, len(input._shape), "repeat_interleave")
    if output_size is None:
        if repeats.is_meta:
            raise NotImplementedError(
                "repeat_interleave(): output_size is needed for meta tensors (the result's size depends on data)"
            )
        r = repeats._host_array()
        if r.size and r.min() < 0:
            raise RuntimeError("repeat_interleave(): repeats can not be negative")
        output_size = int(r.sum()) * (input._shape[d] if r.size == 1 else 1)
    return _run(_REPEAT_INTERLEAVE, (input, repeats), {"dim": d, "output_size": output_size})


declare(
    "repeat_interleave",
    [
        "Tensor (Tensor input, Tensor repeats, Int? dim=None, *, Int? output_size=None) => RepeatInterleave",
        "Tensor (Tensor input, Int repeats, Int? dim=None, *, Int? output_size=None) => RepeatInterleaveInt",
    ],
    method=True, op="repeat_interleave",
    doc="""
    Each element (or slice along dim) repeated; repeats is an int or one count per element.

    >>> ember.tensor([1, 2]).repeat_interleave(2).tolist()
    [1, 1, 2, 2]
    >>> ember.repeat_interleave(ember.tensor([[1, 2], [3, 4]]), ember.tensor([1, 2]), dim=0).tolist()
    [[1, 2], [3, 4], [3, 4]]
    """,
)
@functor("RepeatInterleave")
def repeat_interleave(input, repeats, dim=None, output_size=None):
    return _repeat_interleave(input, repeats, dim, output_size)


@functor("RepeatInterleaveInt")
def repeat_interleave_int(input, repeats, dim=None, output_size=None):
    if repeats < 0:
        raise RuntimeError("repeat_interleave(): repeats can not be negative")
    from .._core.tensor import tensor

    return _repeat_interleave(input, tensor([repeats], device=input.device), dim, output_size)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_PAD = _primitive("pad")


@_PAD.shape_rule
def _infer_pad(attrs, x):
    pad, mode = attrs["pad"], attrs["mode"]
    ndim = len(x._shape)
    if len(pad) % 2:
        raise RuntimeError(f"pad(): Padding length must be divisible by 2, got {len(pad)}")
    if len(pad) // 2 > ndim:
        raise RuntimeError(
            f"pad(): Padding length should be less than or equal to two times the input dimension but got padding length {len(pad)} and input of dimension {ndim}"
        )
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"pad(): Unrecognised padding mode {mode} (expected one of {', '.join(_PAD_MODES)})")
    shape = list(x._shape)
    for i in range(len(pad) // 2):
        d = ndim - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        size = shape[d]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(
                f"pad(): Padding size should be less than the corresponding input dimension, but got: padding ({left}, {right}) at dimension {d} of input {list(x._shape)}"
            )
        if mode == "circular" and (left > size or right > size):
            raise RuntimeError(
                f"pad(): Padding value causes wrapping around more than once (padding ({left}, {right}) at dimension {d} of size {size})"
            )
        if mode == "replicate" and size == 0 and (left > 0 or right > 0):
            raise RuntimeError(f"pad(): cannot replicate-pad dimension {d} of size 0")
        new = size + left + right
        if new < 0:
            raise RuntimeError(
                f"pad(): The input size {size}, plus negative padding {left} and {right} resulted in a negative output size, "
                f"which is invalid. Check dimension {d} of your input."
            )
        shape[d] = new
    return ((tuple(shape), x._dtype),)


declare(
    "pad",
    'Tensor (Tensor input, IntList pad, String mode="constant", Float? value=None) => Pad',
    doc="""
    Padding (left, right) pairs for the last dim first, then the one before... (PyTorch's order).
    mode: constant (value, default 0; negative pads crop), reflect, replicate or circular.

    >>> ember.pad(ember.tensor([[1, 2]]), (1, 2), value=9).tolist()
    [[9, 1, 2, 9, 9]]
    >>> ember.pad(ember.tensor([[1., 2., 3.]]), (2, 1), mode="reflect").tolist()
    [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """,
)
@functor("Pad")
def pad(input, pad, mode="constant", value=None):
    if mode != "constant" and value is not None and value != 0:
        raise RuntimeError(f'pad(): Padding mode "{mode}" doesn\'t take in value argument.')
    return _run(_PAD, (input,), {"pad": pad, "mode": mode, "value": 0 if value is None else value})


def _triangle(name: str, functor_name: str) -> OpExpr:
    op = _primitive(name)

    @op.shape_rule
    def infer(attrs, x):
        if len(x._shape) < 2:
            raise RuntimeError(f"{name}(): input tensor must have at least 2 dimensions")
        return ((x._shape, x._dtype),)

    def run(input, diagonal=0, out=None):
        return _run(op, (input,), {"diagonal": diagonal}, out)

    FUNCTORS[functor_name] = named(run, functor_name)
    return op


declare(
    "tril",
    "Tensor (Tensor input, Int diagonal=0) => Tril",
    method=True, inplace="tril_", out=True,
    doc="""
    The lower triangle of the last two dims (on and below diagonal), zeros elsewhere.

    >>> ember.tensor([[1, 2], [3, 4]]).tril().tolist()
    [[1, 0], [3, 4]]
    """,
)
_triangle("tril", "Tril")
declare(
    "triu",
    "Tensor (Tensor input, Int diagonal=0) => Triu",
    method=True, inplace="triu_", out=True,
    doc="""
    The upper triangle of the last two dims (on and above diagonal), zeros elsewhere.

    >>> ember.tensor([[1, 2], [3, 4]]).triu(1).tolist()
    [[0, 2], [0, 0]]
    """,
)
_triangle("triu", "Triu")

_DIAG = _primitive("diag")


@_DIAG.shape_rule
def _infer_diag(attrs, x):
    k = attrs["diagonal"]
    if len(x._shape) == 1:
        n = x._shape[0] + abs(k)
        return (((n, n), x._dtype),)
    if len(x._shape) == 2:
        rows, cols = x._shape
        n = max(min(rows, cols - k), 0) if k >= 0 else max(min(rows + k, cols), 0)
        return (((n,), x._dtype),)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {len(x._shape)}D")


declare(
    "diag",
    "Tensor (Tensor input, Int diagonal=0) => Diag",
    method=True, out=True,
    doc="""
    A 1-d tensor as the diagonal of a square matrix, or a matrix's diagonal as a 1-d copy.

    >>> ember.diag(ember.tensor([1, 2])).tolist()
    [[1, 0], [0, 2]]
    """,
)
@functor("Diag")
def diag(input, diagonal=0, out=None):
    return _run(_DIAG, (input,), {"diagonal": diagonal}, out)


declare(
    "diagflat",
    "Tensor (Tensor input, Int offset=0) => Diagflat",
    method=True, op="diag",
    doc="The flattened input as the diagonal of a square matrix.",
)
@functor("Diagflat")
def diagflat(input, offset=0):
    return _run(_DIAG, (reshape(input, (-1,)),), {"diagonal": offset})


_DIAG_EMBED = _primitive("diag_embed")


@_DIAG_EMBED.shape_rule
def _infer_diag_embed(attrs, x):
    offset, d1, d2 = attrs["offset"], attrs["dim1"], attrs["dim2"]
    if not x._shape:
        raise RuntimeError("diag_embed(): input must be at least 1-dimensional")
    ndim = len(x._shape) + 1
    a = wrap_dim(d1, ndim, "diag_embed", "dim1")
    b = wrap_dim(d2, ndim, "diag_embed", "dim2")
    if a == b:
        raise RuntimeError(f"diag_embed(): diagonal dimensions cannot be identical {d1}, {d2}")
    n = x._shape[-1] + abs(offset)
    rest = iter(x._shape[:-1])
    shape = tuple(n if d in (a, b) else next(rest) for d in range(ndim))
    return ((shape, x._dtype),)


declare(
    "diag_embed",
    "Tensor (Tensor input, Int offset=0, Int dim1=-2, Int dim2=-1) => DiagEmbed",
    method=True,
    doc="""
    The last dim of input as diagonals of new matrices in dims dim1 and dim2.

    >>> ember.diag_embed(ember.tensor([[1, 2]])).tolist()
    [[[1, 0], [0, 2]]]
    """,
)
@functor("DiagEmbed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    return _run(_DIAG_EMBED, (input,), {"offset": offset, "dim1": dim1, "dim2": dim2})


# -- derivatives ---------------------------------------------------------------------------------
# Written with ember's ops (so they differentiate again). View ops undo their layout change on
# the gradient; ops that read input positions several times (or some not at all) add the
# gradient back with ``index_add`` at the positions they read (``_positions``).


def _positions(op: OpExpr, attrs: dict, shape: tuple) -> tuple:
    """The flat input positions each output element of the view op ``op`` reads: the op applied
    to an ``arange`` of ``shape`` (metadata only; nothing is recorded)."""
    base = _F().arange(math.prod(shape)).reshape(shape)
    return op.view(attrs, base)


def _scatter_back(g, pos, shape: tuple):
    """Zeros of ``shape`` with ``g`` added at the flat positions ``pos`` (``g``'s shape)."""
    F = _F()
    flat = F.zeros(math.prod(shape), dtype=g.dtype)
    return F.index_add(flat, 0, pos.reshape(-1), g.reshape(-1)).reshape(shape)


def _pad_dim(g, ndim: int, d: int, before: int, after: int):
    """``g`` padded with zeros (or narrowed, for negative amounts) along ``d``."""
    return _F().pad(g, (0, 0) * (ndim - 1 - d) + (before, after))


def _in_shape(ctx, i: int = 0) -> tuple:
    return ctx.input_meta[i][0]


def _reshape_grad(ctx, g):
    return (g.reshape(_in_shape(ctx)),)


_VIEW.grad_rule(saves="none")(_reshape_grad)
_RESHAPE_COPY.grad_rule(saves="none")(_reshape_grad)
_SQUEEZE.grad_rule(saves="none")(_reshape_grad)
_UNSQUEEZE.grad_rule(saves="none")(_reshape_grad)
VIEW_OPS["unflatten"].grad_rule(saves="none")(_reshape_grad)


@_VIEW_DTYPE.grad_rule(saves="none")
def _view_dtype_grad(ctx, g):
    old, new = ctx.input_meta[0][1], ctx.output_meta[0][1]
    if old is new:
        return (g,)
    raise RuntimeError(
        f"view(dtype) is not differentiable: viewing {old} as {new} reinterprets bits (as in PyTorch); "
        "detach() before the view, or use .to(dtype) to convert values"
    )


@VIEW_OPS["transpose"].grad_rule(saves="none")
def _transpose_grad(ctx, g):
    return (g.transpose(ctx.attrs["dim0"], ctx.attrs["dim1"]),)


@_PERMUTE.grad_rule(saves="none")
def _permute_grad(ctx, g):
    ndim = len(_in_shape(ctx))
    dims = [wrap_dim(d, ndim, "permute") for d in ctx.attrs["dims"]]
    inverse = [0] * ndim
    for i, d in enumerate(dims):
        inverse[d] = i
    return (g.permute(tuple(inverse)),)


@VIEW_OPS["movedim"].grad_rule(saves="none")
def _movedim_grad(ctx, g):
    return (_F().movedim(g, ctx.attrs["destination"], ctx.attrs["source"]),)


@VIEW_OPS["t"].grad_rule(saves="none")
def _t_grad(ctx, g):
    return (g.t(),)


@VIEW_OPS["T"].grad_rule(saves="none")
def _T_grad(ctx, g):
    return (g.permute(tuple(range(g.ndim - 1, -1, -1))),)


@VIEW_OPS["mT"].grad_rule(saves="none")
def _mT_grad(ctx, g):
    return (g.transpose(-2, -1),)


def _sum_to_grad(ctx, g):
    return (sum_to(g, _in_shape(ctx)),)


_EXPAND.grad_rule(saves="none")(_sum_to_grad)
VIEW_OPS["broadcast_to"].grad_rule(saves="none")(_sum_to_grad)


@VIEW_OPS["narrow"].grad_rule(saves="none")
def _narrow_grad(ctx, g):
    shape = _in_shape(ctx)
    d = wrap_dim(ctx.attrs["dim"], len(shape), "narrow")
    start, length = ctx.attrs["start"], ctx.attrs["length"]
    if start < 0:
        start += shape[d]
    return (_pad_dim(g, len(shape), d, start, shape[d] - start - length),)


@VIEW_OPS["select"].grad_rule(saves="none")
def _select_grad(ctx, g):
    shape = _in_shape(ctx)
    d = wrap_dim(ctx.attrs["dim"], len(shape), "select")
    i = ctx.attrs["index"]
    if i < 0:
        i += shape[d]
    return (_pad_dim(g.unsqueeze(d), len(shape), d, i, shape[d] - i - 1),)


@VIEW_OPS["unbind"].grad_rule(saves="none")
def _unbind_grad(ctx, *grads):
    return (_F().stack(grads, wrap_dim(ctx.attrs["dim"], len(_in_shape(ctx)), "unbind")),)


def _cat_grads(ctx, *grads):
    d = wrap_dim(ctx.attrs["dim"], len(_in_shape(ctx)), "split")
    return (_F().cat(grads, d) if len(grads) > 1 else grads[0].reshape(_in_shape(ctx)),)


_SPLIT.grad_rule(saves="none")(_cat_grads)
_TENSOR_SPLIT.grad_rule(saves="none")(_cat_grads)
VIEW_OPS["chunk"].grad_rule(saves="none")(_cat_grads)


def view_scatter_grad(op: OpExpr):
    """Register the derivative of a view op that reads input elements once, several times
    (``index_add`` sums them) or not at all: ``g`` added back at the positions the view reads."""

    def grad(ctx, g):
        shape = _in_shape(ctx)
        (pos,) = _positions(op, ctx.attrs, shape)
        return (_scatter_back(g, pos, shape),)

    op.grad_rule(saves="none")(named(grad, f"_{op.name}_grad"))


view_scatter_grad(VIEW_OPS["diagonal"])
view_scatter_grad(VIEW_OPS["unfold"])


@VIEW_OPS["as_strided"].grad_rule(saves="inputs")
def _as_strided_grad(ctx, g):
    """``g`` added into zeros over the storage extent through the output's strides, then read
    back through the input's (which must not overlap itself)."""
    import numpy as np

    (x,) = ctx.inputs
    size, stride, offset = ctx.attrs["size"], ctx.attrs["stride"], ctx.attrs["storage_offset"]
    if offset is None:
        offset = x._offset

    def flat_positions(shape, strides, start):
        pos = np.full(tuple(shape), start, dtype=np.int64)
        for k, (n, s) in enumerate(zip(shape, strides, strict=True)):
            pos = pos + (np.arange(n, dtype=np.int64) * s).reshape([n if j == k else 1 for j in range(len(shape))])
        return pos

    pos_in = flat_positions(x._shape, x._stride, x._offset)
    if np.unique(pos_in).size != pos_in.size:
        raise NotImplementedError("as_strided(): the derivative for an input whose elements overlap in memory is not supported")
    pos_out = flat_positions(size, stride, offset)
    lo = int(min(pos_in.min(initial=0), pos_out.min(initial=0)))
    extent = int(max(pos_in.max(initial=0), pos_out.max(initial=0))) - lo + 1
    F = _F()

    storage = _scatter_back(g, from_numpy(pos_out - lo), (extent,))
    return (F.take(storage, from_numpy(pos_in - lo)),)


# -- derivatives of the copying ops -----------------------------------------------------------------


@_CAT.grad_rule(saves="none")
def _cat_grad(ctx, g):
    kept = [i for i, (shape, _) in enumerate(ctx.input_meta) if not (len(shape) == 1 and shape[0] == 0)]
    grads = [None] * len(ctx.input_meta)
    for i, (shape, dtype) in enumerate(ctx.input_meta):
        if i not in kept:
            grads[i] = _F().zeros(shape, dtype=dtype)
    if kept:
        ndim = len(ctx.input_meta[kept[0]][0])
        d = wrap_dim(ctx.attrs["dim"], ndim, "cat")
        start = 0
        for i in kept:
            shape, dtype = ctx.input_meta[i]
            gi = g.narrow(d, start, shape[d])
            start += shape[d]
            grads[i] = gi if dtype is g.dtype else gi.to(dtype)
    return tuple(grads)


@_FLIP.grad_rule(saves="none")
def _flip_grad(ctx, g):
    return (g.flip(ctx.attrs["dims"]),)


@_ROLL.grad_rule(saves="none")
def _roll_grad(ctx, g):
    return (_F().roll(g, tuple(-s for s in ctx.attrs["shifts"]), ctx.attrs["dims"]),)


@_REPEAT.grad_rule(saves="none")
def _repeat_grad(ctx, g):
    shape = _in_shape(ctx)
    repeats = ctx.attrs["repeats"]
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    split = tuple(v for r, s in zip(repeats, padded, strict=True) for v in (r, s))
    summed = g.reshape(split).sum(dim=tuple(range(0, 2 * len(repeats), 2))) if repeats else g
    return (summed.reshape(shape),)


@_REPEAT_INTERLEAVE.grad_rule(saves="inputs")
def _repeat_interleave_grad(ctx, g):
    import numpy as np


    _, repeats = ctx.inputs
    shape = _in_shape(ctx)
    d = ctx.attrs["dim"]
    r = repeats._host_array().reshape(-1).astype(np.int64)
    index = np.repeat(np.arange(shape[d], dtype=np.int64), r[0] if r.size == 1 else r)
    zeros = _F().zeros(shape, dtype=g.dtype)
    return _F().index_add(zeros, d, from_numpy(index), g), None


@_PAD.grad_rule(saves="none")
def _pad_grad(ctx, g):
    pad, mode = ctx.attrs["pad"], ctx.attrs["mode"]
    shape = _in_shape(ctx)
    if mode == "constant":
        return (_F().pad(g, tuple(-p for p in pad)),)
    base = _F().arange(math.prod(shape)).reshape(shape)
    pos = _F().pad(base, pad, mode=mode)
    return (_scatter_back(g, pos, shape),)


def _op(name: str) -> OpExpr:
    from ..dispatch import OP_REGISTRY

    return OP_REGISTRY[name]


@_op("tril").grad_rule(saves="none")
def _tril_grad(ctx, g):
    return (g.tril(ctx.attrs["diagonal"]),)


@_op("triu").grad_rule(saves="none")
def _triu_grad(ctx, g):
    return (g.triu(ctx.attrs["diagonal"]),)


@_DIAG.grad_rule(saves="none")
def _diag_grad(ctx, g):
    shape = _in_shape(ctx)
    k = ctx.attrs["diagonal"]
    if len(shape) == 1:
        return (g.diagonal(k, 0, 1),)
    (pos,) = _positions(VIEW_OPS["diagonal"], {"offset": k, "dim1": 0, "dim2": 1}, shape)
    return (_scatter_back(g, pos, shape),)


@_DIAG_EMBED.grad_rule(saves="none")
def _diag_embed_grad(ctx, g):
    a = ctx.attrs
    return (g.diagonal(a["offset"], a["dim1"], a["dim2"]),)
