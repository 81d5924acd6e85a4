"""Views with a new shape: ``view``/``reshape`` (the same elements in the same order, or a
copy when no strides can show them so), ``flatten``/``unflatten``/``ravel``, size-1 dimensions
added or removed (``squeeze``, ``unsqueeze``, ``expand_dims``) and size-1 dimensions repeated
without copying (``expand``, ``broadcast_to``).

>>> import ember
>>> ember.tensor([[1, 2], [3, 4]]).t().reshape(-1).tolist()
[1, 3, 2, 4]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt, views as _views
from ..._core.shape import compute_view_stride, infer_size, normalize_size_args, wrap_dim
from ...dispatch import OpExpr, interpreter as _interp
from .. import sbp_rules
from ..common import sum_to
from ..functor import FUNCTORS, functor
from ..schema import schema_family
from ._common import in_shape
from .view_op import run_view, simple_view, view_op

declare = schema_family("shape")

__all__ = ["UNSQUEEZE", "reshape", "view", "view_layout"]


_mode = _interp._mode


def _reshape_grad(ctx, g):
    """The derivative of the views that keep every element in order: the gradient reshaped back."""
    return (g.reshape(in_shape(ctx)),)


def _sum_to_grad(ctx, g):
    """The derivative of the broadcasting views: the gradient summed over the repeated dims."""
    return (sum_to(g, in_shape(ctx)),)


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
    tf={"view": "Reshape", "view_dtype": "Bitcast"},
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


def _looks_like_dtype(x) -> bool:
    return type(x) is not int and _views._looks_like_dtype(x)


def _view_method(self, *shape, size=None, dtype=None):
    if size is not None or dtype is not None:  # ``t.view(size=(2, 3))``, ``t.view(dtype=ember.int32)``, as PyTorch
        if shape or (size is not None and dtype is not None):
            raise TypeError("view() received an invalid combination of arguments: give one size or one dtype")
        return view(self, (size if size is not None else dtype,))
    if not shape:  # ``t.view()``: the size left out, not an empty size (that is ``t.view(())``)
        raise TypeError('view() missing 1 required positional arguments: "size"')
    return view(self, shape)


# ``t.view(2, 3)`` and ``t.view(ember.int32)``: one parameter that is either sizes (also as
# varargs) or a dtype, which the generated functions cannot express; the method is written here
# and calls the functor (its schema entry has ``method: false``). The face binds it with the others.
TENSOR_METHODS = {"view": _view_method}


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


class _NoView(RuntimeError):
    """No strides view the input with the requested shape (reshape then copies)."""


def _view_sizes(x, size):
    """``x.view(size)``; ``size`` is a tuple of ints (one may be -1)."""
    shape, stride = view_layout(x, size)
    if stride is None:
        raise _NoView(
            "view(): view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        )
    return x._view(shape, stride, x._offset)


_VIEW = view_op("view", _view_sizes, ("size",)).tag(shape_role="reshape", sbp=sbp_rules.shape.reshape)
_VIEW_DTYPE = view_op("view_dtype", _views._view_dtype, ("dtype",))
_VIEW.grad_rule(saves="none")(_reshape_grad)


@_VIEW_DTYPE.grad_rule(saves="none")
def _view_dtype_grad(ctx, g):
    old, new = ctx.input_meta[0][1], ctx.output_meta[0][1]
    if old is new:
        return (g,)
    raise RuntimeError(
        f"view(dtype) is not differentiable: viewing {old} as {new} reinterprets bits (as in PyTorch); "
        "detach() before the view, or use .to(dtype) to convert values"
    )


declare("view_as", "Tensor (Tensor input, Tensor other) => ViewAs", method=True, op="view", doc="input.view(other.shape).")
@functor("ViewAs")
def view_as(input, other):
    return view(input, other._shape)


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
    tf={"view": "Reshape", "reshape_copy": "Reshape"},
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


_RESHAPE_COPY = OpExpr("reshape_copy", ("input",), ("out",)).tag(shape_role="reshape", sbp=sbp_rules.shape.reshape)


@_RESHAPE_COPY.shape_rule
def _infer_reshape_copy(attrs, x):
    return ((attrs["size"], x._dtype),)


_RESHAPE_COPY.grad_rule(saves="none")(_reshape_grad)


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
    start = wrap_dim(start_dim, ndim, "flatten", "start_dim")  # a 0-d tensor's dims are 0 and -1 only
    end = wrap_dim(end_dim, ndim, "flatten", "end_dim")
    if ndim == 0:
        return reshape(input, (1,))
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
simple_view("Unflatten", "unflatten", _views.unflatten, ("dim", "sizes")).tag(shape_role="reshape", sbp=sbp_rules.shape.unflatten).grad_rule(saves="none")(_reshape_grad)


declare(
    "squeeze",
    "Tensor (Tensor input, IntList? dim=None) => Squeeze",
    method=True,
    doc="""
    Size-1 dimensions removed: all of them, or those among dim (an int or a tuple).

    >>> ember.zeros(1, 2, 1).squeeze((0, 2)).shape
    ember.Size([2])
    """,
    tf="Squeeze",
)
simple_view("Squeeze", "squeeze", _views.squeeze, ("dim",)).tag(shape_role="reshape", sbp=sbp_rules.shape.squeeze).grad_rule(saves="none")(_reshape_grad)


declare(
    "unsqueeze",
    "Tensor (Tensor input, Int dim) => Unsqueeze",
    method=True,
    doc="""
    A new size-1 dimension at position dim.

    >>> ember.zeros(2, 3).unsqueeze(-1).shape
    ember.Size([2, 3, 1])
    """,
    tf="ExpandDims",
)
UNSQUEEZE = simple_view("Unsqueeze", "unsqueeze", _views.unsqueeze, ("dim",)).tag(shape_role="reshape", sbp=sbp_rules.shape.unsqueeze)


UNSQUEEZE.grad_rule(saves="none")(_reshape_grad)


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
        return run_view(UNSQUEEZE, input, {"dim": axis[0]})[0]
    out_ndim = len(input._shape) + len(axis)
    dims = sorted(wrap_dim(d, out_ndim, "expand_dims", "axis") for d in axis)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"expand_dims(): repeated axis in {list(axis)}")
    for d in dims:
        input = run_view(UNSQUEEZE, input, {"dim": d})[0]
    return input


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
    tf="BroadcastTo",
)
simple_view("Expand", "expand", _views.expand, ("size",)).tag(shape_role="identity_if_same_shape", sbp=sbp_rules.shape.expand).grad_rule(saves="none")(_sum_to_grad)


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
simple_view("BroadcastTo", "broadcast_to", _views.broadcast_to, ("size",)).tag(shape_role="identity_if_same_shape", sbp=sbp_rules.shape.expand).grad_rule(saves="none")(_sum_to_grad)
