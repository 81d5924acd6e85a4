"""Views with the dimensions reordered: ``transpose`` (``swapaxes``), ``permute``, ``movedim``,
and the matrix spellings ``t``, ``T`` and ``mT``. Only the strides move; each derivative moves
the gradient's dimensions back.

>>> import ember
>>> ember.zeros(2, 3, 4).permute(2, 0, 1).shape
ember.Size([4, 2, 3])
"""

from __future__ import annotations

from ..._core import views as _views
from ..._core.shape import wrap_dim
from .. import sbp_rules
from ..common import functional as _F
from ..schema import schema_family
from ._common import in_shape
from .view_op import simple_view

declare = schema_family("shape")

__all__: list[str] = []


declare(
    "transpose",
    "Tensor (Tensor input, Int dim0, Int dim1) => Transpose",
    method=True, aliases=("swapdims",),
    doc="""
    Dimensions dim0 and dim1 swapped (a view).

    >>> ember.zeros(2, 3, 4).transpose(0, 2).shape
    ember.Size([4, 3, 2])
    """,
    tf="Transpose:transpose",
)
declare(
    "swapaxes",
    "Tensor (Tensor input, Int axis0, Int axis1) => Transpose",
    method=True, op="transpose",
    doc="""
    transpose under NumPy's name, with NumPy's argument names (a view).

    >>> ember.swapaxes(ember.zeros(2, 3, 4), axis0=0, axis1=2).shape
    ember.Size([4, 3, 2])
    """,
)
_TRANSPOSE = simple_view("Transpose", "transpose", _views.transpose, ("dim0", "dim1")).tag(shape_role="permute", sbp=sbp_rules.shape.transpose)


@_TRANSPOSE.grad_rule(saves="none")
def _transpose_grad(ctx, g):
    return (g.transpose(ctx.attrs["dim0"], ctx.attrs["dim1"]),)


declare(
    "permute",
    "Tensor (Tensor input, IntList dims) => Permute",
    method=True, aliases=("permute_dims",),
    doc="""
    Dimensions reordered (a view); the dims may also come as separate arguments.

    >>> ember.permute(ember.zeros(2, 3, 4), (2, 0, 1)).shape
    ember.Size([4, 2, 3])
    """,
    tf="Transpose:transpose",
)
_PERMUTE = simple_view("Permute", "permute", _views.permute, ("dims",)).tag(shape_role="permute", sbp=sbp_rules.shape.permute)


@_PERMUTE.grad_rule(saves="none")
def _permute_grad(ctx, g):
    ndim = len(in_shape(ctx))
    dims = [wrap_dim(d, ndim, "permute") for d in ctx.attrs["dims"]]
    inverse = [0] * ndim
    for i, d in enumerate(dims):
        inverse[d] = i
    return (g.permute(tuple(inverse)),)


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
_MOVEDIM = simple_view("Movedim", "movedim", _views.movedim, ("source", "destination")).tag(sbp=sbp_rules.shape.movedim)


@_MOVEDIM.grad_rule(saves="none")
def _movedim_grad(ctx, g):
    return (_F().movedim(g, ctx.attrs["destination"], ctx.attrs["source"]),)


declare(
    "t",
    "Tensor (Tensor input) => T2D",
    method=True,
    doc="The transpose of a matrix (0-d and 1-d tensors are returned as views of themselves).",
)
_T2D = simple_view("T2D", "t", _views.t).tag(shape_role="permute", sbp=sbp_rules.shape.t)


@_T2D.grad_rule(saves="none")
def _t_grad(ctx, g):
    return (g.t(),)


declare(
    "T",
    "Tensor (Tensor input) => T",
    method="property",
    doc="All dimensions reversed (Tensor.T); for more than 2 dims prefer permute or mT.",
)
_T = simple_view("T", "T", _views.T).tag(shape_role="permute", sbp=sbp_rules.shape.big_t)


@_T.grad_rule(saves="none")
def _T_grad(ctx, g):
    return (g.permute(tuple(range(g.ndim - 1, -1, -1))),)


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
_MT = simple_view("MatrixTranspose", "mT", _views.mT).tag(shape_role="permute", sbp=sbp_rules.shape.t)


@_MT.grad_rule(saves="none")
def _mT_grad(ctx, g):
    return (g.transpose(-2, -1),)
