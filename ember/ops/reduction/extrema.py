"""Extrema and where they are: ``amax``, ``amin``, ``max``, ``min`` (whole, along a dim with
indices, or elementwise against a tensor), ``argmax``, ``argmin``.

They have no identity, so an empty reduction is an error, as in PyTorch; NaN propagates (and
is where the arg-reductions point). Indices are int64.

>>> import ember
>>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
>>> x.amax(0).tolist(), x.max(1).indices.tolist(), x.argmin().item()
([3.0, 5.0], [1, 0], 0)
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import check_dtype, functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import ORDERED, named_tuple, reduce_dims, reduced_shape, reduction_op, run, unreduce

declare = schema_family("reduction")


def _same(dtype, requested):
    return dtype


def _check_nonempty(op: str, x, dims: tuple, dim_given: bool) -> None:
    """max/min/amax/argmax have no identity: an empty reduction is an error, as PyTorch's."""
    if not dim_given or x.ndim == 0:
        if x.numel() == 0:
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in dims:
        if x._shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _extremum(op: OpExpr, name: str):
    def run_extremum(input, dim, keepdim, out=None):
        dims = reduce_dims(dim, input.ndim)
        _check_nonempty(name, input, dims, bool(dim))
        return run(op, input, {"dims": dims, "keepdim": keepdim}, out)

    return run_extremum


def _extremum_grad(ctx, g):
    """The gradient shared evenly among the elements equal to the extremum (ties split)."""
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    shape, dims, keepdim = x._shape, ctx.attrs["dims"], ctx.attrs["keepdim"]
    mask = (x == unreduce(out, shape, dims, keepdim)).to(g._dtype)
    count = mask.sum(dim=dims, keepdim=True) if dims else mask
    return (unreduce(g, shape, dims, keepdim) * mask / count,)


# --- amax, amin ----------------------------------------------------------------------------

AMAX = reduction_op("amax", ORDERED, _same).tag(sbp=sbp_rules.reduction.amax_rule)

declare(
    "amax",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => Amax",
    method=True, out=True,
    doc="""
    The maximum over ``dim`` (all when None or empty); NaN propagates.

    >>> ember.tensor([[1, 5], [4, 2]]).amax(-1).tolist()
    [5, 4]
    """,
    tf="Max",
)
functor("Amax")(_extremum(AMAX, "amax"))
AMAX.grad_rule(saves="both")(_extremum_grad)

AMIN = reduction_op("amin", ORDERED, _same).tag(sbp=sbp_rules.reduction.amin_rule)

declare(
    "amin",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => Amin",
    method=True, out=True,
    doc="The minimum over ``dim`` (all when None or empty); NaN propagates.",
    tf="Min",
)
functor("Amin")(_extremum(AMIN, "amin"))
AMIN.grad_rule(saves="both")(_extremum_grad)


# --- max, min: whole (amax/amin), along a dim with indices, or against a tensor ---------------

MaxResult = named_tuple("max", ("values", "indices"))
MinResult = named_tuple("min", ("values", "indices"))


def _dim_index(name: str) -> OpExpr:
    """max(input, dim) / min(input, dim): values and int64 indices."""
    op = OpExpr(name, ("input",), ("values", "indices"))

    @op.shape_rule
    def infer(attrs, x):
        check_dtype(name.split("_")[0], "input", x._dtype, ORDERED)
        shape = reduced_shape(x._shape, attrs["dims"], attrs["keepdim"])
        return ((shape, x._dtype), (shape, _dt.int64))

    return op


def _dim_extremum_grad(ctx, g, g_indices=None):
    """The gradient goes to the index each value came from."""
    (indices,) = ctx.outputs[1:]
    shape, dims, keepdim = ctx.input_meta[0][0], ctx.attrs["dims"], ctx.attrs["keepdim"]
    if not dims:
        return (g,)
    (d,) = dims
    g = unreduce(g, shape, dims, keepdim)
    indices = unreduce(indices, shape, dims, keepdim)
    F = _F()
    positions = F.arange(shape[d]).reshape((shape[d],) + (1,) * (len(shape) - d - 1))
    return (g * (positions == indices).to(g._dtype),)


MAX_DIM = _dim_index("max_dim").tag(sbp=sbp_rules.reduction.local_reduction_2)
MIN_DIM = _dim_index("min_dim").tag(sbp=sbp_rules.reduction.local_reduction_2)
MAX_DIM.grad_rule(saves=("indices",))(_dim_extremum_grad)
MIN_DIM.grad_rule(saves=("indices",))(_dim_extremum_grad)


