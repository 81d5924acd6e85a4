"""Copies that repeat the input: ``repeat`` (and ``tile``) tiles it along each dimension;
``repeat_interleave`` repeats each element (or slice) a given number of times, a size that may
depend on the data (the repeats are read on the host).

>>> import ember
>>> ember.tensor([1, 2]).repeat(2, 2).tolist()
[[1, 2, 1, 2], [1, 2, 1, 2]]
"""

from __future__ import annotations

import numpy as np

from ..._core.shape import check_size, wrap_dim
from ..._core.tensor import Tensor, tensor
from ..._core.tensor_numpy import from_numpy
from ...dispatch import OpExpr
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import in_shape, run
from .reshape import reshape

declare = schema_family("shape")

__all__: list[str] = []


declare(
    "repeat",
    "Tensor (Tensor input, IntList repeats) => Repeat",
    method=True,
    doc="""
    The tensor tiled repeats[i] times along each dim (len(repeats) >= ndim; new dims lead).

    >>> ember.tensor([1, 2]).repeat(2, 2).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """,
    tf="Tile",
)
@functor("Repeat")
def repeat(input, repeats):
    return run(_REPEAT, (input,), {"repeats": repeats})


_REPEAT = OpExpr("repeat", ("input",), ("out",))


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
    out = tuple(s * r for s, r in zip(shape, repeats, strict=True))
    check_size(out, "repeat", x._dtype.itemsize)
    return ((out, x._dtype),)


@_REPEAT.grad_rule(saves="none")
def _repeat_grad(ctx, g):
    shape = in_shape(ctx)
    repeats = ctx.attrs["repeats"]
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    split = tuple(v for r, s in zip(repeats, padded, strict=True) for v in (r, s))
    summed = g.reshape(split).sum(dim=tuple(range(0, 2 * len(repeats), 2))) if repeats else g
    return (summed.reshape(shape),)


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
    return run(_REPEAT, (input,), {"repeats": dims})


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
    return _repeat_interleave(input, tensor([repeats], device=input.device), dim, output_size)


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
    return run(_REPEAT_INTERLEAVE, (input, repeats), {"dim": d, "output_size": output_size})


_REPEAT_INTERLEAVE = OpExpr("repeat_interleave", ("input", "repeats"), ("out",))


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


@_REPEAT_INTERLEAVE.grad_rule(saves="inputs")
def _repeat_interleave_grad(ctx, g):
    _, repeats = ctx.inputs
    shape = in_shape(ctx)
    d = ctx.attrs["dim"]
    r = repeats._host_array().reshape(-1).astype(np.int64)
    index = np.repeat(np.arange(shape[d], dtype=np.int64), r[0] if r.size == 1 else r)
    zeros = _F().zeros(shape, dtype=g.dtype)
    return _F().index_add(zeros, d, from_numpy(index), g), None
