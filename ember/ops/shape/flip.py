"""Copies with the elements reordered: ``flip`` (``fliplr``, ``flipud``) and ``roll`` are
primitives with kernels; ``rot90`` is a composite of flip and transpose.

>>> import ember
>>> ember.roll(ember.tensor([1, 2, 3, 4]), 1).tolist()
[4, 1, 2, 3]
"""

from __future__ import annotations

from ..._core.shape import wrap_dim
from ...dispatch import OpExpr
from .. import sbp_rules
from ..common import functional as _F
from ..functor import FUNCTORS, functor
from ..schema import schema_family
from ._common import run

declare = schema_family("shape")

__all__: list[str] = []


def _flip_dims(dims, axis, ndim: int, op: str) -> tuple:
    if axis is not None:
        dims = axis
    if dims is None:  # the array API's flip(x) reverses every axis; an empty list reverses none, as torch's
        return tuple(range(ndim))
    wrapped = tuple(wrap_dim(d, ndim, op, "dims") for d in dims)
    if ndim == 0:
        return ()  # a 0-d tensor's dim 0 (or -1) is itself: reversing it changes nothing
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(
            f"{op}(): dims has duplicates, original flip dims size={len(wrapped)}, but unique flip dims size={len(set(wrapped))}"
        )
    return wrapped


declare(
    "flip",
    "Tensor (Tensor input, IntList dims, *, IntList? axis=None) => Flip",
    method=True,
    doc="""
    A copy with the order of elements reversed along dims (required, as in PyTorch: ``flip(x, ())``
    reverses nothing; the array API's ``ember.array_api.flip(x)`` reverses every dim). ``axis=``
    is the array API's spelling of dims.

    >>> ember.tensor([[1, 2], [3, 4]]).flip(0).tolist()
    [[3, 4], [1, 2]]
    >>> ember.flip(ember.tensor([[1, 2], [3, 4]]), axis=(0, 1)).tolist()
    [[4, 3], [2, 1]]
    """,
    tf="ReverseV2",
)
@functor("Flip")
def flip(input, dims, axis=None):
    return run(_FLIP, (input,), {"dims": _flip_dims(dims, axis, len(input._shape), "flip")})


_FLIP = OpExpr("flip", ("input",), ("out",)).tag(sbp=sbp_rules.shape.flip)


@_FLIP.shape_rule
def _infer_flip(attrs, x):
    return ((x._shape, x._dtype),)


@_FLIP.grad_rule(saves="none")
def _flip_grad(ctx, g):
    return (g.flip(ctx.attrs["dims"]),)


declare("fliplr", "Tensor (Tensor input) => Fliplr", method=True, op="flip", doc="flip along dim 1 (input at least 2-d).")
@functor("Fliplr")
def fliplr(input):
    if len(input._shape) < 2:
        raise RuntimeError("fliplr(): Input must be >= 2-d.")
    return run(_FLIP, (input,), {"dims": (1,)})


declare("flipud", "Tensor (Tensor input) => Flipud", method=True, op="flip", doc="flip along dim 0 (input at least 1-d).")
@functor("Flipud")
def flipud(input):
    if len(input._shape) < 1:
        raise RuntimeError("flipud(): Input must be >= 1-d.")
    return run(_FLIP, (input,), {"dims": (0,)})


declare(
    "roll",
    "Tensor (Tensor input, IntList shifts, IntList? dims=None, *, IntList? axis=None) => Roll",
    method=True,
    doc="""
    Elements shifted along dims (wrapping around); without dims, over the flattened tensor.

    >>> ember.roll(ember.tensor([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    """,
    tf="Roll",
)
@functor("Roll")
def roll(input, shifts, dims=None, axis=None):
    if axis is not None:
        dims = axis
    ndim = len(input._shape)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims: 0")
        return run(_ROLL, (input,), {"shifts": shifts, "dims": None})
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(wrap_dim(d, ndim, "roll", "dims") for d in dims)
    return run(_ROLL, (input,), {"shifts": shifts, "dims": dims})


_ROLL = OpExpr("roll", ("input",), ("out",)).tag(sbp=sbp_rules.shape.along("dims"))


@_ROLL.shape_rule
def _infer_roll(attrs, x):
    return ((x._shape, x._dtype),)


@_ROLL.grad_rule(saves="none")
def _roll_grad(ctx, g):
    return (_F().roll(g, tuple(-s for s in ctx.attrs["shifts"]), ctx.attrs["dims"]),)


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
        return FUNCTORS["Transpose"](run(_FLIP, (input,), {"dims": (b,)}), a, b)
    if k == 2:
        return run(_FLIP, (input,), {"dims": (a, b)})
    if k == 3:
        return FUNCTORS["Transpose"](run(_FLIP, (input,), {"dims": (a,)}), a, b)
    return run(_FLIP, (input,), {"dims": ()})  # a copy, as in PyTorch