def _full_extremum(op: OpExpr, name: str):
    def run_full(input):
        _check_nonempty(name, input, (), False)
        return dispatch(op, (input,), {"dims": tuple(range(input.ndim)), "keepdim": False})[0]

    return run_full


def _dim_extremum(op: OpExpr, name: str, result: type):
    def run_dim(input, dim, keepdim=False):
        d = wrap_dim(dim, input.ndim)
        dims = () if input.ndim == 0 else (d,)
        _check_nonempty(name, input, dims, True)
        values, indices = dispatch(op, (input,), {"dims": dims, "keepdim": keepdim})
        return result(values, indices)

    return run_dim


def _other_extremum(fn: str):
    def run_other(input, other):
        F = _F()
        return getattr(F, fn)(input, other)

    return run_other


declare(
    "max",
    [
        "Tensor (Tensor input) => Max",
        "Tensor (Tensor input, Tensor dim) => MaxOther",
        "(Tensor values, Tensor indices) (Tensor input, Int dim, Bool keepdim=False) => MaxDim",
    ],
    method=True, op=("amax", "max_dim"),
    doc="""
    The largest element; with ``dim``, ``(values, indices)`` along it; with a tensor, the
    elementwise maximum. NaN propagates.

    >>> x = ember.tensor([[1, 5], [4, 2]])
    >>> x.max().item(), x.max(1).values.tolist(), x.max(dim=0).indices.tolist()
    (5, [5, 4], [1, 0])
    """,
)
functor("Max")(_full_extremum(AMAX, "max"))
declare(
    "min",
    [
        "Tensor (Tensor input) => Min",
        "Tensor (Tensor input, Tensor dim) => MinOther",
        "(Tensor values, Tensor indices) (Tensor input, Int dim, Bool keepdim=False) => MinDim",
    ],
    method=True, op=("amin", "min_dim"),
    doc="""
    The smallest element; with ``dim``, ``(values, indices)`` along it; with a tensor, the
    elementwise minimum. NaN propagates.

    >>> ember.tensor([[1, 5], [4, 2]]).min(1).indices.tolist()
    [0, 1]
    """,
)
functor("Min")(_full_extremum(AMIN, "min"))
functor("MaxDim")(_dim_extremum(MAX_DIM, "max", MaxResult))
functor("MinDim")(_dim_extremum(MIN_DIM, "min", MinResult))
functor("MaxOther")(_other_extremum("maximum"))
functor("MinOther")(_other_extremum("minimum"))


# --- argmax, argmin: int64 indices, no derivative --------------------------------------------


def _arg_reduction(name: str) -> OpExpr:
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        if x._dtype is _dt.bool_:
            raise RuntimeError(f"{name}(): does not support bool input")
        if x._dtype.is_complex:
            raise RuntimeError(f"{name}(): does not support complex input")
        check_dtype(name, "input", x._dtype, ORDERED)
        dims = attrs["dims"]
        if dims is None:  # the flattened input
            shape = (1,) * x.ndim if attrs["keepdim"] else ()
        else:
            shape = reduced_shape(x._shape, dims, attrs["keepdim"])
        return ((shape, _dt.int64),)

    return op


def _arg(op: OpExpr, name: str):
    def run_arg(input, dim=None, keepdim=False, out=None):
        if dim is None:
            if input.numel() == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            dims = None
        else:
            d = wrap_dim(dim, input.ndim)
            dims = () if input.ndim == 0 else (d,)
            if dims and input._shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return run(op, input, {"dims": dims, "keepdim": keepdim}, out)

    return run_arg


ARGMAX = _arg_reduction("argmax").tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "argmax",
    "Tensor (Tensor input, Int? dim=None, Bool keepdim=False) => Argmax",
    method=True, out=True, differentiable=False,
    doc="""
    Index (int64) of the first maximum along ``dim``, or in the flattened input.

    >>> ember.tensor([[1, 5], [4, 2]]).argmax().item()
    1
    """,
    tf="ArgMax",
)
functor("Argmax")(_arg(ARGMAX, "argmax"))

ARGMIN = _arg_reduction("argmin").tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "argmin",
    "Tensor (Tensor input, Int? dim=None, Bool keepdim=False) => Argmin",
    method=True, out=True, differentiable=False,
    doc="Index (int64) of the first minimum along ``dim``, or in the flattened input.",
    tf="ArgMin",
)
functor("Argmin")(_arg(ARGMIN, "argmin"))
